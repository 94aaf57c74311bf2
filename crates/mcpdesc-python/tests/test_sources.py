"""Every kind of source ``validate`` accepts, how the format is chosen, and the exact fields
of a report."""

from __future__ import annotations

import collections
import collections.abc
import dataclasses
import json
import pathlib
from pathlib import Path

import pytest

import mcpdesc
from mcpdesc import Diagnostic, Engine, LoadFailure, Report, validate

from conftest import BAD_TOOL, CAPTURE, CAPTURE_MESSAGES, VALID, WORKSPACE


def closed_tool(report: Report) -> Diagnostic:
    found = [d for d in report.diagnostics if d.rule == "mcpdesc.tool.closed"]
    assert len(found) == 1, report.diagnostics
    return found[0]


class TestAKnownBadDocument:
    def test_gives_the_exact_finding_of_the_closed_tool_object(self) -> None:
        report = validate(BAD_TOOL)
        assert isinstance(report, Report)
        assert report.valid is False
        assert not report
        assert report.kind == "description"
        assert report.release == "0.8.0"
        assert report.path is None
        assert report.load_error is None
        assert report.diagnostics == [
            Diagnostic(
                rule="mcpdesc.tool.closed",
                severity="error",
                message="tool member `bogus` is not defined; remove it or rename it to an `x-` extension",
                pointer="/tools/0/bogus",
                line=5,
                column=5,
                versions=("2025-11-25",),
                doc_url=None,
            )
        ]
        assert report.errors == report.diagnostics
        assert report.warnings == []
        assert report.diagnostics[0].is_error

    def test_a_report_and_its_findings_are_frozen_and_serialize_to_json(self) -> None:
        report = validate(BAD_TOOL)
        with pytest.raises(dataclasses.FrozenInstanceError):
            report.valid = True  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            report.diagnostics[0].line = 1  # type: ignore[misc]
        data = json.loads(json.dumps(report.to_dict()))
        assert data == {
            "valid": False,
            "path": None,
            "kind": "description",
            "release": "0.8.0",
            "diagnostics": [
                {
                    "rule": "mcpdesc.tool.closed",
                    "severity": "error",
                    "message": "tool member `bogus` is not defined; remove it or rename it to an `x-` extension",
                    "pointer": "/tools/0/bogus",
                    "line": 5,
                    "column": 5,
                    "versions": ["2025-11-25"],
                    "doc_url": None,
                }
            ],
            "load_error": None,
        }
        assert repr(report) == (
            "<Report valid=False path=None kind='description' release='0.8.0' errors=1 warnings=0 infos=0>"
        )
        assert str(report.diagnostics[0]) == (
            "5:5: error: tool member `bogus` is not defined; remove it or rename it to an `x-` extension"
            " [mcpdesc.tool.closed]"
        )

    def test_a_valid_document_has_no_findings(self) -> None:
        report = validate(VALID)
        assert report.valid is True
        assert report
        assert report.diagnostics == []

    def test_warnings_keep_a_document_valid(self) -> None:
        report = validate({**VALID, "info": {"name": "demo", "version": "v1"}})
        assert report.valid is True
        assert [d.rule for d in report.warnings] == ["mcpdesc.info.version-semver"]
        assert report.errors == []
        assert report.warnings[0].pointer == "/info/version"


