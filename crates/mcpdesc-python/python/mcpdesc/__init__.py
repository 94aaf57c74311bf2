"""Validate MCP Description documents and captures of MCP JSON-RPC traffic.

An MCP Description is a JSON or YAML document that describes a Model Context Protocol
server: its info, protocol versions, transports, capabilities, tools, resources and prompts.
``mcpdesc`` checks it against every requirement of the MCP Description specification, once
for each protocol version the document covers, with a catalogue of rules compiled into a
native engine. It validates captures of real MCP traffic (newline-delimited JSON-RPC
messages) the same way.

>>> import mcpdesc
>>> report = mcpdesc.validate('{"mcpdesc": "0.8.0", "info": {"name": "demo", "version": "1.0.0"},'
...                           ' "protocolVersions": ["2025-11-25"]}')
>>> report.valid
True

:func:`validate` compiles an engine for each distinct set of options once and reuses it; an
:class:`Engine` is the same thing held explicitly. Both are safe to share between threads,
and validation runs without the GIL.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Union

from . import _mcpdesc

__version__: str = _mcpdesc.__version__

__all__ = [
    "ConfigurationError",
    "Diagnostic",
    "Engine",
    "Format",
    "Kind",
    "LoadFailure",
    "McpdescError",
    "Report",
    "RuleLoadError",
    "RuleProblem",
    "Severity",
    "Source",
    "StrPath",
    "clear_engine_cache",
    "validate",
]

Severity = Literal["error", "warning", "info"]
"""How serious a finding is."""

Kind = Literal["description", "traffic"]
"""What a validated document is: an MCP Description, or a capture of MCP traffic."""

Format = Literal["json", "yaml", "capture"]
"""How a source is read. ``yml``, ``ndjson``, ``jsonl`` and ``traffic`` are accepted too."""

StrPath = Union[str, os.PathLike[str]]
"""A file-system path."""

Source = Union[
    str,
    bytes,
    bytearray,
    memoryview,
    os.PathLike[str],
    os.PathLike[bytes],
    Mapping[str, Any],
    list[Any],
    tuple[Any, ...],
]
"""What :func:`validate` accepts: document text, document bytes, a file path, or an
already-decoded document (a mapping, or a list of messages for a capture)."""


# --- results ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding of one rule at one node of the document.

    Attributes:
        rule: The rule id, e.g. ``mcpdesc.tool.closed``.
        severity: ``"error"``, ``"warning"`` or ``"info"``.
        message: What is wrong, and usually how to fix it.
        pointer: RFC 6901 JSON Pointer of the node (``""`` is the document root).
        line: 1-based line of the node, when the source has positions (text, bytes and
            files do; an already-decoded document does not).
        column: 1-based column (in characters), likewise.
        versions: The protocol versions the finding holds for, oldest first; empty when
            it holds for every version.
        doc_url: The rule's documentation page, when the catalogue or the options name it
            as an absolute URL; ``None`` otherwise.
    """

    rule: str
    severity: Severity
    message: str
    pointer: str
    line: int | None
    column: int | None
    versions: tuple[str, ...]
    doc_url: str | None

    @property
    def is_error(self) -> bool:
        """Whether this finding makes the document invalid."""
        return self.severity == "error"

    def to_dict(self) -> dict[str, Any]:
        """The finding as plain JSON-ready data (``versions`` as a list)."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "pointer": self.pointer,
            "line": self.line,
            "column": self.column,
            "versions": list(self.versions),
            "doc_url": self.doc_url,
        }

    def __str__(self) -> str:
        where = f"{self.line}:{self.column}" if self.line is not None else self.pointer or "/"
        return f"{where}: {self.severity}: {self.message} [{self.rule}]"


@dataclass(frozen=True, slots=True)
class LoadFailure:
    """Why a document could not be read at all (a syntax error, a size limit, ...).

    Attributes:
        code: Stable code of the failure, e.g. ``json-syntax``, ``yaml-syntax``, ``limit``.
        message: What went wrong.
        line: 1-based line of the failure, when the source has positions.
        column: 1-based column of the failure, likewise.
    """

    code: str
    message: str
    line: int | None
    column: int | None

    def to_dict(self) -> dict[str, Any]:
        """The failure as plain JSON-ready data."""
        return {"code": self.code, "message": self.message, "line": self.line, "column": self.column}


@dataclass(frozen=True, slots=True, repr=False)
class Report:
    """What one validation found.

    A report is truthy exactly when the document is valid. A document that cannot be parsed
    is not an exception: its report is invalid, with :attr:`load_error` set and the failure
    also among :attr:`diagnostics`.

    Attributes:
        valid: No error findings, and the document could be read (warnings are allowed).
        path: The name the document is known by (the file path, or the ``path`` given).
        kind: ``"description"`` or ``"traffic"`` (a capture).
        release: The version of the catalogue release that judged the document.
        diagnostics: Every finding, in a stable order: position, pointer, rule, message.
        load_error: Set when the document could not be read at all.
    """

    valid: bool
    path: str | None
    kind: Kind
    release: str
    diagnostics: list[Diagnostic]
    load_error: LoadFailure | None

    @property
    def errors(self) -> list[Diagnostic]:
        """The findings of severity ``error``."""
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The findings of severity ``warning``."""
        return [d for d in self.diagnostics if d.severity == "warning"]

    def __bool__(self) -> bool:
        return self.valid

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON-ready data (``json.dumps(report.to_dict())`` works)."""
        return {
            "valid": self.valid,
            "path": self.path,
            "kind": self.kind,
            "release": self.release,
            "diagnostics": [d.to_dict() for d in self.diagnostics],
            "load_error": None if self.load_error is None else self.load_error.to_dict(),
        }

    def __repr__(self) -> str:
        counts = {"error": 0, "warning": 0, "info": 0}
        for d in self.diagnostics:
            counts[d.severity] = counts.get(d.severity, 0) + 1
        parts = [
            f"valid={self.valid}",
            f"path={self.path!r}",
            f"kind={self.kind!r}",
            f"release={self.release!r}",
            f"errors={counts['error']}",
            f"warnings={counts['warning']}",
            f"infos={counts['info']}",
        ]
        if self.load_error is not None:
            parts.append(f"load_error={self.load_error.code!r}")
        return f"<Report {' '.join(parts)}>"


def _report(raw: _mcpdesc.RawOutcome) -> Report:
    valid, path, kind, release, findings, failure = raw
    return Report(
        valid,
        path,
        kind,
        release,
        [Diagnostic(*f) for f in findings],
        None if failure is None else LoadFailure(*failure),
    )


# --- errors -------------------------------------------------------------------------------


class McpdescError(Exception):
    """The base of the errors this package raises (unreadable files raise ``OSError``)."""


@dataclass(frozen=True, slots=True)
class RuleProblem:
    """One problem of a rule file, at its 1-based line and column."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


