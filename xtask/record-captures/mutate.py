#!/usr/bin/env python3
"""Derives invalid traffic captures from the real ones, one deliberate mutation each.

Usage: python3 mutate.py [--real DIR] [--out DIR]

Reads the captures recorded by record.sh (spec-fixtures/traffic/real/) and writes
spec-fixtures/traffic/expected-invalid/mutations/<name>.ndjson, each a real capture
with exactly one thing broken. What each mutation breaks and which rule it is meant to
trigger is in MUTATIONS below; the README.md of the output folder is generated from it.

Why mutate real captures instead of writing invalid traffic by hand: a hand-written
fixture only shows that a rule fires on the shape its author imagined. A real capture
with one change shows that the rule fires on traffic as real SDKs produce it (their key
order, ids, _meta envelopes, interleaved notifications) and that nothing *else* in a
full session drowns or masks the finding. Since the rest of the file is the real
capture, every finding in a sidecar beyond the intended one is either inherited from
the real capture (its own sidecar lists it) or a direct consequence of the mutation.

Why anchors instead of line numbers: mutations locate the message they change by
direction, method, tool name or id (find() below), so a re-recording that shifts lines
still mutates the same message; a mutation whose anchor is gone fails the run loudly
instead of silently mutating something else.

Why the output is byte-identical outside the mutation: unmodified lines are copied
verbatim. A modified record is re-serialised the way tap.py writes records (compact,
key order kept, non-ASCII kept), so the only textual difference is the mutation. The
script checks that the source lines it touches round-trip through that serialisation,
which guarantees that.

Warning-only mutations: the fixture folder convention (docs/fixtures.md) requires at
least one error below expected-invalid/. Two mutations break only SHOULD-level rules
(an unanswered request, an undated message), so they go into the nested
mutations/expected-warning/ folder, where the nearest convention folder asks for
warnings and no errors.

Deterministic and standard library only: no randomness, no clock, no network.
Sidecars (<name>.expected.yaml) are not written here; after regenerating, run
`mcpdesc test spec-fixtures/traffic/expected-invalid/mutations --bless` and review them.
"""

import argparse
import copy
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
DEFAULT_REAL = REPO / "spec-fixtures" / "traffic" / "real"
DEFAULT_OUT = REPO / "spec-fixtures" / "traffic" / "expected-invalid" / "mutations"

# The subfolder (of the output folder) for mutations that yield warnings only.
WARNING_DIR = "expected-warning"


