"""What a person sees of a game at their decision, as plain text.

Everything comes from the compiled pack: zone names and kinds, counter names, scoring steps. What a
seat may see follows the zones' declared visibility and what the seat has seen (runtime/visibility.py,
runtime/observation.py): a hand is shown to its owner only, a deck to nobody, a card the person saw go
into another player's hand is shown as known there; the scores "if the game ended now" are counted on
a sample of the game dealt again where the person cannot see, and the decision is the one the person's
seat observes. So the view gives a person exactly what a player at the table would know, and never
names a card they cannot see.

Ids stay out of sight: zones and timings read by their names (the glossary's words), cards by name.
Cards offered in a decision show their stats and their text; a decision where a card goes onto a
board shows the board with the free cells numbered as the options.

The VM labels a `choose one` option, and asks a `may`, with the effect-language source of what
would happen ("again: plant a card"). The view shows such text as the English the describe back
end generates for it ("Plant a card from your hand, paying its cost in soil? (repeatable)"),
and the source as it is where it does not parse or while `raw` is set; the decision itself,
its options and their order, is the VM's, untouched.
"""

from __future__ import annotations

import contextlib
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cardsmith.present.describe import SourceText
from cardsmith.runtime.game import Game
from cardsmith.runtime.geometry import geometry
from cardsmith.runtime.observation import Hidden, Observation, observed_decision
from cardsmith.runtime.state import SHARED, Card, automa_seats
from cardsmith.runtime.visibility import visibility_for, zone_mode
from cardsmith.runtime.vm import Decision

Style = Callable[..., str]  # click.style's shape: style(text, fg=..., bold=...)

SHARED_LIMIT = 12  # cards listed of a big shared zone (a map of spaces, a supply); the rest are counted
_IT = re.compile(r"\bit\b")
_YOU = re.compile(r"\b([Yy]ou|[Yy]our|[Yy]ours)\b")
_THEY = {"you": "they", "You": "They", "your": "their", "Your": "Their", "yours": "theirs", "Yours": "Theirs"}
# A `may` decision's prompt is its body's source after one of these; the note is kept after the question.
_MAY_PROMPTS = (("may ", ""), ("again: ", " (repeatable)"))
_CARD_ID = re.compile(r" \([a-z0-9]+(?:-[a-z0-9]+)*\)")  # ' (mossback-oak)' after a card's name in a VM label
_WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+|[a-z][a-z0-9]*")
_ZONE_AFTER = re.compile(r"\b((?:from|to|into|in|on) )([a-z][a-z0-9]*)\b")


def plain(text: str, **_: Any) -> str:
    return text


@dataclass(frozen=True)
class DecisionText:
    """A decision as the person reads it: `free_it` says whether the text speaks of an 'it' that
    its context chose (the view then names that card); `guessed`: only from the word, the text did
    not parse."""

    prompt: str
    note: str
    labels: list[str]
    free_it: bool
    guessed: bool = False


