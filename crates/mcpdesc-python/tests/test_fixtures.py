"""Parity with the committed expectations of the specification fixtures: every fixture under
``spec-fixtures/`` with a sidecar (``<name>.expected.yaml``) gives exactly the recorded
findings through the package, and lies in the folder its outcome belongs to."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mcpdesc import Engine, validate

from conftest import WORKSPACE, as_sidecar, read_sidecar

ROOT = WORKSPACE / "spec-fixtures"
DOCUMENT = re.compile(r"\.(json|ya?ml|ndjson|jsonl)$")


def sidecar_of(fixture: Path) -> Path:
    return fixture.with_name(DOCUMENT.sub(".expected.yaml", fixture.name))


FIXTURES = sorted(
    f
    for f in ROOT.rglob("*")
    if f.is_file()
    and DOCUMENT.search(f.name)
    and not f.name.endswith(".expected.yaml")
    and not any(part.startswith(".") for part in f.relative_to(ROOT).parts)
    and sidecar_of(f).is_file()
)
ENGINE = Engine()


def test_the_corpus_is_the_one_committed() -> None:
    # A mistyped path or a moved corpus would otherwise pass with nothing checked.
    assert len(FIXTURES) >= 150, f"only {len(FIXTURES)} fixtures with sidecars under {ROOT}"
    kinds = {f.relative_to(ROOT).parts[0] for f in FIXTURES}
    assert {"expected-valid", "expected-invalid", "expected-warning", "traffic"} <= kinds


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda f: str(f.relative_to(ROOT)))
def test_spec_fixture(fixture: Path) -> None:
    report = ENGINE.validate(fixture)
    assert as_sidecar(report.diagnostics, report.load_error) == read_sidecar(sidecar_of(fixture))
    # The nearest convention folder counts.
    folder = next((p for p in reversed(fixture.relative_to(ROOT).parts) if p.startswith("expected-")), None)
    if folder == "expected-valid":
        assert report.valid
        assert report.diagnostics == []
    elif folder == "expected-invalid":
        assert not report.valid
        assert report.load_error is not None or report.errors
    elif folder == "expected-warning":
        assert report.valid
        assert report.load_error is None
        assert report.warnings
    traffic = bool(re.search(r"\.(ndjson|jsonl)$|\.traffic\.json$", fixture.name))
    assert report.kind == ("traffic" if traffic else "description")


@pytest.mark.parametrize("fixture", FIXTURES[::4], ids=lambda f: str(f.relative_to(ROOT)))
def test_spec_fixture_as_text_bytes_and_decoded_value(fixture: Path) -> None:
    # The module-level function with each source kind agrees with the file; a decoded value
    # loses only the positions, and only documents that decode at all can be passed so.
    from_file = ENGINE.validate(fixture)
    data = fixture.read_bytes()
    assert validate(data, path=fixture) == from_file
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert validate(text, path=str(fixture)) == from_file
    if fixture.suffix != ".json" or from_file.load_error is not None:
        return
    try:
        decoded = json.loads(text)
    except ValueError:
        return
    from_value = validate(decoded, path=str(fixture))
    assert all(d.line is None and d.column is None for d in from_value.diagnostics)

    # json.loads keeps the last of duplicate keys and reads text the engine refuses; the
    # serialization rules judge the text, so they are left out of the comparison.
    def judged(diagnostics: list) -> list:  # type: ignore[type-arg]
        return [d for d in diagnostics if not d.rule.startswith("mcpdesc.serialization.")]

    assert as_sidecar(judged(from_value.diagnostics)) == as_sidecar(judged(from_file.diagnostics))
