"""The native engine of ``mcpdesc``; use the ``mcpdesc`` module, not this one."""

from collections.abc import Sequence
from typing import Final, Literal

__version__: Final[str]

RawFinding = tuple[
    str, Literal["error", "warning", "info"], str, str, int | None, int | None, tuple[str, ...], str | None
]
RawLoadFailure = tuple[str, str, int | None, int | None]
RawOutcome = tuple[
    bool, str | None, Literal["description", "traffic"], str, list[RawFinding], RawLoadFailure | None
]

class EngineError(Exception):
    """Raised with ``(code, message, detail)``: ``rules`` with a list of
    ``(file, line, column, message)``; ``spec-version``, ``protocol-version`` and ``format``
    with ``(option, value, supported)``; ``io`` with ``(path, errno)``."""

class Validator:
    def __new__(
        cls,
        rules: list[str],
        spec_version: str | None,
        protocol_versions: list[str],
        select: list[str],
        ignore: list[str],
        strict: bool,
        docs_base_url: str | None,
        extend_rules: list[str],
    ) -> Validator: ...
    def validate_text(self, text: str, format: str | None, name: str | None) -> RawOutcome: ...
    def validate_bytes(self, data: bytes, format: str | None, name: str | None) -> RawOutcome: ...
    def validate_value(self, json: str, format: str | None, name: str | None) -> RawOutcome: ...
    def validate_file(self, path: str, format: str | None, name: str | None) -> RawOutcome: ...
    @property
    def releases(self) -> list[str]: ...
    @property
    def protocol_versions(self) -> list[str]: ...

def main(argv: Sequence[str]) -> int:
    """Runs the ``mcpdesc`` command line with ``argv`` (the program name first) in this
    process, without the GIL, and returns its exit status."""