class RuleLoadError(McpdescError):
    """The rule files of a ``rules`` directory have problems; every one is listed.

    Attributes:
        problems: Each problem with its file, line and column.
    """

    problems: list[RuleProblem]

    def __init__(self, problems: Iterable[RuleProblem]) -> None:
        self.problems = list(problems)
        listing = "".join(f"\n  {p}" for p in self.problems)
        super().__init__(f"{len(self.problems)} problem(s) in the rule files:{listing}")


class ConfigurationError(McpdescError, ValueError):
    """An option names something the catalogue does not have: an unknown protocol version,
    a specification version no loaded release serves, or an unknown format.

    Attributes:
        option: The option at fault: ``"protocol_versions"``, ``"spec_version"`` or
            ``"format"``.
        value: The value it was given.
        supported: What it could have been, comma-separated.
    """

    option: str
    value: str
    supported: str

    def __init__(self, message: str, option: str, value: str, supported: str) -> None:
        super().__init__(message)
        self.option = option
        self.value = value
        self.supported = supported


def _translate(error: _mcpdesc.EngineError) -> Exception:
    code, message, detail = error.args
    if code == "rules":
        return RuleLoadError(RuleProblem(*p) for p in detail)
    if code == "io":
        path, errno = detail
        if errno is None:
            failure = OSError(message)
            failure.filename = path
            return failure
        # OSError(errno, ...) is constructed as the matching subclass (FileNotFoundError,
        # PermissionError, IsADirectoryError, ...).
        return OSError(errno, os.strerror(errno), path)
    option, value, supported = detail
    return ConfigurationError(message, option, value, supported)


# --- engines ------------------------------------------------------------------------------


