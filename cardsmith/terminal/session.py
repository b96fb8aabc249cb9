"""The prompt loop of a game played by a person against bots.

    session = PlaySession(game, seat=0, read=input, write=print)
    exit_code = session.run()

The game runs until a decision of the person's seat; bots answer theirs (each logged in one
line). At the person's decision the session shows the board and the numbered options and reads
a line: a number answers; `undo`, `save FILE`, `card X`, `seat N`, `raw`, `amounts`, `quit` and help are
commands. Bots decide on what their seat observes (runtime/observation.py), like every agent. A
reward taken "up to" an amount (a partial reward: "how many soil") is taken in full without asking,
since taking less is never better; `amounts` asks for those amounts again.
Undo restores a snapshot taken just before the person's last answer (the game and the bots'
random generators), so the bots' moves made since are taken back too, and the game goes on
exactly as before when the person answers the same again.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass

from cardsmith.runtime.agents import Agent, RandomAgent
from cardsmith.runtime.game import Game
from cardsmith.runtime.observation import Hidden, observed_decision
from cardsmith.runtime.save import SaveError, write_save
from cardsmith.runtime.vm import Decision

from .view import Viewer

_CARD_IN_LABEL = re.compile(r"\(([a-z0-9]+(?:-[a-z0-9]+)*)\)")

HELP = """\
  N            answer with option N
  card X, ? X  the text of a card: X is an option's number, a card id or a card name
  board        show the board again
  seat N       all you can see of seat N
  undo         take back your last answer (and the bots' moves since)
  raw          options and questions as effect-language source instead of English; again to switch back
  amounts      ask how much of a reward to take (by default the most is taken); again to stop asking
  save FILE    save the game: `cardsmith play --load FILE` goes on from here
  quit         leave (asks whether to save first); quit! leaves at once
  ?, help      this list
Counters at 0 are not shown."""


class HumanSeat(RandomAgent):
    """The seat a person plays. The session asks the person, never this agent.

    It is a random agent underneath so that a save holds the seat like any bot's (`cardsmith resume`
    finishes such a game with a random agent there); `human` marks the seat in the save, which is
    how `cardsmith play --load` knows whose seat to give back to the person."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.human = True

    def choose(self, game: Game, decision: Decision) -> int:
        raise RuntimeError("the person's seat is asked through the terminal session, not as an agent")


@dataclass
class _Snapshot:
    game: Game
    agents: list[Agent]


class _Leave(Exception):
    """The person leaves the game before its end."""


