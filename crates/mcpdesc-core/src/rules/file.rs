//! The rule-file format as written on disk: serde types, also the source of the rule-file
//! JSON Schema. Compilation into the typed IR happens in `compile`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::document::{Kind, ValueRef};

pub use super::file_pages::{FrontMatter, PageSection, PagesDef, SourceLinksDef};

/// One YAML file under the rules directory: the catalogue, rules, or both.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RuleFile {
    /// The release this directory holds: a whole catalogue, or a release that extends
    /// another. Exactly one file of a release's directory carries it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalogue: Option<CatalogueBlock>,
    /// Surfaces this file defines: where each MCP surface occurs in every document kind.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub surfaces: BTreeMap<String, SurfaceDef>,
    /// The rules this file defines (in a release that extends another: rules it adds).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleDef>,
    /// In a release that extends another: rules that replace the base's rule of the same id.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replace: Vec<ReplaceDef>,
    /// In a release that extends another: rules of the base this release no longer has.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retire: Vec<RetireDef>,
    /// In a release that extends another: new applicability tables for rules of the base.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub applicability: Vec<ApplicabilityChange>,
    /// In a release that extends another: changes to named members of rules of the base,
    /// the rest of each rule unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub amend: Vec<AmendDef>,
}

/// The `catalogue` block: a whole catalogue, or a release extending another.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum CatalogueBlock {
    /// A release that extends another: it names its base in `extends` and states only what changes.
    Extension(ReleaseDef),
    /// A whole catalogue: the document model, protocol versions and rule pages of a release that
    /// extends none.
    Whole(Box<CatalogueDef>),
}

/// A release that extends another: it inherits the base's document model, surfaces and
/// rules, and states only what it changes.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ReleaseDef {
    /// The release's version (semver, pre-releases such as `0.9.0-rc.3` included).
    pub release: String,
    /// The release it extends, by version.
    pub extends: String,
    /// The `mcpdesc` versions this release judges: exact versions or semver ranges such as
    /// `>=0.9.0-rc.1, <0.10.0` (default: the release's own version).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spec_versions: Vec<String>,
    /// What the release is, in one sentence, for its rule pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Directory of the release's example fixtures, relative to the release's directory
    /// (default: the base's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixtures: Option<String>,
    /// Rule page URL template (default: the base's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs_url: Option<String>,
    /// Owners of the rules this release adds, besides the base's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<OwnerDecl>,
    /// Protocol versions this release adds after its base's, oldest first, each behaving
    /// like a version of the base unless a rule says otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub add_protocol_versions: Vec<AddedVersion>,
    /// How `mcpdesc docs` lays out the rule pages (default: the base's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<Box<PagesDef>>,
}

/// A protocol version a release adds.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AddedVersion {
    /// The new version's name.
    pub version: String,
    /// The version of the base it behaves like: every applicability table, version range,
    /// version condition and text that names no added version holds for the new version as
    /// it holds for this one.
    pub like: String,
}

/// Changes to named members of a rule of the base; members not given stay as they are.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AmendDef {
    /// The rule amended.
    pub id: String,
    /// What changed and why, for the rule page and `diff`.
    pub reason: String,
    /// The rule's new `title`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The rule's new `description`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The rule's new `requirement`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    /// The rule's new `surface`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<RuleSurface>,
    /// The rule's new `path`, the member it is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The rule's new `kind`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<RuleKind>,
    /// The rule's new `level`; a severity that only restated the old level's default follows
    /// the new level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// The rule's new `severity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// The rule's new `status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// The rule's new `enforcement`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforcement: Option<Enforcement>,
    /// Entries that override the rule's applicability for the versions they name (a whole
    /// table when it is a single value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applicability: Option<ApplicabilityDef>,
    /// The rule's new `covers` list, replacing the old one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covers: Option<Vec<String>>,
    /// The rule's new `required-by`, replacing the old one whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_by: Option<RequiredBy>,
    /// The rule's new `based-on`, replacing the old one whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub based_on: Option<BasedOn>,
    /// The rule's new `notes`, replacing the old ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<Vec<String>>,
    /// The rule's new `reference-codes`, replacing the old ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_codes: Option<Vec<String>>,
    /// The rule's new `examples`, replacing the old ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub examples: Option<Examples>,
    /// The rule's new `message` template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The rule's new `help`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The rule's new `fix`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<FixDef>,
}

