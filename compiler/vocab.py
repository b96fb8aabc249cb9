"""The vocabulary a pack's rules.yaml declares, merged along the `extends` chain.

The grammar knows no game word; this is where resources, zones, traits, timings and
the rest come from. Later packs add entries and may replace earlier ones by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Diagnostics, Span, did_you_mean
from .yamlsrc import YamlDoc

# Names the compiler gives meaning to; a pack cannot declare them.
RESERVED = {"x", "it", "this", "you", "requires", "player-count", "total-score"}
# Card attributes the language gives itself ("row of it"): not available as stat, piece or timing names.
CARD_ATTRIBUTES = {"row", "column", "position"}


@dataclass
class Entry:
    name: str
    value: Any
    doc: YamlDoc
    path: tuple

    @property
    def span(self) -> Span:
        return self.doc.span(self.path)

    @property
    def key_span(self) -> Span:
        return self.doc.key_span(self.path)


_SECTIONS = ("resources", "counters", "params", "zones", "card-types", "traits", "stats", "pieces",
             "timings", "macros", "expressions", "filters")


@dataclass
class Vocabulary:
    sections: dict[str, dict[str, Entry]] = field(default_factory=lambda: {s: {} for s in _SECTIONS})
    flags: dict[str, Entry] = field(default_factory=dict)
    player_flags: dict[str, Entry] = field(default_factory=dict)  # yes/no marks on players (passed, out, ...)
    events: dict[str, Entry] = field(default_factory=dict)  # the pack's own events ('emit NAME', 'when you NAME')
    players: tuple[int, int] = (1, 8)
    players_entry: Entry | None = None
    activation: Entry | None = None
    statistics: Entry | None = None
    setup: Entry | None = None
    game: Entry | None = None
    scoring: dict[str, Entry] = field(default_factory=dict)
    tiebreakers: list[Entry] = field(default_factory=list)
    ranking: list[Entry] = field(default_factory=list)  # empty: total score, then the tiebreakers
    automa: dict[str, Entry] = field(default_factory=dict)  # seats that are not decision-makers, in order
    windows: dict[str, list[Entry]] = field(default_factory=dict)  # window -> its options, base packs' first
    claims: list[Entry] = field(default_factory=list)  # rules-level 'as soon as' programs
    names: dict[str, Any] = field(default_factory=dict)
    glossary: dict[str, dict[str, str]] = field(default_factory=dict)  # term -> {en, ja, ...}, for describe
    payments: list[Entry] = field(default_factory=list)  # 'pay CURRENCY with SOURCE ...' sentences, every pack's
    may_fall_short: list[Entry] = field(default_factory=list)  # effects that may be done in part (mandatory effects)
    currencies: dict[str, Entry] = field(default_factory=dict)  # every currency a payment source pays, first naming
    trait_values: dict[str, list[str]] = field(default_factory=dict)  # value -> traits that have it

    # convenient views
    @property
    def resources(self) -> dict[str, Entry]:
        return self.sections["resources"]

    @property
    def counters(self) -> dict[str, Entry]:
        return self.sections["counters"]

    @property
    def params(self) -> dict[str, Entry]:
        return self.sections["params"]

    @property
    def zones(self) -> dict[str, Entry]:
        return self.sections["zones"]

    @property
    def card_types(self) -> dict[str, Entry]:
        return self.sections["card-types"]

    @property
    def traits(self) -> dict[str, Entry]:
        return self.sections["traits"]

    @property
    def stats(self) -> dict[str, Entry]:
        return self.sections["stats"]

    @property
    def pieces(self) -> dict[str, Entry]:
        return self.sections["pieces"]

    @property
    def timings(self) -> dict[str, Entry]:
        return self.sections["timings"]

    @property
    def macros(self) -> dict[str, Entry]:
        return self.sections["macros"]

    @property
    def expressions(self) -> dict[str, Entry]:
        """Expression macros: a name that stands for an expression wherever a value goes."""
        return self.sections["expressions"]

    @property
    def filters(self) -> dict[str, Entry]:
        """Filter macros: a name that stands for filters joined by 'and', after 'with'."""
        return self.sections["filters"]

    def during_play(self) -> list[str]:
        """The scoring steps that take points during play, in order."""
        return [sid for sid, e in self.scoring.items() if e.value.get("during-play")]

    def zone(self, name: str) -> dict:
        return self.zones[name].value

    def all_names(self) -> set[str]:
        out: set[str] = set()
        for sec in self.sections.values():
            out |= set(sec)
        return out | set(self.flags) | set(self.player_flags)


def build_vocabulary(docs: list[YamlDoc], diags: Diagnostics) -> Vocabulary:
    """Merge rules documents, base first. Each later entry replaces an earlier one of the same name."""
    voc = Vocabulary()
    for doc in docs:
        v = doc.value or {}
        for sec in _SECTIONS:
            for name, val in (v.get(sec) or {}).items():
                if name in RESERVED or (name in CARD_ATTRIBUTES and sec in ("stats", "pieces", "timings")):
                    diags.error("E107", f"'{name}' is a reserved word and cannot be declared in {sec}",
                                doc.key_span((sec, name)))
                    continue
                voc.sections[sec][name] = Entry(name, val, doc, (sec, name))
        for i, flag in enumerate(v.get("flags") or []):
            voc.flags[flag] = Entry(flag, True, doc, ("flags", i))
        for i, event in enumerate(v.get("events") or []):  # an extending pack adds events to its base's
            voc.events[event] = Entry(event, True, doc, ("events", i))
        for i, flag in enumerate(v.get("player-flags") or []):
            if flag in RESERVED:
                diags.error("E107", f"'{flag}' is a reserved word and cannot be declared in player-flags",
                            doc.span(("player-flags", i)))
                continue
            voc.player_flags[flag] = Entry(flag, True, doc, ("player-flags", i))
        if "players" in v:
            voc.players = (v["players"]["min"], v["players"]["max"])
            voc.players_entry = Entry("players", v["players"], doc, ("players",))
            if voc.players[1] < voc.players[0]:  # no game could be played: say so now, not in simulate
                diags.error("E013", f"players: max {voc.players[1]} is below min {voc.players[0]}",
                            doc.span(("players", "max")))
        for key in ("activation", "setup", "game", "statistics"):
            if key in v:
                setattr(voc, key, Entry(key, v[key], doc, (key,)))
        for i, step in enumerate(v.get("scoring") or []):
            voc.scoring[step["id"]] = Entry(step["id"], step, doc, ("scoring", i))
        if "tiebreakers" in v:
            voc.tiebreakers = [Entry(f"tiebreaker-{i}", t, doc, ("tiebreakers", i))
                               for i, t in enumerate(v["tiebreakers"])]
        if "ranking" in v:
            voc.ranking = [Entry(f"ranking-{i}", r, doc, ("ranking", i)) for i, r in enumerate(v["ranking"])]
        for name, val in (v.get("automa") or {}).items():
            voc.automa[name] = Entry(name, val or {}, doc, ("automa", name))
        for name, val in (v.get("windows") or {}).items():  # an extending pack adds options to a window
            voc.windows.setdefault(name, []).extend(
                Entry(name, text, doc, ("windows", name, "options", i)) for i, text in enumerate(val["options"]))
        voc.claims.extend(Entry(f"as-soon-as-{i}", text, doc, ("as-soon-as", i))
                          for i, text in enumerate(v.get("as-soon-as") or []))
        if "names" in v:
            voc.names.update(v["names"])
        # an extending pack adds payment sources and exceptions to its base's
        voc.payments += [Entry(f"payment-{i}", t, doc, ("payments", i)) for i, t in enumerate(v.get("payments") or [])]
        voc.may_fall_short += [Entry(f"may-fall-short-{i}", t, doc, ("may-fall-short", i))
                               for i, t in enumerate(v.get("may-fall-short") or [])]
        for term, forms in (v.get("glossary") or {}).items():
            voc.glossary[term] = {**voc.glossary.get(term, {}), **forms}
    _check_collisions(voc, diags)
    for tname, entry in voc.traits.items():
        for value in entry.value:
            voc.trait_values.setdefault(value, []).append(tname)
    return voc


def _check_collisions(voc: Vocabulary, diags: Diagnostics) -> None:
    # A bare name in an expression must mean one thing: a counter, a global counter or a param.
    seen: dict[str, tuple[str, Entry]] = {}
    bare = [(sec, voc.sections[sec]) for sec in ("resources", "counters", "params")]
    # a player flag and an expression macro are bare names in expressions too
    for sec, table in (*bare, ("player-flags", voc.player_flags), ("expressions", voc.expressions)):
        for name, entry in table.items():
            if name in seen:
                other_sec, other = seen[name]
                span = entry.key_span if sec != "player-flags" else entry.span
                other_span = other.key_span if other_sec != "player-flags" else other.span
                diags.error("E108", f"'{name}' is declared both in {other_sec} and in {sec}", span,
                            notes=((f"the {other_sec} entry", other_span),))
            seen[name] = (sec, entry)
    # a filter macro is a word after 'with', as card types, flags, pieces and trait values are
    after_with = {**{n: "card-types" for n in voc.card_types}, **{n: "flags" for n in voc.flags},
                  **{n: "pieces" for n in voc.pieces},
                  **{v: "traits" for e in voc.traits.values() for v in (e.value or [])}}
    for name, entry in voc.filters.items():
        if name in after_with:
            diags.error("E108", f"'{name}' is declared both in {after_with[name]} and in filters", entry.key_span,
                        hint="a word after 'with' must mean one thing: call the filter macro something else")
    for tname, entry in voc.timings.items():
        for i, m in enumerate(entry.value.get("matches", [])):
            if m not in voc.timings:
                diags.error("E101", f"timing '{tname}' matches unknown timing '{m}'",
                            entry.doc.span((*entry.path, "matches", i)))
        for i, t in enumerate(entry.value.get("types", [])):
            if t not in voc.card_types:
                diags.error("E101", f"timing '{tname}' names unknown card type '{t}'",
                            entry.doc.span((*entry.path, "types", i)))
    for zname, entry in voc.zones.items():
        z = entry.value
        if z["kind"] == "grid" and not ("width" in z and "height" in z):
            diags.error("E109", f"grid zone '{zname}' needs a width and a height", entry.span)
        if z.get("grows") and z["kind"] != "grid":
            diags.error("E109", f"zone '{zname}' is a {z['kind']}: only a grid grows", entry.span)
        if z["kind"] == "hex" and not z.get("rows"):
            diags.error("E109", f"hex zone '{zname}' needs its rows (cells per row)", entry.span)
    for ctype, entry in voc.card_types.items():
        start = entry.value.get("start")
        if start and start not in voc.zones:
            diags.error("E101", f"card type '{ctype}' starts in unknown zone '{start}'",
                        entry.doc.span((*entry.path, "start")))
        elif start and voc.zones[start].value.get("owner", "player") != "shared":
            diags.error("E109", f"card type '{ctype}' starts in '{start}', a zone each player has: cards start "
                        "in a shared zone and the setup program deals them", entry.doc.span((*entry.path, "start")))
        back = entry.value.get("back")
        if back is not None and back not in voc.stats and back not in voc.traits:
            diags.error("E101", f"card type '{ctype}' shows '{back}' on its back, which is neither a stat nor a trait",
                        entry.doc.span((*entry.path, "back")), hint=did_you_mean(back, [*voc.stats, *voc.traits]))
    if voc.statistics is not None:
        stats = voc.statistics
        length = stats.value.get("length")
        if length is not None and length not in voc.counters:
            diags.error("E101", f"statistics: the game length is measured by '{length}', which is not a shared "
                        "counter", stats.doc.span((*stats.path, "length")),
                        hint=did_you_mean(length, voc.counters))
        for i, t in enumerate(stats.value.get("played-types", [])):
            if t not in voc.card_types:
                diags.error("E101", f"statistics: unknown card type '{t}'",
                            stats.doc.span((*stats.path, "played-types", i)), hint=did_you_mean(t, voc.card_types))
        for name in stats.value.get("worth", {}):
            if name not in voc.resources and not (name in voc.zones
                                                  and voc.zones[name].value.get("owner", "player") != "shared"):
                diags.error("E101", f"statistics.worth: '{name}' is neither a player's counter nor a zone each player "
                            "has", stats.doc.span((*stats.path, "worth", name)),
                            hint=did_you_mean(name, [*voc.resources, *voc.zones]))
    for pname, entry in voc.pieces.items():
        cap = entry.value.get("capacity")
        if cap and cap not in voc.stats:
            diags.error("E101", f"piece '{pname}' has its capacity in unknown stat '{cap}'",
                        entry.doc.span((*entry.path, "capacity")))