def dumps(record) -> str:
    """One capture line, exactly as tap.py writes it."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


class MutationError(Exception):
    pass


class Capture:
    """A real capture as its verbatim lines plus the parsed records, edited in place.

    Every edit keeps `lines` and `records` aligned, so a later find() sees the
    capture as already mutated (needed when one mutation inserts and then edits).
    """

    def __init__(self, path: pathlib.Path):
        # Bytes, not read_text(): universal-newline decoding would rewrite a stray "\r".
        text = path.read_bytes().decode("utf-8")
        if not text.endswith("\n"):
            raise MutationError(f"{path.name}: expected a trailing newline")
        self.name = path.name
        self.lines = text[:-1].split("\n")
        self.records = [json.loads(line) for line in self.lines]
        self.touched = 0

    # -- finding messages -------------------------------------------------------------

    def find(self, *, dir=None, method=None, tool=None, kind=None, id=None,
             after=-1, nth=0, pred=None) -> int:
        """Index of the nth record after `after` that matches every given criterion.

        kind is 'request', 'notification', 'result' or 'error' (the JSON-RPC shape of
        the message); tool matches params.name of a tools/call request; nth=-1 is the
        last match.
        """
        hits = []
        for i, rec in enumerate(self.records):
            if i <= after:
                continue
            msg = rec.get("msg")
            if not isinstance(msg, dict):
                continue
            if dir is not None and rec.get("dir") != dir:
                continue
            if method is not None and msg.get("method") != method:
                continue
            if kind is not None and kind_of(msg) != kind:
                continue
            if id is not None and ("id" not in msg or msg["id"] != id):
                continue
            if tool is not None and (msg.get("params") or {}).get("name") != tool:
                continue
            if pred is not None and not pred(msg):
                continue
            hits.append(i)
        if not hits or nth >= len(hits) or nth < -len(hits):
            crit = {k: v for k, v in dict(dir=dir, method=method, tool=tool, kind=kind,
                                           id=id, after=after, nth=nth).items()
                    if v is not None}
            raise MutationError(f"{self.name}: no message matches {crit}")
        return hits[nth]

    def response_to(self, i: int) -> int:
        """Index of the response answering the request at i (same id, other direction)."""
        req = self.records[i]
        other = {"c2s": "s2c", "s2c": "c2s"}[req["dir"]]
        rid = req["msg"]["id"]
        return self.find(dir=other, id=rid, after=i,
                         pred=lambda m: "result" in m or "error" in m)

    def msg(self, i: int) -> dict:
        return self.records[i]["msg"]

    def unused_id(self, dir: str) -> int:
        """A fresh integer id for a new request from `dir`: one more than any used."""
        ids = [r["msg"]["id"] for r in self.records
               if r.get("dir") == dir and isinstance(r.get("msg"), dict)
               and kind_of(r["msg"]) == "request" and type(r["msg"]["id"]) is int]
        return max(ids, default=0) + 1

    # -- editing ----------------------------------------------------------------------

    def edit(self, i: int, change) -> None:
        """Applies change(record) in place to record i and re-serialises that line."""
        if dumps(self.records[i]) != self.lines[i]:
            # Re-serialising would change more than the mutation; refuse.
            raise MutationError(f"{self.name}:{i + 1}: line does not round-trip")
        before = self.lines[i]
        change(self.records[i])
        self.lines[i] = dumps(self.records[i])
        if self.lines[i] == before:
            raise MutationError(f"{self.name}:{i + 1}: mutation changed nothing")
        self.touched += 1

    def set_line(self, i: int, record, text=None) -> None:
        """Replaces line i by a record (or by literal text that stands for it)."""
        self.records[i] = record
        self.lines[i] = dumps(record) if text is None else text
        self.touched += 1

    def insert(self, i: int, record) -> None:
        """Inserts a record so that it becomes line i (0-based)."""
        self.records.insert(i, record)
        self.lines.insert(i, dumps(record))
        self.touched += 1

    def drop(self, i: int) -> None:
        del self.records[i]
        del self.lines[i]
        self.touched += 1

    def move(self, i: int, to: int) -> None:
        """Moves line i so that it ends up right after the line now at index `to`."""
        rec, line = self.records.pop(i), self.lines.pop(i)
        if to > i:
            to -= 1
        self.records.insert(to + 1, rec)
        self.lines.insert(to + 1, line)
        self.touched += 1

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def kind_of(msg: dict) -> str:
    if isinstance(msg.get("method"), str):
        return "request" if "id" in msg else "notification"
    if "error" in msg:
        return "error"
    if "result" in msg:
        return "result"
    return "unknown"


def rename_key(obj: dict, old: str, new: str) -> None:
    """Renames a key of obj in place, keeping its position in the key order."""
    if old not in obj:
        raise MutationError(f"no key {old!r}")
    items = [(new if k == old else k, v) for k, v in obj.items()]
    obj.clear()
    obj.update(items)


def delete_key(obj: dict, key: str) -> None:
    if key not in obj:
        raise MutationError(f"no key {key!r}")
    del obj[key]


META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_SUB = "io.modelcontextprotocol/subscriptionId"

PY_2024 = "python-sdk-2024-11-05.ndjson"
PY_2025_03 = "python-sdk-2025-03-26.ndjson"
PY_2025_06 = "python-sdk-2025-06-18.ndjson"
PY_2025_11 = "python-sdk-2025-11-25.ndjson"
PY_2026 = "python-sdk-2026-07-28.ndjson"
TS_2024_10 = "ts-sdk-everything-2024-10-07.ndjson"
TS_2024_11 = "ts-sdk-everything-2024-11-05.ndjson"
TS_2025_03 = "ts-sdk-everything-2025-03-26.ndjson"
TS_2025_06 = "ts-sdk-everything-2025-06-18.ndjson"
TS_2025_11 = "ts-sdk-everything-2025-11-25.ndjson"


# ---------------------------------------------------------------------------------------
# The mutations. Each takes the Capture of its source and changes one thing; the
# docstring is the one-line description used in README.md.
# ---------------------------------------------------------------------------------------

# -- JSON-RPC pairing ---------------------------------------------------------------------

def response_dropped(c: Capture):
    """The server's response to the client's first `ping` is deleted."""
    # A lost response is the plainest pairing failure; ping is chosen because no later
    # message depends on its result, so nothing but the unanswered request can change.
    c.drop(c.response_to(c.find(dir="c2s", method="ping")))


def id_reused_in_flight(c: Capture):
    """The client gives the `touch_config` tools/call the id of the still-open `subscriptions/listen` request (`listen-1`); its response carries that id too."""
    # Requests of these SDKs are strictly sequential, except the long-lived
    # subscriptions/listen stream of 2026-07-28: the only place where a request is in
    # flight while the same side sends another. The response is renamed with its request
    # so that pairing stays right (the latest request with the id is answered first) and
    # the only fault is the reuse itself.
    listen = c.find(dir="c2s", method="subscriptions/listen")
    sub_id = c.msg(listen)["id"]
    call = c.find(dir="c2s", tool="touch_config", after=listen)
    reply = c.response_to(call)
    c.edit(call, lambda r: r["msg"].__setitem__("id", sub_id))
    c.edit(reply, lambda r: r["msg"].__setitem__("id", sub_id))


def response_id_never_sent(c: Capture):
    """The id of the response to the client's first `ping` is changed to one no request used."""
    ping = c.find(dir="c2s", method="ping")
    reply = c.response_to(ping)
    fresh = c.unused_id("c2s")
    c.edit(reply, lambda r: r["msg"].__setitem__("id", fresh))


