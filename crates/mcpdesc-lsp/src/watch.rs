//! Reloading when rule files or `mcpdesc.toml` change: a spec author sees a rule edit take
//! effect in the open documents without restarting anything.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crossbeam_channel::{Receiver, Sender};
use notify::{RecommendedWatcher, RecursiveMode, Watcher as _};

/// Watches directories; every change of a file that can hold rules or configuration sends
/// one event.
pub(crate) struct Watch {
    watcher: Option<RecommendedWatcher>,
    watched: HashSet<PathBuf>,
    /// Keeps the channel open when no watcher could be made, so that the loop waiting on
    /// it does not see it closed.
    _sender: Sender<()>,
}

/// Whether a changed file can affect the rules or the configuration.
fn relevant(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name == mcpdesc_project::config::FILE_NAME
        || [".yaml", ".yml", ".json"].iter().any(|e| name.ends_with(e))
}

impl Watch {
    pub(crate) fn new() -> (Watch, Receiver<()>) {
        let (tx, rx): (Sender<()>, Receiver<()>) = crossbeam_channel::unbounded();
        let sender = tx.clone();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            let Ok(event) = event else { return };
            if event.kind.is_access() {
                return;
            }
            if event.paths.iter().any(|p| relevant(p)) {
                let _ = tx.send(());
            }
        })
        .ok();
        (
            Watch {
                watcher,
                watched: HashSet::new(),
                _sender: sender,
            },
            rx,
        )
    }

    /// Watches each directory not yet watched (rule directories with their subdirectories).
    pub(crate) fn watch_all(&mut self, dirs: &[PathBuf]) {
        let Some(w) = &mut self.watcher else { return };
        for dir in dirs {
            if self.watched.contains(dir) || !dir.is_dir() {
                continue;
            }
            if w.watch(dir, RecursiveMode::Recursive).is_ok() {
                self.watched.insert(dir.clone());
            }
        }
    }
}
