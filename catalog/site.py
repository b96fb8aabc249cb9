"""A static card browser: `cardsmith site PACK -o DIR`.

The site works from file:// and from any static host: plain HTML pages, one stylesheet, classic
scripts (no modules, no fetch), and the data as a script (assets/data.js) that sets a global.

- index.html: every card as its printed face (the sheets' card template, present/templates/card.html.j2,
  which a pack may override), filters by type, timing, a number stat and traits, and a search box that
  takes the query language (static/query.js: the same grammar and fields as `cardsmith query`).
  Bare words go to MiniSearch (static/vendor/minisearch, MIT) for ranked full-text search over names
  and generated English and Japanese text; Japanese is tokenised into character bigrams, so words
  without spaces are found.
- cards/ID.html: a page per card: its faces, facts, generated text (en, ja), ability source, bytecode,
  the cards that refer to it and that it refers to, and balance statistics when a simulation is given.

Why MiniSearch: it is small (one file), maintained, MIT-licensed, builds its index in the page from
plain documents (no build step, no fetch, so file:// works), and takes a custom tokenizer. Pagefind
fetches index chunks at run time (blocked on file://) and Lunr is no longer maintained.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import jinja2

from cardsmith.bytecode import CompiledPack
from cardsmith.compiler.diagnostics import SourceCache
from cardsmith.present.render import CARD_H, CARD_W, Slot, environment, render_template, text_size, type_colours

from .fields import search_index
from .records import CardRecord, Catalog

HERE = Path(__file__).resolve().parent
TEMPLATES = HERE / "templates"
STATIC = HERE / "static"
MINISEARCH_VERSION = "7.2.0"
# Files copied into assets/ as they are.
ASSETS = {"site.js": STATIC / "site.js", "query.js": STATIC / "query.js",
          "minisearch.js": STATIC / "vendor" / "minisearch" / "minisearch.js",
          "LICENSE-minisearch.txt": STATIC / "vendor" / "minisearch" / "LICENSE.txt"}


@dataclass
class CardStats:
    """A card's balance figures from a simulation (runtime/balance.py CardBalance, as plain numbers)."""

    played: int
    played_rate: float
    played_low: float
    played_high: float
    other: int
    other_rate: float
    difference: float
    games: int


def site_environment(pack_folder: Path | None) -> jinja2.Environment:
    """The sandboxed environment of the reference and the sheets (a pack's templates first), with the site's
    own templates after them: the card face is the sheets' template, overridable by the pack."""
    env = environment(pack_folder)
    env.loader = jinja2.ChoiceLoader([env.loader, jinja2.FileSystemLoader(str(TEMPLATES))])
    return env


def face_slot(entry) -> Slot:
    light, accent = type_colours(entry.type_id or "card")
    return Slot(x=0, y=0, w=CARD_W, h=CARD_H, bl=0, bt=0, colour=light, accent=accent, size=text_size(entry),
                kind="front", card=entry)


def disassembly(pack: CompiledPack, card_id: str, sources: SourceCache) -> list[dict]:
    """The card's programs as `cardsmith disasm` prints them: instructions beside their source lines."""
    card = pack.card(card_id)
    out = []
    for label, code in pack.card_codes(card):
        lines = []
        last = None
        for i, (ins, si) in enumerate(zip(code.ops, code.spans, strict=True)):
            span = pack.span(si)
            note = ""
            if (span.file, span.line) != last:
                text = sources.line(span.file, span.line)
                note = f"; {Path(span.file).name}:{span.line}: {text.strip() if text else ''}"
                last = (span.file, span.line)
            operands = " ".join(json.dumps(a, ensure_ascii=False, separators=(",", ":")) for a in ins[1:])
            lines.append({"i": i, "op": ins[0], "operands": operands, "note": note})
        out.append({"label": label, "lines": lines})
    return out


def _filters(cat: Catalog, index) -> dict:
    """What the index page offers to filter by: types, timings, traits and number stats, with card counts."""
    def count(pred) -> int:
        return sum(1 for c in cat.cards if pred(c))

    types = [{"value": t, "label": _label(cat, "type", t), "count": count(lambda c, t=t: c.type == t)}
             for t in cat.pack.card_types]
    timings = [{"value": t, "label": _label(cat, "timing", t), "count": count(lambda c, t=t: t in c.timings)}
               for t in cat.pack.timings]
    traits = []
    for trait, values in cat.pack.traits.items():
        if trait not in index.fields or index.fields[trait].kind != "facet":
            continue  # a trait whose name a built-in field took: reachable through the query only
        opts = [{"value": v, "label": _label(cat, "trait", v), "count": count(lambda c, tr=trait, v=v: v in
                                                                               c.traits.get(tr, ()))}
                for v in values]
        traits.append({"name": trait, "values": [o for o in opts if o["count"]]})
    numbers = []
    for stat in cat.pack.stats:
        vals = [c.stats[stat] for c in cat.cards if isinstance(c.stats.get(stat), int)]
        if vals and stat in index.fields and index.fields[stat].kind == "number":
            numbers.append({"name": stat, "min": min(vals), "max": max(vals), "count": len(vals)})
    numbers.sort(key=lambda n: (n["name"] != "cost", -n["count"]))  # cost first when the pack has it
    return {"types": [t for t in types if t["count"]], "timings": [t for t in timings if t["count"]],
            "traits": [t for t in traits if t["values"]], "numbers": numbers}


