"""Runs one session of the official Python SDK client against a stdio server and writes every
JSON-RPC message the client sent and received to a JSON file.

Usage: python session.py --out FILE [--protocol-version V] -- COMMAND [ARG...]

COMMAND is what the client launches as its server: the server itself, or
`mcpdesc tap ... -- SERVER...` in front of it. Comparing the files of the two runs shows
whether the proxy changed anything the client saw.

Without --protocol-version the client negotiates as the SDK does by default (`mode="auto"`:
it probes `server/discover` and falls back to the initialize handshake). With a
handshake-era version it runs the handshake offering that version: the SDK always offers
LATEST_HANDSHAKE_VERSION and has no option for another, so the module constant it reads when
building `initialize` is pointed at the version asked for; the server's answer and the
client's acceptance check are the SDK's own.

The session uses only requests whose answers do not depend on timing: no logging level, no
subscriptions, no tools that return random or time-stamped content, and no client callbacks
(so the server sends no requests of its own, such as roots/list, on a timer).
"""

import argparse
import json
import sys
from typing import Any

import anyio
import mcp.client.session as client_session
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import Implementation
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

# Fixed arguments for the tools of the servers the tests use (server-everything and
# xtask/live-servers/python-server.py). A listed tool the table does not name is not called:
# its answer could depend on time or chance.
TOOL_ARGS: dict[str, dict[str, Any]] = {
    "echo": {"message": "Hello through the tap"},
    "get-sum": {"a": 19, "b": 23},
    "get-structured-content": {"location": "Chicago"},
    "get-resource-links": {"count": 2},
    "add": {"a": 19, "b": 23},
    "greet": {"name": "Ada", "language": "pt"},
}
PROMPT_ARGS: dict[str, dict[str, str]] = {
    "simple-prompt": {},
    "args-prompt": {"city": "Portland", "state": "Oregon"},
    "code_review": {"code": "print('hi')", "language": "python"},
}
RESOURCES_READ = 2


def readable(uri: str) -> bool:
    # server-everything's dynamic resources carry the time they were read.
    return not uri.startswith("demo://resource/dynamic/")


def log(*parts: Any) -> None:
    print("[tap-session python]", *parts, file=sys.stderr, flush=True)


def as_json(item: Any) -> Any:
    """A message as it was on the wire, as far as the SDK's models keep it (unset fields
    left out, wire names)."""
    if isinstance(item, Exception):
        return {"unparsed": str(item)}
    return item.message.model_dump(by_alias=True, exclude_unset=True, mode="json")


class RecordingRead:
    """The transport's read stream, noting each message before the session handles it."""

    def __init__(self, inner: Any, into: list[Any]) -> None:
        self._inner = inner
        self._into = into

    async def receive(self) -> Any:
        item = await self._inner.receive()
        self._into.append(as_json(item))
        return item

    def __aiter__(self) -> "RecordingRead":
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> "RecordingRead":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class RecordingWrite:
    """The transport's write stream, noting each message the session sends."""

    def __init__(self, inner: Any, into: list[Any]) -> None:
        self._inner = inner
        self._into = into

    async def send(self, item: Any) -> None:
        self._into.append(as_json(item))
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> "RecordingWrite":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class RecordingStdio:
    """The SDK's stdio transport with both of its streams recorded."""

    def __init__(self, params: StdioServerParameters, sent: list[Any], received: list[Any]) -> None:
        self._inner = stdio_client(params)
        self._sent = sent
        self._received = received

    async def __aenter__(self) -> tuple[RecordingRead, RecordingWrite]:
        read, write = await self._inner.__aenter__()
        return RecordingRead(read, self._received), RecordingWrite(write, self._sent)

    async def __aexit__(self, *exc: Any) -> Any:
        return await self._inner.__aexit__(*exc)


async def exercise(client: Client) -> None:
    tools = (await client.list_tools()).tools
    for tool in tools:
        args = TOOL_ARGS.get(tool.name)
        if args is None:
            continue
        result = await client.call_tool(tool.name, args)
        log(f"tools/call {tool.name}:", "isError" if result.is_error else "ok")

    prompts = (await client.list_prompts()).prompts
    for prompt in prompts:
        args = PROMPT_ARGS.get(prompt.name)
        if args is None:
            continue
        await client.get_prompt(prompt.name, args)
        log(f"prompts/get {prompt.name}: ok")

    resources = (await client.list_resources()).resources
    for resource in [r for r in resources if readable(str(r.uri))][:RESOURCES_READ]:
        await client.read_resource(str(resource.uri))
        log(f"resources/read {resource.uri}: ok")


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--protocol-version")
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()

    mode = "auto"
    if args.protocol_version in MODERN_PROTOCOL_VERSIONS:
        mode = args.protocol_version
    elif args.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS:
        mode = "legacy"
        client_session.LATEST_HANDSHAKE_VERSION = args.protocol_version
    elif args.protocol_version is not None:
        raise SystemExit(f"{args.protocol_version} is not a protocol version of this SDK")

    sent: list[Any] = []
    received: list[Any] = []
    params = StdioServerParameters(command=args.command[0], args=args.command[1:])
    client = Client(
        RecordingStdio(params, sent, received),
        mode=mode,
        client_info=Implementation(name="mcpdesc-tap-session", version="1.0.0"),
        cache=None,  # every request goes on the wire, in both runs alike
        read_timeout_seconds=30,
    )
    async with client:
        log(f"connected: protocol {client.protocol_version}, server {client.server_info}")
        protocol_version = client.protocol_version
        await exercise(client)

    with open(args.out, "w", encoding="utf-8") as out:
        json.dump({"protocolVersion": protocol_version, "sent": sent, "received": received}, out, indent=2)
        out.write("\n")
    log(f"{len(sent)} sent, {len(received)} received")


if __name__ == "__main__":
    anyio.run(main)
