//! The traffic document kind: a capture of JSON-RPC messages, annotated so that rules can
//! select messages by kind, method and direction and judge each in its protocol version.
//!
//! The document crate reads the framing (`Format::Capture`): `{"messages": [{"line", "dir",
//! "msg"} | {"line", "framing", ...}]}`. [`annotate()`] then adds to every entry what only the
//! sequence tells:
//!
//! | member | for | value |
//! |---|---|---|
//! | `kind` | every entry | `request`, `notification`, `result`, `error`, `framing` or `unknown` |
//! | `method` | requests, notifications, and responses answering a known request | the method |
//! | `dir` | responses whose request's direction is known | the reverse of the request's |
//! | `protocolVersions` | every message | the one version it is in, or `[]` when unknown |
//! | `request` | responses | a copy of the request they answer |
//! | `answered` | requests | whether a response to it follows in the capture |
//! | `idInFlight` | requests | `true` when an earlier request of the same direction with the same id is still unanswered |
//! | `batchMixed` | the first message of a JSON-RPC batch | `true` when the batch holds both requests or notifications and responses |
//! | `requestedVersion` | requests | the version it declares for itself, when the catalogue does not know it (the request is then undated) |
//! | `versionNotOffered` | requests | `true` when it declares a version the server's latest list of versions served leaves out |
//! | `answersUnknownVersion`, `answersUnofferedVersion` | responses other than the refusal | the version of the request answered, when the server cannot serve it |
//!
//! JSON-RPC 2.0 is the only protocol known here; which member holds a message's protocol
//! version, and which handshake negotiates one, come from the catalogue's `traffic` section.

mod annotate;

pub use annotate::annotate;

use crate::path::JsonPath;
use crate::relpath::RelPath;
use crate::rules::file::TrafficDef;

use crate::eval::scope::ScopeConfig;

/// The kinds of document the engine validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DocumentKind {
    /// An MCP Description document (JSON or YAML).
    Description,
    /// A capture of MCP JSON-RPC traffic.
    Traffic,
}

impl DocumentKind {
    /// The kind of a document read as `format`: a capture is traffic, every other format a
    /// description.
    pub fn of(format: crate::document::Format) -> DocumentKind {
        match format {
            crate::document::Format::Capture => DocumentKind::Traffic,
            _ => DocumentKind::Description,
        }
    }

    /// The kind's name, as reports and rule listings write it (`description`, `traffic`).
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Description => "description",
            DocumentKind::Traffic => "traffic",
        }
    }
}

/// The member of a traffic entry listing the protocol version it is in (the scope model of
/// the traffic kind: each entry is a declaration).
pub const SCOPE_MEMBER: &str = "protocolVersions";

/// The compiled `traffic` section of the catalogue.
#[derive(Debug, Clone, Default)]
pub struct TrafficConfig {
    /// Where a request or notification names its own protocol version (`message-version`).
    pub message_version: Option<MessagePath>,
    /// The handshake that negotiates a version for the messages after it (`handshake`).
    pub handshake: Option<Handshake>,
    /// How a request's own version is settled by the answer to it (`negotiation`).
    pub negotiation: Option<Negotiation>,
    /// The protocol versions the catalogue knows, oldest first.
    pub known: Vec<String>,
}

/// How a version is refused, and where the versions a server serves are listed.
#[derive(Debug, Clone)]
pub struct Negotiation {
    /// The JSON-RPC error code of a refusal to serve the requested version.
    pub unsupported_code: i64,
    /// In the refusal: the versions served.
    pub unsupported_supported: MessagePath,
    /// (method, path of the versions served in its result).
    pub offers: Vec<(String, MessagePath)>,
}

/// The request that negotiates a protocol version, and where the version is asked and answered.
#[derive(Debug, Clone)]
pub struct Handshake {
    /// The method of the handshake request (`initialize`).
    pub method: String,
    /// Where the request names the version it asks for.
    pub requested: MessagePath,
    /// Where the response names the version agreed.
    pub negotiated: MessagePath,
}

/// A relative path read from a message, with the message as the node and the root.
#[derive(Debug, Clone)]
pub struct MessagePath {
    /// The path as compiled.
    pub path: RelPath,
    /// For a singular path that starts at the message (`@…` or `$…`), its reference tokens:
    /// the annotation reads such a path by following them, without evaluating the path.
    pub(crate) tokens: Option<Vec<String>>,
}

impl MessagePath {
    /// Compiles a relative path as the catalogue's `traffic` section writes it.
    pub fn compile(text: &str) -> Result<MessagePath, crate::path::PathError> {
        let path = RelPath::compile(text)?;
        let tokens = text
            .strip_prefix('@')
            .or_else(|| text.strip_prefix('$'))
            .and_then(|rest| JsonPath::compile(&format!("${rest}")).ok())
            .and_then(|q| q.singular_tokens().map(<[String]>::to_vec));
        Ok(MessagePath { path, tokens })
    }
}

impl TrafficConfig {
    /// Compiles the section; errors name the member (a JSON Pointer below `traffic`).
    pub fn compile(def: &TrafficDef) -> Result<TrafficConfig, (String, String)> {
        let rel = |text: &str, at: &str| {
            MessagePath::compile(text).map_err(|e| (at.to_owned(), e.to_string()))
        };
        Ok(TrafficConfig {
            message_version: def
                .message_version
                .as_deref()
                .map(|t| rel(t, "/message-version"))
                .transpose()?,
            handshake: def
                .handshake
                .as_ref()
                .map(|h| {
                    Ok::<_, (String, String)>(Handshake {
                        method: h.method.clone(),
                        requested: rel(&h.requested, "/handshake/requested")?,
                        negotiated: rel(&h.negotiated, "/handshake/negotiated")?,
                    })
                })
                .transpose()?,
            negotiation: def
                .negotiation
                .as_ref()
                .map(|n| {
                    Ok::<_, (String, String)>(Negotiation {
                        unsupported_code: n.unsupported.code,
                        unsupported_supported: rel(
                            &n.unsupported.supported,
                            "/negotiation/unsupported/supported",
                        )?,
                        offers: n
                            .offers
                            .iter()
                            .enumerate()
                            .map(|(i, o)| {
                                Ok((
                                    o.method.clone(),
                                    rel(
                                        &o.supported,
                                        &format!("/negotiation/offers/{i}/supported"),
                                    )?,
                                ))
                            })
                            .collect::<Result<_, (String, String)>>()?,
                    })
                })
                .transpose()?,
            known: Vec::new(),
        })
    }
}

/// The scope model of traffic documents: every entry declares its own version.
pub fn scope_config() -> ScopeConfig {
    ScopeConfig {
        root: JsonPath::compile(&format!("$.{SCOPE_MEMBER}")).expect("valid"),
        member: SCOPE_MEMBER.to_owned(),
        declarations: vec![
            JsonPath::compile(&format!("$.{}[*]", crate::document::MESSAGES)).expect("valid"),
        ],
    }
}
