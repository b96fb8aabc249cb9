"""Diagnostics: every error a user can cause is one of these.

A run collects all its diagnostics (it does not stop at the first) and prints them
gcc-style, as JSON, or as GitHub Actions annotations.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from urllib.parse import quote

from cardsmith.bytecode.inputs import printable, read_input

# Spans belong to the bytecode format (the runtime reads them too); diagnostics re-export them.
from cardsmith.bytecode.spans import NO_SPAN as NO_SPAN
from cardsmith.bytecode.spans import Span as Span


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    span: Span
    severity: Severity = Severity.ERROR
    hint: str | None = None
    notes: tuple[tuple[str, Span], ...] = ()

    def to_json(self) -> dict:
        d = {
            "code": self.code,
            "severity": str(self.severity),
            "message": self.message,
            "file": self.span.file,
            "line": self.span.line,
            "col": self.span.col,
        }
        if self.hint:
            d["hint"] = self.hint
        if self.notes:
            d["notes"] = [{"message": m, **asdict(s)} for m, s in self.notes]
        return d


class CompileError(Exception):
    """Raised to abandon a stage; the diagnostics are already recorded in the bag."""


@dataclass
class Diagnostics:
    """The diagnostics of one run, in the order they were found."""

    items: list[Diagnostic] = field(default_factory=list)

    def error(self, code: str, message: str, span: Span, hint: str | None = None,
              notes: tuple[tuple[str, Span], ...] = ()) -> Diagnostic:
        d = Diagnostic(code, message, span, Severity.ERROR, hint, notes)
        self.items.append(d)
        return d

    def warning(self, code: str, message: str, span: Span, hint: str | None = None,
                notes: tuple[tuple[str, Span], ...] = ()) -> Diagnostic:
        d = Diagnostic(code, message, span, Severity.WARNING, hint, notes)
        self.items.append(d)
        return d

    def extend(self, other: Diagnostics) -> None:
        self.items.extend(other.items)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity is Severity.ERROR]

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.items)

    def __iter__(self):
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.items, key=lambda d: (d.span.file, d.span.line, d.span.col, d.code))


class SourceCache:
    """Reads source lines for the caret snippet; never fails. Files given in `texts` (file -> the text as the
    compiler read it, e.g. an editor's unsaved buffer) are read from there, not from the disk."""

    def __init__(self, texts: dict[str, str] | None = None) -> None:
        self._lines: dict[str, list[str]] = {}
        self._texts = texts or {}

    MAX_BYTES = 4_000_000  # never read more than this for a snippet (a file may be huge, or /dev/zero)

    def line(self, file: str, line: int) -> str | None:
        if file not in self._lines and file in self._texts:
            self._lines[file] = self._texts[file].splitlines()
        if file not in self._lines:
            try:
                # a device, a pipe, a folder: nothing to show, and reading could block; a symbolic link (which
                # packs refuse): what it points to is none of the diagnostic's business
                data = read_input(file, self.MAX_BYTES + 1)[: self.MAX_BYTES]
                self._lines[file] = data.decode("utf-8", errors="replace").splitlines()
            except Exception:  # never fails: no snippet then
                self._lines[file] = []
        lines = self._lines[file]
        return lines[line - 1] if 0 < line <= len(lines) else None


def render_text(diags: list[Diagnostic], sources: SourceCache | None = None) -> str:
    """gcc-style: `path:line:col: error[CODE]: message`, the line, a caret. Whatever came from the files
    (a path that is not UTF-8, a control character) is shown escaped (bytecode/inputs.py `printable`)."""
    sources = sources or SourceCache()
    out: list[str] = []
    for d in diags:
        out.append(f"{d.span}: {d.severity}[{d.code}]: {printable(d.message)}")
        text = sources.line(d.span.file, d.span.line)
        if text is not None and d.span.col > 0:
            out.append(f"    {printable(text.rstrip(), keep=chr(9))}")
            shown = printable(text[: d.span.col - 1], keep=chr(9))
            pad = "".join("\t" if ch == "\t" else " " for ch in shown)
            width = 1
            if d.span.end_line == d.span.line and d.span.end_col and d.span.end_col > d.span.col:
                width = d.span.end_col - d.span.col
            out.append(f"    {pad}{'^' * width}")
        if d.hint:
            out.append(f"    = help: {printable(d.hint)}")
        for msg, span in d.notes:
            out.append(f"{span}: note: {printable(msg)}")
    return "\n".join(out)


def _shown(value):
    """A JSON value with every text made printable."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


def render_json(diags: list[Diagnostic]) -> str:
    return json.dumps([_shown(d.to_json()) for d in diags], indent=2, ensure_ascii=False)


def _gh_escape(s: str, prop: bool = False) -> str:
    s = printable(s, keep="\r\n").replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def render_github(diags: list[Diagnostic]) -> str:
    """GitHub Actions workflow commands: one annotation per diagnostic."""
    out = []
    for d in diags:
        kind = {"error": "error", "warning": "warning"}.get(str(d.severity), "notice")
        msg = d.message + (f" (help: {d.hint})" if d.hint else "")
        out.append(
            f"::{kind} file={_gh_escape(d.span.file, True)},line={d.span.line},col={d.span.col},"
            f"title={_gh_escape(d.code, True)}::{_gh_escape(msg)}"
        )
    return "\n".join(out)


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# What each family of codes is about (docs/diagnostics.rst has a section per family); a SARIF rule's summary.
_CODE_FAMILIES = (("E00", "a YAML file cannot be read"), ("E01", "a document does not match its JSON Schema"),
                  ("E02", "a pack, or the packs it extends, cannot be loaded"),
                  ("E1", "an effect-language program or the vocabulary of rules.yaml is wrong"),
                  ("R", "a runtime fault"))
_SARIF_LEVELS = {"error": "error", "warning": "warning", "note": "note"}


def _sarif_location(span: Span, root: Path, message: str | None = None) -> dict:
    """A SARIF location: the file as a URI relative to `root` (the repository, so code scanning can place it)."""
    path = Path(span.file)
    absolute = path if path.is_absolute() else Path.cwd() / path
    real = resolved(absolute)
    try:
        artifact = {"uri": quote(os.fsencode(real.relative_to(resolved(root)).as_posix())), "uriBaseId": "SRCROOT"}
    except ValueError:  # outside the root, e.g. a built-in pack of an installed cardsmith
        artifact = {"uri": _file_uri(real)}
    physical: dict = {"artifactLocation": artifact}
    if span.line > 0:  # a pack-level finding has no line: the file alone
        region = {"startLine": span.line}
        if span.col > 0:
            region["startColumn"] = span.col
        if span.end_line and span.end_line >= span.line:
            region["endLine"] = span.end_line
            if span.end_col and span.col > 0 and (span.end_line > span.line or span.end_col > span.col):
                region["endColumn"] = span.end_col
        physical["region"] = region
    loc: dict = {"physicalLocation": physical}
    if message:
        loc["message"] = {"text": message}
    return loc


def _file_uri(path: Path) -> str:
    """A file: URI of an absolute path, its bytes percent-encoded (also those that are not UTF-8)."""
    return "file://" + quote(os.fsencode(path.as_posix()))


def resolved(path: Path) -> Path:
    """`path` made absolute with links resolved where that can be done: a loop of symbolic links or a path
    too long to resolve is kept as it is, normalised."""
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):
        return Path(os.path.normpath(os.path.abspath(path)))


def render_sarif(diags: list[Diagnostic], root: Path, tool_version: str) -> str:
    """A SARIF 2.1.0 log with one run: a rule per code used, a result per diagnostic; file URIs relative
    to `root`. Columns count Unicode code points, as everywhere in cardsmith."""
    rules: list[dict] = []
    index: dict[str, int] = {}
    results = []
    for d in diags:
        if d.code not in index:
            index[d.code] = len(rules)
            family = next((text for prefix, text in _CODE_FAMILIES if d.code.startswith(prefix)), "a problem")
            rules.append({"id": d.code, "shortDescription": {"text": f"{d.code}: {family}"},
                          "fullDescription": {"text": printable(d.message)},
                          "help": {"text": f"See error code {d.code} in the cardsmith documentation (Diagnostics)."},
                          "defaultConfiguration": {"level": _SARIF_LEVELS.get(str(d.severity), "note")}})
        result: dict = {"ruleId": d.code, "ruleIndex": index[d.code],
                        "level": _SARIF_LEVELS.get(str(d.severity), "note"),
                        "message": {"text": printable(d.message + (f" (help: {d.hint})" if d.hint else ""))},
                        "locations": [_sarif_location(d.span, root)]}
        if d.notes:
            result["relatedLocations"] = [{"id": i, **_sarif_location(s, root, printable(m))}
                                          for i, (m, s) in enumerate(d.notes)]
        results.append(result)
    run = {"tool": {"driver": {"name": "cardsmith", "version": tool_version, "semanticVersion": tool_version,
                               "rules": rules}},
           "originalUriBaseIds": {"SRCROOT": {"uri": _file_uri(resolved(root)).rstrip("/") + "/"}},
           "columnKind": "unicodeCodePoints", "results": results}
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)


_CONSULTED: ContextVar[list[tuple[str, list[str]]] | None] = ContextVar("did_you_mean_consulted", default=None)


@contextmanager
def consulted_candidates() -> Iterator[list[tuple[str, list[str]]]]:
    """Collect (name, candidates) of every `did_you_mean` asked while the block runs: the names the compiler
    would have accepted where it met an unknown one (an editor completes from them, compiler/cursor.py)."""
    seen: list[tuple[str, list[str]]] = []
    token = _CONSULTED.set(seen)
    try:
        yield seen
    finally:
        _CONSULTED.reset(token)


def did_you_mean(name: str, candidates) -> str | None:
    import difflib

    candidates = list(candidates)
    seen = _CONSULTED.get()
    if seen is not None:
        seen.append((name, [str(c) for c in candidates]))
    best = difflib.get_close_matches(name, candidates, n=1, cutoff=0.6)
    return f"did you mean '{best[0]}'?" if best else None
