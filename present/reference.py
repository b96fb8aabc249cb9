"""The rule reference and card catalogue of a pack, as plain data for the renderers.

`build_reference(result, lang)` reads the compiled pack, its vocabulary and the checked ASTs
(through `describe.Describer`) and returns a `Reference`: sections of blocks (paragraphs, step
lists, tables, the activation-order drawing) and the catalogue of cards. `render.py` turns it
into Markdown, HTML (Jinja2 templates), PDF and reStructuredText; nothing here formats.

Where the sections come from:

- components: players, card types (with how many cards of each), resources, zones, pieces,
  traits, stats and rule parameters, from rules.yaml;
- setup and game flow: the `setup` and `game` programs, with the macros they call opened one
  level deeper as sub-steps;
- actions: every `choose one` whose options are all macro calls is a choice of actions; each
  action's body is split into the active player's part, the other players' part, everybody's
  part and the rest;
- activation order: the `activation:` block of rules.yaml, drawn as cells in the order they run;
- conversions: macros that are, under any loops, a cost followed by a reward;
- end of game: the condition that stops the game loop and every macro that makes it true;
- scoring steps, tie-breakers, and every other macro as a game word.
"""

from __future__ import annotations

import colorsys
import dataclasses
import functools
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from cardsmith.compiler import ast as A
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.expand import ACTIVATION, Expander

from . import icons as I
from .describe import LANGUAGES, Describer
from .lexicon import SOURCE_LANG, Lexicon
from .program_shape import (
    _HEADED,
    _body,
    _does_nothing,
    _flatten,
    _is_conversion,
    _macro_groups,
    _single_macro,
    _walk,
)
from .text_ir import Word

TIMING_PLACEHOLDER = "T"  # the timing an activation order is read for, in the reference
SHORT_TITLE = 60  # a game word with no phrase in the language is titled by its text up to this width
LONG_STEP = 200  # a step of setup or the game flow longer than this (CJK counting double) is split into its parts

# ------------------------------------------------------------------------- timing icons

# The colour of the icon of a 'requires' line (a card's play requirement, not a timing).
REQUIRES_COLOUR = "#666666"


