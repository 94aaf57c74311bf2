"""A deliberately misbehaving MCP stdio server, one behaviour per mode (argv[1]).

Each mode is one situation `mcpdesc probe-server` must survive and report; see
tests/live_probe.rs. Standard library only. Served eras: the initialize handshake, and
server/discover with per-request _meta (2026-07-28) in the modes that need it.
"""

import json
import sys

MODE = sys.argv[1]
# Modes of a well-behaved server, for `check-server` (tests/check_server.rs), combine with
# `+`: "tidy" answers every list; "old-only" agrees to 2025-03-26 whatever is asked;
# "no-prompts" declares no prompts capability.
FLAGS = set(MODE.split("+"))
CAPS = {"tools": {}, "resources": {}, "prompts": {}}
if "no-prompts" in FLAGS:
    del CAPS["prompts"]
INFO = {"name": "fake", "version": "0.0.1"}
TOOLS = [{"name": f"tool-{i}", "inputSchema": {"type": "object"}} for i in range(5)]
RESOURCES = [{"uri": f"file:///r{i}.txt", "name": f"r{i}"} for i in range(3)]
# "versioned-tools" (for `init`, tests/live_init.rs) refuses 2024-11-05,
# offering 2025-03-26, and lists tools that differ by version: `stable` in every one,
# `retired` until 2025-03-26, `added` from 2025-06-18, `changed` reworded from 2025-11-25;
# with "titled", `stable` has a title in every version; with "described-schema", every
# tool's input schema describes a parameter.
NEGOTIATED = "2026-07-28"
# "tools=N" lists N tools in one page: the five of "tidy", then as many more that no
# description declares.
MANY = next((int(f[len("tools="):]) for f in FLAGS if f.startswith("tools=")), None)
# "wrong-id-flood" and "notify-flood" send FLOOD messages before answering initialize
# ("flood=N", default 5,000): responses to requests nobody made, or log notifications.
FLOOD = next((int(f[len("flood="):]) for f in FLAGS if f.startswith("flood=")), 5000)
# "deep=N" nests a value N arrays deep in the initialize result's experimental capabilities.
DEEP = next((int(f[len("deep="):]) for f in FLAGS if f.startswith("deep=")), 0)
if DEEP:
    CAPS = dict(CAPS, experimental={"nested": json.loads("[" * DEEP + "]" * DEEP)})
# "endless-pages" pads each page's tool description to PAGE_BYTES ("page-bytes=N").
PAGE_BYTES = next((int(f[len("page-bytes="):]) for f in FLAGS if f.startswith("page-bytes=")), 0)
if MANY is not None:
    TOOLS = TOOLS + [{"name": f"extra-{i}", "inputSchema": {"type": "object"}}
                     for i in range(MANY - len(TOOLS))]
# "schemaless" lists tools without their required input schema.
if "schemaless" in FLAGS:
    TOOLS = [{"name": t["name"]} for t in TOOLS]


def versioned_tools(version):
    schema = {"type": "object"}
    if "described-schema" in FLAGS:
        schema = {"type": "object", "required": ["query"],
                  "properties": {"query": {"type": "string", "description": "What to find."}}}
    tools = [{"name": "stable", "description": "Always there.", "inputSchema": schema}]
    if "titled" in FLAGS:
        tools[0]["title"] = "Stable"
    if version <= "2025-03-26":
        tools.append({"name": "retired", "inputSchema": schema})
    if version >= "2025-06-18":
        tools.append({"name": "added", "title": "Added", "inputSchema": schema})
    wording = "New wording." if version >= "2025-11-25" else "Old wording."
    tools.append({"name": "changed", "description": wording, "inputSchema": schema})
    return tools


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def recv():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def page(items, cursor, size):
    """Items from `cursor` (an index as text), and the cursor of the next page."""
    start = int(cursor or 0)
    chunk = items[start:start + size]
    rest = start + size < len(items)
    return chunk, (str(start + size) if rest else None)


def result(rid, body, modern):
    if modern:
        body = dict(body, resultType="complete", ttlMs=0, cacheScope="private")
    send({"jsonrpc": "2.0", "id": rid, "result": body})