/// A rule that replaces the base's rule of the same id, with why.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ReplaceDef {
    /// What changed and why, for the rule page and `diff`.
    pub reason: String,
    /// The whole new rule; its `id` names the rule replaced.
    pub rule: RuleDef,
}

/// A rule of the base that a release retires.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RetireDef {
    /// The id of the rule of the base that the release retires.
    pub id: String,
    /// Why the rule is gone, for the rule page and `diff`.
    pub reason: String,
}

/// A new applicability table for a rule of the base; the rule is otherwise unchanged.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ApplicabilityChange {
    /// The id of the rule of the base whose applicability changes.
    pub id: String,
    /// Whether the rule applies, in any form a rule's `applicability` takes.
    pub applicability: ApplicabilityDef,
    /// Why the applicability changed, for the rule page and `diff`.
    pub reason: String,
}

/// One MCP surface (a request's params, a result, a notification, an error, or an object
/// inside one) and every place it occurs: in descriptions and in traffic. A rule with a
/// `subject` is evaluated at every occurrence of its `surface`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SurfaceDef {
    /// What the surface is, in one sentence.
    pub summary: String,
    /// JSONPaths of its occurrences in MCP Description documents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub description: Vec<String>,
    /// Its occurrences in traffic captures: message selectors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub traffic: Vec<WireSelector>,
}

/// Messages of a capture, and where in each the surface is.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct WireSelector {
    /// The kind of message.
    pub kind: MessageKind,
    /// Its method; for a result or an error, the method of the request it answers. A list
    /// selects any of them; absent selects every method.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<OneOrMany>,
    /// Its direction; absent selects both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<Direction>,
    /// Relative path from the message to the surface: `@` (the message itself, the default),
    /// `@.params`, `@.result.items[*]`, or a member name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// A JSON-RPC message kind, as the traffic model classifies messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum MessageKind {
    /// A request: a message with a `method` and an `id`.
    Request,
    /// A notification: a message with a `method` and no `id`.
    Notification,
    /// A successful response: the `result` of a request.
    Result,
    /// An error response: the `error` answering a request.
    Error,
}

impl MessageKind {
    /// Its name, as selectors and the traffic model write it.
    pub fn as_str(self) -> &'static str {
        match self {
            MessageKind::Request => "request",
            MessageKind::Notification => "notification",
            MessageKind::Result => "result",
            MessageKind::Error => "error",
        }
    }
}

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Direction {
    /// Client to server.
    #[serde(rename = "c2s")]
    ClientToServer,
    /// Server to client.
    #[serde(rename = "s2c")]
    ServerToClient,
}

impl Direction {
    /// Its name, as selectors and the traffic model write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToServer => "c2s",
            Direction::ServerToClient => "s2c",
        }
    }
}

/// One string or a list of them.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single string.
    One(String),
    /// A list of strings.
    Many(Vec<String>),
}

impl OneOrMany {
    /// The strings, whichever form was written.
    pub fn items(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(s) => vec![s.as_str()],
            OneOrMany::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// How traffic captures say which protocol version each message is in.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct TrafficDef {
    /// Relative path, in a request or notification, of the protocol version it declares for
    /// itself. A response is in the version of the request it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_version: Option<String>,
    /// The handshake that negotiates a version for the messages after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<HandshakeDef>,
    /// How a server refuses a request in a version it does not serve, and where it lists the
    /// versions it serves: a request that declares its own version is negotiated by the
    /// answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negotiation: Option<NegotiationDef>,
}

/// The refusal of a request's version, and the answers that list the versions served.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct NegotiationDef {
    /// The error a server answers a request in a version it does not serve with.
    pub unsupported: UnsupportedDef,
    /// Results that list the versions the server serves, by the method they answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offers: Vec<OfferDef>,
}

/// An error code, and where the error lists the versions served.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct UnsupportedDef {
    /// The error's `code`.
    pub code: i64,
    /// Relative path, in the error response, of the array of versions the server serves.
    pub supported: String,
}

/// A result listing the versions a server serves.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OfferDef {
    /// The method of the request it answers.
    pub method: String,
    /// Relative path, in the response, of the array of versions.
    pub supported: String,
}

/// A request/response pair that fixes the protocol version of the messages that follow.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct HandshakeDef {
    /// The request's method.
    pub method: String,
    /// Relative path, in the request message, of the version the client asks for.
    pub requested: String,
    /// Relative path, in the response message, of the version agreed.
    pub negotiated: String,
}

