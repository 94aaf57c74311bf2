"""A small Streamable HTTP MCP server for tests/tap_http.rs. Standard library only.

Prints its port on the first line of its output, then serves on 127.0.0.1:
- POST /mcp `initialize`: a JSON answer with an Mcp-Session-Id header;
- POST /mcp `tools/list`: an event stream holding a notification, then (once GET /release
  was asked for, or after 30 seconds) the result, whose tool lacks its input schema;
- POST /mcp any other request: a JSON answer spread over several lines;
- POST /mcp a notification: 202 with no body;
- GET /mcp: 405; DELETE /mcp: 204; GET /release: 204; anything else: 404.
"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RELEASE = threading.Event()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def empty(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        if self.path == "/release":
            RELEASE.set()
            self.empty(204)
        elif self.path == "/mcp":
            self.empty(405)
        else:
            self.empty(404)

    def do_DELETE(self):
        self.empty(204 if self.path == "/mcp" else 404)

    def do_POST(self):
        if self.path != "/mcp":
            self.empty(404)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        msg = json.loads(body)
        if "id" not in msg:
            self.empty(202)
            return
        if msg.get("method") == "tools/list":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            note = {"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "listing"}}
            self.wfile.write(b"event: message\ndata: " + json.dumps(note).encode() + b"\n\n")
            self.wfile.flush()
            RELEASE.wait(30)
            RELEASE.clear()
            result = {"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [{"name": "no-schema"}]}}
            self.wfile.write(b"event: message\ndata: " + json.dumps(result).encode() + b"\n\n")
            self.wfile.flush()
            self.close_connection = True
            return
        if msg.get("method") == "initialize":
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                      "serverInfo": {"name": "t", "version": "1"}}
            text = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result})
        else:
            text = json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}}, indent=2)
        data = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if msg.get("method") == "initialize":
            self.send_header("Mcp-Session-Id", "session-1")
        self.end_headers()
        self.wfile.write(data)


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
