//! The language server of `mcpdesc server`: the Language Server Protocol over standard input
//! and output, checking each open document as `mcpdesc validate` would.
//!
//! One thread reads messages (`transport`, with a ceiling), this module's loop answers them,
//! and one worker validates. The loop never validates: it keeps each open document's text,
//! hands the worker the newest version once edits pause, and publishes what comes back
//! when it is still current. Hovers, code actions and references are answered from the
//! last checked version, so they never wait for a validation.

mod actions;
mod diagnostics;
mod edits;
mod hover;
mod links;
mod locate;
mod references;
mod settings;
mod text;
mod transport;
mod watch;
mod worker;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{select, Receiver, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as notif, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, HoverProviderCapability,
    InitializeParams, MessageType, OneOf, PositionEncodingKind, PublishDiagnosticsParams,
    ServerCapabilities, ServerInfo, ShowMessageParams, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, Uri,
};
use serde_json::Value;

use mcpdesc_core::Limits;
use mcpdesc_project::config::{self, Config, ConfigError};
use mcpdesc_project::engine::EngineError;
use mcpdesc_project::safe;
use settings::{EditorOptions, StartupOptions};
use text::Text;
use worker::{CheckJob, Checked, Job, RuleError};

/// How the server is started: the settings of its command line.
#[derive(Debug, Clone)]
pub struct Options {
    /// Rules directories; the embedded catalogue when empty.
    pub rules: Vec<PathBuf>,
    /// House-rule directories applied on top of every release, as `--extend-rules`.
    pub extend_rules: Vec<PathBuf>,
    /// The specification version whose release judges every document.
    pub spec_version: Option<String>,
    /// One configuration file for every document instead of discovering `mcpdesc.toml`.
    pub config: Option<PathBuf>,
    /// Ignore every `mcpdesc.toml`.
    pub no_config: bool,
    /// How long at most an edit in a burst waits for the burst to pause before the document
    /// is checked again (never longer than the document's last check took); the editor's
    /// `debounceMs` wins.
    pub debounce: Duration,
    /// Bounds on the documents read, as the command line's `--max-*` flags set them.
    pub limits: Limits,
    /// Called once the rules are known to load, before the editor is answered. The binary
    /// owns the global allocator, so it passes the switch that makes it return freed memory
    /// at once: what each check of a large document frees then goes back to the system
    /// rather than adding to the next check's peak.
    pub on_start: Option<fn()>,
}