def ask(request):
    """Sends a request to the client and returns its answer."""
    send(request)
    while True:
        msg = recv()
        if msg.get("id") == request["id"] and "method" not in msg:
            return msg


if MODE == "silent":
    for _ in sys.stdin:
        pass
    sys.exit(0)

if MODE == "deaf":
    # Reads the first request, then sends requests without ever reading the answers: once
    # the pipe to it is full, every write of the client's blocks.
    recv()
    n = 0
    while True:
        n += 1
        send({"jsonrpc": "2.0", "id": f"ping-{n}", "method": "ping", "params": {"pad": "x" * 1000}})

if MODE == "garbage":
    print("Server starting on stdio...")
    print("ready!")
    sys.stdout.flush()

while True:
    msg = recv()
    if "id" not in msg:
        continue
    rid, method = msg["id"], msg.get("method")
    params = msg.get("params") or {}
    modern = "io.modelcontextprotocol/protocolVersion" in (params.get("_meta") or {})
    if method == "initialize":
        if "wrong-id-flood" in FLAGS:
            # Answers to requests nobody made, then the real answer.
            for n in range(FLOOD):
                send({"jsonrpc": "2.0", "id": 100000 + n, "result": {}})
        if "notify-flood" in FLAGS:
            for n in range(FLOOD):
                send({"jsonrpc": "2.0", "method": "notifications/message",
                      "params": {"level": "info", "data": f"line {n}"}})
        if MODE == "wrong-id":
            rid = rid + 1000
        agreed = "2025-03-26" if "old-only" in FLAGS else params["protocolVersion"]
        if "versioned-tools" in FLAGS and agreed == "2024-11-05":
            agreed = "2025-03-26"
        NEGOTIATED = agreed
        result(rid, {"protocolVersion": agreed, "capabilities": CAPS,
                     "serverInfo": INFO}, False)
        if MODE == "crash":
            sys.stderr.write("fatal: simulated crash after initialize\n")
            sys.exit(7)
    elif method == "server/discover":
        result(rid, {"supportedVersions": ["2026-07-28"], "capabilities": CAPS,
                     "_meta": {"io.modelcontextprotocol/serverInfo": INFO}}, True)
    elif method == "tools/list":
        if MODE == "server-requests":
            # Asks the client things mid-request: it must answer ping and refuse the rest.
            pong = ask({"jsonrpc": "2.0", "id": "s1", "method": "ping"})
            roots = ask({"jsonrpc": "2.0", "id": "s2", "method": "roots/list"})
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "data": "asked the client"}})
            if pong.get("result") != {} or roots.get("error", {}).get("code") != -32601:
                send({"jsonrpc": "2.0", "id": rid, "error": {
                    "code": -32603, "message": f"unexpected answers: {pong} {roots}"}})
                continue
        if "endless-pages" in FLAGS:
            # Each page a little slow, each under a fresh cursor, for ever.
            import time
            time.sleep(0.1)
            n = int(params.get("cursor") or 0) + 1
            tool = {"name": f"t{n}", "inputSchema": {"type": "object"}}
            if PAGE_BYTES:
                tool["description"] = "x" * PAGE_BYTES
            result(rid, {"tools": [tool], "nextCursor": str(n)}, modern)
            continue
        size = 2 if MODE == "paginate" else len(TOOLS) if MANY else 100
        listed = versioned_tools(NEGOTIATED) if "versioned-tools" in FLAGS else TOOLS
        tools, nxt = page(listed, params.get("cursor"), size)
        result(rid, dict({"tools": tools}, **({"nextCursor": nxt} if nxt else {})), modern)
    elif method == "resources/list":
        size = 2 if MODE == "paginate" else 100
        res, nxt = page(RESOURCES, params.get("cursor"), size)
        result(rid, dict({"resources": res}, **({"nextCursor": nxt} if nxt else {})), modern)
    elif method == "resources/templates/list" and "tidy" in FLAGS:
        result(rid, {"resourceTemplates": []}, modern)
    elif method == "resources/templates/list":
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "templates are broken"}})
    elif method == "prompts/list":
        body = {"prompts": [{"name": "p"}]}
        if MODE == "paginate":
            body["nextCursor"] = "again"  # never ends
        result(rid, body, modern)
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