class Viewer:
    """Renders the board, a decision's prompt and the result for the person in seat `seat`.

    `agents[s]` names who plays seat s ('greedy', 'random'); the person's seat is 'you'.
    `prose(source)` renders effect-language source (`CardTexts.source`); without it, or while `raw`
    is set, prompts and options are shown as the VM words them."""

    def __init__(self, game: Game, seat: int, agents: list[str], width: int = 100, style: Style = plain,
                 prose: Callable[[str], SourceText | None] | None = None,
                 summary: Callable[[str], str | None] | None = None,
                 word: Callable[[str], str | None] | None = None) -> None:
        self.pack = game.pack
        self.seat = seat
        self.agents = agents
        self.width = max(width, 40)
        self.style = style
        self.geo = {z: geometry(decl) for z, decl in self.pack.zones.items()}
        self.prose = prose
        self.summary = summary  # card id -> its stats and text on one line (CardTexts.summary)
        self.word = word  # a name of the rules -> the glossary's English word for it (CardTexts.word)
        self.vis = visibility_for(self.pack)
        self.card_ids = frozenset(c.id for c in self.pack.cards)
        self.raw = False

    # ------------------------------------------------------------------ names
    def seat_name(self, s: int) -> str:
        if s >= len(self.agents):  # an automa seat plays after the players, by the rules alone
            automa = automa_seats(self.pack, len(self.agents))[s - len(self.agents)]
            return automa.get("names", {}).get("en") or automa.get("name") or self.name_of(automa["id"])
        return f"seat {s + 1} (you)" if s == self.seat else f"seat {s + 1} ({self.agents[s]})"

    def zone_name(self, zone: str) -> str:
        return self.pack.zones[zone].get("names", {}).get("en") or self.name_of(zone)

    def name_of(self, name: str) -> str:
        """A name of the rules (a zone, a timing, a counter) as a person reads it: the glossary's word, its declared
        English name, else the id with spaces."""
        said = self.word(name) if self.word is not None else None
        if said:
            return said
        for table in (self.pack.zones, self.pack.timings, self.pack.resources, self.pack.counters):
            if name in table and table[name].get("names", {}).get("en"):
                return table[name]["names"]["en"]
        return name.replace("-", " ")

    def readable(self, text: str) -> str:
        """A prompt or label of the VM with its ids made names: zones and timings by name, cards without their id."""
        text = _CARD_ID.sub(lambda m: "" if m.group(0)[2:-1] in self.card_ids else m.group(0), text)
        zones, named = self.pack.zones.keys(), self.pack.timings.keys() | self.pack.windows.keys()

        def swap(m: re.Match) -> str:
            w = m.group(0)
            if w in named or (w in zones and "-" in w):
                return self.name_of(w)
            return w

        text = _WORD.sub(swap, text)
        # a zone named after a preposition: 'take a card from drawn' -> 'take a card from drawn cards'
        return _ZONE_AFTER.sub(lambda m: m.group(1) + (self.zone_name(m.group(2)) if m.group(2) in zones
                                                         else m.group(2)), text)

    def sees(self, game: Game, cid: int) -> bool:
        """Whether the person knows this card where it lies (sees its face, or saw it go there)."""
        return not self.vis.hides or self.vis.seen_by(game.state, cid, self.seat)

    def card_text(self, game: Game, cid: int, cell: bool = True) -> str:
        """A card as a player sees it on the table: name, pieces and flags on it, its cell."""
        c = game.state.cards[cid]
        if not self.sees(game, cid):
            return "a face-down card"
        text = self.pack.cards[c.defn].name
        extras = _pieces(c.pieces) + sorted(c.flags)
        if extras:
            text += f" ({', '.join(extras)})"
        geo = self.geo.get(c.zone)
        if cell and geo is not None and c.pos >= 0:
            r, col = geo.row_col(c.pos)
            text = f"r{r}c{col} {text}"
        return text

    def can_see(self, zone: str, owner: int) -> bool:
        """Whether the person may look at the cards of this zone (not only count them): its declared visibility
        (rules.yaml `visible:`, runtime/visibility.py)."""
        mode = zone_mode(self.pack.zones[zone])
        return mode == "everyone" or (mode == "owner" and owner == self.seat)

    # ------------------------------------------------------------------ the board
    def board(self, game: Game) -> str:
        s = game.state
        st = self.style
        who = "your decision" if game.pending is not None and game.pending.seat == self.seat else "game"
        head = f"== {self.pack.name}: turn {s.turn}, {self.seat_name(s.active)} to play, {who} =="
        lines = [st(head, bold=True)]
        scores = self.scores(game)
        lines += self._player(game, self.seat, full=True, scores=scores)
        for other in range(s.n):
            if other != self.seat:
                lines += self._player(game, other, full=False, scores=scores)
        table = self._shared(game)
        if table:
            counters = self._counters(s.globals, self.pack.counters)
            lines.append(st("table", bold=True) + (f": {counters}" if counters else ""))
            lines += table
        return "\n".join(lines)

    def scores(self, game: Game) -> list[int]:
        """Every seat's score if the game ended now, as the person can know it: counted on a sample of the game
        dealt again where the person cannot see (the same sample for the same view)."""
        return Observation(game, self.seat).score_now()

    def seat_detail(self, game: Game, seat: int) -> str:
        """Everything of one seat a person may see (the `seat N` command)."""
        return "\n".join(self._player(game, seat, full=True))

    def _player(self, game: Game, seat: int, full: bool, scores: list[int] | None = None) -> list[str]:
        s = game.state
        scores = scores if scores is not None else self.scores(game)
        head = f"{self.seat_name(seat)}: score now {scores[seat]}"
        counters = self._counters(s.counters[seat], self.pack.resources)
        line = self.style(head, bold=True, fg="green" if seat == self.seat else None)
        out = self._wrap(f"{line}; {counters}" if counters else line, indent="    ")
        sizes = []
        for zone in self.pack.zones:
            cards = [c for c in s.zones.get((zone, seat), ()) if c is not None]
            if not cards or self.vis.modes[zone] == "nobody":
                continue
            if full and self.can_see(zone, seat):
                names = [self.card_text(game, c) for c in cards]
                out += self._wrap(f"  {self.zone_name(zone)} ({len(cards)}): {'; '.join(names)}", indent="      ")
            elif full:
                how = "face down" if self.pack.zones[zone].get("kind") == "pile" else "hidden"
                out += self._wrap(f"  {self.zone_name(zone)}: {len(cards)} card{'s' * (len(cards) != 1)}, {how}"
                                  f"{self._known(game, cards)}", indent="      ")
            else:
                sizes.append(f"{self.zone_name(zone)} {len(cards)}")
        if sizes:
            out += self._wrap("  cards: " + ", ".join(sizes), indent="    ")
        return out

    def _shared(self, game: Game) -> list[str]:
        s = game.state
        out = []
        for zone in self.pack.zones:
            cards = [c for c in s.zones.get((zone, SHARED), ()) if c is not None]
            mode = self.vis.modes[zone]
            if not cards or mode == "nobody":
                continue
            name = self.zone_name(zone)
            if mode == "top":
                out += self._wrap(f"  {name} ({len(cards)}): {self.card_text(game, cards[-1])} on top"
                                  f"{self._known(game, cards[:-1])}", indent="      ")
                continue
            if not self.can_see(zone, SHARED):
                out += self._wrap(f"  {name}: {len(cards)} card{'s' * (len(cards) != 1)}, face down"
                                  f"{self._known(game, cards)}", indent="      ")
                continue
            shown = cards
            if len(cards) > SHARED_LIMIT:
                # A big board or supply: what matters is what lies on it.
                marked = [c for c in cards if _marked(s.cards[c])]
                shown = (marked or cards)[:SHARED_LIMIT]
            names = [self.card_text(game, c) for c in shown]
            rest = len(cards) - len(shown)
            more = f"; and {rest} more" if rest else ""
            out += self._wrap(f"  {name} ({len(cards)}): {'; '.join(names)}{more}", indent="      ")
        return out

    def _known(self, game: Game, cards: list[int]) -> str:
        """'; you know of: Robin, Wren' for the cards of a zone the person cannot see but saw go there."""
        names = sorted(self.pack.cards[game.state.cards[c].defn].name for c in cards if self.sees(game, c))
        return f"; you know of: {', '.join(names)}" if names else ""

    @staticmethod
    def _counters(values: dict[str, int], decls: dict[str, dict]) -> str:
        """Counters worth a glance: those not at 0, and those the rules start somewhere else; never those the
        rules keep for themselves (`internal: true`)."""
        shown = [f"{k} {v}" for k, v in values.items()
                 if (v or "start" in decls.get(k, {})) and not decls.get(k, {}).get("internal")]
        return ", ".join(shown)

    def _wrap(self, text: str, indent: str) -> list[str]:
        return textwrap.wrap(text, self.width, subsequent_indent=indent, break_on_hyphens=False) or [text]

    # ------------------------------------------------------------------ a decision
    def texts(self, d: Decision) -> DecisionText:
        """The prompt and option labels as shown: prose where the VM gives effect-language source."""
        prompt, note, labels = d.prompt, "", list(d.labels)
        if not self.raw:
            prompt = self.readable(prompt)
            if d.kind not in ("option", "may"):  # those are effect-language source, made English below
                labels = [self.readable(label) for label in labels]
        read: list[tuple[str, SourceText | None]] = []  # the texts that may speak of 'it', each as parsed
        if d.kind == "option" and d.prompt == "choose one":  # op CHOOSE: each option is its source
            read = [(label, self._source(label)) for label in labels]
            if not self.raw:
                labels = [_clause(said.text) if said else label for label, said in read]
        else:
            head, tail = next(((h, t) for h, t in _MAY_PROMPTS if d.kind == "may" and d.prompt.startswith(h)),
                              ("", ""))
            said = self._source(d.prompt[len(head):]) if head else None
            read = [(d.prompt, said)]
            if said is not None and not self.raw:
                prompt, note = _clause(said.text) + "?", tail
        # Parsed source tells whether its 'it' is the context's card; other text only mentions the word.
        free_it = any(said.free_it if said else bool(_IT.search(text)) for text, said in read)
        guessed = any(not said and _IT.search(text) for text, said in read)
        return DecisionText(prompt, note, labels, free_it, guessed)

    def _source(self, text: str) -> SourceText | None:
        return self.prose(text) if self.prose is not None else None

    def prompt(self, game: Game, d: Decision) -> str:
        d = observed_decision(game, d, self.seat)
        shown = self.texts(d)
        head = f"{self.seat_name(d.seat)}: {shown.prompt}{shown.note}"
        lines = [self.style(line, bold=True) for line in self._wrap(head, "    ")]
        source = self.source(game, d, shown)
        if source:
            lines.append(f"  ({source})")
        if d.kind == "cell":
            lines += self.grid(game, d)
        for i, label in enumerate(shown.labels):
            o = d.options[i]
            if d.kind == "card" and isinstance(o, int) and self.summary is not None and not self.raw:
                about = self.summary(self.pack.cards[game.state.cards[o].defn].id)
                label = f"{label} — {about}" if about else label
            lines += self._wrap(f"  {self.style(f'{i + 1:>2}', fg='cyan')}. {label}", indent="      ")
        lines.append(f"Type a number from 1 to {len(d.options)}, or ? for help.")
        return "\n".join(lines)

    def grid(self, game: Game, d: Decision) -> list[str]:
        """The board a card is being put on, the free cells offered numbered as the options (a cell decision)."""
        f = game.vm.frames[-1] if game.vm.frames else None
        if f is None:
            return []
        ins = f.lc.code.ops[f.pc] if f.pc < len(f.lc.code.ops) else None
        if not ins or ins[0] != "PUT" or not isinstance(ins[1], dict):
            return []
        zname, mode = ins[1]["zone"][0], ins[1]["zone"][1]
        geo = self.geo.get(zname)
        if geo is None or geo.width == 0:
            return []
        cells = game.state.zones.get((zname, SHARED if mode == "shared" else d.seat))
        if cells is None:
            return []
        number = {cell: i + 1 for i, cell in enumerate(d.options)}
        used = [i for i, c in enumerate(cells) if c is not None or i in number]
        if not used:
            return []
        w = geo.width
        rows = range(min(i // w for i in used), max(i // w for i in used) + 1)
        cols = range(min(i % w for i in used), max(i % w for i in used) + 1)
        names = {i: self.card_text(game, cells[i], cell=False) for i in used if cells[i] is not None}
        size = min(18, max([5, *map(len, names.values())]) + 2)  # a cell as wide as its longest name, within reason
        out = [f"  {self.zone_name(zname)}:"]
        for r in rows:
            row = []
            for c in cols:
                cell = r * w + c
                if cells[cell] is not None:
                    text = names[cell][:size]
                elif cell in number:
                    text = f"[{number[cell]}]"
                else:
                    text = "."
                row.append(text.center(size))
            out.append("  " + "|".join(row).rstrip())
        return out

    def source(self, game: Game, d: Decision, shown: DecisionText | None = None) -> str:
        """Which card's ability asks, and what 'it' is when the prompt or an option speaks of it."""
        parts = []
        f = game.vm.frames[-1] if game.vm.frames else None
        if f is not None and f.this is not None:
            timing = f.lc.name.split(" ", 1)[-1]
            what = self.pack.cards[game.state.cards[f.this].defn].name if self.sees(game, f.this) else "a hidden card"
            parts.append(f"from {what}, {self.name_of(timing) if timing in self.pack.timings else timing}")
        it = self.it_text(game, d, shown or self.texts(d))
        if it:
            parts.append(f"it: {it}")
        return "; ".join(parts)

    def it_text(self, game: Game, d: Decision, shown: DecisionText) -> str:
        """The card 'it' is, as the person may see it, when the decision's text speaks of it ('' if not)."""
        frames = game.vm.frames
        if not shown.free_it or not frames or frames[-1].it is None:
            return ""
        # 'it' of the top-level program is whatever its last loop left there: a mere mention of the word in
        # text that does not parse may not mean that card
        if shown.guessed and frames[-1].lc.name == "game":
            return ""
        c = game.state.cards[frames[-1].it]
        if self.sees(game, frames[-1].it):
            return self.card_text(game, frames[-1].it)
        whose = "your" if c.seat == self.seat else "their" if c.seat == d.seat else "the"
        return f"a card from {whose} {self.zone_name(c.zone)}"

    def bot_choice(self, game: Game, d: Decision, choice: int) -> str:
        """One line for a bot's decision, with the card 'it' is when the text speaks of it; a card taken
        from a zone the person may not see stays hidden."""
        d = observed_decision(game, d, self.seat)
        shown = self.texts(d)
        # Generated English speaks to the player who decides; the line speaks of the bot.
        prompt = _third_person(shown.prompt) if shown.prompt != d.prompt else shown.prompt
        label = shown.labels[choice] if choice < len(shown.labels) else str(choice)
        if choice < len(d.labels) and label != d.labels[choice]:
            label = _third_person(label)
        option = d.options[choice]
        if isinstance(option, Hidden):
            label = f"a card from {'their' if option.seat == d.seat else 'the'} {self.zone_name(option.zone)}"
        it = self.it_text(game, d, shown)
        # A question reads with its answer after it ('Flip it to its other side? yes'), anything else after a colon.
        line = f"{prompt}{' ' if prompt.endswith('?') else ': '}{label}" + (f" (it: {it})" if it else "")
        return "\n".join(self._wrap(f"  {self.seat_name(d.seat)}: {line}", indent="      "))

    # ------------------------------------------------------------------ the end
    def result(self, game: Game, tiebreaker_text: Callable[[int], str | None] | None = None) -> str:
        r = game.result()
        st = self.style
        lines = [st(f"== game over: {self.pack.name}, {r.players} player{'s' * (r.players != 1)}, seed {r.seed}, "
                    f"{r.turns} turns, {r.decisions} decisions ==", bold=True)]
        if r.capped:
            lines.append(f"  (stopped at the cap of {game.max_decisions} decisions and scored where it stood)")
        seats = range(len(r.totals))  # the players, then any automa seats
        width = max(len(self.seat_name(s)) for s in seats)
        for s in seats:
            steps = ", ".join(f"{k} {v}" for k, v in r.steps[s].items() if v)
            row = f"  {self.seat_name(s):<{width}}  {r.totals[s]:>4}" + (f"   ({steps})" if steps else "")
            lines += self._wrap(row, indent=" " * (width + 10))
        if len(r.totals) == 1:
            # No seat to beat: the rules report how the player did through their tie-breakers.
            for i, value in enumerate(r.tiebreaks[0] if r.tiebreaks else []):
                what = tiebreaker_text(i) if tiebreaker_text else None
                lines.append(f"  tie-breaker {i + 1}" + (f" [{what}]" if what else "") + f": {value}")
            counters = self._counters(game.state.globals, self.pack.counters)
            if counters:
                lines += self._wrap(f"  table: {counters}", indent="    ")
            lines.append(st("a solo game: compare your total with what the rules report above", bold=True))
            return "\n".join(lines)
        top = max(r.totals)
        tied = [s for s in range(len(r.totals)) if r.totals[s] == top]
        if len(tied) > 1 and r.tiebreaks:
            lines.append(self._tiebreak(r.tiebreaks, tied, top, tiebreaker_text))
        names = " and ".join(self.seat_name(w) for w in r.winners)
        lines.append(st(f"winner{'s' * (len(r.winners) > 1)}: {names}", bold=True))
        return "\n".join(lines)

    def _tiebreak(self, tiebreaks: list[list[int]], tied: list[int], top: int,
                  text: Callable[[int], str | None] | None) -> str:
        for i in range(len(tiebreaks[0])):
            values = {s: tiebreaks[s][i] for s in tied}
            if len(set(values.values())) > 1:
                what = text(i) if text else None
                each = ", ".join(f"{self.seat_name(s)} {v}" for s, v in values.items())
                return f"  tie at {top} points, broken by tie-breaker {i + 1}" + (f" [{what}]" if what else "") + \
                    f": {each}"
        return f"  tie at {top} points; no tie-breaker separates {', '.join(self.seat_name(s) for s in tied)}"


def _pieces(pieces: dict[str, int]) -> list[str]:
    """'leaf 2 (seat 1, seat 3)': a piece kept per seat is stored as 'leaf@0', 'leaf@2' beside the total."""
    owners: dict[str, list[str]] = {}
    for key, v in sorted(pieces.items()):
        name, at, seat = key.partition("@")
        if at and v and seat.isdigit():
            owners.setdefault(name, []).append(f"seat {int(seat) + 1}" + (f" x{v}" if v > 1 else ""))
    return [f"{k} {v}" + (f" ({', '.join(owners[k])})" if k in owners else "")
            for k, v in sorted(pieces.items()) if v and "@" not in k]


def _marked(card: Card) -> bool:
    return bool(card.flags) or any(card.pieces.values())


def _third_person(text: str) -> str:
    """'your hand' -> 'their hand'. A quoted name (“when you play”, a timing) stays as the pack wrote it."""
    parts = re.split(r"(“[^”]*”)", text)
    return "".join(part if i % 2 else _YOU.sub(lambda m: _THEY[m.group(0)], part) for i, part in enumerate(parts))


def _clause(text: str) -> str:
    """Generated sentences as an option or a question: without the final full stop."""
    return text[:-1] if text.endswith(".") else text


class CardTexts:
    """Generated text (present/describe.py) of cards and tie-breakers, for the `card` command and the
    result, and of decisions' effect-language source, for the view. The describer needs the checked
    AST, which a cached compile lacks: without `result` (a compile that has it) the pack is compiled
    again on first use only."""

    def __init__(self, pack_ref: str, width: int = 100, result: Any = None) -> None:
        self.pack_ref = pack_ref
        self.width = max(width, 40)
        self._result = result if result is not None and result.compiler is not None else None
        self._describer: Any = None
        self._failed = False
        self._sources: dict[str, SourceText | None] = {}

    def describer(self) -> Any:
        if self._describer is None and not self._failed:
            from cardsmith.compiler.pipeline import compile_pack
            from cardsmith.present.describe import Describer

            res = self._result or compile_pack(self.pack_ref)
            if res.ok:
                self._describer = Describer(res, "en")
            else:  # pragma: no cover - the game compiled a moment ago from the same files
                self._failed = True
        return self._describer

    def card(self, card_id: str) -> str | None:
        d = self.describer()
        if d is None:
            return None
        c = d.pack.card(card_id)
        if c is None:
            return None
        facts = [c.type or "no type"]
        facts += [f"{k} {', '.join(v)}" for k, v in c.traits.items() if v]
        facts += [f"{k} {v}" for k, v in c.stats.items()]
        lines = textwrap.wrap(f"{d.card_name(c)} ({c.id}): {'; '.join(facts)}", self.width,
                              subsequent_indent="    ", break_on_hyphens=False)
        abilities = d.card(c)
        for a in abilities:
            lines += textwrap.wrap(f"  [{a.label}] {a.text}", self.width, subsequent_indent="    ",
                                   break_on_hyphens=False)
        if not abilities:
            lines.append("  (no abilities)")
        return "\n".join(lines)

    def summary(self, card_id: str) -> str | None:
        """A card offered in a decision, on one line: its stats and its abilities' text."""
        d = self.describer()
        c = d.pack.card(card_id) if d is not None else None
        if c is None:
            return None
        facts = [f"{k} {v}" for k, v in c.stats.items()]
        with contextlib.suppress(Exception):  # text is a courtesy: a describer fault leaves the stats alone
            facts += [f"[{a.label}] {a.text}" for a in d.card(c)]
        return "; ".join(facts) or None

    def word(self, name: str) -> str | None:
        """The glossary's English word for a name of the rules ('multi' -> 'multicolour'), if it has one."""
        d = self.describer()
        if d is None:
            return None
        entry = getattr(d, "lex", None)
        return entry.glossary.get(name, {}).get("en") if entry is not None else None

    def tiebreaker(self, index: int) -> str | None:
        d = self.describer()
        return d.code(f"tiebreaker-{index}") if d is not None else None

    def source(self, text: str) -> SourceText | None:
        """Effect-language source as English (None: it does not parse), kept: the same options recur all game."""
        if text not in self._sources:
            d = self.describer()
            try:
                self._sources[text] = d.source(text) if d is not None else None
            except Exception:  # English is a courtesy: a describer fault shows the source, never a traceback
                self._sources[text] = None
        return self._sources[text]