/// What the documents look like, independent of any one rule.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct CatalogueDef {
    /// Human name of the document format, e.g. "MCP Description".
    pub name: String,
    /// The release's version (semver); default: the first of `spec-versions`, which must then
    /// be an exact version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<String>,
    /// What the release is, in one sentence, for its rule pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The `mcpdesc` versions this catalogue judges: exact versions (`0.8.0`) or semver
    /// ranges (`>=0.9.0-rc.1, <0.10.0`).
    pub spec_versions: Vec<String>,
    /// JSON Pointer of the member by which a document declares its specification version;
    /// it chooses the release that judges the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_version_pointer: Option<String>,
    /// Protocol versions, oldest first. Applicability tables must name each of them.
    pub protocol_versions: Vec<String>,
    /// Protocol versions whose validation is known to be incomplete (informational; rules
    /// express their consequences).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub legacy_protocol_versions: Vec<String>,
    /// How a document declares the protocol versions each node is in scope for.
    pub scope: ScopeDef,
    /// Directory of the example fixtures, relative to the rules directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixtures: Option<String>,
    /// Where each rule's page is: a URL or repository path template in which `{release}`,
    /// `{owner}` and `{id}` are substituted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs_url: Option<String>,
    /// How `mcpdesc docs` lays out the rule pages: template, page URLs and files, source
    /// links, front matter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<Box<PagesDef>>,
    /// Owners whose rules the catalogue holds besides the built-in `mcp` and `mcpdesc`, each
    /// a name or `{name, docs-url}`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<OwnerDecl>,
    /// In-document references the engine replaces by their targets before any rule runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub references: Option<ReferencesDef>,
    /// How the protocol version of each message of a traffic capture is found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<TrafficDef>,
    /// How a live server is spoken to and its answers lined up with a description
    /// (`mcpdesc check-server`, `mcpdesc init`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveDef>,
}

/// The protocol facts a live client needs, and how a server's lists map onto a description.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LiveDef {
    /// The handshake of the versions before `stateless.since`.
    pub handshake: LiveHandshakeDef,
    /// The per-request model of the versions from `stateless.since` on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stateless: Option<LiveStatelessDef>,
    /// Where a description declares capabilities: a top-level collection of declarations,
    /// each an object of capability names.
    pub capabilities: String,
    /// Members of a description's declarations that start with this prefix are
    /// specification extensions, not protocol data, and are never compared with a server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extension_prefix: Option<String>,
    /// The paginated lists the server is asked for, each lined up with a description
    /// collection.
    pub lists: Vec<LiveListDef>,
    /// Request parameter and result member of pagination.
    pub cursor: LiveCursorDef,
    /// Names of the members of handshake and discovery messages.
    pub members: LiveMembersDef,
    /// How `mcpdesc init` makes a description from what a server reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init: Option<LiveInitDef>,
    /// How the description's examples are run against the server (`--call-examples`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<LiveCallDef>,
}

/// One kind of example call: for every example of every entry of `collection`, a `method`
/// request whose result is compared, by shape, with the example's `result`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LiveCallDef {
    /// A `lists` collection.
    pub collection: String,
    /// The entry member that holds its named examples.
    pub examples: String,
    /// The method of the request made for each example (`tools/call`).
    pub method: String,
    /// The request's parameters: `{key}` is the entry's key, `@member` a member of the
    /// example (the parameter is left out when the example has none).
    pub params: BTreeMap<String, String>,
    /// The example member that holds the expected result.
    pub result: String,
}

/// The names of the members of handshake and discovery messages.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LiveMembersDef {
    /// The protocol version a client asks for and a server agrees to.
    pub version: String,
    /// The member holding a party's capabilities (`capabilities`).
    pub capabilities: String,
    /// The member holding the client's name and version (`clientInfo`).
    pub client_info: String,
    /// The member holding the server's name and version (`serverInfo`).
    pub server_info: String,
    /// The member of the handshake result holding the server's instructions (`instructions`).
    pub instructions: String,
    /// The versions a discovery result lists.
    pub supported: String,
}

/// The handshake that opens a session in the protocol versions before the per-request model.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LiveHandshakeDef {
    /// The request that opens a session (its params and result carry `protocolVersion`,
    /// `capabilities`, `clientInfo`/`serverInfo`, `instructions`).
    pub method: String,
    /// The notification sent once the handshake succeeded.
    pub initialized: String,
}

