"""A deliberately misbehaving MCP stdio server, one behaviour per mode (argv[1]).

Each mode is one situation `mcpdesc probe-server` must survive and report; see
tests/live_probe.rs. Standard library only. Served eras: the initialize handshake, and
server/discover with per-request _meta (2026-07-28) in the modes that need it.
"""

import json
import sys

MODE = sys.argv[1]
CAPS = {"tools": {}, "resources": {}, "prompts": {}}
INFO = {"name": "fake", "version": "0.0.1"}
TOOLS = [{"name": f"tool-{i}", "inputSchema": {"type": "object"}} for i in range(5)]
RESOURCES = [{"uri": f"file:///r{i}.txt", "name": f"r{i}"} for i in range(3)]


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
        if MODE == "wrong-id":
            rid = rid + 1000
        result(rid, {"protocolVersion": params["protocolVersion"], "capabilities": CAPS,
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
        size = 2 if MODE == "paginate" else 100
        tools, nxt = page(TOOLS, params.get("cursor"), size)
        result(rid, dict({"tools": tools}, **({"nextCursor": nxt} if nxt else {})), modern)
    elif method == "resources/list":
        size = 2 if MODE == "paginate" else 100
        res, nxt = page(RESOURCES, params.get("cursor"), size)
        result(rid, dict({"resources": res}, **({"nextCursor": nxt} if nxt else {})), modern)
    elif method == "resources/templates/list":
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "templates are broken"}})
    elif method == "prompts/list":
        body = {"prompts": [{"name": "p"}]}
        if MODE == "paginate":
            body["nextCursor"] = "again"  # never ends
        result(rid, body, modern)
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})