def _strings(name: str, value: str | Iterable[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    items = list(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{name} must be strings, not {type(item).__name__}")
    return items


def _paths(value: StrPath | Iterable[StrPath] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fsdecode(os.fspath(value))]
    return [os.fsdecode(os.fspath(p)) for p in value]


def _optional_str(name: str, value: str | None) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a string or None, not {type(value).__name__}")
    return value


def _json_default(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class Engine:
    """A compiled catalogue of rules and the options it validates with.

    Build one once and call :meth:`validate` as often as needed, from any number of threads:
    the engine is immutable, and each validation runs without holding the GIL.

    Args:
        rules: A rules directory, or several, replacing the embedded catalogue (each holds a
            ``catalogue.yaml``; several load side by side as releases).
        spec_version: Judge every document by the release serving this MCP Description
            version, instead of the one the document's ``mcpdesc`` member names.
        protocol_versions: Evaluate only for these MCP protocol versions (default: every
            version the document covers).
        select: Rule ids or prefixes (``"mcp.elicitation.*"``) to run; default: all.
        ignore: Rule ids or prefixes to skip.
        strict: Report warnings as errors (the strict profile).
        docs_base_url: Where rule pages live: a template with ``{release}``, ``{owner}``
            and ``{id}``, or a base URL under which ``{release}/{owner}/{id}.md`` is appended.
        extend_rules: A house-rules directory, or several, applied on top of whichever
            release judges each document (the releases stay those of ``rules``).

    Raises:
        RuleLoadError: The rule files have problems.
        ConfigurationError: An unknown protocol version, or a specification version that
            no loaded release serves.
    """

    __slots__ = ("_native", "_options")

    def __init__(
        self,
        rules: StrPath | Iterable[StrPath] | None = None,
        *,
        spec_version: str | None = None,
        protocol_versions: str | Iterable[str] | None = None,
        select: str | Iterable[str] | None = None,
        ignore: str | Iterable[str] | None = None,
        strict: bool = False,
        docs_base_url: str | None = None,
        extend_rules: StrPath | Iterable[StrPath] | None = None,
    ) -> None:
        options = _Options.of(
            rules, spec_version, protocol_versions, select, ignore, strict, docs_base_url, extend_rules
        )
        self._options = options
        self._native = options.compile()

    def validate(self, source: Source, *, format: Format | None = None, path: StrPath | None = None) -> Report:
        """Validates one document or capture.

        Args:
            source: Document text (``str``); document bytes (``bytes``, ``bytearray``,
                ``memoryview``; UTF-8, a byte-order mark allowed); a file path
                (``os.PathLike``, read by the engine); or an already-decoded document (a
                mapping, or a list of messages with ``format="capture"``), whose findings
                carry pointers but no lines.
            format: ``"json"``, ``"yaml"`` or ``"capture"``. By default the format follows
                the name's extension (``.yaml``/``.yml``, ``.ndjson``/``.jsonl``/
                ``.traffic.json``), else the content (JSON when it starts with ``{`` or
                ``[``, YAML otherwise).
            path: The name the document is known by: reported as :attr:`Report.path`, and
                its extension picks the format when ``format`` is not given. For a file
                source it replaces the file's own name.

        Returns:
            The :class:`Report`. A document that cannot be parsed gives an invalid report
            with :attr:`Report.load_error` set, not an exception.

        Raises:
            ConfigurationError: ``format`` is not a known format.
            OSError: A file source cannot be read (``FileNotFoundError``,
                ``PermissionError``, ... with ``errno`` and ``filename`` set).
            TypeError: ``source`` is of another type, or a decoded document holds a value
                JSON cannot represent.
            ValueError: A decoded document holds a reference cycle, or a NaN or infinite
                float.
        """
        native = self._native
        fmt = _optional_str("format", format)
        name = None if path is None else os.fsdecode(os.fspath(path))
        try:
            if isinstance(source, str):
                return _report(native.validate_text(source, fmt, name))
            if isinstance(source, bytes):
                return _report(native.validate_bytes(source, fmt, name))
            if isinstance(source, (bytearray, memoryview)):
                return _report(native.validate_bytes(bytes(source), fmt, name))
            if isinstance(source, os.PathLike):
                return _report(native.validate_file(os.fsdecode(os.fspath(source)), fmt, name))
            if isinstance(source, (Mapping, list, tuple)):
                text = json.dumps(
                    source,
                    allow_nan=False,
                    ensure_ascii=False,
                    check_circular=True,
                    separators=(",", ":"),
                    default=_json_default,
                )
                return _report(native.validate_value(text, fmt, name))
        except _mcpdesc.EngineError as error:
            raise _translate(error) from None
        raise TypeError(
            "source must be str, bytes, bytearray, memoryview, os.PathLike, a mapping or a list, "
            f"not {type(source).__name__}"
        )

    @property
    def releases(self) -> list[str]:
        """The catalogue releases this engine serves, oldest first."""
        return self._native.releases

    @property
    def protocol_versions(self) -> list[str]:
        """The protocol versions of the engine's default release, oldest first."""
        return self._native.protocol_versions

    def __repr__(self) -> str:
        return f"<Engine {self._options.describe()}>"


@dataclass(frozen=True, slots=True)
class _Options:
    """The normalized options of an engine; hashable, the key of the engine cache."""

    rules: tuple[str, ...]
    spec_version: str | None
    protocol_versions: tuple[str, ...]
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    strict: bool
    docs_base_url: str | None
    extend_rules: tuple[str, ...]

    @staticmethod
    def of(
        rules: StrPath | Iterable[StrPath] | None,
        spec_version: str | None,
        protocol_versions: str | Iterable[str] | None,
        select: str | Iterable[str] | None,
        ignore: str | Iterable[str] | None,
        strict: bool,
        docs_base_url: str | None,
        extend_rules: StrPath | Iterable[StrPath] | None = None,
    ) -> _Options:
        return _Options(
            rules=tuple(_paths(rules)),
            spec_version=_optional_str("spec_version", spec_version),
            protocol_versions=tuple(_strings("protocol_versions", protocol_versions)),
            select=tuple(_strings("select", select)),
            ignore=tuple(_strings("ignore", ignore)),
            strict=bool(strict),
            docs_base_url=_optional_str("docs_base_url", docs_base_url),
            extend_rules=tuple(_paths(extend_rules)),
        )

    def key(self) -> _Options:
        # Relative rules directories are resolved now: the cached engine was compiled from
        # the directory they named then, whatever the working directory becomes.
        return _Options(
            tuple(os.path.abspath(r) for r in self.rules),
            self.spec_version,
            self.protocol_versions,
            self.select,
            self.ignore,
            self.strict,
            self.docs_base_url,
            tuple(os.path.abspath(r) for r in self.extend_rules),
        )

    def compile(self) -> _mcpdesc.Validator:
        try:
            return _mcpdesc.Validator(
                list(self.rules),
                self.spec_version,
                list(self.protocol_versions),
                list(self.select),
                list(self.ignore),
                self.strict,
                self.docs_base_url,
                list(self.extend_rules),
            )
        except _mcpdesc.EngineError as error:
            raise _translate(error) from None

    def describe(self) -> str:
        parts = [f"rules={list(self.rules)!r}" if self.rules else "rules=embedded"]
        if self.spec_version is not None:
            parts.append(f"spec_version={self.spec_version!r}")
        for name in ("protocol_versions", "select", "ignore"):
            values = getattr(self, name)
            if values:
                parts.append(f"{name}={list(values)!r}")
        if self.strict:
            parts.append("strict=True")
        if self.docs_base_url is not None:
            parts.append(f"docs_base_url={self.docs_base_url!r}")
        if self.extend_rules:
            parts.append(f"extend_rules={list(self.extend_rules)!r}")
        return " ".join(parts)


# --- the module-level entry point ---------------------------------------------------------

_CACHE_SIZE = 32
_cache: OrderedDict[_Options, Engine] = OrderedDict()
_building: dict[_Options, threading.Lock] = {}
_cache_lock = threading.Lock()


def _engine(options: _Options) -> Engine:
    key = options.key()
    with _cache_lock:
        engine = _cache.get(key)
        if engine is not None:
            _cache.move_to_end(key)
            return engine
        building = _building.setdefault(key, threading.Lock())
    # One thread compiles a given set of options; the others wait for its engine rather
    # than compile the same catalogue again. Other options are not held up.
    with building:
        with _cache_lock:
            engine = _cache.get(key)
        if engine is None:
            engine = Engine.__new__(Engine)
            engine._options = options
            try:
                engine._native = options.compile()
            finally:
                with _cache_lock:
                    _building.pop(key, None)
            with _cache_lock:
                _cache[key] = engine
                while len(_cache) > _CACHE_SIZE:
                    _cache.popitem(last=False)
    return engine


def clear_engine_cache() -> None:
    """Forgets the engines :func:`validate` compiled, e.g. after rule files changed on disk."""
    with _cache_lock:
        _cache.clear()


def validate(
    source: Source,
    *,
    format: Format | None = None,
    path: StrPath | None = None,
    rules: StrPath | Iterable[StrPath] | None = None,
    protocol_versions: str | Iterable[str] | None = None,
    spec_version: str | None = None,
    select: str | Iterable[str] | None = None,
    ignore: str | Iterable[str] | None = None,
    strict: bool = False,
    docs_base_url: str | None = None,
    extend_rules: StrPath | Iterable[StrPath] | None = None,
) -> Report:
    """Validates one document or capture with the engine these options name.

    The engine for each distinct set of options is compiled on first use and kept (the 32
    most recently used), so repeated calls cost only the validation; the cache is safe to
    use from many threads. See :class:`Engine` for the options and :meth:`Engine.validate`
    for ``source``, ``format`` and ``path``.

    >>> report = validate(
    ...     {"mcpdesc": "0.8.0", "info": {"name": "demo", "version": "1.0.0"},
    ...      "protocolVersions": ["2025-11-25"], "tools": [{"name": "t", "bogus": 1}]},
    ... )
    >>> "mcpdesc.tool.closed" in {d.rule for d in report.errors}
    True
    """
    options = _Options.of(
        rules, spec_version, protocol_versions, select, ignore, strict, docs_base_url, extend_rules
    )
    return _engine(options).validate(source, format=format, path=path)