/// Why the server stopped without the editor asking it to.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The configuration file named with `--config` cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The rules named on the command line do not load.
    #[error(transparent)]
    Rules(#[from] EngineError),
    /// The server's capabilities could not be written as JSON.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The `initialize` handshake with the editor failed.
    #[error("answering `initialize`")]
    Initialize(#[source] lsp_server::ProtocolError),
    /// The thread that validates documents stopped unexpectedly.
    #[error("the validation thread stopped")]
    WorkerStopped,
    /// Reading from or writing to the editor failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Runs the server until the client asks it to exit; the process's exit code: 0 after
/// `shutdown`, else 1.
pub fn run(options: Options) -> Result<ExitCode, ServerError> {
    let explicit = match &options.config {
        Some(path) => Some(Arc::new(Config::load(path)?)),
        None => None,
    };
    // Fail before talking to the editor when the command line's own rules are broken.
    mcpdesc_project::engine::load_extended(
        &options.rules,
        &options.extend_rules,
        options.spec_version.as_deref(),
    )?;
    if let Some(on_start) = options.on_start {
        on_start();
    }

    let limits = options.limits.clone();
    let limit = usize::try_from(limits.max_input_bytes).unwrap_or(usize::MAX);
    let (connection, io_threads) = transport::stdio(limit);
    let capabilities = serde_json::to_value(capabilities())?;
    let Some((id, params)) = wait_for_initialize(&connection) else {
        // `exit` (or the end of the input) before `initialize`: not a shutdown.
        drop(connection);
        let _ = io_threads.join();
        return Ok(ExitCode::from(1));
    };
    let result = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": ServerInfo {
            name: "mcpdesc".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        },
    });
    connection
        .initialize_finish(id, result)
        .map_err(ServerError::Initialize)?;

    let (editor, option_problems) = EditorOptions::read(params.initialization_options.as_ref());
    if !option_problems.is_empty() {
        let _ = connection.sender.send(
            Notification::new(
                notif::ShowMessage::METHOD.to_owned(),
                ShowMessageParams {
                    typ: MessageType::WARNING,
                    message: format!(
                        "mcpdesc: initialization options ignored: {}",
                        option_problems.join("; ")
                    ),
                },
            )
            .into(),
        );
    }
    let root = workspace_root(&params);
    let debounce = editor
        .debounce_ms
        .map_or(options.debounce, Duration::from_millis);
    let startup = Arc::new(StartupOptions {
        rules: options.rules.iter().map(|d| config::absolute(d)).collect(),
        extend_rules: (options.extend_rules.iter())
            .map(|d| config::absolute(d))
            .collect(),
        spec_version: options.spec_version.clone(),
        config: explicit,
        no_config: options.no_config,
        root,
        limits,
        debounce,
        editor,
    });

    let (jobs_tx, jobs_rx) = crossbeam_channel::unbounded();
    let (results_tx, results_rx) = crossbeam_channel::unbounded();
    let worker = worker::spawn(startup.clone(), jobs_rx, results_tx);
    let (watch, watch_events) = watch::Watch::new();
    let mut server = Server {
        sender: connection.sender.clone(),
        startup,
        docs: HashMap::new(),
        jobs: jobs_tx,
        watch,
        reload_at: None,
        shown_errors: HashSet::new(),
        shown_warnings: HashSet::new(),
        rule_file_diagnostics: HashSet::new(),
    };
    let code = server.main_loop(&connection, &results_rx, &watch_events)?;
    drop(server);
    let _ = worker.join();
    drop(connection);
    io_threads.join()?;
    Ok(code)
}