/// The per-request model of the later protocol versions: no handshake; every request carries
/// its protocol version and the client's capabilities and information in its `_meta`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LiveStatelessDef {
    /// The first protocol version that has no handshake.
    pub since: String,
    /// The request that reports the supported versions and the capabilities.
    pub discover: String,
    /// The `_meta` key under which every request carries its protocol version.
    pub meta_version: String,
    /// The `_meta` key under which a request carries the client's capabilities.
    pub meta_capabilities: String,
    /// The `_meta` key under which a request carries the client's name and version.
    pub meta_client_info: String,
    /// The `_meta` key under which a discovery result names the server.
    pub meta_server_info: String,
    /// The error code of a request in a version the server does not serve.
    pub unsupported_code: i64,
    /// JSON Pointer, in that error, of the versions the server does serve.
    pub unsupported_versions: String,
}

/// A paginated list a server offers (its tools, prompts, ...), lined up with a collection of
/// the description.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LiveListDef {
    /// The description's top-level collection of these entries.
    pub collection: String,
    /// What one entry is called in messages ("tool").
    pub label: String,
    /// The method that lists the entries (`tools/list`).
    pub method: String,
    /// The result member that holds the page's entries.
    pub result: String,
    /// The server capability that says the list exists.
    pub capability: String,
    /// The member that identifies an entry on both sides.
    pub key: String,
    /// Members compared between a described entry and the server's.
    pub compare: Vec<String>,
    /// Of `compare`, the members holding JSON Schemas: compared after in-document
    /// references are replaced by their targets.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schemas: Vec<String>,
}

/// How a list is paged through.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LiveCursorDef {
    /// The request parameter that asks for the page after a cursor (`cursor`).
    pub param: String,
    /// The result member holding the cursor of the next page (`nextCursor`), absent on the
    /// last page.
    pub next: String,
}

/// The parts of a description that `mcpdesc init` fills from a server's answers
/// (the collections come from `lists` and `capabilities`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LiveInitDef {
    /// JSON Pointer, in the description, of the object that describes the server.
    pub info: String,
    /// The members of that object, each with the JSON Pointer, in the server's
    /// self-description (the result member `members.server-info`), of the value it is
    /// copied from; a member the server does not report is left out.
    pub info_members: BTreeMap<String, String>,
    /// Members of the server's list entries that a description does not carry (metadata of
    /// the wire message rather than of the primitive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drop: Vec<String>,
}

/// In-document references: objects whose only member is `member`, holding a local pointer
/// (`#/…`) that starts with `prefix`. At every use site, a reference that resolves is replaced
/// by a copy of its target (following chains of references) before rules are evaluated, so
/// rules judge the referenced value in the use site's scope. References that do not resolve
/// (missing target, target outside the site's accepted prefixes, cycle, chain too long) are
/// left as written for rules to report.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ReferencesDef {
    /// Member name that makes an object a reference.
    pub member: String,
    /// Prefix of every reference followed, starting with `#`.
    pub prefix: String,
    /// Use sites (JSONPaths) and, for each, the target prefixes it accepts. A reference
    /// found while following a chain is checked against the prefixes of its own site.
    pub sites: BTreeMap<String, Vec<String>>,
    /// Longest chain of references followed from one site (default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chain: Option<usize>,
}

/// Where protocol scopes are declared.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ScopeDef {
    /// JSONPath of the document-wide list of protocol versions.
    pub root: String,
    /// Member name by which a declaration narrows its scope.
    pub member: String,
    /// JSONPaths of the declarations that may narrow their scope. A node's scope is that of
    /// its nearest enclosing declaration: the declaration's own list when present, else the
    /// scope of the next enclosing declaration, else the root list.
    pub declarations: Vec<String>,
}

