"""Drives python-server.py over stdio with the official Python SDK client, through tap.py.

Usage: python python-client.py --version <protocol-version> --capture <file> --tap <tap.py>

`mcp` 2.x's `Client` is the SDK's stdio client: it runs a `ClientSession` over
`stdio_client(StdioServerParameters(...))` and, at 2026-07-28, drives the
multi round-trip loop (`input_required` -> answer through the callbacks ->
retry with `inputResponses`).

How each protocol version is reached:

* 2026-07-28: `mode="auto"`, the SDK default. The client probes
  `server/discover` and adopts the stateless per-request `_meta` envelope; there
  is no initialize handshake.
* 2024-11-05 .. 2025-11-25: `mode="legacy"` (initialize handshake). The SDK
  always offers LATEST_HANDSHAKE_VERSION and has no option for another, so for
  an older revision the module constant it reads when building `initialize`
  is pointed at that revision. The server's answer and the client's acceptance
  check are the SDK's own.

Features are used only where the negotiated revision has them: elicitation
from 2025-06-18, `completion/complete` context from 2025-06-18,
`subscriptions/listen` at 2026-07-28, server-to-client requests mid-call only
in the handshake era.
"""

import argparse
import sys
import warnings
from typing import Any

import anyio
import mcp.client.session as client_session
from mcp import Client, MCPError, StdioServerParameters
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import (
    CreateMessageResult,
    ElicitResult,
    Implementation,
    ListRootsResult,
    PromptReference,
    ResourceTemplateReference,
    Root,
    TextContent,
)
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

# Sampling, roots and logging are deprecated at 2026-07-28 but still part of
# every revision recorded here; exercising them is the point.
warnings.simplefilter("ignore", MCPDeprecationWarning)

ROOTS = [
    Root(uri="file:///workspace/project", name="project"),
    Root(uri="file:///workspace/shared-docs", name="shared docs"),
]


def log(*parts: Any) -> None:
    print("[python-client]", *parts, file=sys.stderr, flush=True)


async def on_sampling(_ctx, params) -> CreateMessageResult:
    first = params.messages[0].content if params.messages else None
    asked = first.text if isinstance(first, TextContent) else "(non-text prompt)"
    return CreateMessageResult(
        role="assistant",
        content=TextContent(type="text", text=f"Canned completion for: {asked}"),
        model="canned-test-model",
        stop_reason="endTurn",
    )


# Answers for the string fields the demo server asks for; anything else gets a
# generic value. Fixed so that recordings are deterministic.
STRING_ANSWERS = {"time": "19:30", "budget": "medium"}


def elicit_value(key: str, prop: dict[str, Any]) -> Any:
    """A deterministic answer for one property of a requestedSchema."""
    if prop.get("type") in ("integer", "number"):
        # schema.json types answers as string | integer | boolean: stay integral.
        return int(prop.get("default", prop.get("minimum", 2)))
    if "default" in prop:
        return prop["default"]
    if "enum" in prop:
        return prop["enum"][0]
    if "oneOf" in prop:
        return prop["oneOf"][0]["const"]
    if prop.get("type") == "boolean":
        return True
    return STRING_ANSWERS.get(key, "Ada Lovelace")


async def on_elicitation(_ctx, params) -> ElicitResult:
    if getattr(params, "mode", None) == "url":
        return ElicitResult(action="accept")
    properties = params.requested_schema.get("properties") or {}
    return ElicitResult(action="accept", content={k: elicit_value(k, p) for k, p in properties.items()})


async def on_list_roots(_ctx) -> ListRootsResult:
    return ListRootsResult(roots=ROOTS)


async def on_log(params) -> None:
    log("log", params.level, params.data)