def _label(cat: Catalog, what: str, value: str) -> str:
    for c in cat.cards:
        if what == "type" and c.type == value:
            return c.type_label.get("en") or value
        if what == "timing":
            for a in c.abilities:
                if a.timing == value:
                    return a.label.get("en") or value
        if what == "trait":
            word = c.trait_labels.get("en", {}).get(value)
            if word:
                return word
    return value


def _data(cat: Catalog, index) -> dict:
    """assets/data.js: the search index (fields and documents, as `cardsmith query` uses them) and, per card,
    the strings MiniSearch indexes."""
    full = [{"id": c.id, "name": " ".join(dict.fromkeys([*c.names.values(), c.name, c.id])),
             "text": " ".join(a.text.get(lang, "") for a in c.abilities for lang in sorted(a.text))}
            for c in cat.cards]
    return {"index": index.to_json(), "fulltext": full, "minisearch": MINISEARCH_VERSION}


def build_site(cat: Catalog, out: Path, pack_folder: Path | None = None,
               stats: dict[str, CardStats] | None = None, stats_note: str = "", lang: str = "en") -> list[Path]:
    """Write the site into `out` (created; an earlier build's files are replaced, and its pages of cards the
    pack no longer has removed). Returns the pages."""
    out = Path(out)
    (out / "cards").mkdir(parents=True, exist_ok=True)
    keep = {f"{c.id}.html" for c in cat.cards}
    for old in (out / "cards").glob("*.html"):  # pages of cards an earlier build had and this pack no longer has
        if old.name not in keep:
            old.unlink()
    (out / "assets").mkdir(exist_ok=True)
    env = site_environment(pack_folder)
    index = search_index(cat)
    for name, src in ASSETS.items():
        shutil.copyfile(src, out / "assets" / name)
    css = render_template(env, "sheets.css") + "\n" + (STATIC / "site.css").read_text(encoding="utf-8")
    (out / "assets" / "site.css").write_text(css, encoding="utf-8")
    data = json.dumps(_data(cat, index), ensure_ascii=False, separators=(",", ":"))
    (out / "assets" / "data.js").write_text(f"window.CARDSMITH_SITE = {data};\n", encoding="utf-8")
    by_id = {c.id: c for c in cat.cards}
    faces = {c.id: face_slot(cat.entry(c.id, lang)) for c in cat.cards}
    common = {"pack": cat.pack, "pack_name": cat.name.get(lang) or cat.pack.name, "chain": cat.chain, "lang": lang}
    pages = [out / "index.html"]
    pages[0].write_text(render_template(env, "site-index.html.j2", cards=cat.cards, faces=faces,
                                        filters=_filters(cat, index), fields=index.fields, aliases=index.aliases,
                                        root="", **common), encoding="utf-8")
    sources = SourceCache()
    for i, c in enumerate(cat.cards):
        faces_all = {lg: face_slot(cat.entry(c.id, lg)) for lg in cat.references}
        html = render_template(env, "site-card.html.j2", card=c, faces=faces_all, by_id=by_id, root="../",
                               code=disassembly(cat.pack, c.id, sources), stats=(stats or {}).get(c.id),
                               stats_note=stats_note, prev=cat.cards[i - 1] if i else None,
                               next=cat.cards[i + 1] if i + 1 < len(cat.cards) else None,
                               uses=_uses_links(c), **common)
        page = out / "cards" / f"{c.id}.html"
        page.write_text(html, encoding="utf-8")
        pages.append(page)
    return pages


def _uses_links(c: CardRecord) -> list[tuple[str, list[tuple[str, str]]]]:
    """(heading, [(word, query)]) for a card page: each links to the index with that query."""
    def q(field: str, value: str) -> str:
        return f'{field}:"{value}"' if any(ch in value for ch in ' ()"') else f"{field}:{value}"

    groups = [("timings", [(t, q("timing", t)) for t in c.timings])]
    for verb, names in c.effects().items():
        groups.append((verb, [(n, q(verb, n)) for n in names]))
    if c.targets():
        groups.append(("targets", [(t, q("targets", t)) for t in c.targets()]))
    macros = sorted({m for a in c.abilities for m in a.macros})
    if macros:
        groups.append(("macros", [(m, q("uses", m)) for m in macros]))
    names = sorted({n for a in c.abilities for n in a.names})
    if names:
        groups.append(("names", [(n, q("uses", n)) for n in names]))
    opcodes = sorted({o for a in c.abilities for o in a.opcodes})
    if opcodes:
        groups.append(("opcodes", [(o, q("uses", o.lower())) for o in opcodes]))
    return [g for g in groups if g[1]]