/// One rule.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RuleDef {
    /// Dotted identifier, `<owner>.<area>.<name>`.
    pub id: String,
    /// Short imperative title.
    pub title: String,
    /// What the rule is about and why, for the rule page.
    pub description: String,
    /// The requirement in one sentence.
    pub requirement: String,
    /// Who defines the constraint.
    pub owner: Owner,
    /// The object kind the rule looks at: the name of a surface of the surface map
    /// (`ElicitRequest`), or a description declared as free text
    /// (`{text: Tool interaction example}`).
    pub surface: RuleSurface,
    /// The member the rule is about, relative to the surface, for display.
    pub path: String,
    /// What kind of constraint the rule is, by what judging it takes: `structural`,
    /// `mcp-semantic`, `mcpdesc-semantic` or `serialization`.
    pub kind: RuleKind,
    /// How strong the requirement is: `must`, `should` or `may`; it gives the default severity.
    pub level: Level,
    /// Severity of findings; defaults from `level` (must → error, should → warning, may → info).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// Where the rule is in its life cycle: `internal`, `preview`, `stable` or `deprecated`.
    pub status: Status,
    /// Whether findings count at their severity (`internal`) or never worse than a warning
    /// (`advisory`).
    pub enforcement: Enforcement,
    /// Whether a finding states a limit of the validation rather than a problem of the
    /// document (`true`): the strict profile reports it at its own severity instead of
    /// promoting it to an error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub informational: bool,
    /// Which other messages of the traffic a traffic rule's finding on a message rests on,
    /// besides the handshake: a check of messages as they pass, one batch at a time, leaves
    /// out `later-messages` rules until the stream ends, and `earlier-messages` rules once
    /// some messages went unchecked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<MessageContext>,
    /// Whether the rule applies in each protocol version: one value for every version, or a
    /// table (see [`ApplicabilityDef`]).
    pub applicability: ApplicabilityDef,
    /// Requirement rows of the specification's requirement inventory this rule implements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub covers: Vec<String>,
    /// The specification text that requires the rule.
    pub required_by: RequiredBy,
    /// The evidence the rule rests on.
    pub based_on: BasedOn,
    /// Further remarks shown on the rule page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Diagnostic codes of the reference validator for the same check.
    #[serde(default)]
    pub reference_codes: Vec<String>,
    /// Fixture nodes the rule must report and nodes it must not; the test suite runs them all.
    pub examples: Examples,
    /// JSONPaths of the nodes the rule inspects in MCP Description documents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub given: Vec<String>,
    /// JSONPaths of the nodes the rule inspects in traffic captures (over the traffic model:
    /// `$.messages[*]`, each with `kind`, `method`, `dir`, `msg`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub given_traffic: Vec<String>,
    /// Makes the rule target its `surface`: a relative path from each occurrence of the
    /// surface, in every document kind, to the node inspected (`@` for the surface itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
    /// Only nodes for which this holds are inspected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<ConditionDef>,
    /// The checks, each `{check: <function>, ...options}`.
    pub then: Vec<Map<String, Value>>,
    /// Message template; `{name}` placeholders are filled from the check's parameters.
    pub message: String,
    /// How to fix a finding, shown after the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// An edit that editors offer for a finding (`docs/rule-format.md`, "Fixes").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<FixDef>,
}

/// What a rule is about: a surface of the surface map, or free text.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(
    untagged,
    expecting = "a surface name, or free text declared as `{text: ...}`"
)]
pub enum RuleSurface {
    /// The name of a surface of the surface map.
    Name(String),
    /// A description of the object kind that names no surface, on purpose.
    Text(SurfaceText),
}

/// Free text in place of a surface name.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SurfaceText {
    /// The object kind, e.g. "Tool interaction example".
    pub text: String,
}

impl RuleSurface {
    /// The text shown for the rule's surface (rule pages, listings): the surface's name or
    /// the free text.
    pub fn text(&self) -> &str {
        match self {
            RuleSurface::Name(name) => name,
            RuleSurface::Text(t) => &t.text,
        }
    }

    /// The surface of the map the rule names; `None` for free text.
    pub fn name(&self) -> Option<&str> {
        match self {
            RuleSurface::Name(name) => Some(name),
            RuleSurface::Text(_) => None,
        }
    }
}

impl std::fmt::Display for RuleSurface {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

/// An edit that resolves a finding of a rule, offered by editors as a code action.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FixDef {
    /// The edit offered.
    pub kind: FixKind,
}

/// The edits a rule may offer for its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum FixKind {
    /// Narrow the scope of the nearest declaration that encloses the finding (its
    /// `scope.member` list, added when it has none) to the versions of its current scope
    /// that the finding does not concern. Offered only when some version remains.
    NarrowScope,
}

impl FixKind {
    /// What the edit does, in one sentence, for rule listings.
    pub fn describe(self) -> &'static str {
        match self {
            FixKind::NarrowScope => {
                "narrow the scope of the enclosing declaration to the versions the finding does \
                 not concern"
            }
        }
    }
}

/// Who defines a rule's constraint: the prefix of its id. `mcp` (a fact of the MCP protocol
/// that the description restates) and `mcpdesc` (a constraint of the MCP Description
/// specification) are built in; a rule set declares any others it uses (`owners`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(transparent)]
#[cfg_attr(feature = "schema", schemars(transparent))]
pub struct Owner(
    /// A lowercase name: a letter, then letters and digits.
    #[cfg_attr(feature = "schema", schemars(regex(pattern = r"^[a-z][a-z0-9]*$")))]
    String,
);

