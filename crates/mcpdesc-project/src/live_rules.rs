//! The ids of the findings of a description checked against its live server. The command
//! line reports them itself, like the suppression findings, so they are listed with the
//! other command-line rules (`mcpdesc rules show`, SARIF descriptors, docs/cli.md).

use mcpdesc_core::Severity;

use crate::suppress::CliRule;

/// The description declares a protocol version the server refused to negotiate.
pub const VERSION_REFUSED: &str = "mcpdesc-live.version-refused";
/// An entry the description declares is not in the server's list for that version.
pub const ENTRY_MISSING: &str = "mcpdesc-live.entry-missing";
/// The server lists an entry the description does not declare for that version.
pub const ENTRY_UNDESCRIBED: &str = "mcpdesc-live.entry-undescribed";
/// A declared entry is listed by the server only under another key.
pub const ENTRY_RENAMED: &str = "mcpdesc-live.entry-renamed";
/// The server answered an example's request with an error (`--call-examples`).
pub const EXAMPLE_FAILED: &str = "mcpdesc-live.example-failed";
/// The server's result of an example's request has another shape than the example's result
/// (`--call-examples`).
pub const EXAMPLE_DIFFERS: &str = "mcpdesc-live.example-differs";
/// A compared member of an entry differs between the description and the server's list.
pub const MEMBER_DIFFERS: &str = "mcpdesc-live.member-differs";
/// The description declares a capability the server does not declare for that version.
pub const CAPABILITY_MISSING: &str = "mcpdesc-live.capability-missing";
/// The server declares a capability the description does not declare for that version.
pub const CAPABILITY_UNDESCRIBED: &str = "mcpdesc-live.capability-undescribed";
/// The server failed a list request (an error, a malformed answer, a timeout or an exit), so
/// the comparison is incomplete.
pub const SERVER_ERROR: &str = "mcpdesc-live.server-error";

const SECTION: &str = "mcpdesc check-server";

/// Every live-check rule, with its title, description and severity.
pub const RULES: &[CliRule] = &[
    CliRule {
        id: VERSION_REFUSED,
        title: "Declare only protocol versions the server serves",
        description: "The description declares a protocol version that the server refused to \
                      negotiate. Remove the version from the description or serve it.",
        severity: Severity::Error,
        section: SECTION,
    },
    CliRule {
        id: ENTRY_MISSING,
        title: "Describe only what the server offers",
        description: "An entry the description declares for a protocol version is not in the \
                      server's list for that version.",
        severity: Severity::Error,
        section: SECTION,
    },
    CliRule {
        id: ENTRY_UNDESCRIBED,
        title: "Describe everything the server offers",
        description: "The server lists an entry that the description does not declare for \
                      that protocol version: the description is incomplete or out of date.",
        severity: Severity::Warning,
        section: SECTION,
    },
    CliRule {
        id: ENTRY_RENAMED,
        title: "Use the server's key for each entry",
        description: "An entry the description declares is not in the server's list under its \
                      key, but the server lists an entry alike in every compared member under \
                      another key: one side renamed it.",
        severity: Severity::Error,
        section: SECTION,
    },
    CliRule {
        id: EXAMPLE_FAILED,
        title: "Give examples the server can run",
        description: "With `--call-examples`, the server answered an example's request (the \
                      catalogue's `live.calls`) with an error.",
        severity: Severity::Error,
        section: SECTION,
    },
    CliRule {
        id: EXAMPLE_DIFFERS,
        title: "Give example results the shape the server's results have",
        description: "With `--call-examples`, the server's result of an example's request \
                      lacks a member the example's result has, holds another kind of value \
                      in it, or returns empty an array the example fills. Values are not \
                      compared: a live server's text, ids and times differ from run to run.",
        severity: Severity::Warning,
        section: SECTION,
    },
    CliRule {
        id: MEMBER_DIFFERS,
        title: "Describe each entry as the server lists it",
        description: "A member of an entry that the catalogue's `live.lists` compares differs \
                      between the description and the server's list, or is present on one \
                      side only. Schemas are compared after component references are \
                      replaced by their targets.",
        severity: Severity::Error,
        section: SECTION,
    },
    CliRule {
        id: CAPABILITY_MISSING,
        title: "Declare only capabilities the server declares",
        description: "The description declares a capability for a protocol version that the \
                      server does not declare when that version is negotiated.",
        severity: Severity::Error,
        section: SECTION,
    },
    CliRule {
        id: CAPABILITY_UNDESCRIBED,
        title: "Declare every capability the server declares",
        description: "The server declares a capability that the description does not declare \
                      for the negotiated protocol version.",
        severity: Severity::Warning,
        section: SECTION,
    },
    CliRule {
        id: SERVER_ERROR,
        title: "Answer every request the description implies",
        description: "The server answered a list request with an error, sent a malformed \
                      answer, timed out or stopped while it was being checked; what it lists \
                      could not be compared in full.",
        severity: Severity::Error,
        section: SECTION,
    },
];
