//! The MCP server: its tools, and the rule pages as resources. Each request's engine work
//! runs on a blocking thread, so that a large document does not stall the session.

use std::sync::Arc;

use rmcp::handler::server::common::schema_for_output;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::documents::{self, Kind};
use super::resources;
use super::results::{RuleExplanation, RuleList, ValidationResult};
use super::{rule_data, State};

/// How a description given as `text` is written.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TextFormat {
    Json,
    Yaml,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ValidateDescriptionParams {
    /// The description itself (JSON or YAML). Give this or `path`.
    #[serde(default)]
    pub text: Option<String>,
    /// The description's file, relative to the server's working directory. Give this or `text`.
    #[serde(default)]
    pub path: Option<String>,
    /// How the description is written [default: by the file's extension, else by its content].
    #[serde(default)]
    pub format: Option<TextFormat>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ValidateCaptureParams {
    /// The capture itself: newline-delimited JSON-RPC messages or records. Give this or `path`.
    #[serde(default)]
    pub text: Option<String>,
    /// The capture's file, relative to the server's working directory. Give this or `text`.
    #[serde(default)]
    pub path: Option<String>,
    /// The protocol version of messages exchanged before any `initialize` says one.
    #[serde(default)]
    pub protocol_version: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct ExplainRuleParams {
    /// The rule's id, e.g. `mcp.tool.name-required` (`list_rules` lists them).
    pub id: String,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct ListRulesParams {
    /// Only rules whose id starts with this, e.g. `mcp.tool.`.
    #[serde(default)]
    pub prefix: Option<String>,
    /// Only rules whose surface contains this text (case-insensitive), e.g. `tool`.
    #[serde(default)]
    pub surface: Option<String>,
}

// A build without the live client still lists the tool, with the same input, and refuses it.
#[cfg_attr(not(feature = "live"), allow(dead_code))]
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CheckServerParams {
    /// The command that starts the server (speaking MCP on standard input and output), the program first. Give this or `url`.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// The server's Streamable HTTP endpoint. Give this or `command`.
    #[serde(default)]
    pub url: Option<String>,
    /// The server's MCP Description, relative to the server's working directory: it is validated and compared with what the server offers. Without it only the messages exchanged are checked.
    #[serde(default)]
    pub description_path: Option<String>,
}

#[derive(Clone)]
pub(crate) struct Server {
    state: Arc<State>,
}

/// A result of `T`: the structured content, its JSON text (for clients that read only text), and a summary for people.
fn rendered<T: Serialize>(value: &T, summary: String) -> CallToolResult {
    let json = serde_json::to_value(value).unwrap_or_default();
    let mut result = CallToolResult::structured(json);
    result.content.push(ContentBlock::text(summary));
    result
}

impl Server {
    pub(crate) fn new(state: Arc<State>) -> Server {
        Server { state }
    }

    /// Runs `work` on a blocking thread.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&State) -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        let state = self.state.clone();
        tokio::task::spawn_blocking(move || work(&state))
            .await
            .map_err(|e| format!("the request failed: {e}"))?
    }
}

#[tool_router]
impl Server {
    /// Validates an MCP Description document, given as text or as a file path, and returns its findings.
    #[tool(
        annotations(read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<ValidationResult>()
    )]
    async fn validate_description(
        &self,
        Parameters(p): Parameters<ValidateDescriptionParams>,
    ) -> Result<CallToolResult, String> {
        let result = self
            .blocking(move |state| {
                let source = documents::source(p.text.as_deref(), p.path.as_deref())?;
                let format = p.format.map(|f| match f {
                    TextFormat::Json => mcpdesc_core::Format::Json,
                    TextFormat::Yaml => mcpdesc_core::Format::Yaml,
                });
                documents::validate(state, &state.engine, source, Kind::Description(format))
            })
            .await?;
        Ok(rendered(&result, result.text()))
    }

    /// Validates a capture of MCP traffic (newline-delimited JSON-RPC messages), given as text or as a file path, with the traffic rules, and returns its findings.
    #[tool(
        annotations(read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<ValidationResult>()
    )]
    async fn validate_capture(
        &self,
        Parameters(p): Parameters<ValidateCaptureParams>,
    ) -> Result<CallToolResult, String> {
        let result = self
            .blocking(move |state| {
                let source = documents::source(p.text.as_deref(), p.path.as_deref())?;
                let cat = state.engine.catalogue();
                let engine = match p.protocol_version {
                    Some(v) if cat.versions.parse(&v).is_none() => {
                        let known: Vec<&str> = cat.versions.iter().map(|(_, n)| n).collect();
                        return Err(format!(
                            "unknown protocol version `{}`; known versions: {}",
                            crate::render::safe::escape(&v),
                            known.join(", ")
                        ));
                    }
                    Some(v) => state.engine.clone().with_traffic_version(Some(v)),
                    None => state.engine.clone(),
                };
                documents::validate(state, &engine, source, Kind::Capture)
            })
            .await?;
        Ok(rendered(&result, result.text()))
    }

    /// Explains one rule: what it requires, why, where it applies, and its examples.
    #[tool(
        annotations(read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<RuleExplanation>()
    )]
    async fn explain_rule(
        &self,
        Parameters(p): Parameters<ExplainRuleParams>,
    ) -> Result<CallToolResult, String> {
        let result = self
            .blocking(move |state| rule_data::explain(state.engine.catalogue(), &p.id))
            .await?;
        Ok(rendered(&result, result.text.clone()))
    }

    /// Lists the rules, optionally only those whose id starts with `prefix` or whose surface contains `surface`.
    #[tool(
        annotations(read_only_hint = true, open_world_hint = false),
        output_schema = schema_for_output::<RuleList>()
    )]
    async fn list_rules(
        &self,
        Parameters(p): Parameters<ListRulesParams>,
    ) -> Result<CallToolResult, String> {
        let result = self
            .blocking(move |state| {
                rule_data::list(
                    state.engine.catalogue(),
                    p.prefix.as_deref(),
                    p.surface.as_deref(),
                )
            })
            .await?;
        let mut summary = String::new();
        for r in &result.rules {
            summary.push_str(&format!("{} ({}): {}\n", r.id, r.severity, r.title));
        }
        summary.push_str(&format!("{} rule(s)\n", result.count));
        Ok(rendered(&result, summary))
    }

    /// Checks a live MCP server, started from a command or reached at a URL: every message it sends is validated and, given its description, what it offers is compared with what the description declares. The command is run on this machine.
    #[tool(
        annotations(read_only_hint = false, destructive_hint = false, open_world_hint = true),
        output_schema = schema_for_output::<ValidationResult>()
    )]
    async fn check_server(
        &self,
        Parameters(p): Parameters<CheckServerParams>,
    ) -> Result<CallToolResult, String> {
        let result = self.blocking(move |state| check_server(state, &p)).await?;
        Ok(rendered(&result, result.text()))
    }
}