/// Waits for `initialize`, answering other requests with `ServerNotInitialized` and dropping
/// notifications, as the protocol asks; `None` on `exit` or at the end of the input.
fn wait_for_initialize(
    connection: &Connection,
) -> Option<(lsp_server::RequestId, InitializeParams)> {
    for msg in &connection.receiver {
        match msg {
            Message::Request(r) if r.method == req::Initialize::METHOD => {
                match serde_json::from_value::<InitializeParams>(r.params) {
                    Ok(params) => return Some((r.id, params)),
                    Err(e) => {
                        let _ = connection.sender.send(
                            Response::new_err(
                                r.id,
                                ErrorCode::InvalidParams as i32,
                                format!("`initialize` parameters: {e}"),
                            )
                            .into(),
                        );
                    }
                }
            }
            Message::Request(r) => {
                let _ = connection.sender.send(
                    Response::new_err(
                        r.id,
                        ErrorCode::ServerNotInitialized as i32,
                        format!("`{}` before `initialize`", r.method),
                    )
                    .into(),
                );
            }
            Message::Notification(n) if n.method == notif::Exit::METHOD => return None,
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
    None
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

#[allow(deprecated)]
fn workspace_root(params: &InitializeParams) -> Option<PathBuf> {
    let uri = params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| f.uri.clone())
        .or_else(|| params.root_uri.clone())?;
    path_of(&uri)
}

/// The file a `file:` URI names.
pub(crate) fn path_of(uri: &Uri) -> Option<PathBuf> {
    url::Url::parse(uri.as_str()).ok()?.to_file_path().ok()
}

/// An open document.
struct Open {
    version: i32,
    text: Arc<Text>,
    path: Option<PathBuf>,
    name: String,
    last_edit: Option<Instant>,
    /// When the current text is to be handed to the worker.
    due: Option<Instant>,
    /// The last version checked and published.
    checked: Option<Checked>,
}

struct Server {
    sender: Sender<Message>,
    startup: Arc<StartupOptions>,
    docs: HashMap<Uri, Open>,
    jobs: Sender<Job>,
    watch: watch::Watch,
    reload_at: Option<Instant>,
    /// Rule-loading errors already shown as messages.
    shown_errors: HashSet<String>,
    /// Warnings about the settings already shown, each once a session.
    shown_warnings: HashSet<String>,
    /// Rule files that carry diagnostics of a failed load.
    rule_file_diagnostics: HashSet<Uri>,
}

/// How long file events must pause before the rules are reloaded: saving a file can be
/// several events.
const RELOAD_DELAY: Duration = Duration::from_millis(100);

impl Server {
    /// Answers the editor until `exit`; the process's exit code: 0 after `shutdown`, else 1.
    fn main_loop(
        &mut self,
        connection: &Connection,
        results: &Receiver<Checked>,
        watch_events: &Receiver<()>,
    ) -> Result<ExitCode, ServerError> {
        let mut shut_down = false;
        let exit = |shut_down: bool| Ok(ExitCode::from(if shut_down { 0 } else { 1 }));
        loop {
            let deadline = self
                .docs
                .values()
                .filter_map(|d| d.due)
                .chain(self.reload_at)
                .min();
            let timer = match deadline {
                Some(at) => crossbeam_channel::at(at),
                None => crossbeam_channel::never(),
            };
            select! {
                recv(connection.receiver) -> msg => {
                    let Ok(msg) = msg else { return exit(shut_down) };
                    match msg {
                        Message::Notification(n) if n.method == notif::Exit::METHOD => {
                            return exit(shut_down);
                        }
                        // After `shutdown`, requests are refused and notifications dropped.
                        Message::Request(r) if shut_down => self.send(Response::new_err(
                            r.id,
                            ErrorCode::InvalidRequest as i32,
                            format!("`{}` after `shutdown`", r.method),
                        )),
                        Message::Notification(_) if shut_down => {}
                        Message::Request(r) if r.method == req::Shutdown::METHOD => {
                            shut_down = true;
                            self.send(Response::new_ok(r.id, Value::Null));
                        }
                        Message::Request(r) => self.on_request(r),
                        Message::Notification(n) => self.on_notification(n),
                        Message::Response(_) => {}
                    }
                }
                recv(results) -> checked => match checked {
                    Ok(checked) => self.on_checked(checked),
                    Err(_) => return Err(ServerError::WorkerStopped),
                },
                recv(watch_events) -> _ => {
                    self.reload_at = Some(Instant::now() + RELOAD_DELAY);
                }
                recv(timer) -> _ => {}
            }
            self.dispatch();
        }
    }

    /// Hands the worker every document whose pause is over, and reloads when due.
    fn dispatch(&mut self) {
        let now = Instant::now();
        if self.reload_at.is_some_and(|at| at <= now) {
            self.reload_at = None;
            let _ = self.jobs.send(Job::Reload);
            for doc in self.docs.values_mut() {
                doc.due = Some(now);
            }
        }
        for (uri, doc) in &mut self.docs {
            if doc.due.is_some_and(|at| at <= now) {
                doc.due = None;
                let _ = self.jobs.send(Job::Check(CheckJob {
                    uri: uri.clone(),
                    version: doc.version,
                    text: doc.text.clone(),
                    path: doc.path.clone(),
                    name: doc.name.clone(),
                }));
            }
        }
    }

    fn send(&self, msg: impl Into<Message>) {
        let _ = self.sender.send(msg.into());
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_owned(), params));
    }

    fn on_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            notif::DidOpenTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                else {
                    return;
                };
                let doc = p.text_document;
                let path = path_of(&doc.uri);
                let name = document_name(&doc.uri, path.as_deref(), &doc.language_id);
                self.docs.insert(
                    doc.uri,
                    Open {
                        version: doc.version,
                        text: Arc::new(Text::new(doc.text)),
                        path,
                        name,
                        last_edit: None,
                        due: Some(Instant::now()),
                        checked: None,
                    },
                );
            }
            notif::DidChangeTextDocument::METHOD => {
                let uri = n.params["textDocument"]["uri"].as_str().map(str::to_owned);
                let p = match serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(
                    n.params,
                ) {
                    Ok(p) => p,
                    Err(e) => return self.lost_edit(uri, &e.to_string()),
                };
                let debounce = self.startup.debounce;
                let Some(doc) = self.docs.get_mut(&p.text_document.uri) else {
                    return;
                };
                let mut text = Arc::unwrap_or_clone(std::mem::replace(
                    &mut doc.text,
                    Arc::new(Text::new(String::new())),
                ));
                for change in p.content_changes {
                    text.apply(change);
                }
                doc.text = Arc::new(text);
                doc.version = p.text_document.version;
                let now = Instant::now();
                // An edit after a pause is checked at once. One in a burst waits for the
                // burst to pause, but no longer than the document's last check took: a
                // small document is checked about as often as it can be, a large one
                // once per pause.
                let in_burst = doc.last_edit.is_some_and(|t| now - t < debounce);
                let wait = doc
                    .checked
                    .as_ref()
                    .map_or(debounce, |c| c.cost.min(debounce));
                doc.due = Some(if in_burst { now + wait } else { now });
                doc.last_edit = Some(now);
            }
            notif::DidCloseTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                else {
                    return;
                };
                self.docs.remove(&p.text_document.uri);
                self.publish(p.text_document.uri, Vec::new(), None);
            }
            notif::DidChangeWatchedFiles::METHOD | notif::DidChangeConfiguration::METHOD => {
                self.reload_at = Some(Instant::now() + RELOAD_DELAY);
            }
            _ => {}
        }
    }

    /// An edit that cannot be read or applied: the server's text no longer matches the
    /// editor's, so the document's findings are withdrawn (they would point at text the author
    /// does not see) and the document is dropped until the editor opens it again.
    fn lost_edit(&mut self, uri: Option<String>, why: &str) {
        let Some(uri) = uri.and_then(|u| u.parse::<Uri>().ok()) else {
            return;
        };
        if self.docs.remove(&uri).is_none() {
            return;
        }
        self.publish(uri.clone(), Vec::new(), None);
        self.notify::<notif::ShowMessage>(ShowMessageParams {
            typ: MessageType::ERROR,
            message: format!(
                "mcpdesc: an edit of {} could not be applied ({}); its findings are withdrawn until the file is opened again",
                safe::escape(uri.as_str()),
                safe::escape(why)
            ),
        });
    }

    fn on_request(&mut self, r: Request) {
        let id = r.id.clone();
        let result = match r.method.as_str() {
            req::HoverRequest::METHOD => self.answer(r, hover::hover),
            req::CodeActionRequest::METHOD => self.answer(r, actions::code_actions),
            req::GotoDefinition::METHOD => self.answer(r, references::definition),
            req::References::METHOD => self.answer(r, references::references),
            _ => {
                self.send(Response::new_err(
                    id,
                    ErrorCode::MethodNotFound as i32,
                    format!("unknown request `{}`", r.method),
                ));
                return;
            }
        };
        match result {
            Ok(value) => self.send(Response::new_ok(id, value)),
            Err(message) => self.send(Response::new_err(
                id,
                ErrorCode::InvalidParams as i32,
                message,
            )),
        }
    }

    /// Answers a request about one document from its last checked version.
    fn answer<P, R>(&self, r: Request, f: impl Fn(&Checked, P) -> R) -> Result<Value, String>
    where
        P: serde::de::DeserializeOwned + DocumentParams,
        R: serde::Serialize,
    {
        let method = r.method;
        let params: P = serde_json::from_value(r.params).map_err(|e| e.to_string())?;
        let Some((doc, checked)) = self
            .docs
            .get(params.uri())
            .and_then(|d| Some((d, d.checked.as_ref()?)))
        else {
            return Ok(Value::Null);
        };
        // Edits are computed against the checked text; the editor asks again once the
        // newest text has been checked.
        if doc.version != checked.version && method == req::CodeActionRequest::METHOD {
            return Ok(Value::Array(Vec::new()));
        }
        serde_json::to_value(f(checked, params)).map_err(|e| e.to_string())
    }

    fn on_checked(&mut self, checked: Checked) {
        self.watch.watch_all(&checked.watch);
        let Some(doc) = self.docs.get_mut(&checked.uri) else {
            return;
        };
        if checked.version != doc.version {
            return;
        }
        let uri = checked.uri.clone();
        let version = checked.version;
        let diagnostics = diagnostics::for_checked(&checked);
        let rule_error = checked.rule_error.clone();
        let warnings = checked.warnings.clone();
        let previous = doc.checked.replace(checked);
        self.publish(uri, diagnostics, Some(version));
        // Freeing a large document takes milliseconds that requests should not wait for.
        if let Some(previous) = previous {
            std::thread::spawn(move || drop(previous));
        }
        self.show_rule_error(rule_error.as_ref());
        for w in warnings.iter() {
            if self.shown_warnings.insert(w.clone()) {
                self.notify::<notif::ShowMessage>(ShowMessageParams {
                    typ: MessageType::WARNING,
                    message: format!("mcpdesc: {}", safe::escape(w)),
                });
            }
        }
    }

    /// Reports a rule-loading failure once, and on the rule files at their positions.
    fn show_rule_error(&mut self, error: Option<&RuleError>) {
        let current: HashMap<Uri, Vec<lsp_types::Diagnostic>> = error
            .map(diagnostics::for_rule_problems)
            .unwrap_or_default();
        if let Some(e) = error {
            if self.shown_errors.insert(e.message.clone()) {
                self.notify::<notif::ShowMessage>(ShowMessageParams {
                    typ: MessageType::ERROR,
                    message: format!("mcpdesc: {}", safe::escape_multiline(&e.message)),
                });
            }
        } else {
            self.shown_errors.clear();
        }
        let stale: Vec<Uri> = self
            .rule_file_diagnostics
            .iter()
            .filter(|u| !current.contains_key(*u))
            .cloned()
            .collect();
        for uri in stale {
            self.rule_file_diagnostics.remove(&uri);
            self.publish(uri, Vec::new(), None);
        }
        for (uri, diags) in current {
            self.rule_file_diagnostics.insert(uri.clone());
            self.publish(uri, diags, None);
        }
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        self.notify::<notif::PublishDiagnostics>(PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        });
    }
}

