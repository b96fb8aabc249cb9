"""The VM: runs bytecode against a GameState. It knows no game by name.

Every program (the game flow, card abilities, triggers, scoring steps) runs as a frame on one
explicit frame stack, so the whole run can stop at any decision and resume later: a decision
opcode computes its options, hands the VM a Decision and is run again, with the answer, when
`resume` is called. Decision opcodes change nothing before their answer arrives, so re-running
them is safe.

A step budget (between two decisions) and a trigger-depth limit stop runaway programs with a
RuntimeFault that names the program and its source line. The opcode handlers live in the
`ops_*` modules, one per family; `linker` prepares programs and `fuser` compiles runs of them.
"""

from __future__ import annotations

from typing import Any

from cardsmith.bytecode import CardDef, Code, CompiledPack, Span
from cardsmith.runtime.state import SHARED, Card, GameState, automa_seats
from cardsmith.runtime.visibility import visibility_for

from .claims import due
from .core import (
    CHANGED,
    MAX_FRAMES,
    MAX_TRIGGER_DEPTH,
    NO_FRAME,
    RETURNED,
    STEP_BUDGET,
    SUSPEND,
    WORK_BUDGET,
    Decision,
    Frame,
    Linked,
    Query,
    RuntimeFault,
    others,
    owner,
)
from .linker import Linker, linker_for