#[cfg(feature = "live")]
fn check_server(state: &State, p: &CheckServerParams) -> Result<ValidationResult, String> {
    super::live_check::check(
        state,
        p.command.as_deref(),
        p.url.as_deref(),
        p.description_path.as_deref(),
    )
}

#[cfg(not(feature = "live"))]
fn check_server(_: &State, _: &CheckServerParams) -> Result<ValidationResult, String> {
    Err("this build of mcpdesc has no client of live servers (the `live` feature)".into())
}

#[tool_handler]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        );
        info.server_info = Implementation::new("mcpdesc", env!("CARGO_PKG_VERSION"));
        info.instructions = Some(
            "Validates MCP Description documents and captures of MCP traffic with the mcpdesc \
             rules, explains the rules, and checks live MCP servers. Each rule's page is the \
             resource mcpdesc://rules/{id}."
                .into(),
        );
        info
    }

    /// The rule pages are reached through their template, not listed one by one: a list
    /// would make the server's own description enumerate the catalogue, and every rule
    /// added a change to it. `list_rules` gives the ids.
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(Vec::new()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(resources::RULE_URI_TEMPLATE, "rule")
                .with_title("Rule page")
                .with_description("The documentation page of one rule, by its id")
                .with_mime_type(resources::MARKDOWN),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.clone();
        let page = self
            .blocking(move |state| state.pages().read(&uri).map(str::to_owned))
            .await
            .map_err(|e| ErrorData::resource_not_found(e, None))?;
        let mut contents = ResourceContents::text(page, request.uri.clone());
        if let ResourceContents::TextResourceContents { mime_type, .. } = &mut contents {
            *mime_type = Some(resources::MARKDOWN.into());
        }
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}