impl Owner {
    /// The owners every rule set has.
    pub const BUILT_IN: [&'static str; 2] = ["mcp", "mcpdesc"];

    /// `name` when it is a valid owner name (a lowercase letter, then lowercase letters and
    /// digits, as the first segment of a rule id).
    pub fn new(name: &str) -> Option<Owner> {
        let mut chars = name.chars();
        let valid = chars.next().is_some_and(|c| c.is_ascii_lowercase())
            && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        valid.then(|| Owner(name.to_owned()))
    }

    /// The MCP protocol.
    pub fn mcp() -> Owner {
        Owner("mcp".to_owned())
    }

    /// The MCP Description specification.
    pub fn mcpdesc() -> Owner {
        Owner("mcpdesc".to_owned())
    }

    /// The owner's name.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether it is one of the owners every rule set has.
    pub fn is_built_in(&self) -> bool {
        Owner::BUILT_IN.contains(&self.0.as_str())
    }
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Owner {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Owner::new(&name).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "owner `{name}` is not a lowercase name (a letter, then letters and digits)"
            ))
        })
    }
}

/// An owner a rule set declares, with where its rules' pages are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum OwnerDecl {
    /// Just the name.
    Name(Owner),
    /// The name and the page URL template of its rules (`{release}`, `{owner}`, `{id}`,
    /// `{name}`).
    WithPages {
        /// The owner's name.
        name: Owner,
        /// Page URL template of the owner's rules.
        #[serde(rename = "docs-url")]
        docs_url: String,
    },
}

impl OwnerDecl {
    /// The owner declared.
    pub fn owner(&self) -> &Owner {
        match self {
            OwnerDecl::Name(o) | OwnerDecl::WithPages { name: o, .. } => o,
        }
    }

    /// Page URL template of the owner's rules, when the declaration gives one.
    pub fn docs_url(&self) -> Option<&str> {
        match self {
            OwnerDecl::Name(_) => None,
            OwnerDecl::WithPages { docs_url, .. } => Some(docs_url),
        }
    }
}

// By hand, so that a mistake in either form is named rather than "matched no form".
impl<'de> Deserialize<'de> for OwnerDecl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "kebab-case")]
        struct Full {
            name: Owner,
            docs_url: String,
        }
        let value = Value::deserialize(d)?;
        match value {
            Value::Object(_) => Full::deserialize(value)
                .map(|f| OwnerDecl::WithPages {
                    name: f.name,
                    docs_url: f.docs_url,
                })
                .map_err(serde::de::Error::custom),
            other => Owner::deserialize(other)
                .map(OwnerDecl::Name)
                .map_err(serde::de::Error::custom),
        }
    }
}

/// What kind of constraint a rule is, by what judging it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum RuleKind {
    /// Expressible as a JSON Schema constraint (per protocol version where scoped).
    Structural,
    /// Needs protocol facts beyond structure.
    McpSemantic,
    /// Needs cross-references, scopes or content of the description.
    McpdescSemantic,
    /// About the raw JSON or YAML source.
    Serialization,
}

impl RuleKind {
    /// Its name, as rule files and output formats write it.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Structural => "structural",
            RuleKind::McpSemantic => "mcp-semantic",
            RuleKind::McpdescSemantic => "mcpdesc-semantic",
            RuleKind::Serialization => "serialization",
        }
    }
}

/// How strong a rule's requirement is; the level gives its findings' default severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// A requirement: findings are errors unless the rule states a severity.
    Must,
    /// A recommendation: findings are warnings unless the rule states a severity.
    Should,
    /// An option: findings are informational unless the rule states a severity.
    May,
}

impl Level {
    /// The severity of a rule of this level that does not state one.
    pub fn default_severity(self) -> Severity {
        match self {
            Level::Must => Severity::Error,
            Level::Should => Severity::Warning,
            Level::May => Severity::Info,
        }
    }

    /// Its name, as rule files and output formats write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "must",
            Level::Should => "should",
            Level::May => "may",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
/// How serious a finding is, least serious first (so `>=` compares severities).
pub enum Severity {
    /// A note; never fails a run.
    Info,
    /// A problem that fails only a strict run.
    Warning,
    /// A violation of a requirement: the document is invalid.
    Error,
}

impl Severity {
    /// Its name in lower case, as rule files and output formats write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Where a rule is in its life cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Maintained with the catalogue, not yet published as stable.
    Internal,
    /// Published, may still change.
    Preview,
    /// Published and no longer expected to change.
    Stable,
    /// Still evaluated; scheduled for removal.
    Deprecated,
}

impl Status {
    /// Its name, as rule files and output formats write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Internal => "internal",
            Status::Preview => "preview",
            Status::Stable => "stable",
            Status::Deprecated => "deprecated",
        }
    }
}

