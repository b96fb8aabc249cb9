"""What a person sees of a game at their decision, as plain text.

Everything comes from the compiled pack: zone names and kinds, which zones are hidden, counter
names, scoring steps. What a seat may see follows the zones' `hidden` flag: a hidden hand is
shown to its owner only, a hidden pile (a deck, a face-down compost) to nobody, so the view
gives a person exactly what a player at the table would know.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from typing import Any

from cardsmith.runtime.game import Game
from cardsmith.runtime.geometry import geometry
from cardsmith.runtime.state import SHARED, Card
from cardsmith.runtime.vm import Decision

Style = Callable[..., str]  # click.style's shape: style(text, fg=..., bold=...)

SHARED_LIMIT = 12  # cards listed of a big shared zone (a map of spaces, a supply); the rest are counted
_IT = re.compile(r"\bit\b")


def plain(text: str, **_: Any) -> str:
    return text


class Viewer:
    """Renders the board, a decision's prompt and the result for the person in seat `seat`.

    `agents[s]` names who plays seat s ('greedy', 'random'); the person's seat is 'you'."""

    def __init__(self, game: Game, seat: int, agents: list[str], width: int = 100, style: Style = plain) -> None:
        self.pack = game.pack
        self.seat = seat
        self.agents = agents
        self.width = max(width, 40)
        self.style = style
        self.geo = {z: geometry(decl) for z, decl in self.pack.zones.items()}

    # ------------------------------------------------------------------ names
    def seat_name(self, s: int) -> str:
        return f"seat {s + 1} (you)" if s == self.seat else f"seat {s + 1} ({self.agents[s]})"

    def zone_name(self, zone: str) -> str:
        return self.pack.zones[zone].get("names", {}).get("en", zone)

    def card_text(self, game: Game, cid: int, cell: bool = True) -> str:
        """A card as a player sees it on the table: name, pieces and flags on it, its cell."""
        c = game.state.cards[cid]
        if c.face_down:
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
        """Whether the person may look at the cards of this zone (not only count them)."""
        decl = self.pack.zones[zone]
        if not decl.get("hidden"):
            return True
        return owner == self.seat and decl.get("kind") != "pile"

    # ------------------------------------------------------------------ the board
    def board(self, game: Game) -> str:
        s = game.state
        st = self.style
        who = "your decision" if game.pending is not None and game.pending.seat == self.seat else "game"
        head = f"== {self.pack.name}: turn {s.turn}, {self.seat_name(s.active)} to play, {who} =="
        lines = [st(head, bold=True)]
        lines += self._player(game, self.seat, full=True)
        for other in range(s.n):
            if other != self.seat:
                lines += self._player(game, other, full=False)
        table = self._shared(game)
        if table:
            counters = self._counters(s.globals, self.pack.counters)
            lines.append(st("table", bold=True) + (f": {counters}" if counters else ""))
            lines += table
        return "\n".join(lines)

    def seat_detail(self, game: Game, seat: int) -> str:
        """Everything of one seat a person may see (the `seat N` command)."""
        return "\n".join(self._player(game, seat, full=True))

    def _player(self, game: Game, seat: int, full: bool) -> list[str]:
        s = game.state
        head = f"{self.seat_name(seat)}: score now {game.estimate(seat)}"
        counters = self._counters(s.counters[seat], self.pack.resources)
        line = self.style(head, bold=True, fg="green" if seat == self.seat else None)
        out = self._wrap(f"{line}; {counters}" if counters else line, indent="    ")
        sizes = []
        for zone in self.pack.zones:
            cards = [c for c in s.zones.get((zone, seat), ()) if c is not None]
            if not cards:
                continue
            if full and self.can_see(zone, seat):
                names = [self.card_text(game, c) for c in cards]
                out += self._wrap(f"  {self.zone_name(zone)} ({len(cards)}): {'; '.join(names)}", indent="      ")
            elif full:
                how = "face down" if self.pack.zones[zone].get("kind") == "pile" else "hidden"
                out.append(f"  {self.zone_name(zone)}: {len(cards)} card{'s' * (len(cards) != 1)}, {how}")
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
            if not cards:
                continue
            name = self.zone_name(zone)
            if not self.can_see(zone, SHARED):
                out.append(f"  {name}: {len(cards)} card{'s' * (len(cards) != 1)}, face down")
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

    @staticmethod
    def _counters(values: dict[str, int], decls: dict[str, dict]) -> str:
        """Counters worth a glance: those not at 0, and those the rules start somewhere else."""
        shown = [f"{k} {v}" for k, v in values.items() if v or "start" in decls.get(k, {})]
        return ", ".join(shown)

    def _wrap(self, text: str, indent: str) -> list[str]:
        return textwrap.wrap(text, self.width, subsequent_indent=indent, break_on_hyphens=False) or [text]

    # ------------------------------------------------------------------ a decision
    def prompt(self, game: Game, d: Decision) -> str:
        lines = [self.style(line, bold=True) for line in self._wrap(f"{self.seat_name(d.seat)}: {d.prompt}", "    ")]
        source = self.source(game, d)
        if source:
            lines.append(f"  ({source})")
        for i, label in enumerate(d.labels):
            lines += self._wrap(f"  {self.style(f'{i + 1:>2}', fg='cyan')}. {label}", indent="      ")
        lines.append(f"Type a number from 1 to {len(d.options)}, or ? for help.")
        return "\n".join(lines)

    def source(self, game: Game, d: Decision) -> str:
        """Which card's ability asks, and what 'it' is when the prompt speaks of it."""
        frames = game.vm.frames
        if not frames:
            return ""
        f = frames[-1]
        parts = []
        if f.this is not None:
            timing = f.lc.name.split(" ", 1)[-1]
            parts.append(f"from {self.pack.cards[game.state.cards[f.this].defn].name}, {timing}")
        # 'it' of the top-level program is whatever its last loop left there: only a card's or the setup's counts
        if f.it is not None and f.lc.name != "game" and _IT.search(d.prompt):
            parts.append(f"it: {self.card_text(game, f.it)}")
        return "; ".join(parts)

    def bot_choice(self, game: Game, d: Decision, choice: int) -> str:
        """One line for a bot's decision; a card taken from a zone the person may not see stays hidden."""
        label = d.labels[choice] if choice < len(d.labels) else str(choice)
        option = d.options[choice]
        if d.kind == "card" and isinstance(option, int) and 0 <= option < len(game.state.cards):
            c = game.state.cards[option]
            if not self.can_see(c.zone, c.seat):
                label = f"a card from {'their' if c.seat == d.seat else 'the'} {self.zone_name(c.zone)}"
        return f"  {self.seat_name(d.seat)}: {d.prompt}: {label}"

    # ------------------------------------------------------------------ the end
    def result(self, game: Game, tiebreaker_text: Callable[[int], str | None] | None = None) -> str:
        r = game.result()
        st = self.style
        lines = [st(f"== game over: {self.pack.name}, {r.players} player{'s' * (r.players != 1)}, seed {r.seed}, "
                    f"{r.turns} turns, {r.decisions} decisions ==", bold=True)]
        if r.capped:
            lines.append(f"  (stopped at the cap of {game.max_decisions} decisions and scored where it stood)")
        width = max(len(self.seat_name(s)) for s in range(r.players))
        for s in range(r.players):
            steps = ", ".join(f"{k} {v}" for k, v in r.steps[s].items() if v)
            row = f"  {self.seat_name(s):<{width}}  {r.totals[s]:>4}" + (f"   ({steps})" if steps else "")
            lines += self._wrap(row, indent=" " * (width + 10))
        if r.players == 1:
            # No seat to beat: a solo pack reports its rival (Gaia, an AI) through its tie-breakers.
            for i, value in enumerate(r.tiebreaks[0] if r.tiebreaks else []):
                what = tiebreaker_text(i) if tiebreaker_text else None
                lines.append(f"  tie-breaker {i + 1}" + (f" [{what}]" if what else "") + f": {value}")
            counters = self._counters(game.state.globals, self.pack.counters)
            if counters:
                lines += self._wrap(f"  table: {counters}", indent="    ")
            lines.append(st("a solo game: compare your total with what the rules report above", bold=True))
            return "\n".join(lines)
        top = max(r.totals)
        tied = [s for s in range(r.players) if r.totals[s] == top]
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


class CardTexts:
    """Generated text of cards and tie-breakers (compiler/describe.py), for the `card` command and
    the result. The describer needs the checked AST, which a cached compile lacks, so the pack is
    compiled again on first use only: most games never ask."""

    def __init__(self, pack_ref: str, width: int = 100) -> None:
        self.pack_ref = pack_ref
        self.width = max(width, 40)
        self._describer: Any = None
        self._failed = False

    def describer(self) -> Any:
        if self._describer is None and not self._failed:
            from cardsmith.compiler.describe import Describer
            from cardsmith.compiler.pipeline import compile_pack

            res = compile_pack(self.pack_ref)
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

    def tiebreaker(self, index: int) -> str | None:
        d = self.describer()
        return d.code(f"tiebreaker-{index}") if d is not None else None
