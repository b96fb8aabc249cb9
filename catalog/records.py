"""The card database of one compiled pack: one record per card, plain data, built once.

Everything the catalog commands show comes from here: the facts of the compiled card (type, traits,
stats, copies, pack), the source of each ability as written, the text the describer generates in
every language, and what each ability does and uses, read from the checked AST (`behaviour`) and the
bytecode. Query, export, diff and the site are views of a `Catalog`; none of them re-reads YAML.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardsmith.bytecode import CardDef, CompiledPack
from cardsmith.present.coverage import card_features
from cardsmith.present.describe import LANGS
from cardsmith.present.reference import CardEntry, Reference, build_reference

from . import behaviour
from .sources import ability_sources

REQUIRES = "requires"  # the pseudo-timing of a card's play requirement


@dataclass
class AbilityRecord:
    timing: str  # a timing of the pack, or "requires"
    kind: str  # the timing's kind (activated, on-play, ongoing ...) or "requires"
    label: dict[str, str]  # the timing's name per language
    source: str  # the effect-language text as written
    where: str  # file:line of the source
    text: dict[str, str]  # generated text per language
    macros: list[str]  # signatures of the macros it expands ("draw $n")
    names: list[str]  # the vocabulary names it mentions (resources, zones, pieces, stats ...)
    opcodes: list[str]
    effects: dict[str, list[str]]  # verb -> names ("gains" -> ["soil"])
    targets: list[str]

    def to_json(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


@dataclass
class CardRecord:
    id: str
    name: str
    names: dict[str, str]  # the name per language, as cards and references print it
    type: str
    type_label: dict[str, str]
    pack: str
    number: str | None
    copies: int
    original: bool
    back: str | None
    is_back: bool
    traits: dict[str, list[str]]
    trait_labels: dict[str, dict[str, str]]  # lang -> trait value -> its word in that language
    stats: dict[str, int]
    where: str
    abilities: list[AbilityRecord]
    triggers: list[str]  # "when you play", ... as patterns
    constructs: list[str]
    refers_to: list[tuple[str, str]] = field(default_factory=list)  # (card id, the filter that selects it)
    referenced_by: list[tuple[str, str]] = field(default_factory=list)
    position: int = 0  # order in the compiled pack

    @property
    def timings(self) -> list[str]:
        return [a.timing for a in self.abilities if a.timing != REQUIRES]

    def uses(self) -> list[str]:
        """Macros (by name and by signature), opcodes (lower case), constructs and vocabulary names: what
        `uses:` matches."""
        out: set[str] = set(self.constructs)
        for a in self.abilities:
            out.update(a.macros)
            out.update(m.split(" ", 1)[0] for m in a.macros)
            out.update(o.lower() for o in a.opcodes)
            out.update(a.names)
        return sorted(out)

    def effects(self) -> dict[str, list[str]]:
        out: dict[str, set[str]] = {}
        for a in self.abilities:
            for verb, names in a.effects.items():
                out.setdefault(verb, set()).update(names)
        return {v: sorted(n) for v, n in sorted(out.items())}

    def targets(self) -> list[str]:
        return sorted({t for a in self.abilities for t in a.targets})

    def text(self, lang: str) -> str:
        return " ".join(a.text.get(lang, "") for a in self.abilities if a.text.get(lang))

    def to_json(self) -> dict:
        d = {k: getattr(self, k) for k in self.__dataclass_fields__ if k not in ("abilities", "position")}
        d["abilities"] = [a.to_json() for a in self.abilities]
        d["refers_to"] = [list(r) for r in self.refers_to]
        d["referenced_by"] = [list(r) for r in self.referenced_by]
        d["timings"] = self.timings
        d["uses"] = self.uses()
        d["effects"] = self.effects()
        d["targets"] = self.targets()
        return d


@dataclass
class Catalog:
    """The records of a pack's cards, with what describes the pack itself."""

    pack: CompiledPack
    result: Any  # the CompileResult (with its checked AST)
    name: dict[str, str]  # the pack's name per language
    chain: list[dict]  # [{"id", "name", "version"}], base packs first
    cards: list[CardRecord]
    references: dict[str, Reference]  # per language: the catalogue entries the card faces print
    macros: list[str]  # every macro of the rules, by name and signature (what `uses:` may name)

    @property
    def id(self) -> str:
        return self.pack.id

    @property
    def version(self) -> str:
        return self.pack.version

    def card(self, card_id: str) -> CardRecord | None:
        return self._by_id.get(card_id)

    def entry(self, card_id: str, lang: str) -> CardEntry:
        return self._entries[lang][card_id]

    def __post_init__(self) -> None:
        self._by_id = {c.id: c for c in self.cards}
        self._entries = {lang: {e.id: e for e in ref.cards} for lang, ref in self.references.items()}

    def vocabulary(self) -> set[str]:
        p = self.pack
        return (set(p.resources) | set(p.counters) | set(p.zones) | set(p.pieces) | set(p.flags) | set(p.stats)
                | set(p.timings))

    def to_json(self) -> dict:
        return {"pack": {"id": self.id, "name": self.name, "version": self.version, "chain": self.chain},
                "cards": [c.to_json() for c in self.cards]}


# ------------------------------------------------------------------------------ building