/// The name whose extension chooses how a document is read: its file name, or for an
/// unsaved buffer one made from the editor's language id.
fn document_name(uri: &Uri, path: Option<&std::path::Path>, language_id: &str) -> String {
    if let Some(p) = path {
        return p.to_string_lossy().into_owned();
    }
    let tail = uri.as_str().rsplit('/').next().unwrap_or_default();
    if tail.contains('.') {
        return tail.to_owned();
    }
    match language_id {
        "yaml" => "untitled.yaml".into(),
        _ => "untitled.json".into(),
    }
}

/// Requests about one document.
pub(crate) trait DocumentParams {
    fn uri(&self) -> &Uri;
}

impl DocumentParams for lsp_types::HoverParams {
    fn uri(&self) -> &Uri {
        &self.text_document_position_params.text_document.uri
    }
}

impl DocumentParams for lsp_types::CodeActionParams {
    fn uri(&self) -> &Uri {
        &self.text_document.uri
    }
}

impl DocumentParams for lsp_types::GotoDefinitionParams {
    fn uri(&self) -> &Uri {
        &self.text_document_position_params.text_document.uri
    }
}

impl DocumentParams for lsp_types::ReferenceParams {
    fn uri(&self) -> &Uri {
        &self.text_document_position.text_document.uri
    }
}
