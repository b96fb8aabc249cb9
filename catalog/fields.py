"""The search fields of a pack, and each card as a search document: the meaning of every query field,
written once as data.

A field is one of four kinds:

- text: the value occurs in one of the card's strings (names, generated text, ability source);
- facet: the card has the value (type, timing, pack, trait values, what abilities use and do);
  a value may be written as its id or as its word in any language (`type:イベント`);
- number: compared with = != < <= > >= (stats, copies); a card without the stat never matches;
- bool: true or false (original).

The query evaluator (`query.py`) and the site's page (`static/query.js`) both read this table and these
documents and apply the same generic matching, so a query means the same in the terminal and in the
browser. Strings are compared after Unicode NFKC normalisation and lower-casing on both sides.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

from cardsmith.bytecode.opcodes import OPS

from . import behaviour
from .records import REQUIRES, CardRecord, Catalog

KINDS = ("text", "facet", "number", "bool")
BOOLS = {"true": "true", "yes": "true", "false": "false", "no": "false"}


def norm(text: str) -> str:
    return unicodedata.normalize("NFKC", str(text)).lower()


@dataclass
class Field:
    name: str
    kind: str
    help: str
    values: dict[str, str] = field(default_factory=dict)  # facet/bool: written form -> value (both normalised)
    sortable: bool = False

    def to_json(self) -> dict:
        return {"kind": self.kind, "help": self.help, "values": self.values, "sortable": self.sortable}


@dataclass
class SearchIndex:
    """Fields, field aliases and one document per card (in pack order)."""

    pack: str
    fields: dict[str, Field]
    aliases: dict[str, str]  # another name of a field -> the field
    docs: list[dict]

    def resolve(self, name: str) -> Field | None:
        name = name.lower()
        return self.fields.get(self.aliases.get(name, name))

    def to_json(self) -> dict:
        return {"pack": self.pack, "fields": {n: f.to_json() for n, f in self.fields.items()},
                "aliases": self.aliases, "docs": self.docs}


# ------------------------------------------------------------------------------ building


def search_index(cat: Catalog) -> SearchIndex:
    fields: dict[str, Field] = {}

    def add(f: Field) -> None:
        fields.setdefault(f.name, f)  # built-in fields come first and keep their meaning

    p = cat.pack
    add(Field("name", "text", "the card's name in any language, or its id", sortable=True))
    add(Field("text", "text", "the generated text of its abilities, in English or Japanese"))
    add(Field("source", "text", "the effect-language source of its abilities, as written"))
    add(Field("id", "text", "the card's id", sortable=True))
    add(Field("number", "text", "the card's printed number", sortable=True))
    add(Field("type", "facet", "the card type", _facet_values(p.card_types, _type_labels(cat)), sortable=True))
    add(Field("pack", "facet", "the pack of the chain that defines the card",
              _facet_values([c["id"] for c in cat.chain], {}), sortable=True))
    timing_words = _ability_labels(cat)
    add(Field("timing", "facet", "a timing of one of its abilities ('requires' for a play requirement)",
              _facet_values([*p.timings, REQUIRES], timing_words)))
    add(Field("original", "bool", "an original card (true) or one whose facts are published (false)",
              dict(BOOLS)))
    add(Field("copies", "number", "copies of the card in the game", sortable=True))
    uses = set(cat.macros) | {o.name.lower() for o in OPS} | cat.vocabulary()
    for c in cat.cards:
        uses.update(c.uses())
    add(Field("uses", "facet", "a macro, opcode, construct or vocabulary name (resource, zone, piece, stat) "
              "its abilities use, after macro expansion", _facet_values(sorted(uses), {})))
    verbs = sorted({v for v in behaviour.VERBS.values()} | {v for c in cat.cards for v in c.effects()})
    names = cat.vocabulary()
    for verb in verbs:
        vals = set(names) | {n for c in cat.cards for n in c.effects().get(verb, ())}
        add(Field(verb, "facet", f"what its abilities {verb[:-1] if verb.endswith('s') else verb} "
                  "(a resource, piece, zone, flag or stat), after macro expansion", _facet_values(sorted(vals), {})))
    add(Field("targets", "facet", "players its abilities reach besides their owner",
              _facet_values(sorted(behaviour.TARGETS | {t for c in cat.cards for t in c.targets()}), {})))
    trigger_verbs = sorted({t.verb for c in p.cards for t in c.triggers})
    add(Field("trigger", "facet", "what its triggered abilities wait for (when you play ..., when ... places ...)",
              _facet_values(trigger_verbs, {})))
    for trait, values in p.traits.items():
        add(Field(trait, "facet", f"the trait '{trait}'", _facet_values(values, _trait_labels(cat)), sortable=True))
    for stat in p.stats:
        add(Field(stat, "number", f"the stat '{stat}'", sortable=True))
    aliases = {}
    for name in list(fields):
        if name.endswith("s") and fields[name].kind == "facet" and name[:-1] not in fields:
            aliases[name[:-1]] = name  # gain:soil reads as gains:soil, target: as targets:
    return SearchIndex(p.id, fields, aliases, [_doc(cat, c, fields) for c in cat.cards])


def _facet_values(values, words: dict[str, set[str]]) -> dict[str, str]:
    """Written form -> value: every value by its id, and by its word in each language unless that word
    belongs to another value too."""
    out = {norm(v): norm(v) for v in values}
    seen: dict[str, set[str]] = {}
    for v in values:
        for w in words.get(v, ()):
            seen.setdefault(norm(w), set()).add(v)
    for w, vs in seen.items():
        if len(vs) == 1 and w not in out:
            out[w] = norm(next(iter(vs)))
    return out


def _type_labels(cat: Catalog) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for c in cat.cards:
        for word in c.type_label.values():
            out.setdefault(c.type, set()).add(word)
    return out


def _ability_labels(cat: Catalog) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for c in cat.cards:
        for a in c.abilities:
            out.setdefault(a.timing, set()).update(a.label.values())
    return out


def _trait_labels(cat: Catalog) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for c in cat.cards:
        for words in c.trait_labels.values():
            for value, word in words.items():
                out.setdefault(value, set()).add(word)
    return out


def _doc(cat: Catalog, c: CardRecord, fields: dict[str, Field]) -> dict:
    """A card as the search sees it: facets (f), numbers (n) and texts (t), all normalised."""
    card = cat.pack.card(c.id)
    facets: dict[str, list[str]] = {
        "type": [c.type], "pack": [c.pack], "timing": [a.timing for a in c.abilities],
        "original": ["true" if c.original else "false"], "uses": c.uses(), "targets": c.targets(),
        "trigger": sorted({t.verb for t in card.triggers}) if card else [],
    }
    for verb, names in c.effects().items():
        facets.setdefault(verb, names)
    for trait, values in c.traits.items():
        facets.setdefault(trait, values)
    numbers: dict[str, int] = {"copies": c.copies}
    for stat, v in c.stats.items():
        if isinstance(v, int) and not isinstance(v, bool):
            numbers.setdefault(stat, v)
    texts = {
        "name": _unique([*c.names.values(), c.name, c.id]),
        "text": [a.text[lang] for a in c.abilities for lang in a.text if a.text[lang]],
        "source": [a.source for a in c.abilities if a.source],
        "id": [c.id], "number": [c.number] if c.number else [],
    }
    return {"id": c.id,
            "f": {k: sorted({norm(v) for v in vs}) for k, vs in facets.items() if vs and fields.get(k)
                  and fields[k].kind in ("facet", "bool")},
            "n": {k: v for k, v in numbers.items() if k in fields and fields[k].kind == "number"},
            "t": {k: [norm(s) for s in vs] for k, vs in texts.items() if vs}}


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