class PlaySession:
    """One person at one seat of `game`; `read(prompt)` returns a line or raises EOFError,
    `write(text)` prints. `describe(card_id)` returns a card's generated text (or None);
    `tiebreaker_text(i)` the text of the rules' tie-breaker i, for the result."""

    def __init__(self, game: Game, seat: int, read: Callable[[str], str], write: Callable[[str], None],
                 viewer: Viewer, describe: Callable[[str], str | None] | None = None,
                 tiebreaker_text: Callable[[int], str | None] | None = None, loaded: bool = False) -> None:
        self.game = game
        self.loaded = loaded  # a loaded game cannot be undone past the point it was saved at
        self.seat = seat
        self.read = read
        self.write = write
        self.viewer = viewer
        self.describe = describe
        self.tiebreaker_text = tiebreaker_text
        self.history: list[_Snapshot] = []
        self.last_view: str | None = None
        self.ask_amounts = False  # a reward's amount is asked only when the person wants to choose it

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        """Play to the end or until the person leaves; the exit code (0 either way)."""
        try:
            while True:
                d = self.game.advance()
                if d is None:
                    self.write(self.viewer.result(self.game, self.tiebreaker_text))
                    return 0
                if d.seat == self.seat:
                    most = None if self.ask_amounts else self.reward_in_full(d)
                    choice = self.ask(d) if most is None else most
                    if most is not None:
                        self.write(f"  (took {d.options[most]}{d.prompt.removeprefix('how many')}: the most; "
                                   "type `amounts` at a question to choose amounts yourself)")
                    if choice is not None:
                        self.answer(choice)
                else:
                    choice = self.game.ask(d)  # the bot sees what its seat may see, never the game itself
                    self.write(self.viewer.bot_choice(self.game, d, choice))
                    self.game.decide(choice)
        except _Leave:
            return 0

    def reward_in_full(self, d: Decision) -> int | None:
        """The option taking all of a reward offered 'up to' an amount ('how many soil', then a gain), else None:
        such a question has one sensible answer, so it is not put to the person."""
        if d.kind != "number" or not d.prompt.startswith("how many") or not self.game.vm.frames:
            return None
        f = self.game.vm.frames[-1]
        ops = f.lc.code.ops
        if f.pc + 1 < len(ops) and ops[f.pc + 1][0] == "GAIN" and all(isinstance(o, int) for o in d.options):
            return max(range(len(d.options)), key=lambda i: d.options[i])
        return None

    def answer(self, choice: int) -> None:
        """Answer the person's pending decision, keeping a snapshot for undo."""
        self.history.append(_Snapshot(self.game.clone(), copy.deepcopy(self.game.agents)))
        self.game.decide(choice)

    def undo(self) -> bool:
        """Back to the person's previous decision, as it was before they answered it."""
        if not self.history:
            return False
        snap = self.history.pop()
        snap.game.agents = snap.agents
        self.game = snap.game
        self.last_view = None
        return True

    def view(self) -> str:
        """The board as the person sees it now."""
        return self.viewer.board(self.game)

    # ------------------------------------------------------------------ one decision
    def ask(self, d: Decision) -> int | None:
        """Read lines until one answers `d` (its option index) or undoes (None)."""
        board = self.view()
        if board != self.last_view:
            self.write(board)
            self.last_view = board
        self.write(self.viewer.prompt(self.game, d))
        n = len(d.options)
        while True:
            try:
                line = self.read("> ").strip()
            except EOFError:
                self.write("\nend of input: leaving the game without saving")
                raise _Leave from None
            word, _, rest = line.partition(" ")
            word, rest = word.lower(), rest.strip()
            if line.isdigit():
                if 1 <= int(line) <= n:
                    return int(line) - 1
                self.write(f"there is no option {line}: type a number from 1 to {n}, or ? for help")
            elif word in ("?", "help", "h") and not rest:
                self.write(HELP)
            elif word in ("card", "?") and rest:
                self.write(self.card(d, rest))
            elif word in ("board", "b"):
                self.write(self.view())
                self.write(self.viewer.prompt(self.game, d))
            elif word == "seat":
                self.write(self.seat_detail(rest))
            elif word == "amounts" and not rest:
                self.ask_amounts = not self.ask_amounts
                self.write("rewards' amounts will be asked" if self.ask_amounts
                           else "rewards are taken in full without asking")
            elif word == "raw" and not rest:
                self.viewer.raw = not self.viewer.raw
                self.write("effect-language source shown as it is (raw again: English)" if self.viewer.raw
                           else "effect-language source shown as English")
                self.write(self.viewer.prompt(self.game, d))
            elif word in ("undo", "u"):
                if self.undo():
                    self.write("undone: back to your previous decision")
                    return None
                self.write("nothing to undo: this is your first decision" +
                           (" since the game was loaded" if self.loaded else ""))
            elif word == "save":
                self.save(rest)
            elif word == "quit!":
                raise _Leave
            elif word in ("quit", "q", "exit"):
                self.quit()
            else:
                what = f"'{line}' is not an option nor a command" if line else "nothing typed"
                self.write(f"{what}: type a number from 1 to {n}, or ? for help")

    # ------------------------------------------------------------------ commands
    def card(self, d: Decision, what: str) -> str:
        seen = observed_decision(self.game, d, self.seat)
        found = self.find_cards(seen, what)
        if not found and what.isdigit() and 1 <= int(what) <= len(d.options):
            return f"option {what} ('{self.viewer.texts(seen).labels[int(what) - 1]}') names no card you can see"
        if not found:
            hint = f"a number from 1 to {len(d.options)}, " if d.options else ""
            return f"no card '{what}' here: give {hint}a card id or a card name"
        if len(found) > 1:
            pack = self.game.pack
            names = ", ".join(f"{pack.card(c).name} ({c})" for c in found[:8]) + (", ..." if len(found) > 8 else "")
            return f"'{what}' is ambiguous: {len(found)} cards match ({names}); give more of the name, or the id"
        text = self.describe(found[0]) if self.describe else None
        return text or f"{found[0]}: no generated text"

    def find_card(self, d: Decision, what: str) -> str | None:
        """The card id meant by an option's number, a card id or a card name (or the start of one); None when
        nothing or more than one card matches."""
        found = self.find_cards(observed_decision(self.game, d, self.seat), what)
        return found[0] if len(found) == 1 else None

    def find_cards(self, d: Decision, what: str) -> list[str]:
        """The card ids an option's number, a card id or a card name (or the start of one) may mean: the exact
        matches if any, else those that start so. `d` as the person sees it: a hidden option names no card."""
        pack = self.game.pack
        if what.isdigit():
            i = int(what) - 1
            if not 0 <= i < len(d.options):
                return []
            option = d.options[i]
            if d.kind == "card" and isinstance(option, int):
                return [pack.cards[self.game.state.cards[option].defn].id]
            if isinstance(option, Hidden):
                return []
            found = [x for x in _CARD_IN_LABEL.findall(d.labels[i]) if pack.card(x)]
            return found[-1:]
        key = what.lower()
        for match in (lambda c: c.id == key or c.name.lower() == key,
                      lambda c: c.id.startswith(key) or c.name.lower().startswith(key)):
            ids = list(dict.fromkeys(c.id for c in pack.cards if match(c)))
            if ids:
                return ids
        return []

    def seat_detail(self, what: str) -> str:
        n = self.game.n
        if not what.isdigit() or not 1 <= int(what) <= n:
            return f"seat needs a number from 1 to {n}"
        return self.viewer.seat_detail(self.game, int(what) - 1)

    def save(self, path: str) -> bool:
        if not path:
            self.write("save needs a file name, e.g. save game.save.json")
            return False
        try:
            write_save(self.game, path)
        except (SaveError, OSError) as e:
            self.write(f"cannot save to {path}: {e}")
            return False
        self.write(f"saved after {len(self.game.decisions)} decisions to {path}; "
                   f"go on with: cardsmith play --load {path}")
        return True

    def quit(self) -> None:
        """Offer to save, then leave. Raises _Leave unless the save failed (the person stays)."""
        try:
            path = self.read("save first? a file name, or Enter to leave without saving: ").strip()
        except EOFError:
            path = ""
        if path and not self.save(path):
            return
        raise _Leave
