//! The tool's allocator and when it returns freed memory to the system.
//!
//! The benchmarks and the measuring commands of the workspace's task runner include this file,
//! so that their figures are the tool's.

use tikv_jemalloc_ctl::{Access, AsName};

// Validation allocates many small, short-lived values; glibc's allocator spent a third of a
// large document's time consolidating its fragmented heap.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Documents from this size on are large enough for the policy to matter.
const LARGE_DOCUMENT_BYTES: u64 = 1 << 20;

/// Call before reading a document of `len` bytes: from the first document of at least 1 MiB
/// on, freed memory is returned to the system at once (see [`return_freed_memory_at_once`]).
///
/// Small documents leave the allocator's default in place. Returning pages at once costs an
/// `madvise` and a TLB shootdown on every core for each page freed, and a process that only
/// validates small documents mostly frees what compiling the catalogue left (on a worker,
/// while the first document is validated), for no gain in peak: paired runs of `validate
/// small.json` took 0.76–0.91 times the CPU time without the switch. Switching before the
/// large document's buffer is allocated lets what the catalogue left free be given back first.
pub(crate) fn prepare_for_document(len: u64) {
    static SWITCHED: std::sync::Once = std::sync::Once::new();
    if len >= LARGE_DOCUMENT_BYTES {
        SWITCHED.call_once(return_freed_memory_at_once);
    }
}

/// From now on, memory freed is returned to the system at once.
///
/// Called for the first large document (see [`prepare_for_document`]), and by a long-running
/// process once its catalogue is compiled. A validation run frees
/// its large buffers (a document's node arrays as they grow, compiled schemas, working sets)
/// on one thread while another allocates: pages kept for reuse were then counted on top of
/// the new ones, and returning them at once lowered the peak of `validate large.json` from 53
/// to 45 MiB at no measurable cost in time. Compiling the catalogue is the opposite case:
/// thousands of short-lived parse trees and regex-compiler tables of the same few sizes,
/// whose pages are better reused than given back and faulted in again; so the allocator keeps
/// its default until then.
pub(crate) fn return_freed_memory_at_once() {
    // Arenas created later take the defaults; the existing ones are set one by one (writing
    // to an arena that was never initialised fails, and is ignored).
    for name in ["arenas.dirty_decay_ms", "arenas.muzzy_decay_ms"] {
        let _ = format!("{name}\0").as_str().name().write(0isize);
    }
    let arenas: u32 = b"arenas.narenas\0".name().read().unwrap_or(0);
    for i in 0..arenas {
        for kind in ["dirty", "muzzy"] {
            let _ = format!("arena.{i}.{kind}_decay_ms\0")
                .as_str()
                .name()
                .write(0isize);
        }
    }
}

#[cfg(test)]
mod tests {
    // One test, so that nothing else in this process switches the policy in between. (The
    // benchmarks include this file too, where a test's helpers outside it would be unused.)
    #[test]
    fn the_first_large_document_switches_every_arena() {
        use tikv_jemalloc_ctl::{Access, AsName};
        let read = |name: &str| -> isize { format!("{name}\0").as_str().name().read().unwrap() };
        // The `kind` decay time of every initialised arena (arenas never initialised cannot
        // be read).
        let arena_decays = |kind: &str| -> Vec<isize> {
            let arenas: u32 = b"arenas.narenas\0".name().read().unwrap();
            (0..arenas)
                .map(|i| format!("arena.{i}.{kind}_decay_ms\0"))
                .filter_map(|name| name.as_str().name().read().ok())
                .collect()
        };
        // An arena of this thread's own, in use before the switch.
        let kept: Vec<u8> = vec![1; 1 << 20];
        super::prepare_for_document(super::LARGE_DOCUMENT_BYTES - 1);
        // jemalloc's default keeps freed pages a while (its muzzy stage is off already).
        assert!(read("arenas.dirty_decay_ms") > 0);
        let before = arena_decays("dirty");
        assert!(
            !before.is_empty() && before.iter().all(|&ms| ms > 0),
            "{before:?}"
        );

        super::prepare_for_document(super::LARGE_DOCUMENT_BYTES);
        assert_eq!(read("arenas.dirty_decay_ms"), 0);
        assert_eq!(read("arenas.muzzy_decay_ms"), 0);
        for kind in ["dirty", "muzzy"] {
            let after = arena_decays(kind);
            assert!(
                !after.is_empty() && after.iter().all(|&ms| ms == 0),
                "{kind}: {after:?}"
            );
        }
        drop(kept);
    }
}
