"""Hover: on a card or an ability, its generated English and Japanese text and its bytecode; on a name, its
declaration and description; on a macro call, the macro's phrase and body."""

from __future__ import annotations

import json
from pathlib import Path

from cardsmith.compiler.yamlsrc import YamlDoc

from .positions import spot_at, value_at
from .symbols import describe_entry
from .workspace import PackState, Workspace

LANGS = (("en", "English"), ("ja", "日本語"))


def hover(ws: Workspace, path: Path, line: int, col: int) -> str | None:
    state = ws.state_for(path)
    buf = ws.buffer(path)
    if state is None or buf is None:
        return None
    index = ws.index(state)
    occurrence = index.at(ws.key(path), line, col)
    result = state.latest
    voc = result.compiler.voc if result is not None and result.compiler is not None else None
    if occurrence is not None and occurrence.kind == "macro":
        return _macro(state, occurrence.signature, occurrence.name)
    if occurrence is not None and occurrence.kind == "event":
        uses = index.same(occurrence)
        emits = sum(1 for o in uses if o.definition)
        return (f"**event** `{occurrence.name}`: sent by `emit` in {emits} place(s), {len(uses) - emits} trigger(s) "
                "answer it" + (" (the language itself sends it)" if not emits else ""))
    if occurrence is not None and occurrence.kind != "card" and voc is not None:
        return describe_entry(occurrence.name, occurrence.kind, voc)
    doc = buf.doc
    if doc is None or ws.kind(path) != "cards":
        if occurrence is not None and occurrence.kind == "card":
            return _card(state, occurrence.name, None)
        return None
    spot = spot_at(doc, line, col)
    if spot is None:
        return None
    card_path = spot.path[:2] if spot.path[:1] == ("cards",) and len(spot.path) >= 2 else None
    if card_path is None:
        return None
    if spot.path[2:3] == ("back",):
        card_path = (*card_path, "back")
    raw = value_at(doc, card_path)
    if not isinstance(raw, dict) or not isinstance(raw.get("id"), str):
        return None
    rest = spot.path[len(card_path):]
    timing = rest[1] if rest[:1] == ("abilities",) and len(rest) >= 2 else "requires" if rest[:1] == ("requires",) \
        else None
    return _card(state, raw["id"], timing, doc)


def _describers(state: PackState):
    good = state.good
    if good is None:
        return None
    kept = getattr(state, "_describers", None)
    if kept is None or kept[0] is not good:
        from cardsmith.present.describe import Describer

        made = {}
        for lang, _ in LANGS:
            try:
                made[lang] = Describer(good, lang)
            except Exception:  # a language the pack cannot be described in: leave it out of the hover
                continue
        kept = (good, made)
        state._describers = kept  # type: ignore[attr-defined]
    return kept[1]


def _card(state: PackState, card_id: str, timing: str | None, doc: YamlDoc | None = None) -> str | None:
    good = state.good
    card = good.pack.card(card_id) if good is not None else None
    if card is None:
        return (f"**card** `{card_id}`\n\n_The text and bytecode show once the pack compiles without errors._"
                if good is None else f"**card** `{card_id}`: not in the last clean compile of the pack")
    out = [f"**{card.name}** (`{card.id}`, {card.type})"]
    describers = _describers(state) or {}
    for lang, label in LANGS:
        d = describers.get(lang)
        if d is None:
            continue
        try:
            texts = d.card(card)
        except Exception as e:  # text generation is another layer's work in progress: say so, do not fail
            out.append(f"_{label}: {type(e).__name__}_")
            continue
        shown = [a for a in texts if timing is None or a.timing == timing]
        if shown:
            out.append(f"{label} — {d.card_name(card)}\n\n" + "\n".join(f"- **{a.label}**: {a.text}" for a in shown))
    codes = [(label, code) for label, code in good.pack.card_codes(card)
             if timing is None or label == f"{card.id} {timing}" or (timing and label.startswith(f"{card.id} trigger"))]
    if codes:
        lines = []
        for label, code in codes:
            lines.append(f"== {label} ({len(code.ops)} instructions)")
            for i, ins in enumerate(code.ops):
                operands = " ".join(json.dumps(a, ensure_ascii=False, separators=(",", ":")) for a in ins[1:])
                lines.append(f"{i:4d}  {ins[0]:<14} {operands}".rstrip())
        out.append("Bytecode\n\n```\n" + "\n".join(lines) + "\n```")
    return "\n\n".join(out)


def _macro(state: PackState, signature: str | None, name: str) -> str | None:
    result = state.latest
    if result is None or result.compiler is None:
        return None
    macros = [m for m in result.compiler.macros.get(name, []) if signature is None or m.signature == signature]
    if not macros:
        return None
    describers = _describers(state) or {}
    out = []
    for m in macros:
        span = m.span
        part = [f"**macro** `{m.signature}` — defined in {span.file}:{span.line}",
                f"```\n{str(m.entry.value).strip()}\n```"]
        d = describers.get("en")
        if d is not None:
            try:
                phrase = d.macro_body(m.signature)
            except Exception:
                phrase = None
            if phrase:
                part.append(f"reads: {phrase}")
        out.append("\n\n".join(part))
    return "\n\n---\n\n".join(out)
