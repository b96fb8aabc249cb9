"""A pack diff as text (a terminal), Markdown (a pull-request comment or a changelog) and JSON."""

from __future__ import annotations

import json

from .diff import CardChange, PackDiff

HEADINGS = {"behaviour": "Behaviour changed", "text": "Text only (same behaviour)", "added": "Added",
            "removed": "Removed"}
SECTIONS = ("behaviour", "added", "removed", "text")


def _summary_line(d: PackDiff) -> str:
    s = d.summary()
    parts = [f"{s['added']} added", f"{s['removed']} removed", f"{s['renamed']} renamed",
             f"{s['behaviour']} behaviour changed", f"{s['text']} text only", f"{s['unchanged']} unchanged"]
    line = ", ".join(parts)
    if s["rules"]:
        line += f"; {s['rules']} rule change(s), {s['rules_behaviour']} of behaviour"
    return line


def _side(label: str, p: dict) -> str:
    return f"{label} ({p['id']} {p['version']}, {p['cards']} cards)"


def _value(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_value(x)}" for k, x in v.items()) + "}" if v else "{}"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    return "none" if v is None else str(v)


def _title(c: CardChange) -> str:
    title = f"{c.id}  {c.name}"
    if c.old_id:
        title += f"  (was {c.old_id})"
    elif c.old_name:
        title += f"  (was '{c.old_name}')"
    return title


def _texts(c: CardChange, langs: tuple[str, ...]):
    """(lang, before, after) of the generated text in each language (for an added or removed card, one side
    is empty; when the text did not change, both sides are the same)."""
    for lang in langs:
        before = [f"{label}: {t}" for label, t in c.text_old.get(lang, [])]
        after = [f"{label}: {t}" for label, t in c.text_new.get(lang, [])]
        if before or after:
            yield lang, before, after


def render_text(d: PackDiff, langs: tuple[str, ...] = ("en",)) -> str:
    out = [f"{_side(d.old, d.old_pack)} -> {_side(d.new, d.new_pack)}", _summary_line(d), ""]
    for status in SECTIONS:
        cards = [c for c in d.cards if c.status == status]
        if not cards:
            continue
        out.append(f"{HEADINGS[status]} ({len(cards)}):")
        for c in cards:
            out.append(f"  {_title(c)}")
            for f in c.facts:
                out.append(f"    {f.field}: {_value(f.old)} -> {_value(f.new)}")
            for a in c.abilities:
                if a.change in ("added", "removed"):
                    out.append(f"    {a.timing}: ability {a.change}: {a.source_new or a.source_old}")
                elif a.source_old != a.source_new:
                    out.append(f"    {a.timing} ({a.change}): {a.source_old}")
                    out.append(f"    {' ' * len(a.timing)} {' ' * (len(a.change) + 2)}-> {a.source_new}")
                else:
                    out.append(f"    {a.timing} ({a.change}): same source; the macros it uses changed")
            for lang, before, after in _texts(c, langs):
                if before == after:
                    out += [f"    = {lang}: {line}" for line in after]  # the same text: shown once
                    continue
                out += [f"    - {lang}: {line}" for line in before]
                out += [f"    + {lang}: {line}" for line in after]
        out.append("")
    if d.rules:
        out.append(f"Rules ({len(d.rules)}):")
        for r in d.rules:
            flag = "behaviour" if r.behaviour else "text only"
            out.append(f"  {r.what}: {r.change} ({flag})" + (f": {r.detail}" if r.detail else ""))
        out.append("")
    if not d.changed:
        out.append("No changes.")
    return "\n".join(out).rstrip() + "\n"


def _md(text) -> str:
    s = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    for ch in "\\`*_[]|#":
        s = s.replace(ch, "\\" + ch)
    return s


def render_markdown(d: PackDiff, langs: tuple[str, ...] = ("en",)) -> str:
    s = d.summary()
    op, np_ = d.old_pack, d.new_pack
    out = [f"## {_md(np_['name'])}: {_md(op['version'])} → {_md(np_['version'])}", "",
           f"Compared `{d.old}` ({op['cards']} cards) with `{d.new}` ({np_['cards']} cards).", "",
           "| added | removed | renamed | behaviour changed | text only | unchanged | rule changes |",
           "|---:|---:|---:|---:|---:|---:|---:|",
           f"| {s['added']} | {s['removed']} | {s['renamed']} | {s['behaviour']} | {s['text']} | {s['unchanged']} "
           f"| {s['rules']} |", ""]
    if d.behaviour_changed:
        out += ["**The game plays differently**: the cards and rules under *Behaviour changed*, *Added*, "
                "*Removed* and rule changes marked *behaviour* compile to other bytecode.", ""]
    elif d.changed:
        out += ["Every change is text only: the game compiles to the same bytecode.", ""]
    for status in SECTIONS:
        cards = [c for c in d.cards if c.status == status]
        if not cards:
            continue
        out += [f"### {HEADINGS[status]} ({len(cards)})", ""]
        for c in cards:
            title = f"**{_md(c.name)}** (`{c.id}`)"
            if c.old_id:
                title += f", was `{c.old_id}`"
            elif c.old_name:
                title += f", was *{_md(c.old_name)}*"
            out.append(f"- {title}")
            for f in c.facts:
                out.append(f"  - {_md(f.field)}: {_md(_value(f.old))} → {_md(_value(f.new))}")
            for a in c.abilities:
                if a.change in ("added", "removed"):
                    out.append(f"  - {_md(a.timing)}: ability {a.change}: `{a.source_new or a.source_old}`")
                elif a.source_old != a.source_new:
                    out.append(f"  - {_md(a.timing)} ({a.change}): `{a.source_old}` → `{a.source_new}`")
                else:
                    out.append(f"  - {_md(a.timing)} ({a.change}): same source; the macros it uses changed")
            texts = list(_texts(c, langs))
            if texts:
                out.append("  <details><summary>generated text</summary>")
                out.append("")
                for lang, before, after in texts:
                    if before == after:
                        out += [f"  | {lang} | text (unchanged) |", "  |---|---|"]
                        out += [f"  | | {_md(line)} |" for line in after]
                        out.append("")
                        continue
                    out += [f"  | {lang} | before | after |", "  |---|---|---|"]
                    for i in range(max(len(before), len(after))):
                        b = before[i] if i < len(before) else ""
                        a = after[i] if i < len(after) else ""
                        out.append(f"  | | {_md(b)} | {_md(a)} |")
                    out.append("")
                out.append("  </details>")
        out.append("")
    if d.rules:
        out += [f"### Rules ({len(d.rules)})", "", "| what | change | behaviour | detail |", "|---|---|---|---|"]
        out += [f"| {_md(r.what)} | {r.change} | {'yes' if r.behaviour else 'no'} | {_md(r.detail)} |" for r in d.rules]
        out.append("")
    if not d.changed:
        out += ["No changes.", ""]
    return "\n".join(out)


def render_json(d: PackDiff, langs: tuple[str, ...] = ("en",)) -> str:
    return json.dumps(d.to_json(), indent=1, ensure_ascii=False)


RENDERERS = {"text": render_text, "markdown": render_markdown, "json": render_json}