# -- stdio framing ------------------------------------------------------------------------

def log_line_on_stdout(c: Capture):
    """A log line (not JSON) appears on the server's stdout right after the client's `tools/list`, recorded the way tap.py records such a line (`raw`)."""
    # The commonest stdio bug: a server logging to stdout. tap.py keeps such a line as a
    # {"dir":"s2c","raw":...} record, so that is the form it takes in a capture.
    at = c.find(dir="c2s", method="tools/list")
    c.insert(at + 1, {"dir": "s2c", "raw": "[server] handling tools/list request"})


def message_pretty_printed(c: Capture):
    """The client's first tools/call (`add`) is written pretty-printed, spread over several lines."""
    # What a peer that serialises with indentation sends. The capture reader recovers the
    # message by joining lines, so the message itself is still judged (and valid).
    i = c.find(dir="c2s", tool="add")
    rec = c.records[i]
    if dumps(rec) != c.lines[i]:
        raise MutationError(f"{c.name}:{i + 1}: line does not round-trip")
    pretty = json.dumps(rec["msg"], ensure_ascii=False, indent=2)
    text = '{"dir":' + json.dumps(rec["dir"]) + ',"msg":' + pretty + "}"
    # Keep lines and records aligned: the record stays one entry, its text spans lines.
    c.set_line(i, rec, text=text)


def bare_number(c: Capture):
    """The server's first `notifications/message` is replaced by the bare JSON number `42`."""
    # A notification is chosen so that no pairing depends on the replaced message.
    i = c.find(dir="s2c", method="notifications/message")
    c.set_line(i, {"dir": c.records[i]["dir"], "msg": 42})


# -- official schema ----------------------------------------------------------------------

def tool_name_number(c: Capture):
    """`params.name` of the first tools/call (`add`) becomes the number 42."""
    i = c.find(dir="c2s", tool="add")
    c.edit(i, lambda r: r["msg"]["params"].__setitem__("name", 42))


