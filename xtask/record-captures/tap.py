#!/usr/bin/env python3
"""Transparent stdio tap for MCP servers.

Usage: tap.py CAPTURE_FILE -- SERVER_COMMAND [ARGS...]

The MCP client launches this program *as if it were the server*. The tap
spawns the real server, relays bytes between the client and the server
unchanged in both directions, and appends one NDJSON record per complete
line it sees to CAPTURE_FILE:

    {"dir":"c2s","msg":{...}}   client -> server message
    {"dir":"s2c","msg":{...}}   server -> client message
    {"dir":"s2c","raw":"..."}   a line that is not JSON (kept so nothing is lost)

Why a tap instead of hooking the SDKs: the SDKs serialise and parse their own
messages, so anything recorded inside them would already have passed through
their schema layer. Sitting on the pipe records exactly what crossed the wire.

Why Python: `json.loads` keeps object key order exactly as written and keeps
integers exact, so re-serialising `msg` compactly changes only whitespace.
(JavaScript's JSON.parse would move integer-like keys to the front.)

The server's stderr is inherited, not captured: it is diagnostics, not MCP.
Only the standard library is used, so any python3 can run the tap.
"""

import json
import os
import signal
import subprocess
import sys
import threading

CHUNK = 65536


def main() -> int:
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        sys.stderr.write("usage: tap.py CAPTURE_FILE -- SERVER_COMMAND [ARGS...]\n")
        return 2
    capture_path, server_cmd = args[0], args[2:]

    # Appending (not truncating) keeps the record intact should a client ever
    # launch the server twice; record.sh deletes stale captures beforehand.
    capture = open(capture_path, "a", encoding="utf-8")
    capture_lock = threading.Lock()

    def record(direction: str, line: bytes) -> None:
        text = line.decode("utf-8", errors="replace")
        if text.endswith("\r"):
            text = text[:-1]
        if not text.strip():
            return
        try:
            # The default dict keeps insertion order, i.e. the sender's key order.
            entry = {"dir": direction, "msg": json.loads(text)}
        except ValueError:
            entry = {"dir": direction, "raw": text}
        out = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
        with capture_lock:
            capture.write(out + "\n")
            capture.flush()

    server = subprocess.Popen(server_cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    # Forward termination requests so the real server is never orphaned when
    # the client's transport gives up waiting and signals the tap.
    def forward_signal(signum, _frame):
        if server.poll() is None:
            server.send_signal(signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, forward_signal)

    def pump(src_fd: int, dst, direction: str, on_eof) -> None:
        """Copy bytes src -> dst as they arrive; record every complete line."""
        pending = b""
        while True:
            try:
                chunk = os.read(src_fd, CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                break
            # Record complete lines *before* relaying them: the peer cannot act
            # on a line it has not received, so a reply can never be recorded
            # ahead of the message that caused it. A trailing partial line is
            # relayed now and recorded once its newline arrives.
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                record(direction, line)
            try:
                dst.write(chunk)
                dst.flush()
            except (BrokenPipeError, OSError):
                pass  # the far side went away; keep recording what we were sent
        if pending:
            record(direction, pending)  # unterminated last line
        on_eof()

    def close_quietly(stream) -> None:
        try:
            stream.close()
        except OSError:
            pass

    stdout = os.fdopen(sys.stdout.fileno(), "wb", buffering=0, closefd=False)
    c2s = threading.Thread(
        target=pump,
        args=(sys.stdin.fileno(), server.stdin, "c2s", lambda: close_quietly(server.stdin)),
        daemon=True,  # the client may keep stdin open after the server exits
    )
    s2c = threading.Thread(
        target=pump,
        args=(server.stdout.fileno(), stdout, "s2c", lambda: None),
    )
    c2s.start()
    s2c.start()

    s2c.join()  # server closed its stdout: nothing more can be recorded
    code = server.wait()
    capture.close()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main())
