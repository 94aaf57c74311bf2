"""The engine options, the engine cache of ``validate``, and the errors."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from mcpdesc import (
    ConfigurationError,
    Engine,
    McpdescError,
    Report,
    RuleLoadError,
    RuleProblem,
    clear_engine_cache,
    validate,
)

from conftest import BAD_TOOL, FICTIONAL, FICTIONAL_RELEASE, RULES, VALID, WORKSPACE

# A document with two findings of different rules and severities.
TWO_FINDINGS: dict[str, Any] = {
    **VALID,
    "info": {"name": "demo", "version": "v1"},
    "tools": [{"name": "demo_tool", "bogus": 1, "inputSchema": {"type": "object"}}],
}

# House rules: one rule of Acme's own, on top of whichever release judges a document.
HOUSE_RULES = """house-rules:
  name: Acme house rules
  owners: [acme]
rules:
  - id: acme.tool.name-prefix
    given: ["$.tools[*].name"]
    then: [{check: pattern, regex: "^acme_"}]
    message: tool names start with `acme_`
"""

ALL_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"]


def rules(report: Report) -> list[str]:
    return sorted(d.rule for d in report.diagnostics)


class TestRulesDirectories:
    def test_the_shipped_rules_directory_gives_what_the_embedded_catalogue_gives(self) -> None:
        assert validate(BAD_TOOL, rules=RULES) == validate(BAD_TOOL)
        assert validate(BAD_TOOL, rules=str(RULES)) == validate(BAD_TOOL)

    def test_a_second_release_extending_0_8_0_loads_beside_it(self) -> None:
        engine = Engine([RULES, FICTIONAL])
        assert engine.releases == ["0.8.0", FICTIONAL_RELEASE]
        report = engine.validate({**VALID, "mcpdesc": FICTIONAL_RELEASE})
        assert report.release == FICTIONAL_RELEASE
        assert rules(report) == ["mcpdesc.info.description-required"]
        # The catalogue's `docs-url` is a path inside the repository, which is no link.
        assert report.diagnostics[0].doc_url is None
        old = engine.validate(VALID)
        assert old.release == "0.8.0"
        assert old.valid, old.diagnostics

    def test_extend_rules_adds_house_rules_on_top_of_the_judging_release(self, scratch: Path) -> None:
        house = scratch / "house"
        house.mkdir()
        (house / "acme.yaml").write_text(HOUSE_RULES, encoding="utf-8")
        doc = {**VALID, "tools": [{"name": "get_weather", "description": "d", "inputSchema": {"type": "object"}}]}
        report = Engine(extend_rules=house).validate(doc)
        assert report.release == "0.8.0"
        assert rules(report) == ["acme.tool.name-prefix"]
        assert report.diagnostics[0].severity == "warning"
        assert validate(doc, extend_rules=[str(house)]) == report
        assert "acme.tool.name-prefix" not in rules(validate(doc))

    def test_relative_rules_directories_resolve_against_the_working_directory(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.chdir(WORKSPACE)
        engine = Engine(["rules", os.path.relpath(FICTIONAL, WORKSPACE)])
        assert engine.releases == ["0.8.0", FICTIONAL_RELEASE]
        # The module-level cache keys on the absolute directory: another working directory
        # with its own `rules` does not get this engine.
        first = validate(VALID, rules="rules")
        assert first.valid

    def test_broken_rule_files_give_a_rule_load_error_with_every_file_line_and_column(self, scratch: Path) -> None:
        directory = scratch / "broken-rules"
        directory.mkdir()
        shutil.copy(RULES / "catalogue.yaml", directory / "catalogue.yaml")
        (directory / "broken.yaml").write_text("rules:\n  - id: broken.rule\n    title: [unclosed\n")
        (directory / "unknown.yaml").write_text("rules:\n  - id: broken.rule\n    title: Broken\n    frobnicate: 3\n")
        with pytest.raises(RuleLoadError) as caught:
            Engine(directory)
        error = caught.value
        assert isinstance(error, McpdescError)
        assert len(error.problems) == 2, error.problems
        syntax, unknown = sorted(error.problems, key=lambda p: p.file)
        assert isinstance(syntax, RuleProblem)
        assert Path(syntax.file).name == "broken.yaml"
        assert (syntax.line, syntax.column) == (4, 1)
        assert "YAML syntax error" in syntax.message
        assert Path(unknown.file).name == "unknown.yaml"
        assert (unknown.line, unknown.column) == (4, 5)
        assert "unknown field `frobnicate`" in unknown.message
        text = str(error)
        assert text.startswith("2 problem(s) in the rule files:")
        for p in error.problems:
            assert f"{p.file}:{p.line}:{p.column}: {p.message}" in text
            assert str(p) == f"{p.file}:{p.line}:{p.column}: {p.message}"
        # The module-level function raises the same, and does not cache a failure.
        for _ in range(2):
            with pytest.raises(RuleLoadError):
                validate(VALID, rules=directory)

    def test_a_rules_directory_that_does_not_exist_is_a_rule_load_error_naming_it(self, scratch: Path) -> None:
        with pytest.raises(RuleLoadError) as caught:
            Engine(scratch / "no-such-rules")
        assert caught.value.problems
        assert "no-such-rules" in str(caught.value)


class TestEngineOptions:
    def test_protocol_versions_narrows_the_versions_findings_hold_for(self) -> None:
        doc = {**VALID, "protocolVersions": ["2025-06-18", "2025-11-25"], "tools": [{"name": "t", "bogus": 1}]}

        def closed(report: Report) -> tuple[str, ...]:
            return next(d.versions for d in report.diagnostics if d.rule == "mcpdesc.tool.closed")

        assert closed(validate(doc)) == ("2025-06-18", "2025-11-25")
        assert closed(validate(doc, protocol_versions="2025-11-25")) == ("2025-11-25",)
        assert closed(Engine(protocol_versions=["2025-06-18"]).validate(doc)) == ("2025-06-18",)

    def test_an_unknown_protocol_version_is_a_configuration_error(self) -> None:
        with pytest.raises(ConfigurationError) as caught:
            Engine(protocol_versions=["2025-11-25", "1999-01-01"])
        error = caught.value
        assert isinstance(error, McpdescError)
        assert isinstance(error, ValueError)
        assert error.option == "protocol_versions"
        assert error.value == "1999-01-01"
        assert error.supported == ", ".join(ALL_VERSIONS)
        assert "unknown protocol version `1999-01-01`" in str(error)
        with pytest.raises(ConfigurationError):
            validate(VALID, protocol_versions="1999-01-01")

    def test_spec_version_judges_every_document_by_the_release_serving_it(self) -> None:
        engine = Engine([RULES, FICTIONAL], spec_version=FICTIONAL_RELEASE)
        report = engine.validate(VALID)
        assert report.release == FICTIONAL_RELEASE
        assert rules(report) == ["mcpdesc.info.description-required"]
        pinned = validate(VALID, rules=[RULES, FICTIONAL], spec_version="0.8.0")
        assert pinned.release == "0.8.0"
        assert pinned.valid

    def test_a_specification_version_no_release_serves_is_a_configuration_error(self) -> None:
        with pytest.raises(ConfigurationError) as caught:
            Engine(spec_version="7.0.0")
        assert (caught.value.option, caught.value.value, caught.value.supported) == ("spec_version", "7.0.0", "0.8.0")
        assert "7.0.0" in str(caught.value)

    def test_an_unknown_format_is_a_configuration_error_at_the_call(self) -> None:
        with pytest.raises(ConfigurationError) as caught:
            validate(BAD_TOOL, format="xml")  # type: ignore[arg-type]
        assert (caught.value.option, caught.value.value, caught.value.supported) == (
            "format",
            "xml",
            "json, yaml, capture",
        )
        with pytest.raises(ConfigurationError):
            validate({"a": 1}, format="xml")  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError):
            validate(WORKSPACE / "docs/examples/weather-server.yaml", format="xml")  # type: ignore[arg-type]

    def test_select_runs_only_the_rules_it_names_ignore_skips_them(self) -> None:
        assert rules(validate(TWO_FINDINGS)) == ["mcpdesc.info.version-semver", "mcpdesc.tool.closed"]
        assert rules(validate(TWO_FINDINGS, select="mcpdesc.tool.closed")) == ["mcpdesc.tool.closed"]
        assert rules(validate(TWO_FINDINGS, select=["mcpdesc.info.*"])) == ["mcpdesc.info.version-semver"]
        assert rules(validate(TWO_FINDINGS, ignore=("mcpdesc.tool.*",))) == ["mcpdesc.info.version-semver"]
        assert rules(validate(TWO_FINDINGS, select="mcpdesc.*", ignore=["mcpdesc.info.version-semver"])) == [
            "mcpdesc.tool.closed"
        ]

    def test_strict_reports_warnings_as_errors(self) -> None:
        relaxed = validate(TWO_FINDINGS, select="mcpdesc.info.version-semver")
        assert relaxed.valid
        assert relaxed.diagnostics[0].severity == "warning"
        strict = validate(TWO_FINDINGS, select="mcpdesc.info.version-semver", strict=True)
        assert not strict.valid
        assert strict.diagnostics[0].severity == "error"
        assert len(strict.errors) == 1
        assert strict.warnings == []

    def test_docs_base_url_sets_where_rule_pages_live(self) -> None:
        base = validate(BAD_TOOL, docs_base_url="https://mcpdesc.example/rules")
        assert base.diagnostics[0].doc_url == "https://mcpdesc.example/rules/0.8.0/mcpdesc/mcpdesc.tool.closed.md"
        template = validate(BAD_TOOL, docs_base_url="https://x.example/{id}?r={release}&o={owner}")
        assert template.diagnostics[0].doc_url == "https://x.example/mcpdesc.tool.closed?r=0.8.0&o=mcpdesc"

    def test_an_engine_lists_its_releases_and_protocol_versions(self) -> None:
        engine = Engine()
        assert engine.releases == ["0.8.0"]
        assert engine.protocol_versions == ALL_VERSIONS
        assert repr(engine) == "<Engine rules=embedded>"
        assert repr(Engine(strict=True, select="mcpdesc.*")) == "<Engine rules=embedded select=['mcpdesc.*'] strict=True>"
        with pytest.raises(AttributeError):
            engine.extra = 1  # type: ignore[attr-defined]


class TestTheEngineCache:
    def test_engines_are_reused_per_options_and_rebuilt_after_clear_engine_cache(self, scratch: Path) -> None:
        directory = scratch / "changing-rules"
        directory.mkdir()
        shutil.copy(RULES / "catalogue.yaml", directory / "catalogue.yaml")
        shutil.copy(RULES / "tools.yaml", directory / "tools.yaml")
        # Its rules name surfaces of the map.
        shutil.copy(RULES / "surfaces.yaml", directory / "surfaces.yaml")
        before = validate(BAD_TOOL, rules=directory)
        assert any(d.rule == "mcpdesc.tool.closed" for d in before.diagnostics), before.diagnostics
        # The rule files change on disk: the cached engine keeps judging by the old ones...
        (directory / "tools.yaml").write_text("rules: [\n")
        assert validate(BAD_TOOL, rules=directory) == before
        # ...until the cache is cleared.
        clear_engine_cache()
        with pytest.raises(RuleLoadError):
            validate(BAD_TOOL, rules=directory)


class TestUnreadableFiles:
    def test_a_missing_file_raises_file_not_found_error_with_errno_and_filename(self, scratch: Path) -> None:
        missing = scratch / "missing.json"
        with pytest.raises(FileNotFoundError) as caught:
            validate(missing)
        assert not isinstance(caught.value, McpdescError)
        assert caught.value.errno == errno.ENOENT
        assert caught.value.filename == str(missing)

    def test_a_directory_raises_is_a_directory_error(self, scratch: Path) -> None:
        with pytest.raises(IsADirectoryError) as caught:
            validate(scratch)
        assert caught.value.filename == str(scratch)

    @pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads every file")
    def test_an_unreadable_file_raises_permission_error(self, scratch: Path) -> None:
        file = scratch / "secret.json"
        file.write_text("{}")
        file.chmod(0)
        with pytest.raises(PermissionError):
            validate(file)