async def exercise(client: Client, version: str) -> None:
    modern = version in MODERN_PROTOCOL_VERSIONS
    has_elicitation = modern or version >= "2025-06-18"

    if not modern:
        await client.send_ping()  # ping is removed at 2026-07-28
        if client.server_capabilities.logging is not None:
            await client.set_logging_level("debug")  # replaced by the _meta logLevel at 2026-07-28

    tools = (await client.list_tools()).tools
    log("tools:", [t.name for t in tools])

    async def call(name: str, args: dict[str, Any], **kw: Any) -> None:
        try:
            result = await client.call_tool(name, args, **kw)
            log(f"tools/call {name}:", "isError" if result.is_error else "ok")
        except MCPError as e:
            log(f"tools/call {name}: error {e.error.code} {e.error.message}")

    async def progress(p: float, total: float | None, message: str | None) -> None:
        log("progress", p, total, message)

    await call("add", {"a": 19, "b": 23})
    await call("get_forecast", {"city": "Lisbon", "days": 3})
    await call("divide", {"dividend": 1, "divisor": 4})
    await call("divide", {"dividend": 1, "divisor": 0})  # isError result
    await call("count_down", {"steps": 3}, progress_callback=progress)
    if not modern:
        # Direct server-to-client requests mid-call exist only in the handshake era.
        await call("summarize", {"text": "MCP standardises how applications give context to models."})
        if has_elicitation:
            await call("book_table", {"restaurant": "Casa Pasta"})
    if has_elicitation:
        # Handshake era: elicitation/create and sampling/createMessage mid-call.
        # 2026-07-28: input_required result, then a retry with inputResponses.
        await call("plan_trip", {"destination": "Porto"})
    await call("list_workspace_roots", {})
    await call("no_such_tool", {})  # unknown tool

    prompts = (await client.list_prompts()).prompts
    for p in prompts:
        await client.get_prompt(p.name, {"code": "print('hi')", "language": "python"})
    try:
        await client.get_prompt("code_review", {})  # missing required argument
    except MCPError as e:
        log("prompts/get without arguments:", e.error.code)

    if client.server_capabilities.completions is not None:
        await client.complete(PromptReference(type="ref/prompt", name="code_review"), {"name": "language", "value": "r"})
        await client.complete(
            ResourceTemplateReference(type="ref/resource", uri="users://{user_id}/profile"),
            {"name": "user_id", "value": "a"},
            # `context` on completion/complete exists from 2025-06-18.
            context_arguments={"tenant": "demo"} if modern or version >= "2025-06-18" else None,
        )

    resources = (await client.list_resources()).resources
    templates = (await client.list_resource_templates()).resource_templates
    log("resources:", [str(r.uri) for r in resources], "templates:", [t.uri_template for t in templates])
    for uri in ("config://app", "users://ada/profile"):
        await client.read_resource(uri)
    try:
        await client.read_resource("users-unknown://nobody")
    except MCPError as e:
        log("resources/read of an unknown URI:", e.error.code)

    if modern:
        # subscriptions/listen replaces resources/subscribe and the standing
        # notification stream at 2026-07-28.
        async with client.listen(resource_subscriptions=["config://app"], tools_list_changed=True) as sub:
            await call("touch_config", {})
            with anyio.move_on_after(5):
                async for event in sub:
                    log("listen event:", event)
                    break
    else:
        if client.server_capabilities.resources and client.server_capabilities.resources.subscribe:
            await client.subscribe_resource("config://app")
            await call("touch_config", {})
            await client.unsubscribe_resource("config://app")
        else:
            await call("touch_config", {})
        await client.send_roots_list_changed()
        await client.send_ping()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("--capture", required=True)
    ap.add_argument("--tap", required=True)
    args = ap.parse_args()
    version = args.version

    server_script = str(anyio.Path(__file__).parent / "python-server.py")
    params = StdioServerParameters(
        command=sys.executable,
        args=[args.tap, args.capture, "--", sys.executable, server_script],
        env={"LANG": "C.UTF-8"},  # fixed environment: nothing of the recording machine leaks in
    )

    if version in MODERN_PROTOCOL_VERSIONS:
        mode = "auto"
    elif version in HANDSHAKE_PROTOCOL_VERSIONS:
        mode = "legacy"
        client_session.LATEST_HANDSHAKE_VERSION = version
    else:
        raise SystemExit(f"{version} is not a protocol version of this SDK")

    has_elicitation = version in MODERN_PROTOCOL_VERSIONS or version >= "2025-06-18"
    client = Client(
        params,
        mode=mode,
        client_info=Implementation(name="mcp-capture-recorder", version="1.0.0"),
        sampling_callback=on_sampling,
        # Declaring elicitation is tied to passing the callback; before
        # 2025-06-18 the capability does not exist, so none is passed.
        elicitation_callback=on_elicitation if has_elicitation else None,
        list_roots_callback=on_list_roots,
        logging_callback=on_log,
        log_level="debug",  # the 2026-07-28 per-request logging opt-in
        cache=None,  # every request goes on the wire; the recording shows them all
        read_timeout_seconds=30,
    )
    async with client:
        log(f"connected: protocol {client.protocol_version}, server {client.server_info}")
        if client.protocol_version != version:
            raise SystemExit(f"negotiated {client.protocol_version}, wanted {version}")
        await exercise(client, version)
    log("closed")


if __name__ == "__main__":
    anyio.run(main)
