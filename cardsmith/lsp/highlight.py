"""Semantic tokens for the effect language inside YAML strings: keywords, numbers, signs and every name by
what it names in the pack (compiler/effect_words.py)."""

from __future__ import annotations

from cardsmith.compiler.effect_words import words

from .positions import Lines, effect_texts, value_at
from .workspace import Workspace

TOKEN_TYPES = ["keyword", "number", "operator", "variable", "namespace", "property", "enumMember", "event",
               "macro", "type", "parameter", "enum"]
# A word's kind (effect_words) -> its token type.
TOKEN_OF = {"keyword": "keyword", "number": "number", "sign": "operator", "resource": "variable",
            "counter": "variable", "param": "variable", "zone": "namespace", "trait": "enum",
            "trait value": "enumMember", "stat": "property", "piece": "property", "timing": "event",
            "event": "event", "macro": "macro", "card type": "type", "flag": "enumMember",
            "parameter": "parameter", "name": "variable"}


def semantic_tokens(ws: Workspace, path, lines: Lines) -> list[int]:
    """The LSP's relative encoding: (line delta, start delta, length, type, modifiers) per token."""
    buf = ws.buffer(path)
    state = ws.state_for(path)
    doc = buf.doc if buf is not None else None
    if doc is None:
        return []
    result = state.latest if state is not None else None
    voc = result.compiler.voc if result is not None and result.compiler is not None else None
    macros = result.compiler.macros if result is not None and result.compiler is not None else {}
    found: list[tuple[int, int, int, int]] = []
    for text in effect_texts(doc, ws.kind(path), voc):
        value = str(value_at(doc, text.path))
        locate = doc.text_locator(text.path)
        for w in words(value, voc, macros):
            span = locate(w.start, w.end)
            if span.line <= 0 or (span.end_line or span.line) != span.line:
                continue
            start = lines.position(span.line - 1, span.col - 1)
            end = lines.position(span.line - 1, (span.end_col or span.col + 1) - 1)
            found.append((start.line, start.character, end.character - start.character,
                          TOKEN_TYPES.index(TOKEN_OF.get(w.kind, "variable"))))
    found.sort()
    data: list[int] = []
    last_line = last_col = 0
    for line, col, length, kind in found:
        if length <= 0:
            continue
        data += [line - last_line, col - last_col if line == last_line else col, length, kind, 0]
        last_line, last_col = line, col
    return data