class VM:
    def __init__(self, pack: CompiledPack, state: GameState, linker: Linker | None = None,
                 log: list | None = None) -> None:
        self.pack = pack
        self.state = state
        self.linker = linker or linker_for(pack)
        self.frames: list[Frame] = []
        self.pending: Decision | None = None
        self.answer: int | None = None
        self.log = log
        self.sync = 0  # >0 while evaluating a check or condition: decisions take their default
        self.steps = 0
        self.budget = STEP_BUDGET
        self.total_steps = 0
        self.meter = [0]  # nested work since the last decision (see charge), shared with the VM's trials
        self.trial = None  # a Trial (trial.py) while this VM tries a program on a copy of the game
        vis = visibility_for(pack)
        self.vis = vis if vis.hides else None  # what each seat has seen, kept where some zone hides cards
        self.traced: int | None = None  # the card 'move all' takes next (visibility.py)
        self.at_once = None  # an 'each player at once' under way (ops_players.AtOnce)

    # --- frames and running
    def push(self, code: Code | Linked, you: int, it: int | None = None, this: int | None = None,
             step: str | None = None, depth: int = 0, decider: int | None = None) -> None:
        lc = code if isinstance(code, Linked) else self.linker.link(code)
        if len(self.frames) >= MAX_FRAMES:
            raise self.fault("too many nested programs (a macro or trigger that calls itself?)")
        frame = Frame(lc, you, it, this, step, depth)
        frame.decider = decider  # an ability run in a chosen player's scope: the chooser still decides
        self.frames.append(frame)

    def run(self) -> Decision | None:
        """Run until a decision is needed (returned) or no frame is left (None)."""
        frames = self.frames
        left = self.budget - self.steps
        n = 0
        r = None
        try:
            while frames:
                f = frames[-1]
                ops = f.ops
                while True:
                    ins = ops[f.pc]
                    f.pc += 1
                    n += 1
                    r = ins[0](self, f, ins)
                    if r is not None:
                        break
                    if n > left:
                        raise self.fault(f"the step budget of {self.budget:,} instructions ran out without a "
                                         "decision (a loop that never ends?)")
                if r is SUSPEND:
                    self.steps = 0
                    self.meter[0] = 0
                    return self.pending
        finally:
            self.total_steps += n
        self.steps += n
        return None

    def resume(self, answer: int) -> None:
        self.pending = None
        self.answer = answer

    def charge(self, work: int) -> None:
        """Count nested work (see WORK_BUDGET); past the budget the program is a runaway, stopped like one that
        runs out of steps."""
        meter = self.meter
        meter[0] += work
        if meter[0] > WORK_BUDGET:
            meter[0] = 0  # the fault ends this run; a caller that recovers starts afresh
            raise self.fault(f"the work budget of {WORK_BUDGET:,} nested steps (conditions, trials, payment "
                             "searches) ran out without a decision (a loop that never ends?)")

    def fault(self, message: str) -> RuntimeFault:
        f = self.frames[-1] if self.frames else None
        if f is None:
            return RuntimeFault(message, Span("<runtime>", 0, 0), "<none>")
        return RuntimeFault(message, self._frame_span(f), f.lc.name)

    def _frame_span(self, f: Frame) -> Span:
        spans = f.lc.code.spans
        if not spans:
            return Span("<runtime>", 0, 0)
        return self.pack.span(spans[min(max(f.pc - 1, 0), len(spans) - 1)])

    def trigger_loop(self) -> str:
        """Each trigger program on the frame stack once, innermost first, with its source line:
        the fault names every card of a storm, not only the one that fired last."""
        seen: dict[str, Span] = {}
        for f in reversed(self.frames):
            if f.depth > 0 and f.lc.name not in seen:
                seen[f.lc.name] = self._frame_span(f)
        return ", ".join(f"{name} at {span}" for name, span in seen.items()) or "no trigger program"

    def recall(self, f: Frame) -> Any:
        """What a decision instruction computed before it suspended, now that it runs again with the
        answer: nothing can change in between, so its options need not be computed twice."""
        m = f.memo
        if m is None:
            return None
        f.memo = None
        return m[1] if m[0] == f.pc and self.answer is not None else None

    def decide(self, f: Frame, kind: str, prompt: str, options: list, labels=None, default: int = 0,
               memo: Any = None) -> int | None:
        """The answer to a decision, or None after suspending for the agent (keeping `memo` for `recall`)."""
        ao = self.at_once if not self.sync and self.trial is None else None
        if self.answer is not None:
            a = self.answer
            self.answer = None
            if not 0 <= a < len(options):
                raise self.fault(f"answer {a} is not one of the {len(options)} options of '{prompt}'")
            if ao is not None:
                ao.note(kind, prompt, options[a])
            return a
        if len(options) == 1:
            if ao is not None:
                ao.note(kind, prompt, options[0])
                ao.skip()
            return 0
        if self.sync:
            return default
        if self.trial is not None:  # a trial answers on the spot (trial.py); a trigger's decision: the first
            return self.trial.answer(len(options)) if f.depth == self.trial.depth else 0
        if ao is not None and (a := ao.answer(kind, prompt, options)) is not None:
            return a  # 'each player at once': the answer given unseen
        if memo is not None:
            f.memo = (f.pc, memo)
        f.pc -= 1  # run this instruction again, with the answer
        # A choice that comes up for an automa seat is made by the active player (it decides nothing itself); in a
        # chosen player's scope, the chooser still decides (the frame's decider).
        who = f.decider if f.decider is not None else f.you
        seat = who if who < self.state.n else self.state.active
        self.pending = Decision(seat, kind, prompt, options,
                                labels if labels is not None else lambda: [str(o) for o in options])
        return None

    def eval_sync(self, lc: Linked, you: int, it: int | None = None, this: int | None = None,
                  step: str | None = None, vars: dict | None = None) -> Any:
        """Evaluate a small program to a value on the spot (conditions, cost checks); `vars` are the local
        names of the program it belongs to (a query's 'where' sees them)."""
        if lc.pure:  # nothing in it decides, starts a program or ends one: run it on its own frame
            frame = Frame(lc, you, it, this, step, vars=vars)
            ops, end = lc.ops, len(lc.code.ops)
            self.sync += 1
            try:
                while frame.pc != end:
                    ins = ops[frame.pc]
                    frame.pc += 1
                    if ins[0](self, frame, ins) is not None:  # pragma: no cover - a handler out of PURE
                        raise RuntimeError(f"internal: {ins!r} is not pure")
            finally:
                self.sync -= 1
            meter = self.meter  # charge(end), inline: this is the VM's hottest call
            meter[0] += end
            if meter[0] > WORK_BUDGET:
                self.charge(0)
            return frame.stack[-1] if frame.stack else None
        saved_frames, saved_answer = self.frames, self.answer
        self.frames = [Frame(lc, you, it, this, step, vars=vars)]
        self.answer = None
        self.sync += 1
        result = None
        n = 0
        try:
            frame = self.frames[0]
            while self.frames:
                top = self.frames[-1]
                r = None
                while r is None:
                    ins = top.ops[top.pc]
                    top.pc += 1
                    n += 1
                    r = ins[0](self, top, ins)
                if r is RETURNED and top is frame:
                    result = frame.stack[-1] if frame.stack else None
        finally:
            self.sync -= 1
            self.frames, self.answer = saved_frames, saved_answer
        self.charge(n)
        return result

    # --- card facts
    def defn(self, card: Card) -> CardDef:
        return self.pack.cards[card.defn]

    def stat(self, card: Card, name: str, seat: int) -> int:
        value = self.linker.stats[card.defn].get(name, 0)
        if self.state.live_modifiers and name in self.linker.modified_stats:
            mods = self.linker.modifiers
            cards = self.state.cards
            for mid in self.state.live_modifiers:
                m = cards[mid]
                if m.seat != seat:
                    continue
                for stat, pred, amount, zones in mods[m.defn]:
                    if stat == name and (zones is None or card.zone in zones) and pred(self, NO_FRAME, card):
                        value += amount
        return value

    def seat_label(self, seat: int) -> str:
        """A seat as a person reads it: 'player 2', or an automa seat's name."""
        if seat < self.state.n:
            return f"player {seat + 1}"
        a = automa_seats(self.pack, self.state.n)[seat - self.state.n]
        return a.get("name") or a["id"]

    def label(self, cid: int) -> str:
        c = self.state.cards[cid]
        d = self.pack.cards[c.defn]
        where = f" at {self.linker.geo[c.zone].label_in(self.state.zones[(c.zone, c.seat)], c.pos)}" \
            if c.pos >= 0 else ""
        return f"{d.name} ({d.id}){where}"

    # --- zones
    def zone_cards(self, zname: str, seat: int) -> list[int]:
        return [c for c in self.state.zones[(zname, seat)] if c is not None]

    def query(self, q: Query, f: Frame) -> list[int]:
        if q.run is not None:
            return q.run(self, f)
        out = []
        cards = self.state.cards
        zones = self.state.zones
        pred = q.pred
        for zname, mode in q.zones:
            if mode in ("others", "all"):
                seats = others(self, f.you, mode == "all")
            else:
                seats = (owner(self, mode, f),)
            for seat in seats:
                for cid in zones[(zname, seat)]:
                    if cid is not None and (pred is None or pred(self, f, cards[cid])):
                        out.append(cid)
        if q.reverse:
            out.reverse()
        return out

    def move(self, cid: int, zname: str, seat: int, end: str | None = None, pos: int = -1,
             face: str | None = None) -> None:
        st = self.state
        card = st.writable(cid)
        if self.vis is not None:
            self.vis.moved(st, card, zname, seat, end, pos, face, self.traced == cid)
            self.traced = None
        old = st.zones[(card.zone, card.seat)]
        if card.pos >= 0:
            old[card.pos] = None
        else:
            old.remove(cid)
        was_live = card.zone in self.linker.in_play
        new = st.zones[(zname, seat)]
        if pos >= 0:
            new[pos] = cid
        elif end == "bottom":
            new.insert(0, cid)
        else:
            new.append(cid)
        if self.log is not None:
            self.log.append(("move", self.pack.cards[card.defn].id, card.zone, card.seat, zname, seat))
        card.zone, card.seat, card.pos = zname, seat, pos
        if face is not None:
            card.face_down = face == "down"
        is_live = zname in self.linker.in_play
        if was_live != is_live:
            self._relive(card, is_live)

    def _relive(self, card: Card, live: bool) -> None:
        st = self.state
        for lst, table in ((st.live_triggers, self.linker.live_cards), (st.live_modifiers, self.linker.modifiers)):
            if table[card.defn]:
                if live and card.id not in lst:
                    lst.append(card.id)
                elif not live and card.id in lst:
                    lst.remove(card.id)

    # --- prohibitions
    def prevented(self, f: Frame, name: str, seat: int, card: Card | None = None) -> bool:
        """Whether a live 'prevent' stops the running program from taking counter `name` from player
        `seat`, or (with `card`) piece `name` from that card, whose owner is `seat`. The taker is the
        owner of the card whose ability runs; rules-level programs are nobody's opponent."""
        st = self.state
        by = st.cards[f.this].seat if f.this is not None else SHARED
        opponent = 0 <= by != seat
        lk = self.linker
        if not opponent and not lk.prevent_anyone:
            return False
        if card is not None and card.zone in lk.in_play:
            for names, opp, scope in lk.prevents[card.defn]:
                if scope == "this" and name in names and (opponent or not opp):
                    return True
        if seat < 0 or (card is None and name not in self.pack.resources):  # shared counters are nobody's
            return False
        for z in lk.in_play:
            for cid in st.zones.get((z, seat), ()):
                if cid is None:
                    continue
                for names, opp, scope in lk.prevents[st.cards[cid].defn]:
                    if scope == "you" and name in names and (opponent or not opp):
                        return True
        return False

    # --- events
    def fire(self, f: Frame, verb: str, seat: int, card: int | None, name: str | None) -> Any:
        """Start every live trigger that matches; they run before the emitting program goes on."""
        lk = self.linker
        listening = lk._listening.get((verb, name))
        if listening is None:
            listening = lk.listens(verb, name)
        if not listening:
            return None
        st = self.state
        started = []
        by_verb = lk.triggers_by_verb
        for tid in list(st.live_triggers):
            tcard = st.cards[tid]
            for subject, _, tname, pred, lc in by_verb[tcard.defn].get(verb, ()):
                if (subject == "you" and seat != tcard.seat) or (subject == "opponent" and seat == tcard.seat):
                    continue
                if tname is not None and tname != name:
                    continue
                if pred is not None and (card is None or card == tid or not pred(self, f, st.cards[card])):
                    continue  # a card's triggers about cards never fire for the card itself
                started.append((lc, tcard.seat, card, tid))
        changed = name if name is not None else verb
        claims = due(self, f, changed) if lk.claim_names and lk.claims_read(changed) else ()
        if not started:
            return self._claim(f, claims) if claims else None
        if f.depth + 1 > MAX_TRIGGER_DEPTH:
            names = ", ".join(sorted({self.pack.cards[st.cards[t].defn].id for _, _, _, t in started}))
            raise self.fault(f"triggers set each other off more than {MAX_TRIGGER_DEPTH} times deep "
                             f"(cards: {names}; the loop runs through {self.trigger_loop()})")
        for lc, holder, card_id, tid in reversed(started):
            self.push(lc, holder, card_id, tid, f.step, f.depth + 1)
        if self.log is not None:
            self.log.append(("trigger", verb, [self.pack.cards[st.cards[t].defn].id for _, _, _, t in started]))
        if claims:
            self._claim(f, claims)  # above the triggers: a claim runs the moment its condition holds
        return CHANGED

    def changed(self, f: Frame, *names: str) -> Any:
        """After a change that starts no trigger (a card moved out of one zone into another, a counter set):
        run the claims that read one of `names` and now hold."""
        claims = [c for name in names if self.linker.claims_read(name) for c in due(self, f, name)]
        return self._claim(f, claims) if claims else None

    def _claim(self, f: Frame, claims) -> Any:
        """Push the bodies of claims that just came true, the first to run on top."""
        if f.depth + 1 > MAX_TRIGGER_DEPTH:
            raise self.fault(f"claims and triggers set each other off more than {MAX_TRIGGER_DEPTH} times deep "
                             f"(the loop runs through {self.trigger_loop()})")
        for body, seat, card, holder in reversed(claims):
            self.push(body, seat, card, holder, f.step, f.depth + 1)
        if self.log is not None:
            self.log.extend(("claim", seat, body.name, self.pack.cards[self.state.cards[card].defn].id
                             if card is not None else None) for body, seat, card, _ in claims)
        return CHANGED