/// Which other messages of the traffic a rule's finding on a message rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum MessageContext {
    /// Messages before it: the request a response answers, an earlier list or result it is
    /// compared with, the ids still in flight.
    EarlierMessages,
    /// Messages after it: whether a request is ever answered.
    LaterMessages,
}

/// How a rule's findings count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Enforcement {
    /// Findings are reported by this engine.
    Internal,
    /// Reported for information only; never fails a document.
    Advisory,
}

impl Enforcement {
    /// Its name, as rule files and output formats write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Enforcement::Internal => "internal",
            Enforcement::Advisory => "advisory",
        }
    }
}

/// Whether a rule applies in one protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Evaluated with the rule's severity.
    Applies,
    /// Evaluated, findings reported as warnings (validation of that version is incomplete).
    Warns,
    /// Not evaluated.
    NotApplicable,
}

impl Applicability {
    /// The value a rule file writes as `text`; `None` for anything but `applies`, `warns` or
    /// `not-applicable`.
    pub fn parse(text: &str) -> Option<Applicability> {
        match text {
            "applies" => Some(Applicability::Applies),
            "warns" => Some(Applicability::Warns),
            "not-applicable" => Some(Applicability::NotApplicable),
            _ => None,
        }
    }

    /// Its name, as rule files and output formats write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Applies => "applies",
            Applicability::Warns => "warns",
            Applicability::NotApplicable => "not-applicable",
        }
    }
}

/// Whether a rule applies in each protocol version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum ApplicabilityDef {
    /// The same in every version.
    All(Applicability),
    /// Per version, with a default or a range for the versions it does not name.
    Table(ApplicabilityTable),
}

/// An applicability table. Each version gets, in order of precedence: its own entry; for a
/// version a release added, what its model gets; `applies` inside the `since`/`until` range
/// and `default` (else `not-applicable`) outside it; `default`. Without a range or a
/// default, the table names every version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub struct ApplicabilityTable {
    /// What the versions the table does not name get.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Applicability>,
    /// The rule applies from this version on (and not before, unless `default` says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// The rule applies up to this version (and not after, unless `default` says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// Protocol version → whether the rule applies in it.
    #[serde(flatten)]
    pub versions: BTreeMap<String, Applicability>,
}

// By hand, so that a mistake is named precisely: an untagged enum would only say that the
// value matched no form.
impl<'de> Deserialize<'de> for ApplicabilityDef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let value = Value::deserialize(d)?;
        let level = |v: &Value, what: &str| -> Result<Applicability, D::Error> {
            v.as_str().and_then(Applicability::parse).ok_or_else(|| {
                D::Error::custom(format!(
                    "{what} is `applies`, `warns` or `not-applicable`, not {v}"
                ))
            })
        };
        match &value {
            Value::Object(map) => {
                let mut table = ApplicabilityTable::default();
                for (k, v) in map {
                    match k.as_str() {
                        "default" => table.default = Some(level(v, "`default`")?),
                        "since" | "until" => {
                            let name = v.as_str().map(str::to_owned).ok_or_else(|| {
                                D::Error::custom(format!("`{k}` names a protocol version"))
                            })?;
                            if k == "since" {
                                table.since = Some(name);
                            } else {
                                table.until = Some(name);
                            }
                        }
                        version => {
                            let a = level(
                                v,
                                &format!(
                                    "`{version}` (a protocol version, else one of `default`, `since`, `until`)"
                                ),
                            )?;
                            table.versions.insert(version.to_owned(), a);
                        }
                    }
                }
                Ok(ApplicabilityDef::Table(table))
            }
            other => level(other, "an applicability").map(ApplicabilityDef::All),
        }
    }
}

/// The specification text that requires the rule.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RequiredBy {
    /// Specification name and version, e.g. "MCP Description 0.8.0".
    pub spec: String,
    /// Section numbers, e.g. ["9.4", "12.5"].
    pub sections: Vec<String>,
    /// Named requirement anchors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<RequirementRef>,
}