def timing_colours(name: str, timings: dict[str, dict]) -> list[str]:
    """The colours of a timing's icon: its declared `colour`, else the colours of the timings it
    `matches` (Earth's multicolour), else a stable colour derived from its name."""
    timing = timings.get(name) or {}
    if timing.get("colour"):
        return [timing["colour"]]
    matched = [(timings.get(m) or {}).get("colour") for m in timing.get("matches", [])]
    if any(matched):
        return [c for c in matched if c]
    h = int(hashlib.sha1(name.encode()).hexdigest()[:4], 16) / 0xFFFF
    r, g, b = colorsys.hls_to_rgb(h, 0.42, 0.55)
    return [f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"]


def stat_colour(name: str, stat: dict) -> str:
    """The fill of a stat's badge: its declared `colour`, else a light tint stable for its name (the number
    is printed dark on it)."""
    if stat.get("colour"):
        return stat["colour"]
    h = int(hashlib.sha1(name.encode()).hexdigest()[:4], 16) / 0xFFFF
    r, g, b = colorsys.hls_to_rgb(h, 0.84, 0.5)
    return f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"


def timing_mark(timing: dict, label: str) -> str:
    """The mark printed in a timing's icon: its declared `icon`, else its label's first letter."""
    return timing.get("icon") or label[:1].upper()


# ------------------------------------------------------------------------- the model


@dataclass
class Step:
    text: str
    children: list[Step] = field(default_factory=list)


@dataclass
class Block:
    kind: str  # p | steps | table | defs | parts | activation | timings | procedure (text: its title)
    text: str = ""
    ordered: bool = False
    steps: list[Step] = field(default_factory=list)
    head: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    items: list[tuple[str, str]] = field(default_factory=list)  # defs and parts: (label, text)
    data: dict[str, Any] = field(default_factory=dict)


def _table(head: list[str], rows: list[list[str]]) -> Block:
    """A table without the columns that are empty in every row."""
    keep = [i for i in range(len(head)) if any(i < len(r) and r[i] for r in rows)]
    return Block("table", head=[head[i] for i in keep], rows=[[r[i] if i < len(r) else "" for i in keep] for r in rows])


@dataclass
class Section:
    id: str
    title: str
    blocks: list[Block] = field(default_factory=list)
    subsections: list[Section] = field(default_factory=list)


@dataclass
class TimingIcon:
    timing: str
    label: str
    kind: str
    colours: list[str]
    letter: str
    shape: str = "circle"  # one of icons.SHAPES, different for each timing of a pack

    @property
    def style(self) -> str:
        return I.icon_style(self.shape, self.colours)


@dataclass
class StatBadge:
    """A card number printed as an icon: the number in its shape, or (`pips`) that many empty spaces."""
    stat: str
    label: str
    value: Any
    shape: str
    colour: str
    pips: bool = False

    @property
    def style(self) -> str:
        return I.icon_style(self.shape, [self.colour])

    @property
    def pip_style(self) -> str:
        return I.pip_style(self.shape, self.colour)

    @property
    def count(self) -> int:
        """How many spaces to draw (pips), at most 12; a larger or negative value prints as a number."""
        return self.value if self.pips and isinstance(self.value, int) and 0 <= self.value <= 12 else 0


@dataclass
class CardAbility:
    icon: TimingIcon
    text: str


@dataclass
class CardEntry:
    id: str
    anchor: str
    name: str
    alt_name: str  # the name in the other language, when it differs
    type: str
    type_id: str
    number: str | None
    copies: int
    traits: list[str]
    stats: list[tuple[str, Any]]
    cost: Any
    abilities: list[CardAbility]
    back_id: str | None
    back_name: str | None
    back_anchor: str | None
    is_back: bool
    pack: str
    original: bool
    text_length: int = 0
    badges: list[StatBadge] = field(default_factory=list)  # the card's numbers as icons (cost aside)
    board: bool = False  # its type is part of a board (card-types: board), not a card a player holds


@dataclass
class Reference:
    pack_id: str
    pack_name: str
    version: str
    lang: str
    labels: dict[str, str]
    sections: list[Section]
    cards: list[CardEntry]
    card_groups: list[tuple[str, list[CardEntry]]]
    index: list[CardEntry]
    timings: list[TimingIcon]
    group_counts: dict[str, str] = field(default_factory=dict)  # catalogue group title: how many cards, said

    @property
    def title(self) -> str:
        return f"{self.pack_name} — {self.labels['reference']}"


# ------------------------------------------------------------------------- building


class _Builder:
    def __init__(self, result, lang: str) -> None:
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language '{lang}'")
        self.result = result
        self.pack = result.pack
        self.voc = result.compiler.voc
        self.lang = lang
        self.card_d = Describer(result, lang, mode="card")
        self.d = Describer(result, lang, mode="rules")
        self.lex = self.d.lex
        self.words = self.d.realiser  # the language: sentences, headings, labels
        self.L = self.words.labels
        # the statement macros (an expression or filter macro names a value, not a step of the rules)
        self.macros = {m.signature: m for ms in result.compiler.macros.values() for m in ms
                       if isinstance(m.body, A.Program)}
        self.expander = Expander(result.compiler.macros, Diagnostics())
        self.actions: list[str] = []
        self.card_actions: list[tuple[A.Query, str]] = []  # 'choose a card in Z: activate a T ability of it'
        self.shown: set[str] = set()
        self.untitled = 0  # game words titled by number (no phrase in this language, a long body)

    def t(self, name: str, sec: str | None = None) -> str:
        return self.lex.term(name, sec=sec)

    def sentence(self, text: str) -> str:
        return self.words.sentence(text)

    def series(self, words) -> str:
        return self.L["sep_list"].join(words)

    # programs
    def program(self, body) -> str:
        return self.d.program(body)

    def macro_body(self, sig: str):
        m = self.macros.get(sig)
        return self.expander.program(m.body).body if m is not None else ()

    def procedure(self, body) -> list[Step]:
        """A program as numbered steps. A program that is a single call of a macro (setup: 'prepare the game')
        is that macro's steps, not one step that says its name."""
        flat = self.flat(body)
        if len(flat) == 1 and isinstance(flat[0], A.Group) and flat[0].macro and flat[0].macro not in self.actions:
            self.shown.add(flat[0].macro)
            return self.steps(flat[0].body)
        return self.steps(body)

    def flat(self, body) -> list:
        """The statements of a body as steps: groups opened, and so are calls of macros that have no phrase
        (their text would be their body's anyway: one step per statement reads better than one paragraph)."""
        out = []
        for s in body:
            if isinstance(s, A.Group) and (s.macro is None or not self.d.uses_phrase(s)):
                if s.macro is not None:
                    self.shown.add(s.macro)  # spelled out here: not again among the game words
                out.extend(self.flat(s.body))
            else:
                out.append(s)
        return out

    def steps(self, body, depth: int = 0, skip: set[str] | frozenset = frozenset()) -> list[Step]:
        out = []
        for s in self.flat(body):
            if _does_nothing(s):
                continue  # a hook an expansion left empty (Corporate Era's starting production): no step
            text = self.program((s,))
            if depth < 8 and _width(text) > LONG_STEP:
                split = self.split(s, depth, skip)
                if split:
                    out.extend(split)
                    continue
            step = Step(text)
            if depth < 3:
                for g in self.phrased_groups(s):
                    if g.macro in skip or g.macro in self.actions or g.macro in self.shown:
                        continue  # a macro opens once: where it is next called, its phrase says enough
                    self.shown.add(g.macro)  # its text was the phrase: open the body as sub-steps
                    step.children.extend(self.steps(g.body, depth + 1, skip))
            if step.text or step.children:  # a statement about what players never see says nothing: no step
                out.append(step)
        return out

    def split(self, s, depth: int, skip) -> list[Step]:
        """A long statement as a header and steps ('Each player: A, B, C, ...' as a paragraph is hard to follow):
        'Each player:' then A, B, C; 'If X:' then its steps and 'Otherwise:' then the others; 'Choose one:' then
        each option. Nothing when the statement has no parts to show apart."""
        if isinstance(s, A.If) and s.otherwise:
            then = self.split(dataclasses.replace(s, otherwise=()), depth, skip) or \
                [Step(self.program((dataclasses.replace(s, otherwise=()),)))]
            return [*then, Step(self.otherwise_header(), self.steps(s.otherwise, depth + 1, skip))]
        if isinstance(s, A.ChooseOne):
            opts = []
            for o in s.options:
                inner = self.steps(o, depth + 1, skip)
                opts.extend(inner if len(inner) == 1 else [Step(self.program(o))])
            return [Step(self.choice_header(), opts)]
        if self.splittable(s):
            return [Step(self.header(s), self.steps(_body(s), depth + 1, skip))]
        return []

    def otherwise_header(self) -> str:
        """'Otherwise:', in the words the language's 'if ... otherwise ...' sentence uses."""
        t = self.words.template("if.else")
        word = t[t.index("{then}") + len("{then}"):t.index("{otherwise}")].strip(" .,;:、。：")
        return self.words.labelled(self.words.title(word), "").rstrip()

    def choice_header(self) -> str:
        """'Choose one:', from the language's 'choose one' sentence."""
        t = self.words.template("choose-one")
        return self.words.title(t[:t.index("{")].rstrip())

    def splittable(self, stmt) -> bool:
        """A statement with parts to show apart: a header and a body of several steps, or of one such statement
        in turn ('each player in turn order: 2 times: A, B'); an 'if' with an 'otherwise'; a choice."""
        if isinstance(stmt, A.ChooseOne) or (isinstance(stmt, A.If) and stmt.otherwise):
            return True
        if not isinstance(stmt, _HEADED):
            return False
        flat = self.flat(_body(stmt))
        return len(flat) > 1 or (len(flat) == 1 and self.splittable(flat[0]))

    def header(self, stmt) -> str:
        """What a statement says before its body ('Each player:', 'For each land card in the Mars map:')."""
        empty = dataclasses.replace(stmt, then=()) if isinstance(stmt, A.If) else dataclasses.replace(stmt, body=())
        text = self.program((empty,)).rstrip(" .,:;、。：")
        then = str(self.words.data.get("then", "")).strip(" ,")  # 'Choose a card ..., then' says its steps next
        if then and text.endswith(" " + then):
            text = text[:-len(then)].rstrip(" ,")
        return self.words.labelled(text, "").rstrip()

    def phrased_groups(self, stmt) -> list[A.Group]:
        """Macro calls a statement's text names by their phrase; calls without one were described
        from their bodies, so look inside them."""
        out = []
        for g in _macro_groups(stmt):
            if self.d.uses_phrase(g):
                out.append(g)
            else:
                out.extend(x for s in g.body for x in self.phrased_groups(s))
        return out

    # sections
    def build(self) -> Reference:
        asts = self.result.asts
        game = asts.get("game", ())
        setup = asts.get("setup", ())
        self.find_actions([setup, game])
        sections = [self.components()]
        if setup:
            sections.append(Section("setup", self.L["setup"],
                                    [Block("steps", ordered=True, steps=self.procedure(setup))]))
        if game:
            sections.append(Section("flow", self.L["flow"], [Block("steps", ordered=True, steps=self.procedure(game))]))
        sections.append(self.actions_section())
        if self.pack.activation:
            sections.append(self.activation_section())
        sections.append(self.timings_section())
        conv = self.conversions_section()
        if conv.blocks:
            sections.append(conv)
        sections.append(self.end_section(game))
        sections.append(self.scoring_section())
        if self.pack.tiebreakers:
            sections.append(self.tiebreak_section())
        sections.append(self.words_section())
        auto = self.automatic_section()
        if auto.blocks:
            sections.append(auto)
        cards = self.catalogue()
        groups = []
        for ctype in self.voc.card_types:
            members = [c for c in cards if c.type_id == ctype]
            if members:
                groups.append((self.t(ctype, "card-types"), members))
        counts = {title: self.group_count(members) for title, members in groups}
        index = sorted(cards, key=lambda c: c.name.casefold())
        for sec in sections:
            _fill_placeholders(sec, self.lex)
        return Reference(self.pack.id, self.pack_name(), self.pack.version, self.lang, self.L, sections, cards,
                         groups, index, self.timing_icons(), counts)

    def group_count(self, members: list[CardEntry]) -> str:
        """'92 different cards, 140 in all' (copies counted); 'both sides of each listed' for two-sided cards."""
        fronts = [c for c in members if not c.is_back]
        distinct, total = len(fronts), sum(c.copies for c in fronts)
        if all(c.board for c in members):  # parts of a board: how many, not 'cards'
            return str(total)
        text = (self.L["group_count_same"] if distinct == total else self.L["group_count"]).format(
            distinct=distinct, total=total)
        if len(fronts) < len(members):
            text += self.L["sep_also"] + self.L["both_sides"]
        return text

    def pack_name(self) -> str:
        top = self.result.sources[-1] if self.result.sources else None
        names = ((top.pack_doc.value or {}).get("names") or {}) if top is not None else {}
        return names.get(self.lang) or self.pack.name

    def components(self) -> Section:
        L = self.L
        lo, hi = self.pack.players
        blocks = [Block("p", text=f"{L['players']}: " + (L["players_n"] if lo != hi else L["players_1"]).format(
            lo=lo, hi=hi))]
        rows = []
        for ct, v in self.pack.card_types.items():
            members = [c for c in self.pack.cards if c.type == ct and not c.is_back]
            rows.append([self.t(ct, "card-types"), str(len(members)), str(sum(c.copies for c in members)),
                         self.t(v["start"], "zones") if (v or {}).get("start") else L["none"]])
        # two counts, each named: how many different cards, and how many with their copies
        sub = [Section("card-types", L["card_types"], [_table(head=[L["type"], L["distinct"], L["total"],
                                                                     L["starts_in"]], rows=rows)])]
        # players see these (a player flag is kept as a counter, but is a mark, not a resource)
        shown = {n: v for n, v in self.pack.resources.items() if not v.get("internal") and not v.get("flag")}
        if shown:
            rows = [[self.t(n, "resources"), str(v.get("start", 0)), self.describe_entry(v)]
                    for n, v in shown.items()]
            sub.append(Section("resources", L["resources"],
                               [_table(head=[L["name"], L["start"], ""], rows=rows)]))
        shown = {n: v for n, v in self.pack.counters.items() if not v.get("internal")}
        if shown:
            rows = [[self.t(n, "counters"), str(v.get("start", 0)), self.describe_entry(v)]
                    for n, v in shown.items()]
            sub.append(Section("counters", L["counters"],
                               [_table(head=[L["name"], L["start"], ""], rows=rows)]))
        rows = []
        for n, z in self.pack.zones.items():
            kind = L.get(z.get("kind", ""), z.get("kind", ""))
            if z.get("kind") in ("grid", "hex") and "width" in z:
                kind = f"{kind} {z['width']}×{z['height']}"
            rows.append([self.t(n, "zones"), L["per_player"] if z.get("owner") == "player" else L["shared"], kind])
        sub.append(Section("zones", L["zones"], [_table(head=[L["name"], L["owner"], L["kind"]], rows=rows)]))
        if self.pack.pieces:
            rows = [[self.lex.piece(n), self.describe_entry(v)] for n, v in self.pack.pieces.items()]
            sub.append(Section("pieces", L["pieces"], [_table(head=[L["name"], ""], rows=rows)]))
        if self.pack.traits:
            rows = [[self.t(n), self.series(self.t(v, f"trait:{n}") for v in vals)]
                    for n, vals in self.pack.traits.items()]
            sub.append(Section("traits", L["traits"], [_table(head=[L["name"], L["values"]], rows=rows)]))
        if self.pack.stats:
            rows = [[self.lex.stat(n), self.describe_entry(self.voc.stats[n].value or {})] for n in self.pack.stats]
            sub.append(Section("stats", L["stats"], [_table(head=[L["name"], ""], rows=rows)]))
        if self.pack.params:
            rows = [[self.t(n, "params"), ", ".join(map(str, v)) if isinstance(v, list) else str(v)]
                    for n, v in self.pack.params.items()]
            sub.append(Section("params", L["params"], [_table(head=[L["name"], L["value"]], rows=rows)]))
        return Section("components", L["components"], blocks, sub)

    def describe_entry(self, value: dict) -> str:
        """An entry's description: written in English in rules.yaml, so shown only in English."""
        if self.lang == SOURCE_LANG and isinstance(value, dict):
            return _CITATION.sub("", str(value.get("description", ""))).strip()
        return ""

    def find_actions(self, roots) -> None:
        """Macros offered side by side in a 'choose one' are the game's actions."""
        seen: set[str] = set()
        todo = list(roots)
        while todo:  # breadth first: the outermost choice wins; an action's own choices are not actions
            node = todo.pop(0)
            for n in _walk(node, into_macros=False):
                if isinstance(n, A.ChooseCard):
                    for inner in _walk(n.body):
                        if isinstance(inner, A.ActivateCopy) and isinstance(inner.target, A.It):
                            zones = tuple(z.name for z in n.query.zones)
                            if all((tuple(z.name for z in q.zones), t) != (zones, inner.timing)
                                   for q, t in self.card_actions):
                                self.card_actions.append((n.query, inner.timing))
                if isinstance(n, A.ChooseOne):
                    opts = [_single_macro(o) for o in n.options]
                    if len(opts) >= 2 and all(opts):
                        for g in opts:
                            if g.macro not in self.actions:
                                self.actions.append(g.macro)
                if isinstance(n, A.Group) and n.macro and n.macro not in seen:
                    seen.add(n.macro)
                    if n.macro not in self.actions:
                        todo.append(n.body)
        if self.card_actions_found():
            self.actions = []  # the actions are cards; a choice between macros is a detail of one of them

    def actions_section(self) -> Section:
        L = self.L
        sec = Section("actions", L["actions"])
        self.card_action_sections(sec)
        if not self.actions:
            if not sec.subsections:
                sec.blocks.append(Block("p", text=L["no_actions"]))
            return sec
        sec.blocks.append(Block("p", text=L["turn_choice"]))
        for sig in self.actions:
            self.shown.add(sig)
            body = self.macro_body(sig)
            parts: list[tuple[str, str]] = []
            for s in _flatten(body):
                if isinstance(s, A.Nothing):
                    continue  # an action that does nothing but end a choice ('stop calling') has no parts
                label = L["then"]
                inner = (s,)
                if isinstance(s, A.Scoped):
                    p = s.players
                    if p.kind == "ref" and p.ref is not None and p.ref.kind == "active":
                        label, inner = L["active"], s.body
                    elif p.kind in ("each_other", "opponents"):
                        label, inner = L["others"], s.body
                    elif p.kind in ("each", "turns") and p.start is None:
                        label, inner = L["all_players"], s.body
                text = self.program(inner)
                if parts and parts[-1][0] == label:
                    parts[-1] = (label, parts[-1][1] + " " + text)
                else:
                    parts.append((label, text))
            title = self.action_title(sig)
            sec.subsections.append(Section("action-" + _slug(sig), title, [Block("parts", items=parts)]))
        return sec

    def card_action_cards(self, query: A.Query, timing: str) -> list:
        zones = {z.name for z in query.zones}
        starts = {t for t, v in self.pack.card_types.items() if (v or {}).get("start") in zones}
        asts = self.result.asts
        return [c for c in self.pack.cards if not c.is_back and c.type in starts and f"{c.id} {timing}" in asts]

    def card_actions_found(self) -> bool:
        return any(self.card_action_cards(q, t) for q, t in self.card_actions)

    def card_action_sections(self, sec: Section) -> None:
        """Actions that are cards: 'choose a card in ZONE: activate a TIMING ability of it'."""
        for query, timing in self.card_actions:
            cards = self.card_action_cards(query, timing)
            if not cards:
                continue
            sec.blocks.append(Block("p", text=self.sentence(self.d.statement(
                A.ChooseCard(query, (A.ActivateCopy(timing, A.It()),))))))
            for c in cards:
                parts = []
                for t, kind in ((t, self.lex.timing_kind(t)) for t in self.voc.timings):
                    if f"{c.id} {t}" in self.result.asts and (kind == "condition" or t == timing):
                        parts.append((self.t(t, "timings"), self.card_d.code(f"{c.id} {t}")))
                sec.subsections.append(Section(f"action-{_slug(c.id)}", self.lex.card_name(c),
                                               [Block("parts", items=parts)]))

    def action_title(self, sig: str) -> str:
        return self.word_title(sig, untitled="untitled_action")

    def activation_section(self) -> Section:
        """The activation order as the pack's `activation.order` program says it (for a timing T), each grid it
        walks drawn cell by cell, each row it walks drawn with its direction, and the activation rules' notes."""
        L = self.L
        act = self.pack.activation
        blocks: list[Block] = []
        # 'activate $timing abilities' is this section: not again among the game words
        self.shown |= {sig for sig, m in self.macros.items() if m.name == ACTIVATION}
        order = self.activation_order()
        if order:
            blocks.append(Block("p", text=L["order_for"].format(timing=TIMING_PLACEHOLDER, order=self.program(order))))
            walked = self.walked_zones(order)
            for m in self.macros.values():  # orders the rules spell out in macros ('for each card in ZONE ...')
                walked += [w for w in self.walked_zones(self.expander.program(m.body).body) if w not in walked]
            for z, reverse in walked:
                zone = self.pack.zones.get(z, {})
                name = self.t(z, "zones")
                if zone.get("kind") == "grid":
                    w, h = zone.get("width", 1), zone.get("height", 1)
                    cells = [[r * w + c + 1 for c in range(w)] for r in range(h)]
                    blocks.append(Block("activation", data={"block": [], "main": name, "cells": cells,
                                                            "position": "", "kind": "grid", "reverse": False,
                                                            "open": False}))
                    blocks.append(Block("p", text=L["grid_order"].format(main=name)))
                elif zone.get("kind") == "row":
                    cells = [[5, 4, 3, 2, 1]] if reverse else [[1, 2, 3, 4, 5]]
                    blocks.append(Block("activation", data={"block": [], "main": name, "cells": cells,
                                                            "position": "", "kind": "row", "reverse": reverse,
                                                            "open": True}))
                    blocks.append(Block("p", text=L["row_reverse" if reverse else "row_forward"].format(main=name)))
        notes = []
        if act.get("optional"):
            notes.append(L["optional"])
        if act.get("once-per-card"):
            notes.append(L["once"])
        if act.get("partial-rewards"):
            notes.append(L["partial"])
        blocks.extend(Block("p", text=n) for n in notes)
        return Section("activation", L["activation"], blocks)

    def activation_order(self) -> tuple:
        """What 'activate T abilities' does, for a timing named T: the pack's order with its macros expanded."""
        if ACTIVATION not in self.result.compiler.macros:
            return ()
        node = self.expander.expand(A.ActivateTiming(TIMING_PLACEHOLDER))
        return node.body if isinstance(node, A.Activation) else ()

    def walked_zones(self, body) -> list[tuple[str, bool]]:
        """The zones whose cards a program activates one by one, in order, each with its direction (True: from
        right to left): 'activate T ability of each card in ZONE' or 'for each card in ZONE ...: activate ...'."""
        out: list[tuple[str, bool]] = []

        def add(zones, reverse: bool) -> None:
            for z in zones:
                if isinstance(z, A.ZoneRef) and z.name not in [n for n, _ in out]:
                    out.append((z.name, reverse))

        for n in _walk(body):
            if isinstance(n, A.ActivateCopy) and isinstance(n.target, A.EachOf):
                add(n.target.query.zones, False)
            elif isinstance(n, A.ForEach) and n.query.zones and any(
                    isinstance(x, A.ActivateCopy | A.ActivateTiming) for x in _walk(n.body)):
                add(n.query.zones, n.reverse)
        return out

    def timing_icons(self) -> list[TimingIcon]:
        return [self.icon(n) for n in self.pack.timings]

    def icon(self, name: str) -> TimingIcon:
        timing = self.pack.timings.get(name, {})
        label = self.t(name, "timings")
        shape, mark = self.timing_looks[name]
        return TimingIcon(name, label, timing.get("kind", ""), timing_colours(name, self.pack.timings), mark, shape)

    @functools.cached_property
    def timing_looks(self) -> dict[str, tuple[str, str]]:
        """Each timing's shape and mark, both different from every other timing's of the pack."""
        timings = self.pack.timings
        shapes = I.assign_shapes([(n, t.get("shape"), I.KIND_SHAPES.get(t.get("kind", ""), ()))
                                  for n, t in timings.items()])
        marks = I.unique_marks([(n, t.get("icon"), self.t(n, "timings")) for n, t in timings.items()])
        return {n: (shapes[n], marks[n]) for n in timings}

    @functools.cached_property
    def stat_shapes(self) -> dict[str, str]:
        stats = {n: (self.voc.stats[n].value or {}) if n in self.voc.stats else {} for n in self.pack.stats}
        return I.assign_shapes([(n, v.get("shape"), I.STAT_SHAPES) for n, v in stats.items() if n != "cost"])

    def badges(self, card) -> list[StatBadge]:
        out = []
        for k, v in card.stats.items():
            if k == "cost" or k not in self.stat_shapes:
                continue
            decl = (self.voc.stats[k].value or {}) if k in self.voc.stats else {}
            out.append(StatBadge(k, self.lex.stat(k), v, self.stat_shapes[k], stat_colour(k, decl),
                                 bool(decl.get("pips"))))
        return out

    def timings_section(self) -> Section:
        L = self.L
        rows = []
        for name, timing in self.pack.timings.items():
            kind = timing.get("kind", "")
            what = L.get(f"kind_{kind}", kind)
            if timing.get("matches"):
                what += L["sep_also"] + L["matches"].format(
                    timings=self.series(self.t(m, "timings") for m in timing["matches"]))
            types = timing.get("types") or []
            rows.append([name, self.t(name, "timings"), what, self.series(self.t(t, "card-types") for t in types)])
        return Section("timings", L["timings"], [Block("timings", rows=rows,
                                                       head=["", L["name"], L["does"], L["card_types"]])])

    def conversions_section(self) -> Section:
        sec = Section("conversions", self.L["conversions"])
        for sig, m in self.macros.items():
            body = self.expander.program(m.body).body
            if _is_conversion(body):
                self.shown.add(sig)
                sec.blocks.append(Block("defs", items=[(self.word_title(sig), self.program(body))]))
        return sec

    def word_title(self, sig: str, untitled: str = "untitled_word") -> str:
        """A macro's phrase as a heading, its parameters read as the glossary's '$NAME' words where it gives them
        ('remove up to N resources'; '$n' reads 'N'). A macro with no phrase: its signature in the language the
        signatures are written in; in another, what its body says when that is short, else a numbered title
        (never an English id in Japanese)."""
        phrase = self.lex.phrase(sig)
        if phrase is None and self.lang != SOURCE_LANG:
            said = self.program(self.macro_body(sig)).rstrip(" .。")
            if 0 < _width(said) <= SHORT_TITLE:
                return self.words.title(said)
            self.untitled += 1
            return self.L[untitled].format(n=self.untitled)
        m = self.macros.get(sig)
        args = {p: Word(f"${p}") for p in (m.params if m else ())}
        return self.words.title(self.words.glossary_phrase(phrase, args) if phrase is not None else sig)

    def end_section(self, game) -> Section:
        L = self.L
        sec = Section("end", L["end"])
        # the game loop's stop: 'until C' ends when C; 'while C' when C no longer holds ('while true': never, the
        # game ends by 'end game' in a rule below)
        loops = [n for n in _walk(game) if isinstance(n, A.Repeat) and n.kind in ("until", "while")][:1]
        conds = [n.value if n.kind == "until" else A.Not(n.value) for n in loops
                 if not (n.kind == "while" and isinstance(n.value, A.Bool))]
        counters: set[str] = set()
        for c in conds[:1]:
            sec.blocks.append(Block("p", text=L["game_ends"].format(cond=self.d.cond(c))))
            counters |= {n.name for n in _walk(c) if isinstance(n, A.Name)}
        for sig, m in self.macros.items():
            body = self.expander.program(m.body).body
            if any((isinstance(n, A.SetCounter | A.Gain) and (getattr(n, "name", None) or getattr(n, "resource", None))
                    in counters) or isinstance(n, A.EndGame) for n in _walk(body, into_macros=False)):
                if sig in self.actions:
                    continue
                self.shown.add(sig)
                self.define(sec.blocks, self.word_title(sig), body)
        for key, node in self.result.asts.items():
            if key.startswith("zone ") and any((isinstance(n, A.SetCounter) and n.name in counters) or
                                               isinstance(n, A.EndGame) for n in _walk(node)):
                self.define(sec.blocks, self.t(key.split()[1], "zones"), node)
        return sec

    def define(self, blocks: list[Block], title: str, body) -> None:
        """Add a titled definition: a line of text, or, when its text is long and has parts, a numbered procedure.
        A body whose text says nothing (statements players never see) adds nothing."""
        body = tuple(s for s in _flatten(body) if not isinstance(s, A.Nothing))
        text = self.program(body) if body else ""
        if not text or text.rstrip(" .。").casefold() == title.rstrip(" .。").casefold():
            return  # says nothing, or only its own title again
        steps = self.steps(body) if _width(text) > LONG_STEP else []
        if len(steps) > 1 or (steps and steps[0].children):
            blocks.append(Block("procedure", text=title, ordered=True, steps=steps))
        elif blocks and blocks[-1].kind == "defs":
            blocks[-1].items.append((title, text))
        else:
            blocks.append(Block("defs", items=[(title, text)]))

    def scoring_section(self) -> Section:
        steps = []
        for step in self.pack.scoring:
            node = self.result.asts.get(f"scoring {step['id']}")
            name = self.lex.scoring_name(step)
            if isinstance(node, tuple) and all(isinstance(n, A.Nothing) for n in _flatten(node)):
                steps.append(Step(name))  # a step this game leaves out (solo): its name says so, no 'Do nothing'
                continue
            steps.append(Step(self.words.labelled(name, self.d.code(f"scoring {step['id']}") or "")))
        return Section("scoring", self.L["scoring"], [Block("steps", ordered=True, steps=steps)])

    def tiebreak_section(self) -> Section:
        steps = [Step(self.d.code(f"tiebreaker-{i}") or "") for i in range(len(self.pack.tiebreakers))]
        return Section("tiebreakers", self.L["tiebreakers"],
                       [Block("p", text=self.L["tie_intro"]), Block("steps", ordered=True, steps=steps)])

    def words_section(self) -> Section:
        """Every macro no other section has opened, titled by its phrase (or its signature as words), with what
        it does. A macro that does nothing (a hook left empty) is not a game word."""
        blocks: list[Block] = []
        for sig, m in self.macros.items():
            if sig in self.actions or sig in self.shown:
                continue
            self.shown.add(sig)
            self.define(blocks, self.word_title(sig), self.expander.program(m.body).body)
        return Section("words", self.L["words"], blocks)

    def automatic_section(self) -> Section:
        items = []
        L = self.L
        for key, node in self.result.asts.items():
            if key.startswith("zone ") and key.endswith(" on-empty"):
                items.append((L["zone_empty"].format(name=self.t(key.split()[1], "zones")), self.program(node)))
            elif key.startswith("piece ") and key.endswith(" when-full"):
                items.append((L["piece_full"].format(name=self.lex.piece(key.split()[1])), self.program(node)))
        return Section("automatic", self.L["automatic"], [Block("defs", items=items)] if items else [])

    # catalogue
    def alt_name(self, card) -> str:
        """The card's name in another language: English beside a translation, a translation beside English."""
        names = card.names or {}
        if self.lang != SOURCE_LANG:
            return names.get(SOURCE_LANG) or card.name
        return next((v for k, v in names.items() if k != self.lang and v), "")

    def catalogue(self) -> list[CardEntry]:
        by_id = {c.id: c for c in self.pack.cards}
        out = []
        for c in self.pack.cards:
            name = self.lex.card_name(c)
            alt = self.alt_name(c)
            abilities = [CardAbility(self.icon(a.timing) if a.timing in self.pack.timings else
                                     TimingIcon("requires", a.label, "requires", [REQUIRES_COLOUR], "!",
                                                I.REQUIRES_SHAPE), a.text)
                         for a in self.card_d.card(c)]
            traits = [self.t(v, f"trait:{k}") for k, vals in c.traits.items() for v in vals]  # a tag, not a resource
            stats = [(self.lex.stat(k), v) for k, v in c.stats.items() if k != "cost"]
            back = by_id.get(c.back) if c.back else None
            entry = CardEntry(
                id=c.id, anchor=f"card-{self.pack.id}-{c.id}", name=name, alt_name=alt if alt != name else "",
                type=self.t(c.type, "card-types") if c.type else "", type_id=c.type or "", number=c.number,
                copies=c.copies, traits=traits, stats=stats, cost=c.stats.get("cost"), abilities=abilities,
                back_id=back.id if back else None, back_name=self.lex.card_name(back) if back else None,
                back_anchor=f"card-{self.pack.id}-{back.id}" if back else None, is_back=c.is_back, pack=c.pack,
                original=c.original)
            entry.text_length = sum(_width(a.text) for a in abilities) + _width(name)
            entry.badges = self.badges(c)
            entry.board = bool((self.pack.card_types.get(c.type) or {}).get("board"))
            out.append(entry)
        return out


def build_reference(result, lang: str = "en") -> Reference:
    """The rule reference and catalogue of a compiled pack (a CompileResult that is ok)."""
    if not result.ok:
        raise ValueError("the pack did not compile")
    return _Builder(result, lang).build()


# A designer's note of where a rule comes from, left in a description: '(F)', '(③④: ...)', '(④①)'. Not for players.
_CITATION = re.compile(r"\s*\((?:[A-Z]|[\u2460-\u2473][^)]*)\)")
_PARAM = re.compile(r"\$([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")


def _placeholder(text: str, lex: Lexicon | None = None) -> str:
    """A macro's parameters as a reader sees them: the glossary's word for '$what' ('resource'), else '$n' is N,
    '$colour' COLOUR (as X in 'draw X cards')."""
    def said(m: re.Match) -> str:
        word = (lex.placeholder(m[0]) if lex is not None else None) or m[1].upper()
        # a letter run into the next word reads apart from it ('N M€', not 'NM€')
        return word + " " if re.match(r"[A-Za-z]", text[m.end():m.end() + 1]) else word

    return _PARAM.sub(said, text)


def _fill_placeholders(sec: Section, lex: Lexicon) -> None:
    """Every '$name' a section's text kept from a macro's signature or body, shown as its placeholder."""
    placeholder = functools.partial(_placeholder, lex=lex)

    def steps(items: list[Step]) -> None:
        for st in items:
            st.text = placeholder(st.text)
            steps(st.children)

    sec.title = placeholder(sec.title)
    for b in sec.blocks:
        b.text = placeholder(b.text)
        steps(b.steps)
        b.head = [placeholder(h) for h in b.head]
        b.rows = [[placeholder(c) for c in r] for r in b.rows]
        b.items = [(placeholder(k), placeholder(v)) for k, v in b.items]
    for sub in sec.subsections:
        _fill_placeholders(sub, lex)


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")


def _width(text: str) -> int:
    """Display width: CJK characters count double."""
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in text)