def content_string(c: Capture):
    """The `content` of the result of the first tools/call (`add`) becomes a string (the text of its first block)."""
    reply = c.response_to(c.find(dir="c2s", tool="add"))
    def change(r):
        result = r["msg"]["result"]
        result["content"] = result["content"][0]["text"]
    c.edit(reply, change)


def ping_in_2026(c: Capture):
    """The client sends `ping` (with a complete 2026-07-28 `_meta`) after its last tools/call; the server answers -32601."""
    # ping does not exist in 2026-07-28. The _meta is copied from the request before, so
    # only the method is wrong; the server's method-not-found error keeps it answered.
    last_call = c.find(dir="c2s", tool="touch_config")
    at = c.response_to(last_call) + 1
    rid = c.unused_id("c2s")
    meta = copy.deepcopy(c.msg(last_call)["params"]["_meta"])
    c.insert(at, {"dir": "c2s", "msg": {"jsonrpc": "2.0", "id": rid, "method": "ping",
                                        "params": {"_meta": meta}}})
    c.insert(at + 1, {"dir": "s2c", "msg": {"jsonrpc": "2.0", "id": rid, "error": {
        "code": -32601, "message": "Method not found"}}})


def tasks_list_in_2025_03_26(c: Capture):
    """The client sends `tasks/list` (defined from 2025-11-25) after its last `ping`; the server answers -32601."""
    # Written in the TypeScript SDK's key order (method, jsonrpc, id) like its other
    # requests, and answered the way the SDK answers an unknown method.
    at = c.response_to(c.find(dir="c2s", method="ping", nth=-1)) + 1
    rid = c.unused_id("c2s")
    c.insert(at, {"dir": "c2s", "msg": {"method": "tasks/list", "jsonrpc": "2.0", "id": rid}})
    c.insert(at + 1, {"dir": "s2c", "msg": {"jsonrpc": "2.0", "id": rid, "error": {
        "code": -32601, "message": "Method not found"}}})


# -- version and capabilities of the legacy handshake -------------------------------------

def unknown_protocol_version(c: Capture):
    """The initialize result negotiates `2025-07-01`, a version that was never published."""
    i = c.response_to(c.find(dir="c2s", method="initialize"))
    c.edit(i, lambda r: r["msg"]["result"].__setitem__("protocolVersion", "2025-07-01"))


def sampling_capability_removed(c: Capture):
    """`sampling` is removed from the client capabilities of the initialize request; the server still sends `sampling/createMessage`."""
    c.find(dir="s2c", method="sampling/createMessage")  # the use that makes it wrong
    i = c.find(dir="c2s", method="initialize")
    c.edit(i, lambda r: delete_key(r["msg"]["params"]["capabilities"], "sampling"))


def prompts_capability_removed(c: Capture):
    """`prompts` is removed from the server capabilities of the initialize result; the client still calls prompts/list and prompts/get."""
    c.find(dir="c2s", method="prompts/list")
    i = c.response_to(c.find(dir="c2s", method="initialize"))
    c.edit(i, lambda r: delete_key(r["msg"]["result"]["capabilities"], "prompts"))


# -- tool schemas -------------------------------------------------------------------------

def arguments_violate_input_schema(c: Capture):
    """Argument `a` of the tools/call of `get-sum` becomes the string `"19"`; the listed inputSchema says number."""
    i = c.find(dir="c2s", tool="get-sum")
    def change(r):
        args = r["msg"]["params"]["arguments"]
        args["a"] = str(args["a"])
    c.edit(i, change)


def structured_content_violates_output_schema(c: Capture):
    """`temperature` in the structuredContent of `get-structured-content` becomes a string; the listed outputSchema says number."""
    i = c.response_to(c.find(dir="c2s", tool="get-structured-content"))
    def change(r):
        sc = r["msg"]["result"]["structuredContent"]
        sc["temperature"] = str(sc["temperature"])
    c.edit(i, change)