class TestSources:
    def test_json_text(self) -> None:
        text = json.dumps({**VALID, "tools": [{"name": "demo_tool", "bogus": 1}]}, indent=2)
        report = validate(text)
        finding = closed_tool(report)
        assert finding.pointer == "/tools/0/bogus"
        assert (finding.line, finding.column) == (13, 7)

    def test_yaml_text(self) -> None:
        assert closed_tool(validate(BAD_TOOL)).line == 5

    @pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview], ids=["bytes", "bytearray", "memoryview"])
    def test_bytes_like(self, wrap: type) -> None:
        report = validate(wrap(BAD_TOOL.encode()))
        assert report == validate(BAD_TOOL)

    def test_a_memoryview_into_a_larger_buffer(self) -> None:
        buffer = b"xxxx" + BAD_TOOL.encode() + b"yyyy"
        view = memoryview(buffer)[4:-4]
        assert validate(view) == validate(BAD_TOOL)

    def test_text_and_bytes_with_a_byte_order_mark(self) -> None:
        assert closed_tool(validate("\ufeff" + BAD_TOOL)).line == 5
        assert closed_tool(validate(b"\xef\xbb\xbf" + BAD_TOOL.encode())).line == 5

    def test_bytes_that_are_not_utf8_are_a_load_failure(self) -> None:
        report = validate(b'{"mcpdesc": "0.8.0", "info": {"name": "\xff"}}')
        assert report.valid is False
        assert report.load_error is not None
        assert report.load_error.line == 1

    def test_a_path_is_read_by_the_engine(self, scratch: Path) -> None:
        file = scratch / "server.yaml"
        file.write_text(BAD_TOOL, encoding="utf-8")
        report = validate(file)
        assert report.path == str(file)
        assert closed_tool(report).line == 5
        # Any os.PathLike, not only pathlib.
        assert validate(_PathLike(str(file))).path == str(file)

    def test_files_are_read_as_json_yaml_or_capture_by_their_extension(self, scratch: Path) -> None:
        json_file = scratch / "a.json"
        json_file.write_text(json.dumps(VALID))
        yml_file = scratch / "a.yml"
        yml_file.write_text(BAD_TOOL)
        capture = scratch / "session.ndjson"
        capture.write_text(CAPTURE)
        traffic = scratch / "session.traffic.json"
        traffic.write_text(json.dumps(CAPTURE_MESSAGES))
        assert validate(json_file).valid
        assert validate(yml_file).load_error is None
        for file in (capture, traffic):
            report = validate(file)
            assert report.kind == "traffic", file
            assert report.valid, report.diagnostics

    def test_a_file_and_its_text_give_the_same_findings(self, scratch: Path) -> None:
        fixture = WORKSPACE / "spec-fixtures/expected-invalid/elicitation-before-2025-06-18.json"
        from_file = validate(fixture)
        assert from_file.valid is False
        text = fixture.read_text(encoding="utf-8")
        assert validate(text, path=str(fixture)) == from_file
        assert dataclasses.replace(validate(text), path=str(fixture)) == from_file

    def test_a_decoded_mapping_has_pointers_but_no_lines(self) -> None:
        report = validate({**VALID, "tools": [{"name": "demo_tool", "bogus": 1}]})
        finding = closed_tool(report)
        assert finding.pointer == "/tools/0/bogus"
        assert finding.line is None
        assert finding.column is None
        assert str(finding).startswith("/tools/0/bogus: error: ")

    def test_any_mapping_and_nested_tuples_are_decoded(self) -> None:
        doc = collections.OrderedDict(VALID)
        doc["protocolVersions"] = ("2025-06-18", "2025-11-25")  # type: ignore[assignment]
        doc["tools"] = [_ReadOnlyMapping({"name": "demo_tool", "bogus": 1})]  # type: ignore[assignment]
        finding = closed_tool(validate(doc))
        assert finding.versions == ("2025-06-18", "2025-11-25")

    def test_non_ascii_text_round_trips(self) -> None:
        doc = {**VALID, "info": {"name": "démo ☃", "version": "1.0.0", "description": "天気 🌦"}}
        assert validate(doc).valid
        assert validate(json.dumps(doc, ensure_ascii=False)).valid

    def test_a_list_of_messages_is_a_capture_with_format_capture(self) -> None:
        report = validate(CAPTURE_MESSAGES, format="capture")
        assert report.kind == "traffic"
        assert report.valid, report.diagnostics

    def test_a_decoded_capture_named_like_one_is_a_capture_too(self) -> None:
        assert validate(CAPTURE_MESSAGES, path="session.ndjson").kind == "traffic"
        assert validate(tuple(CAPTURE_MESSAGES), path="x.traffic.json").kind == "traffic"

    def test_a_decoded_capture_reports_its_findings_without_lines(self) -> None:
        broken = [CAPTURE_MESSAGES[0], {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-06-18"}}]
        report = validate(broken, format="capture")
        assert report.valid is False
        assert report.diagnostics
        for d in report.diagnostics:
            assert d.line is None, d
            assert d.pointer.startswith("/messages/"), d
        positioned = validate("\n".join(json.dumps(m) for m in broken), format="capture")
        assert [d.rule for d in positioned.diagnostics] == [d.rule for d in report.diagnostics]
        assert all(d.line is not None for d in positioned.diagnostics)

    def test_a_capture_as_text(self) -> None:
        report = validate(CAPTURE, format="capture")
        assert report.kind == "traffic"
        assert report.valid, report.diagnostics


class TestFormatAndPath:
    def test_yaml_is_recognised_by_its_content_json_by_its_first_character(self) -> None:
        assert validate(BAD_TOOL).load_error is None
        assert validate("  \n" + json.dumps(VALID)).valid

    def test_a_name_with_json_reads_yaml_text_as_json_a_syntax_error_at_a_position(self) -> None:
        report = validate(BAD_TOOL, path="server.json")
        assert report.valid is False
        assert report.path == "server.json"
        assert isinstance(report.load_error, LoadFailure)
        assert report.load_error.code == "json-syntax"
        assert report.load_error.line == 1
        assert isinstance(report.load_error.column, int)
        assert report.load_error.message

    def test_an_explicit_format_wins_over_the_name(self) -> None:
        report = validate(BAD_TOOL, path="server.json", format="yaml")
        assert report.load_error is None
        assert report.path == "server.json"
        assert closed_tool(report).line == 5

    def test_format_json_on_yaml_text_is_a_load_failure_not_an_exception(self) -> None:
        report = validate(BAD_TOOL, format="json")
        assert report.valid is False
        assert report.load_error is not None
        assert report.load_error.code == "json-syntax"
        assert report.diagnostics, "the failure is among the diagnostics"
        assert report.to_dict()["load_error"]["code"] == "json-syntax"
        assert "load_error='json-syntax'" in repr(report)

    def test_a_yaml_syntax_error_has_its_position(self) -> None:
        report = validate("mcpdesc: 0.8.0\ninfo: {name: demo\n")
        assert report.load_error is not None
        assert report.load_error.code == "yaml-syntax"
        assert report.load_error.line is not None and report.load_error.line >= 2

    def test_a_name_without_a_known_extension_leaves_the_format_to_the_content(self, scratch: Path) -> None:
        assert validate(BAD_TOOL, path="server.txt").load_error is None
        file = scratch / "description"
        file.write_text(BAD_TOOL)
        report = validate(file)
        assert report.load_error is None
        assert report.path == str(file)

    def test_a_yml_name_and_the_yml_alias_read_yaml(self) -> None:
        assert closed_tool(validate(BAD_TOOL, path="a.yml")).line == 5
        assert closed_tool(validate(BAD_TOOL, format="yml")).line == 5  # type: ignore[arg-type]

    def test_the_path_option_renames_a_file_and_its_format_follows_the_new_name(self, scratch: Path) -> None:
        file = scratch / "document.txt"
        file.write_text(BAD_TOOL)
        report = validate(file, path="renamed.yaml")
        assert report.path == "renamed.yaml"
        assert closed_tool(report).line == 5
        assert validate(file, path=pathlib.Path("renamed.json")).load_error is not None

    def test_an_engine_validates_with_per_call_options(self) -> None:
        engine = Engine()
        assert engine.validate(BAD_TOOL) == validate(BAD_TOOL)
        assert engine.validate(BAD_TOOL, path="x.yaml").path == "x.yaml"
        with pytest.raises(TypeError):
            engine.validate(BAD_TOOL, rules="rules")  # type: ignore[call-arg]

    def test_sources_and_options_of_other_types_are_type_errors(self) -> None:
        for source in (None, 42, 1.5, object(), {1, 2}):
            with pytest.raises(TypeError, match="source must be"):
                validate(source)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            validate(VALID, format=1)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            validate(VALID, protocol_versions=[2025])  # type: ignore[list-item]
        with pytest.raises(TypeError):
            validate(VALID, spec_version=8)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            validate(VALID, path=3)  # type: ignore[arg-type]


class TestDecodedValuesJsonCannotRepresent:
    def test_a_cycle_is_a_value_error(self) -> None:
        doc: dict[str, object] = dict(VALID)
        doc["self"] = doc
        with pytest.raises(ValueError, match="[Cc]ircular"):
            validate(doc)

    @pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
    def test_non_finite_floats_are_value_errors(self, bad: float) -> None:
        with pytest.raises(ValueError):
            validate({**VALID, "x-number": bad})

    @pytest.mark.parametrize("bad", [object(), {1, 2}, b"bytes", 1 + 2j])
    def test_values_json_cannot_hold_are_type_errors(self, bad: object) -> None:
        with pytest.raises(TypeError, match="not JSON serializable"):
            validate({**VALID, "x-value": bad})

    def test_non_string_keys_follow_json_dumps(self) -> None:
        # json.dumps turns int keys into strings, as it does everywhere else.
        report = validate({**VALID, "x-map": {1: "one"}})
        assert report.valid


class _PathLike:
    def __init__(self, path: str) -> None:
        self._path = path

    def __fspath__(self) -> str:
        return self._path


class _ReadOnlyMapping(collections.abc.Mapping):  # type: ignore[type-arg]
    def __init__(self, data: dict[str, object]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> object:
        return self._data[key]

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def test_the_module_exports_what_it_documents() -> None:
    for name in mcpdesc.__all__:
        assert hasattr(mcpdesc, name), name
    assert isinstance(mcpdesc.__version__, str) and mcpdesc.__version__