/// A named requirement of the specification that the rule implements.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RequirementRef {
    /// Section heading, e.g. "12. Elicitation Declarations".
    pub section: String,
    /// Anchor of the requirement in that section.
    pub anchor: String,
    /// Link to the requirement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// The evidence the rule rests on.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BasedOn {
    /// 1: protocol schema and normative text; 2: normative text only; 3: reference behaviour.
    pub tier: u8,
    /// What the tier means, e.g. "MCP schema.ts and normative specification text".
    pub label: String,
    /// The specific evidence.
    pub detail: String,
    /// The documents the evidence is found in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<Source>,
}

/// A document a rule's evidence is found in.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Source {
    /// What the document is, for display.
    pub text: String,
    /// Link to the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A rule's examples: nodes of fixture documents that the test suite evaluates the rule on.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Examples {
    /// Nodes at and below which the rule must report nothing.
    #[serde(default)]
    pub valid: Vec<Example>,
    /// Nodes at or below which the rule must report a finding.
    #[serde(default)]
    pub invalid: Vec<Example>,
}

/// A fixture document and the JSON Pointer of the node the example is about.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Example {
    /// Fixture path relative to the catalogue's fixture directory.
    pub fixture: String,
    /// JSON Pointer of the node the example is about (into the traffic model, for a capture).
    pub pointer: String,
}

/// A condition on a node; exactly one form per object.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ConditionDef {
    /// All of these hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all: Option<Vec<ConditionDef>>,
    /// At least one of these holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub any: Option<Vec<ConditionDef>>,
    /// This does not hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not: Option<Box<ConditionDef>>,
    /// Relative path of the value tested (default `@`, the node itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Value assumed when `path` selects nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Holds when some value at `path` equals this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equals: Option<Value>,
    /// Holds when some value at `path` equals one of these (`in`).
    #[serde(default, rename = "in", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<Value>>,
    /// With `true`, holds when `path` selects something; with `false`, when it selects nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exists: Option<bool>,
    /// Holds when some value at `path` has this JSON type, or one of these (`type`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_is: Option<TypeSpec>,
    /// Regular expression the string value matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<String>,
    /// The protocol version being evaluated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<VersionCondDef>,
}

/// A test on the protocol version being evaluated.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct VersionCondDef {
    /// This version or later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Strictly earlier than this version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// One of these versions.
    #[serde(default, rename = "in", skip_serializing_if = "Option::is_none")]
    pub one_of: Option<Vec<String>>,
}

/// One JSON type or a list of them.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum TypeSpec {
    /// A single type.
    One(JsonType),
    /// A list of types, any of which will do.
    Many(Vec<JsonType>),
}

impl TypeSpec {
    /// The types, whichever form was written.
    pub fn types(&self) -> Vec<JsonType> {
        match self {
            TypeSpec::One(t) => vec![*t],
            TypeSpec::Many(ts) => ts.clone(),
        }
    }
}

/// A JSON type, as conditions and checks name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum JsonType {
    /// An object.
    Object,
    /// An array.
    Array,
    /// A string.
    String,
    /// Any number.
    Number,
    /// A number without a fractional part (`1.0` included).
    Integer,
    /// `true` or `false`.
    Boolean,
    /// `null`.
    Null,
}

impl JsonType {
    /// Its name, as rule files write it.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::String => "string",
            JsonType::Number => "number",
            JsonType::Integer => "integer",
            JsonType::Boolean => "boolean",
            JsonType::Null => "null",
        }
    }

    /// Whether `value` is of this type; every number without a fractional part is an `integer`
    /// as well as a `number`.
    pub fn matches(self, value: ValueRef<'_>) -> bool {
        match self {
            JsonType::Object => value.is_object(),
            JsonType::Array => value.is_array(),
            JsonType::String => value.is_string(),
            JsonType::Number => value.is_number(),
            JsonType::Integer => {
                value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
            }
            JsonType::Boolean => value.is_boolean(),
            JsonType::Null => value.is_null(),
        }
    }

    /// The JSON type name of `value` (numbers without fraction are "integer").
    pub fn of(value: ValueRef<'_>) -> JsonType {
        match value.kind() {
            Kind::Object(_) => JsonType::Object,
            Kind::Array(_) => JsonType::Array,
            Kind::String(_) => JsonType::String,
            Kind::Bool(_) => JsonType::Boolean,
            Kind::Null => JsonType::Null,
            Kind::Number(_) if JsonType::Integer.matches(value) => JsonType::Integer,
            Kind::Number(_) => JsonType::Number,
        }
    }
}