def build_catalog(result) -> Catalog:
    """The catalog of a compiled pack: a CompileResult that is ok and has its checked AST (cache=False)."""
    if not result.ok or result.compiler is None:
        raise ValueError("the catalog needs a clean compile with its checked AST (compile_pack(ref, cache=False))")
    pack: CompiledPack = result.pack
    refs = {lang: build_reference(result, lang) for lang in LANGS}
    entries = {lang: {e.id: e for e in ref.cards} for lang, ref in refs.items()}
    sources = ability_sources(result)
    vocabulary = (set(pack.resources) | set(pack.counters) | set(pack.zones) | set(pack.pieces) | set(pack.flags)
                  | set(pack.stats))
    types = set(pack.card_types)
    readings: dict[str, list[behaviour.Behaviour]] = {}
    cards = []
    for pos, c in enumerate(pack.cards):
        rec, reads = _card(result, c, {lang: entries[lang][c.id] for lang in LANGS}, sources.get(c.id, {}), types,
                           vocabulary)
        rec.position = pos
        readings[c.id] = reads
        cards.append(rec)
    _link_references(cards, readings)
    roots = [Path(src.folder).resolve().parent for src in result.sources]
    for rec in cards:
        rec.where = _relative(rec.where, roots)
        for a in rec.abilities:
            a.where = _relative(a.where, roots)
    chain = [{"id": s.id, "name": s.name, "version": s.version} for s in result.sources]
    name = {lang: ref.pack_name for lang, ref in refs.items()}
    macros = sorted({sig for name, ms in result.compiler.macros.items() if not name.startswith("__")
                     for sig in (name, *(m.signature for m in ms))})
    return Catalog(pack, result, name, chain, cards, refs, macros)


def _card(result, c: CardDef, entries: dict[str, CardEntry], sources: dict, types: set[str], vocabulary: set[str]):
    pack = result.pack
    asts = result.asts
    en = entries[LANGS[0]]
    abilities = []
    reads = []
    for i, ab in enumerate(en.abilities):
        timing = ab.icon.timing
        body = asts.get(f"{c.id} {timing}", ())
        reading = behaviour.read(body, types, vocabulary)
        reads.append(reading)
        src = sources.get(timing)
        codes = [code for code in (c.abilities.get(timing), c.conditions.get(timing), c.checks.get(timing)) if code]
        if any(isinstance(n, behaviour.A.Trigger) for n in behaviour.walk(body)):
            codes += [t.code for t in c.triggers]
        abilities.append(AbilityRecord(
            timing=timing, kind=ab.icon.kind if timing != REQUIRES else REQUIRES,
            label={lang: entries[lang].abilities[i].icon.label for lang in entries},
            source=src.text if src else "", where=src.where if src else "",
            text={lang: entries[lang].abilities[i].text for lang in entries},
            macros=sorted(reading.macros), names=sorted(reading.names),
            opcodes=sorted({ins[0] for code in codes for ins in code.ops}),
            effects={v: sorted(n) for v, n in sorted(reading.effects.items())}, targets=sorted(reading.targets)))
    trait_labels = {}
    for lang, e in entries.items():
        flat = [v for vals in c.traits.values() for v in vals]
        trait_labels[lang] = dict(zip(flat, e.traits, strict=False)) if len(flat) == len(e.traits) else {}
    span = pack.span(c.span)
    feats = card_features(result, c)
    rec = CardRecord(
        id=c.id, name=c.name, names={lang: e.name for lang, e in entries.items()}, type=c.type or "",
        type_label={lang: e.type for lang, e in entries.items()}, pack=c.pack, number=c.number, copies=c.copies,
        original=c.original, back=c.back, is_back=c.is_back, traits={k: list(v) for k, v in c.traits.items()},
        trait_labels=trait_labels, stats=dict(c.stats), where=f"{span.file}:{span.line}", abilities=abilities,
        triggers=feats.get("trigger", []), constructs=feats.get("construct", []))
    return rec, reads


def _relative(where: str, roots: list[Path]) -> str:
    """file:line with the file relative to the folder holding its pack ('earth/flora.yaml:12'): the same
    for a pack in a checkout, an installed pack or one read from a git revision."""
    if not where:
        return where
    file, _, line = where.rpartition(":")
    path = Path(file).resolve()
    for root in roots:
        if path.is_relative_to(root):
            return f"{path.relative_to(root).as_posix()}:{line}"
    return where


def _link_references(cards: list[CardRecord], readings: dict[str, list[behaviour.Behaviour]]) -> None:
    """Card A refers to card B when a query of A's abilities has filters B passes (`card in tableau with
    tag plant` refers to every plant card). Queries without a type or trait filter refer to no card."""
    selectors: list[tuple[CardRecord, tuple]] = []
    for c in cards:
        seen = set()
        for reading in readings[c.id]:
            for sel in reading.selectors:
                if sel not in seen:
                    seen.add(sel)
                    selectors.append((c, sel))
    for target in cards:
        for source, sel in selectors:
            if source.id != target.id and behaviour.selects(sel, target.type, target.traits):
                via = behaviour.describe_selector(sel)
                if (target.id, via) not in source.refers_to:
                    source.refers_to.append((target.id, via))
                if (source.id, via) not in target.referenced_by:
                    target.referenced_by.append((source.id, via))