# -- elicitation --------------------------------------------------------------------------

def url_elicitation_2025_06_18(c: Capture):
    """The `mode` of the server's first elicitation/create (for `book_table`) becomes `"url"`, a mode that 2025-06-18 does not have."""
    i = c.find(dir="s2c", method="elicitation/create")
    c.edit(i, lambda r: r["msg"]["params"].__setitem__("mode", "url"))


def nested_form_schema(c: Capture):
    """Property `time` of the requestedSchema of the first elicitation/create (for `book_table`) becomes `type: "object"`, a nested field."""
    i = c.find(dir="s2c", method="elicitation/create")
    def change(r):
        prop = r["msg"]["params"]["requestedSchema"]["properties"]["time"]
        if prop.get("type") != "string":
            raise MutationError("expected a string field `time`")
        prop["type"] = "object"
    c.edit(i, change)


# -- 2026-07-28: per-request metadata and results -----------------------------------------

def meta_removed(c: Capture):
    """`params._meta` is removed from the tools/call of `get_forecast`."""
    # The version of the message is then taken from the requests before it, so the rule
    # that requires _meta still judges it.
    i = c.find(dir="c2s", tool="get_forecast")
    c.edit(i, lambda r: delete_key(r["msg"]["params"], "_meta"))


def protocol_version_removed(c: Capture):
    """`io.modelcontextprotocol/protocolVersion` is removed from the `_meta` of the first request (server/discover)."""
    # With no handshake and nothing before it, the first request (and its response) has no
    # known version at all: the version-dependent rules cannot judge it.
    i = c.find(dir="c2s", kind="request")
    if i != 0:
        raise MutationError("expected the capture to start with a request")
    c.edit(i, lambda r: delete_key(r["msg"]["params"]["_meta"], META_VERSION))


def result_type_removed(c: Capture):
    """`resultType` is removed from the result of resources/list."""
    i = c.response_to(c.find(dir="c2s", method="resources/list"))
    c.edit(i, lambda r: delete_key(r["msg"]["result"], "resultType"))


def unsupported_version_without_data(c: Capture):
    """The error answering the failing prompts/get gets code -32022 (UnsupportedProtocolVersionError); it has no `data`."""
    # The capture has no version refusal, so an existing error without data is recoded:
    # a -32022 that does not say which versions are supported.
    i = c.response_to(c.find(dir="c2s", method="prompts/get", nth=1))
    if kind_of(c.msg(i)) != "error" or "data" in c.msg(i)["error"]:
        raise MutationError("expected the second prompts/get to fail without data")
    c.edit(i, lambda r: r["msg"]["error"].__setitem__("code", -32022))


def server_request_2026(c: Capture):
    """While the first tools/call of `list_workspace_roots` is in flight, the server sends a legacy `roots/list` request; the client answers -32601."""
    # A server that falls back to a server-to-client request instead of input_required.
    # A 2026-07-28 client serves no requests, so it answers method-not-found; that keeps
    # the request answered and adds no result that other rules would judge.
    call = c.find(dir="c2s", tool="list_workspace_roots")
    sid = c.unused_id("s2c")
    c.insert(call + 1, {"dir": "s2c", "msg": {"jsonrpc": "2.0", "id": sid, "method": "roots/list"}})
    c.insert(call + 2, {"dir": "c2s", "msg": {"jsonrpc": "2.0", "id": sid, "error": {
        "code": -32601, "message": "Method not found"}}})


# -- 2026-07-28: multi round-trip requests ------------------------------------------------

def tools_list_input_required(c: Capture):
    """The `resultType` of the tools/list result becomes `"input_required"`."""
    i = c.response_to(c.find(dir="c2s", method="tools/list"))
    c.edit(i, lambda r: r["msg"]["result"].__setitem__("resultType", "input_required"))


