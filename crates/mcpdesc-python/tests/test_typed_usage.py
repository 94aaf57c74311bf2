"""How an embedder uses the package, checked by ``mypy --strict`` against the installed
wheel's types (``xtask/bindings/python/test.sh``); also run once by pytest, so that it
stays true at run time as well."""

from __future__ import annotations

import json
import pathlib
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import mcpdesc
from mcpdesc import (
    ConfigurationError,
    Diagnostic,
    Engine,
    LoadFailure,
    Report,
    RuleLoadError,
    RuleProblem,
    Severity,
    validate,
)

DOCUMENT = '{"mcpdesc": "0.8.0", "info": {"name": "demo", "version": "1.0.0"}, "protocolVersions": ["2025-11-25"]}'


def summarize(report: Report) -> dict[Severity, int]:
    counts: dict[Severity, int] = {"error": 0, "warning": 0, "info": 0}
    for d in report.diagnostics:
        counts[d.severity] += 1
    return counts


def where(d: Diagnostic) -> str:
    line: int | None = d.line
    column: int | None = d.column
    versions: tuple[str, ...] = d.versions
    url: str | None = d.doc_url
    return f"{line}:{column} {d.pointer} {d.rule} {','.join(versions)} {url or ''}"


def load_failure(report: Report) -> str | None:
    failure: LoadFailure | None = report.load_error
    return None if failure is None else f"{failure.code} at {failure.line}:{failure.column}"


def main() -> int:
    report: Report = validate(DOCUMENT)
    valid: bool = report.valid
    kind: Literal["description", "traffic"] = report.kind
    assert valid and kind == "description"
    assert summarize(report) == {"error": 0, "warning": 0, "info": 0}

    engine = Engine(protocol_versions=["2025-11-25"], strict=True, select=["mcpdesc.*"])
    releases: list[str] = engine.releases
    assert releases == ["0.8.0"]
    from_bytes = engine.validate(DOCUMENT.encode(), format="json", path="server.json")
    from_value = engine.validate(json.loads(DOCUMENT))
    from_capture = engine.validate([{"jsonrpc": "2.0", "method": "notifications/initialized"}], format="capture")
    assert from_bytes.path == "server.json" and from_value.valid
    assert from_capture.kind == "traffic"
    assert [where(d) for d in from_bytes.diagnostics] == []
    assert load_failure(validate("{", format="json")) is not None

    with ThreadPoolExecutor(max_workers=2) as pool:
        reports: list[Report] = list(pool.map(engine.validate, [DOCUMENT, DOCUMENT]))
    assert all(reports)

    try:
        Engine(pathlib.Path("/nonexistent/rules"))
    except RuleLoadError as error:
        problems: list[RuleProblem] = error.problems
        assert all(isinstance(p.line, int) and isinstance(p.column, int) for p in problems)
    try:
        validate(DOCUMENT, protocol_versions="1999-01-01")
    except ConfigurationError as error:
        option: str = error.option
        assert option == "protocol_versions"
    mcpdesc.clear_engine_cache()
    return 0


def _rejected_by_the_types() -> None:
    """Never called. Each line must be a type error: under ``--strict`` mypy reports an ignore
    that silences nothing, so the types cannot be looser than the API."""
    validate(42)  # type: ignore[arg-type]
    validate("{}", format="xml")  # type: ignore[arg-type]
    validate("{}", protocol_versions=[2025])  # type: ignore[list-item]
    Engine(strict="yes")  # type: ignore[arg-type]
    Engine().validate("{}", rules="rules")  # type: ignore[call-arg]
    report = validate("{}")
    report.valid = True  # type: ignore[misc]
    line: int = report.diagnostics[0].line  # type: ignore[assignment]
    severity: Literal["error", "warning"] = report.diagnostics[0].severity  # type: ignore[assignment]
    print(line, severity)


def test_typed_usage_runs() -> None:
    assert main() == 0


if __name__ == "__main__":
    raise SystemExit(main())
