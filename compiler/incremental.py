"""Compiling one pack again and again, as an editor does on every keystroke, redoing only what changed.

A `CompileMemo` is handed to `compile_pack(ref, memo=...)`. It keeps, between compiles of the same pack:

- each file's document and the diagnostics of reading and validating it, read again only when the file
  changed on the disk (size, time or inode) or its unsaved text (`overlay`) changed;
- each card's result (its compiled form, checked AST, diagnostics and the macros it used), compiled again
  only when its own source text, its place in the file (path, line and column), its file's `defaults:` or the
  pack chain's pack.yaml/rules.yaml documents changed: typing inside one card compiles that card alone;
- the macros (while the rules do not change), and each program's parse (while its document does not change);
- the span table the cards' bytecode points into, so that kept bytecode stays valid.

Everything else (the vocabulary, checking the rules' own programs, pack-wide checks such as duplicate ids and
unused macros) runs every time; what is kept is replayed with its diagnostics, so the diagnostics are those of
a compile without the memo.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, Diagnostics
from .emit import SpanTable
from .expand import build_macros
from .packs import read_document
from .schema import validate
from .yamlsrc import YamlDoc, load_yaml_bytes

if TYPE_CHECKING:
    from cardsmith.bytecode import CardDef

    from .packs import PackSource
    from .pipeline import _Compiler

# Spans of edited lines pile up in the kept span table; past this many times the table's size after a full
# compile, the next compile starts afresh.
SPAN_GROWTH = 3


@dataclass
class _File:
    stamp: tuple  # (size, mtime_ns, inode) of the file on disk, or ("overlay", text) for an unsaved buffer
    doc: YamlDoc | None
    diagnostics: tuple[Diagnostic, ...]


@dataclass
class _CardResult:
    card: CardDef | None
    diagnostics: tuple[Diagnostic, ...]
    asts: dict
    used_macros: frozenset[str]
    counted: int


class CompileMemo:
    """What the compiles of one pack keep for the next. `overlay` maps absolute paths to unsaved texts."""

    def __init__(self) -> None:
        self.overlay: dict[Path, str] = {}
        self.spans = SpanTable()
        self._files: dict[tuple[Path, str, str], _File] = {}
        self._read_now: set[tuple[Path, str, str]] = set()
        self._cards: dict[tuple, _CardResult] = {}
        self._used_keys: set[tuple] = set()
        self._chain_key: tuple | None = None
        self._macros: tuple | None = None  # (chain key, macro table, diagnostics)
        self._parsed: dict[tuple, tuple] = {}  # (document id, path) -> (document, text, node, diagnostics)
        self._fresh_spans = 0
        # what the last compile did, for tests and the benchmark
        self.files_read = self.cards_compiled = self.cards_kept = 0
        self._reads = 0

    # ------------------------------------------------------------ files
    def read(self, path: Path, kind: str, display: str, diags: Diagnostics) -> YamlDoc | None:
        """packs.Reader: the document of `path` (from `overlay` when there), read again only on a change."""
        real = Path(os.path.abspath(path))
        key = (real, kind, display)
        self._read_now.add(key)
        text = self.overlay.get(real)
        if text is not None:
            stamp: tuple = ("overlay", text)
        else:
            try:
                st = path.stat()
                stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
            except OSError:
                stamp = ("missing",)
        kept = self._files.get(key)
        if kept is not None and kept.stamp == stamp:
            diags.items.extend(kept.diagnostics)
            return kept.doc
        self._reads += 1
        before = len(diags.items)
        if text is not None:
            doc = load_yaml_bytes(text.encode("utf-8"), display, diags)
            doc = doc if doc is not None and validate(doc, kind, diags) else None
        else:
            doc = read_document(path, kind, display, diags)
        self._files[key] = _File(stamp, doc, tuple(diags.items[before:]))
        return doc

    # ------------------------------------------------------------ one compile
    def begin(self, chain: list[PackSource]) -> None:
        """Called by the compiler once the chain is loaded: forget what the new chain no longer holds."""
        self.cards_compiled = self.cards_kept = 0
        self.files_read, self._reads = self._reads, 0
        self._files = {k: v for k, v in self._files.items() if k in self._read_now}
        self._read_now = set()
        if not self._fresh_spans:  # the last compile compiled every card: the table's size with no edits
            self._fresh_spans = len(self.spans.spans)
        key = tuple((p.id, id(p.pack_doc), id(p.rules_doc)) for p in chain)
        grown = self._fresh_spans and len(self.spans.spans) > SPAN_GROWTH * self._fresh_spans
        if key != self._chain_key or grown:
            self._cards.clear()
            self.spans = SpanTable()
            self._chain_key = key
            self._fresh_spans = 0
        else:  # keep the cards the last compile saw: the others are edits gone by
            self._cards = {k: v for k, v in self._cards.items() if k in self._used_keys}
        self._used_keys = set()
        current = {id(d) for p in chain for d in (p.rules_doc, *p.card_docs) if d is not None}
        self._parsed = {k: v for k, v in self._parsed.items() if k[0] in current}

    def macros(self, voc, diags: Diagnostics) -> dict:
        """The macro table of the rules (built again only when a pack.yaml or rules.yaml of the chain changed)."""
        if self._macros is not None and self._macros[0] == self._chain_key:
            diags.items.extend(self._macros[2])
            return self._macros[1]
        before = len(diags.items)
        table = build_macros(voc, diags)
        self._macros = (self._chain_key, table, tuple(diags.items[before:]))
        return table

    def parsed(self, diags: Diagnostics, doc: YamlDoc, path: tuple, text: str, parse: Callable[[], object]):
        """The parse of the program at `path` of `doc` (parsed again only when the document changed)."""
        kept = self._parsed.get((id(doc), path))
        if kept is not None and kept[0] is doc and kept[1] == text:
            diags.items.extend(kept[3])
            return kept[2]
        before = len(diags.items)
        node = parse()
        self._parsed[(id(doc), path)] = (doc, text, node, tuple(diags.items[before:]))
        return node

    def card(self, compiler: _Compiler, doc: YamlDoc, path: tuple, pack_id: str,
             compile_card: Callable[[], CardDef | None]):
        """The card at `path` of `doc`: kept from an earlier compile, or compiled now by `compile_card`.

        A card's result depends on its own text and where it stands (its spans), its file's defaults (checked
        with the file's first card), its pack and the rules, which `begin` watches."""
        entry = path[:2]  # ("cards", i): a back side takes the fields it does not give from its front
        start = doc.span(entry)
        defaults = doc.span(("defaults",)) if "defaults" in (doc.value or {}) else None
        key = (doc.file, pack_id, path, start.line, start.col, doc.source(entry),
               defaults and (defaults.line, defaults.col, doc.source(("defaults",))),
               id(doc) in compiler.card_defaults_checked)
        self._used_keys.add(key)
        kept = self._cards.get(key)
        if kept is not None:
            self.cards_kept += 1
            compiler.diags.items.extend(kept.diagnostics)
            compiler.asts.update(kept.asts)
            compiler.expander.used |= kept.used_macros
            compiler.cards_compiled += kept.counted
            if (doc.value or {}).get("defaults"):  # as the first card's compile did: defaults are checked once
                compiler.card_defaults_checked.add(id(doc))
            return kept.card
        self.cards_compiled += 1
        before, counted = len(compiler.diags.items), compiler.cards_compiled
        asts, used = compiler.asts, compiler.expander.used
        compiler.asts, compiler.expander.used = {}, set()  # collect what this card adds
        try:
            card = compile_card()
        finally:
            new_asts, new_used = compiler.asts, compiler.expander.used
            compiler.asts, compiler.expander.used = asts, used
            asts.update(new_asts)
            used |= new_used
        if not compiler.expander.cut_short:  # an expansion cut short leaves state behind: compile it every time
            self._cards[key] = _CardResult(card, tuple(compiler.diags.items[before:]), new_asts,
                                           frozenset(new_used), compiler.cards_compiled - counted)
        return card