def input_request_kind(c: Capture):
    """The `roots/list` input request of the first `list_workspace_roots` result asks for `resources/list` instead."""
    # resources/list is a request the server answers, not one the client can fulfil.
    i = c.response_to(c.find(dir="c2s", tool="list_workspace_roots"))
    def change(r):
        reqs = r["msg"]["result"]["inputRequests"]
        (key,) = [k for k, v in reqs.items() if v.get("method") == "roots/list"]
        reqs[key]["method"] = "resources/list"
    c.edit(i, change)


def roots_capability_removed(c: Capture):
    """`roots` is removed from the clientCapabilities of the first tools/call of `list_workspace_roots`; the server still asks for roots/list."""
    i = c.find(dir="c2s", tool="list_workspace_roots")
    c.edit(i, lambda r: delete_key(r["msg"]["params"]["_meta"][META_CAPS], "roots"))


def input_response_renamed(c: Capture):
    """In the retry of `plan_trip`, the inputResponses key `__main__:ask_trip_preferences` becomes `__main__:ask_trip_preference`."""
    first = c.find(dir="c2s", tool="plan_trip")
    retry = c.find(dir="c2s", tool="plan_trip", after=first)
    c.edit(retry, lambda r: rename_key(r["msg"]["params"]["inputResponses"],
                                       "__main__:ask_trip_preferences",
                                       "__main__:ask_trip_preference"))


def request_state_altered(c: Capture):
    """In the retry of `list_workspace_roots`, the last character of `requestState` is changed."""
    # One character is enough: requestState is opaque and must be echoed byte for byte.
    first = c.find(dir="c2s", tool="list_workspace_roots")
    retry = c.find(dir="c2s", tool="list_workspace_roots", after=first)
    def change(r):
        state = r["msg"]["params"]["requestState"]
        r["msg"]["params"]["requestState"] = state[:-1] + ("A" if state[-1] != "A" else "B")
    c.edit(retry, change)


# -- 2026-07-28: subscriptions ------------------------------------------------------------

def subscription_id_removed(c: Capture):
    """`io.modelcontextprotocol/subscriptionId` is removed from the `_meta` of the notifications/resources/updated on the listen stream."""
    i = c.find(dir="s2c", method="notifications/resources/updated")
    c.edit(i, lambda r: delete_key(r["msg"]["params"]["_meta"], META_SUB))


def notification_before_ack(c: Capture):
    """notifications/subscriptions/acknowledged is moved after the notifications/resources/updated it should precede."""
    # Moving the acknowledgement later (rather than the update earlier) keeps the update
    # after the tools/call that causes it.
    ack = c.find(dir="s2c", method="notifications/subscriptions/acknowledged")
    upd = c.find(dir="s2c", method="notifications/resources/updated", after=ack)
    c.move(ack, upd)


class M:
    """One mutation: output name, source capture, the function, the rules it is meant to
    trigger, and the findings it adds beyond those as a direct consequence (README text)."""

    def __init__(self, name, source, mutate, rules, also=""):
        self.name, self.source, self.mutate, self.rules, self.also = name, source, mutate, rules, also


# Order is the order of the README table: grouped by what is broken.
MUTATIONS = [
    M("python-2025-03-26-response-dropped", PY_2025_03, response_dropped,
      ["mcp.jsonrpc.request-answered"]),
    M("python-2026-07-28-id-reused-in-flight", PY_2026, id_reused_in_flight,
      ["mcp.jsonrpc.id-in-flight"]),
    M("ts-2025-11-25-response-id-never-sent", TS_2025_11, response_id_never_sent,
      ["mcp.jsonrpc.response-without-request"],
      "`mcp.jsonrpc.request-answered` (warning) on the ping that lost its response"),
    M("ts-2024-10-07-log-line-on-stdout", TS_2024_10, log_line_on_stdout,
      ["mcp.stdio.not-json"]),
    M("python-2025-11-25-message-pretty-printed", PY_2025_11, message_pretty_printed,
      ["mcp.stdio.embedded-newline"]),
    M("ts-2024-11-05-bare-number", TS_2024_11, bare_number,
      ["mcp.stdio.non-jsonrpc"]),
    M("python-2025-06-18-tool-name-number", PY_2025_06, tool_name_number,
      ["mcp.wire.message-schema"]),
    M("python-2024-11-05-content-string", PY_2024, content_string,
      ["mcp.wire.result-schema"]),
    M("python-2026-07-28-ping", PY_2026, ping_in_2026,
      ["mcp.wire.message-schema"]),
    M("ts-2025-03-26-tasks-list", TS_2025_03, tasks_list_in_2025_03_26,
      ["mcp.wire.message-schema"]),
    M("ts-2025-06-18-unknown-protocol-version", TS_2025_06, unknown_protocol_version,
      ["mcp.wire.known-protocol-version"],
      "none; the findings inherited from the real capture disappear, as no message is in a "
      "known version any more"),
    M("python-2024-11-05-sampling-capability-removed", PY_2024, sampling_capability_removed,
      ["mcp.capabilities.client-feature-negotiated"]),
    M("python-2025-03-26-prompts-capability-removed", PY_2025_03, prompts_capability_removed,
      ["mcp.capabilities.server-feature-negotiated"],
      "one finding per prompts request (prompts/list and both prompts/get)"),
    M("ts-2024-11-05-arguments-violate-input-schema", TS_2024_11, arguments_violate_input_schema,
      ["mcp.tool.call-arguments-schema"]),
    M("ts-2025-11-25-structured-content-violates-output-schema", TS_2025_11,
      structured_content_violates_output_schema, ["mcp.tool.structured-content-schema"]),
    M("python-2025-06-18-url-elicitation", PY_2025_06, url_elicitation_2025_06_18,
      ["mcp.elicitation.protocol-version"]),
    M("python-2025-11-25-nested-form-schema", PY_2025_11, nested_form_schema,
      ["mcp.elicitation.form-schema-flat"],
      "`mcp.wire.message-schema` on the request's params (the official schema has no "
      "nested form field either)"),
    M("python-2026-07-28-meta-removed", PY_2026, meta_removed,
      ["mcp.request.meta-2026"],
      "`mcp.wire.message-schema` (the 2026-07-28 schema requires `params._meta`)"),
    M("python-2026-07-28-protocol-version-removed", PY_2026, protocol_version_removed,
      ["mcp.wire.undated-message"],
      "on the request and on its response; no version-dependent rule judges either"),
    M("python-2026-07-28-result-type-removed", PY_2026, result_type_removed,
      ["mcp.result.result-type-2026"],
      "`mcp.wire.message-schema` and `mcp.wire.result-schema` (the 2026-07-28 schema "
      "requires `resultType`)"),
    M("python-2026-07-28-unsupported-version-without-data", PY_2026,
      unsupported_version_without_data, ["mcp.errors.unsupported-version-data"]),
    M("python-2026-07-28-server-request", PY_2026, server_request_2026,
      ["mcp.wire.server-requests-2026"]),
    M("python-2026-07-28-tools-list-input-required", PY_2026, tools_list_input_required,
      ["mcp.mrtr.input-required-methods"]),
    M("python-2026-07-28-input-request-kind", PY_2026, input_request_kind,
      ["mcp.mrtr.input-request-kinds"],
      "`mcp.wire.result-schema` on the entry (not an InputRequest of the schema)"),
    M("python-2026-07-28-roots-capability-removed", PY_2026, roots_capability_removed,
      ["mcp.mrtr.input-request-capability"]),
    M("python-2026-07-28-input-response-renamed", PY_2026, input_response_renamed,
      ["mcp.mrtr.retry-responses-match"]),
    M("python-2026-07-28-request-state-altered", PY_2026, request_state_altered,
      ["mcp.mrtr.request-state-echoed"]),
    M("python-2026-07-28-subscription-id-removed", PY_2026, subscription_id_removed,
      ["mcp.subscriptions.subscription-id"]),
    M("python-2026-07-28-notification-before-ack", PY_2026, notification_before_ack,
      ["mcp.subscriptions.acknowledged-first"]),
]

# Mutations whose only findings are warnings (SHOULD-level rules); see the module docstring.
WARNING_ONLY = {"python-2025-03-26-response-dropped", "python-2026-07-28-protocol-version-removed"}


def describe(fn) -> str:
    return " ".join(fn.__doc__.split())


def readme() -> str:
    """README.md of the output folder, generated so that it cannot drift from MUTATIONS."""
    out = [
        "# Mutated real captures",
        "",
        "Generated by `xtask/record-captures/mutate.py` (run by `record.sh` after recording);",
        "do not edit by hand. Each capture is one of the real captures in",
        "[`../../real/`](../../real/PROVENANCE.md) with **one** deliberate mutation; every other",
        "line is byte-identical to the real capture. The sidecars (`<name>.expected.yaml`) are",
        "blessed with `mcpdesc test spec-fixtures/traffic/expected-invalid/mutations --bless`",
        "and reviewed: each has the intended rule at the mutated message.",
        "",
        "Besides the intended rule, a sidecar holds only",
        "",
        "- findings the real capture already has (see its own sidecar), shifted when the",
        "  mutation inserts or removes a line: in every `python-2026-07-28-*` capture the",
        "  `mcp.sampling.deprecated-2026` warning on the `draft_pitch` input request; in",
        "  `ts-2024-11-05-*` and `ts-2025-03-26-*` the two `mcp.wire.result-schema` errors on",
        "  the `resource_link` blocks of `get-resource-links`; in `ts-2024-10-07-*` the",
        "  `mcp.wire.known-protocol-version` error (2024-10-07 has no published schema);",
        "- the direct consequences listed in the last column.",
        "",
        f"The two mutations that break only SHOULD-level rules are in `{WARNING_DIR}/`, as the",
        "fixture folder convention requires at least one error below `expected-invalid/`.",
        "",
        "| File | Source capture | Mutation | Meant to trigger | Also, as a consequence |",
        "|---|---|---|---|---|",
    ]
    for m in MUTATIONS:
        path = (f"{WARNING_DIR}/" if m.name in WARNING_ONLY else "") + m.name + ".ndjson"
        rules = ", ".join(f"`{r}`" for r in m.rules)
        out.append(f"| `{path}` | `{m.source}` | {describe(m.mutate)} | {rules} | {m.also or '-'} |")
    out.append("")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--real", type=pathlib.Path, default=DEFAULT_REAL,
                    help="folder of the real captures (default: %(default)s)")
    ap.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT,
                    help="folder to write the mutations to (default: %(default)s)")
    args = ap.parse_args()

    names = [m.name for m in MUTATIONS]
    if len(set(names)) != len(names):
        raise SystemExit("duplicate mutation names")

    written = set()
    for m in MUTATIONS:
        name = m.name
        capture = Capture(args.real / m.source)
        original = capture.text()
        try:
            m.mutate(capture)
        except MutationError as e:
            print(f"mutation {name} failed: {e}", file=sys.stderr)
            return 1
        if capture.touched == 0 or capture.text() == original:
            print(f"mutation {name} changed nothing", file=sys.stderr)
            return 1
        folder = args.out / WARNING_DIR if name in WARNING_ONLY else args.out
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.ndjson"
        path.write_text(capture.text(), encoding="utf-8", newline="\n")
        written.add(path)

    # A mutation that was renamed or removed leaves its old file behind; delete it (and
    # its sidecar) so the folder holds exactly the current mutations.
    for folder in (args.out, args.out / WARNING_DIR):
        for stale in sorted(folder.glob("*.ndjson")):
            if stale not in written:
                stale.unlink()
                sidecar = stale.with_name(stale.name[: -len(".ndjson")] + ".expected.yaml")
                if sidecar.exists():
                    sidecar.unlink()
                print(f"removed stale {stale.relative_to(REPO) if stale.is_relative_to(REPO) else stale}")

    (args.out / "README.md").write_text(readme(), encoding="utf-8", newline="\n")
    print(f"wrote {len(written)} mutated captures and README.md to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
