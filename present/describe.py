"""The describe back end: compiled programs as readable sentences, in English and Japanese.

Text is generated from the checked, macro-expanded AST the pipeline keeps for every program it
compiled (`CompileResult.asts`), never from text written on a card, so what is printed cannot
drift from what runs. Words come from the pack: `names: {ja: ...}` on rules entries and cards,
and the optional `glossary:` of rules.yaml (term -> {en, ja, en-plural, ja-counter}); a glossary
term that is a macro signature ("draw $n") gives the phrase its calls read as.

    d = Describer(compile_pack("earth"), "ja")
    d.ability("mossback-oak", "yellow")          # '自分の場のカードに成長コマを1個置く。'

One renderer per language (`EnglishRenderer` here, `JapaneseRenderer` in describe_ja.py) walks the
AST with a method per node class (`s_Gain`, `e_Count`, ...). A node no method knows is shown as
effect-language text and recorded in `Describer.fallbacks`, so tests can insist there are none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from cardsmith.compiler import ast as A
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.unparse import text as unparse

LANGS = ("en", "ja")
COMPARISONS = {">=", "<=", ">", "<", "=", "!="}


# --------------------------------------------------------------------------- words


class Lexicon:
    """The pack's words in one language: names from rules.yaml entries, the glossary, card names."""

    SECTIONS = ("resources", "counters", "params", "zones", "card-types", "stats", "pieces", "timings")

    def __init__(self, voc, pack, lang: str) -> None:
        self.voc = voc
        self.pack = pack
        self.lang = lang
        self.glossary: dict[str, dict[str, str]] = dict(getattr(voc, "glossary", {}) or {})
        self.kind: dict[str, str] = {}
        for sec in self.SECTIONS:
            for name in voc.sections.get(sec, {}):
                self.kind.setdefault(name, sec)
        for name in voc.flags:
            self.kind.setdefault(name, "flags")
        for tname, entry in voc.traits.items():
            self.kind.setdefault(tname, "traits")
            for v in entry.value:
                self.kind.setdefault(v, "trait-values")

    def _entry_names(self, name: str, sec: str | None = None) -> dict:
        if sec is None or name not in self.voc.sections.get(sec, {}):
            sec = self.kind.get(name)
        if sec in self.SECTIONS:
            entry = self.voc.sections[sec].get(name)
            value = entry.value if entry is not None else None
            if isinstance(value, dict):
                return value.get("names") or {}
        return {}

    def has(self, name: str) -> bool:
        """Whether the pack gives this term in this language (not just the fallback)."""
        return bool(self._entry_names(name).get(self.lang) or self.glossary.get(name, {}).get(self.lang))

    def term(self, name: str, plural: bool = False, sec: str | None = None) -> str:
        """The word for a name; `sec` picks the rules.yaml section when a name is in several
        (Earth's 'growth' is both a stat and a piece)."""
        g = self.glossary.get(name, {})
        names = self._entry_names(name, sec)
        if plural and self.lang == "en":
            if names.get("en-plural") or (not names.get("en") and g.get("en-plural")):
                return names.get("en-plural") or g["en-plural"]
            return pluralise(self.term(name, sec=sec))
        word = names.get(self.lang) or g.get(self.lang)
        if word:
            return word
        if self.lang != "en":  # no word in this language: the English one is the best we have
            en = names.get("en") or g.get("en")
            if en:
                return en
        return default_english(name)

    def piece(self, name: str, plural: bool = False) -> str:
        return self.term(name, plural, sec="pieces")

    def stat(self, name: str) -> str:
        return self.term(name, sec="stats")

    def counter(self, name: str | None, default: str = "個") -> str:
        """The Japanese counter word for amounts of a resource, piece or other term."""
        if name is None:
            return default
        return self.glossary.get(name, {}).get("ja-counter", default)

    def phrase(self, signature: str) -> str | None:
        return self.glossary.get(signature, {}).get(self.lang)

    def param(self, name: str):
        entry = self.voc.params.get(name)
        return entry.value if entry is not None else None

    def is_piece(self, name: str) -> bool:
        return name in self.voc.pieces

    def is_resource(self, name: str) -> bool:
        return name in self.voc.resources

    def is_counter(self, name: str) -> bool:
        return name in self.voc.counters

    def is_stat(self, name: str) -> bool:
        return name in self.voc.stats

    def is_type(self, name: str) -> bool:
        return name in self.voc.card_types

    def is_flag(self, name: str) -> bool:
        return name in self.voc.flags

    def timing_kind(self, name: str) -> str | None:
        entry = self.voc.timings.get(name)
        return entry.value.get("kind") if entry is not None else None

    def zone_owner(self, name: str) -> str:
        entry = self.voc.zones.get(name)
        return (entry.value or {}).get("owner", "shared") if entry is not None else "shared"

    def card_name(self, card) -> str:
        return (card.names or {}).get(self.lang) or card.name

    def scoring_name(self, step: dict) -> str:
        return (step.get("names") or {}).get(self.lang) or (
            step.get("name") if self.lang == "en" or not self.glossary.get(step["id"]) else self.term(step["id"]))


def default_english(name: str) -> str:
    words = name.split("-")
    return " ".join(w.upper() if w in ("vp", "tr") else w for w in words)


def pluralise(word: str) -> str:
    if not word or word[-1].isdigit() or not word[-1].isalpha() or word.isupper():
        return word
    head, _, last = word.rpartition(" ")
    if last.endswith("s") and not last.endswith("ss"):
        return word  # already a plural ('oceans')
    if re.search(r"(s|sh|ch|x|z)$", last):
        last += "es"
    elif re.search(r"[^aeiou]y$", last):
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}" if head else last


# --------------------------------------------------------------------------- macro calls


@dataclass
class CallInfo:
    """A macro call found in the expanded AST: its signature and its arguments by parameter."""

    signature: str
    call: str
    args: dict[str, A.CallArg] = field(default_factory=dict)


def call_info(group: A.Group) -> CallInfo:
    from cardsmith.compiler.parse import parse_program, plain_locate

    info = CallInfo(group.macro or "", group.call or "")
    words = (group.macro or "").split()[1:]
    prog = parse_program(group.call or "", plain_locate(), Diagnostics()) if group.call else None
    call = prog.body[0] if prog is not None and prog.body and isinstance(prog.body[0], A.Call) else None
    if call is not None and len(call.args) == len(words):
        for w, arg in zip(words, call.args, strict=True):
            if w.startswith("$"):
                info.args[w[1:]] = arg
    return info


# --------------------------------------------------------------------------- renderers


@dataclass
class Clause:
    """One rendered statement. `simple`: a single verb phrase that can be joined to its neighbours."""

    text: str
    simple: bool = True


class Renderer:
    """What both languages share: dispatch, numbers, the walk over bodies."""

    lang = ""

    def __init__(self, lex: Lexicon, mode: str = "card", fallbacks: list | None = None,
                 macro_sections: set[str] | None = None) -> None:
        self.lex = lex
        # card: self-contained text; rules: a macro with its own section is named; source: a macro the
        # glossary gives no phrase is named by its call as written (see Describer.source)
        self.mode = mode
        self.fallbacks = fallbacks if fallbacks is not None else []
        self.macro_sections = macro_sections or set()

    # dispatch
    def stmt(self, s) -> Clause:
        f = getattr(self, "s_" + type(s).__name__, None)
        if f is None:
            return Clause(self.fallback(s))
        return f(s)

    def value(self, e) -> str:
        f = getattr(self, "e_" + type(e).__name__, None)
        if f is None:
            return self.fallback(e)
        return f(e)

    def fallback(self, node) -> str:
        self.fallbacks.append(node)
        return f"“{unparse(node)}”"

    # numbers
    def const(self, e) -> int | None:
        """The integer an expression always has (a number, a number param, simple arithmetic), or None."""
        if isinstance(e, A.Num):
            return e.value
        if isinstance(e, A.Neg):
            v = self.const(e.operand)
            return -v if v is not None else None
        if isinstance(e, A.Name):
            v = self.lex.param(e.name)
            return v if isinstance(v, int) and not isinstance(v, bool) else None
        if isinstance(e, A.BinOp) and e.op in ("+", "-", "*"):
            a, b = self.const(e.left), self.const(e.right)
            if a is None or b is None:
                return None
            return a + b if e.op == "+" else a - b if e.op == "-" else a * b
        return None

    def is_param(self, e) -> bool:
        return isinstance(e, A.Name) and self.lex.param(e.name) is not None

    def is_bool(self, e) -> bool:
        if isinstance(e, A.BinOp):
            return e.op in COMPARISONS or e.op in ("and", "or")
        if isinstance(e, A.Not | A.Bool | A.CardIs):
            return True
        if isinstance(e, A.Attr):
            return self.lex.timing_kind(e.name) == "condition" or e.name == "requires"
        return False

    # bodies
    def clauses(self, body) -> list[Clause]:
        out = []
        for s in body:
            if isinstance(s, A.Group) and s.macro is None:
                inner = self.clauses(s.body)
                out.extend(inner)
            else:
                out.append(self.stmt(s))
        return out

    def program(self, body) -> str:
        raise NotImplementedError

    def condition(self, e) -> str:
        raise NotImplementedError

    # macro calls
    def macro(self, g: A.Group) -> Clause:
        info = call_info(g)
        phrase = self.lex.phrase(g.macro or "")
        # see uses_phrase; a decision's option (source mode) is better short than self-contained
        if phrase is not None and (self.mode == "source" or all(self.plain_arg(a) for a in info.args.values())):
            return Clause(self.fill(phrase, info), simple=True)
        if self.mode == "rules" and g.macro in self.macro_sections:
            return Clause(self.named(info), simple=True)
        if self.mode == "source" and phrase is None and info.call:
            return Clause(" ".join(default_english(w) for w in info.call.split()), simple=True)
        inner = self.clauses(g.body)
        if len(inner) == 1:
            return inner[0]
        return Clause(self.join_inline(inner), simple=False)

    def uses_phrase(self, g: A.Group) -> bool:
        """Whether a macro call reads as its glossary phrase (else as its body)."""
        if g.macro is None or self.lex.phrase(g.macro) is None:
            return False
        return all(self.plain_arg(a) for a in call_info(g).args.values())

    def plain_arg(self, a: A.CallArg) -> bool:
        """Whether an argument reads well inside a phrase: a number or a word, not a computed amount
        ('draw (start-cards of it)' reads better from the macro's body)."""
        if a.kind in ("num", "word", "it", "this"):
            return True
        if a.kind == "upto":
            return isinstance(a.value, A.Num) or self.const(a.value) is not None
        return False

    def named(self, info: CallInfo) -> str:
        return f"“{info.call}”"

    def fill(self, phrase: str, info: CallInfo) -> str:
        out = phrase
        for pname in sorted(info.args, key=len, reverse=True):
            out = out.replace(f"${pname}", self.call_arg(info.args[pname]))
        return out

    def call_arg(self, a: A.CallArg) -> str:
        if a.kind == "num":
            return str(a.value)
        if a.kind == "word":
            c = self.const(A.Name(str(a.value)))
            return str(c) if c is not None else self.lex.term(str(a.value))
        if a.kind == "upto":
            return self.up_to(self.number(a.value))
        if a.kind == "it":
            return self.it()
        if a.kind == "this":
            return self.this()
        if isinstance(a.value, A.Node):
            return self.number(a.value)
        return str(a.value)

    def number(self, e) -> str:
        c = self.const(e)
        return str(c) if c is not None else self.value(e)

    def join_inline(self, clauses: list[Clause]) -> str:
        raise NotImplementedError

    def up_to(self, n: str) -> str:
        raise NotImplementedError

    def it(self) -> str:
        raise NotImplementedError

    def this(self) -> str:
        raise NotImplementedError


class EnglishRenderer(Renderer):
    """Imperative English, as printed cards speak: 'Gain 2 soil and draw 1 card.'"""

    lang = "en"

    # ---------------------------------------------------------------- sentences
    def program(self, body) -> str:
        return " ".join(self.sentences(self.clauses(body)))

    def sentences(self, clauses: list[Clause]) -> list[str]:
        out: list[str] = []
        run: list[str] = []

        def flush():
            if run:
                out.append(sentence(_and(run)))
                run.clear()

        for c in clauses:
            if c.simple:
                run.append(c.text)
            else:
                flush()
                out.append(sentence(c.text))
        flush()
        return [you_may(s) for s in out]

    def join_inline(self, clauses: list[Clause]) -> str:
        parts: list[str] = []
        run: list[str] = []
        for c in clauses:
            if c.simple:
                run.append(c.text)
            else:
                if run:
                    parts.append(_and(run))
                    run = []
                parts.append(c.text)
        if run:
            parts.append(_and(run))
        return ", then ".join("you " + p if p.startswith("may ") else p for p in parts)

    def inline(self, body) -> str:
        return self.join_inline(self.clauses(body))

    def condition(self, e) -> str:
        return sentence(self.cond(e))

    # ---------------------------------------------------------------- small words
    def up_to(self, n: str) -> str:
        return f"up to {n}"

    def it(self) -> str:
        return "it"

    def this(self) -> str:
        return "this card"

    def noun(self, name: str, n: int | None, sec: str | None = None) -> str:
        return self.lex.term(name, plural=n != 1, sec=sec)

    def thing(self, name: str) -> str:
        """A flag or a piece a card has ('with canopy', 'without sprouts')."""
        if self.lex.is_piece(name) and not self.lex.is_flag(name):
            return self.lex.piece(name, plural=True)
        return self.lex.term(name)

    def amount(self, a: A.Amount, name: str | None, noun: str | None = None, sec: str | None = None) -> str:
        """'2 soil', 'up to 3 sprouts', 'all cards', 'soil equal to its cost'."""

        def word(n):
            if noun is not None:
                return noun if n == 1 else pluralise(noun)
            return self.noun(name, n, sec)

        if a.kind == "all":
            return f"all {'your ' if name and self.lex.is_resource(name) else ''}{word(2)}"
        c = self.const(a.value) if a.value is not None else None
        if c is not None:
            text = f"{c} {word(c)}"
        elif isinstance(a.value, A.VarX) or (isinstance(a.value, A.Name) and a.value.name.startswith("$")):
            text = f"{'X' if isinstance(a.value, A.VarX) else a.value.name} {word(2)}"
        else:
            text = f"{word(2)} equal to {self.value(a.value)}"
            return f"up to {text}" if a.kind == "up_to" else text
        return f"up to {text}" if a.kind == "up_to" else text

    def per(self, p: A.Per | None) -> str:
        if p is None:
            return ""
        if isinstance(p.of, A.Query):
            unit = self.query(p.of, plural=p.divisor != 1, article=False)
        else:
            unit = self.unit(p.of, plural=p.divisor != 1)
        return f" per {unit}" if p.divisor == 1 else f" per {p.divisor} {unit}"

    # ---------------------------------------------------------------- statements
    def s_Gain(self, s: A.Gain) -> Clause:
        return Clause(f"gain {self.amount(s.amount, s.resource, sec='resources')}{self.per(s.per)}")

    def s_Lose(self, s: A.Lose) -> Clause:
        return Clause(f"lose {self.amount(s.amount, s.resource, sec='resources')}{self.per(s.per)}")

    def s_Pay(self, s: A.Pay) -> Clause:
        return Clause("pay " + _and([self.amount(a, r, sec="resources") for a, r in s.items]))

    def s_SetCounter(self, s: A.SetCounter) -> Clause:
        return Clause(f"set {self.named_value(s.name)} to {self.number(s.value)}")

    def s_Score(self, s: A.Score) -> Clause:
        vp = self.lex.term("vp") if "vp" in self.lex.glossary else "VP"
        a = s.amount
        if s.per is not None or a.kind != "exact":
            return Clause(f"score {self.amount(a, None, noun=vp)}{self.per(s.per)}")
        c = self.const(a.value)
        if c is not None:
            return Clause(f"score {c} {vp}")
        e = a.value
        if isinstance(e, A.BinOp) and e.op == "*":
            k, rest = (self.const(e.left), e.right) if self.const(e.left) is not None else (self.const(e.right), e.left)
            if k is not None and self.has_unit(rest):
                return Clause(f"score {k} {vp} per {self.unit(rest, plural=False)}")
        if self.has_unit(e) and not isinstance(e, A.Name):
            return Clause(f"score 1 {vp} per {self.unit(e, plural=False)}")
        return Clause(f"score {vp} equal to {self.value(e)}")

    def s_May(self, s: A.May) -> Clause:
        inner = self.stmt(s.body)
        return Clause(f"may {inner.text}", simple=inner.simple)

    def s_Group(self, s: A.Group) -> Clause:
        if s.macro is not None:
            return self.macro(s)
        inner = self.clauses(s.body)
        if len(inner) == 1:
            return inner[0]
        return Clause(self.join_inline(inner), simple=all(c.simple for c in inner))

    def s_Nothing(self, s) -> Clause:
        return Clause("do nothing")

    def s_Emit(self, s: A.Emit) -> Clause:
        what = self.lex.term(s.event) + (f" {_a(self.lex.term(s.object))}" if s.object else "")
        return Clause(f"“when you {what}” abilities trigger", simple=False)

    def s_PassFirst(self, s: A.PassFirst) -> Clause:
        return Clause(f"pass the first player marker to {self.player(s.to)}")

    def s_EndGame(self, s) -> Clause:
        return Clause("end the game")

    def s_Shuffle(self, s: A.Shuffle) -> Clause:
        return Clause(f"shuffle {self.zone(s.zone)}")

    def s_Modify(self, s: A.Modify) -> Clause:
        n = self.const(s.by)
        stat = self.lex.stat(s.stat)
        q = self.query(s.query, plural=True, article=False)
        if n is None:
            return Clause(f"the {stat} of {q} changes by {self.value(s.by)}", simple=False)
        return Clause(f"the {stat} of {q} is {abs(n)} {'lower' if n < 0 else 'higher'}", simple=False)

    def s_Prevent(self, s: A.Prevent) -> Clause:
        names = _or([self.lex.term(n, plural=True) for n in s.names])
        who = "opponents may not" if s.opponents else "no player may"
        where = f"remove {names} from this card" if s.scope == "this" else f"take your {names}"
        return Clause(f"{who} {where}", simple=False)

    def s_ActivateTiming(self, s: A.ActivateTiming) -> Clause:
        return Clause(f"activate your {self.lex.term(s.timing)} abilities")

    def s_ActivateCopy(self, s: A.ActivateCopy) -> Clause:
        t = self.lex.term(s.timing)
        if isinstance(s.target, A.It):
            return Clause(f"activate its {t} ability")
        if isinstance(s.target, A.This):
            return Clause(f"activate this card's {t} ability")
        return Clause(f"activate the {t} ability of {self.target(s.target)}")

    def s_Mark(self, s: A.Mark) -> Clause:
        flag = self.lex.term(s.flag)
        if s.on:
            return Clause(f"mark {self.target(s.target)} as {flag}")
        return Clause(f"remove the {flag} mark from {self.target(s.target)}")

    def s_Flip(self, s: A.Flip) -> Clause:
        return Clause(f"flip {self.target(s.target)} to its other side")

    def s_Reveal(self, s: A.Reveal) -> Clause:
        return Clause(f"reveal {self.amount(s.amount, None, noun='card')} {self.source(s.source)}")

    def s_ChooseX(self, s: A.ChooseX) -> Clause:
        return Clause(f"choose a number X from {self.number(s.low)} to {self.number(s.high)}")

    def s_Move(self, s: A.Move) -> Clause:
        face = f" face {s.face}" if s.face else ""
        noun = "card"
        withs = ""
        if s.source.filters:
            q = self.query(A.Query((), tuple(s.source.filters)), plural=False, article=False)
            noun, _, withs = q.partition(" with ")
            withs = f" with {withs}" if withs else ""
        what = self.amount(s.amount, None, noun=noun) + withs
        return Clause(f"move {what} {self.source(s.source)} to {self.dest(s.dest)}{face}")

    def s_MoveCard(self, s: A.MoveCard) -> Clause:
        face = f" face {s.face}" if s.face else ""
        return Clause(f"move {self.target(s.card)} to {self.dest(s.dest)}{face}")

    def s_Place(self, s: A.Place) -> Clause:
        what = self.amount(s.amount, s.piece, sec="pieces")
        if s.owned:
            c = self.const(s.amount.value) if s.amount.value is not None else None
            what = f"{c} of your {self.lex.piece(s.piece, plural=True)}" if c is not None else f"your {what}"
        return Clause(f"place {what} on {self.target(s.target, many=self.many(s.amount))}")

    def s_Remove(self, s: A.Remove) -> Clause:
        return Clause(f"remove {self.amount(s.amount, s.piece, sec='pieces')} from "
                      f"{self.target(s.target, many=self.many(s.amount))}")

    def s_Costed(self, s: A.Costed) -> Clause:
        cost = self.stmt(s.cost).text
        return Clause(f"{cost}: {self.inline(s.body)}", simple=False)

    def s_If(self, s: A.If) -> Clause:
        text = f"if {self.cond(s.cond)}, {self.inline(s.then)}"
        if s.otherwise:
            text += f"; otherwise, {self.inline(s.otherwise)}"
        return Clause(text, simple=False)

    def s_Scoped(self, s: A.Scoped) -> Clause:
        who = self.players(s.players)
        inner = self.clauses(s.body)
        if all(c.simple for c in inner):
            comma = "," if s.players.start is not None else ""
            return Clause(f"{who}{comma} {_and([third_person(c.text) for c in inner])}", simple=False)
        return Clause(f"{who}: {self.join_inline(inner)}", simple=False)

    def s_ForEach(self, s: A.ForEach) -> Clause:
        order = " from right to left" if s.reverse else ""
        return Clause(f"for each {self.query(s.query, plural=False, article=False)}{order}, "
                      f"{self.inline(s.body)}", simple=False)

    def s_Repeat(self, s: A.Repeat) -> Clause:
        if s.kind == "times" and self.const(s.value) == 1:
            return self.s_Group(A.Group(s.body))
        body = self.inline(s.body)
        n = self.number(s.value) if s.kind in ("times", "up_to") else ""
        if s.kind == "times":
            return Clause(f"{n} {'time' if n == '1' else 'times'}: {body}", simple=False)
        if s.kind == "up_to":
            return Clause(f"up to {n} {'time' if n == '1' else 'times'}: {body}", simple=False)
        if s.kind == "until":
            return Clause(f"until {self.cond(s.value)}, repeat: {body}", simple=False)
        return Clause(f"while {self.cond(s.value)}, repeat: {body}", simple=False)

    def s_ChooseOne(self, s: A.ChooseOne) -> Clause:
        opts = [self.inline(o) for o in s.options]
        return Clause("choose one: " + "; or ".join(opts), simple=False)

    def s_ChooseCard(self, s: A.ChooseCard) -> Clause:
        return Clause(f"choose {self.query(s.query, plural=False, article=True)}, then {self.inline(s.body)}",
                      simple=False)

    def s_Trigger(self, s: A.Trigger) -> Clause:
        subject = {"you": "you", "any": "any player", "opponent": "an opponent"}.get(s.subject, s.subject)
        verb = self.lex.term(s.verb)
        if s.subject != "you" and not verb.endswith("s"):
            verb = third_person(verb)
        if isinstance(s.object, A.Query):
            obj = " " + self.query(s.object, plural=False, article=True)
        elif isinstance(s.object, str):
            obj = " " + self.lex.term(s.object, plural=True)
        else:
            obj = ""
        return Clause(f"when {subject} {verb}{obj}, {self.inline(s.body)}", simple=False)

    def s_Call(self, s: A.Call) -> Clause:
        return Clause(f"“{unparse(s)}”")

    # ---------------------------------------------------------------- cards and places
    def many(self, a: A.Amount) -> bool:
        c = self.const(a.value) if a.value is not None else None
        return c != 1

    def target(self, t, many: bool = False) -> str:
        if isinstance(t, A.It):
            return "it"
        if isinstance(t, A.This):
            return "this card"
        if isinstance(t, A.Param):
            return f"${t.name}"
        if isinstance(t, A.EachOf):
            return "each " + self.query(t.query, plural=False, article=False)
        if isinstance(t, A.AnyOf):
            if many:
                return self.query(t.query, plural=True, article=False)
            return self.query(t.query, plural=False, article=True)
        return self.fallback(t)

    def owner(self, ref: A.PlayerRef | None, zone: str) -> str:
        if ref is None:
            return "your " if self.lex.zone_owner(zone) == "player" else "the "
        return {"you": "your ", "active": "the active player's ", "left": "your left neighbour's ",
                "right": "your right neighbour's ", "first": "the first player's ",
                "others": "each opponent's ", "all": "every player's "}.get(ref.kind, "")

    def zone(self, z: A.ZoneRef) -> str:
        return self.owner(z.player, z.name) + self.lex.term(z.name)

    def zones(self, zs) -> str:
        if not zs:
            return ""
        first = zs[0]
        if all(z.player == first.player and self.lex.zone_owner(z.name) == self.lex.zone_owner(first.name)
               for z in zs):
            return self.owner(first.player, first.name) + _or([self.lex.term(z.name) for z in zs])
        return _or([self.zone(z) for z in zs])

    def source(self, s: A.Source) -> str:
        end = {"top": "the top of ", "bottom": "the bottom of "}.get(s.end or "", "")
        z = self.zone(s.zone)
        if end and z.startswith("the "):
            z = z[4:]
            end = end + "the "
        return f"from {end}{z}"

    def dest(self, d: A.Dest) -> str:
        end = {"top": "the top of ", "bottom": "the bottom of "}.get(d.end or "", "")
        cell = f" at row {self.number(d.cell.row)}, column {self.number(d.cell.column)}" if d.cell else ""
        return f"{end}{self.zone(d.zone)}{cell}"

    def adjective(self, f) -> str | None:
        if isinstance(f, A.TraitIs):
            return _or([self.lex.term(v) for v in f.values])
        if isinstance(f, A.Has) and self.lex.is_type(f.name):
            return self.lex.term(f.name)
        return None

    def with_phrase(self, f) -> str:
        if isinstance(f, A.Has):
            return f"with {self.thing(f.name)}"
        if isinstance(f, A.HasNo):
            return f"without {self.thing(f.name)}"
        if isinstance(f, A.HasAbility):
            return f"with {_a(self.lex.term(f.timing))} ability"
        if isinstance(f, A.StatCmp):
            return f"with {self.lex.stat(f.stat)} {self.compare_phrase(f.op, f.value)}"
        if isinstance(f, A.FilterNot):
            adj = self.adjective(f.inner)
            return f"that are not {adj}" if adj else f"not {self.with_phrase(f.inner)}"
        if isinstance(f, A.TraitIs):
            return f"with {self.lex.term(f.trait)} {_or([self.lex.term(v) for v in f.values])}"
        return self.fallback(f)

    def query(self, q: A.Query, plural: bool, article: bool) -> str:
        traits, types, withs = [], [], []
        other = False
        for f in q.filters:
            if isinstance(f, A.NotThis):
                other = True
                continue
            adj = self.adjective(f)
            if adj is None:
                withs.append(self.with_phrase(f))
            elif isinstance(f, A.TraitIs) and f.trait != "type":
                traits.insert(0, adj)  # 'kind tree and habitat cold' reads 'cold tree'
            else:
                types.append(adj)
        adjs = traits + types
        noun = "cards" if plural else "card"
        words = (["other"] if other else []) + adjs + [noun]
        text = " ".join(words)
        if article and not plural:
            text = _a(text)
        if q.zones:
            text += " in " + self.zones(q.zones)
        if withs:
            text += " " + " and ".join(withs)
        where = getattr(q, "where", None)
        if where is not None:
            text += f" for which {self.cond(where)}"
        return text

    def player(self, ref) -> str:
        if ref is None:
            return "you"
        return {"you": "you", "active": "the active player", "left": "your left neighbour",
                "right": "your right neighbour", "first": "the first player", "others": "each opponent",
                "all": "all players"}.get(ref.kind, ref.kind)

    def players(self, p: A.Players) -> str:
        start = ""
        if p.start is not None:
            start = f", starting with {self.player(p.start)}"
        if p.kind == "each":
            return f"each player{start}"
        if p.kind == "turns":
            return f"each player in turn order{start}"
        if p.kind == "each_other":
            return f"each opponent{start}"
        if p.kind == "chosen":
            return "a player of your choice"
        return self.player(p.ref)

    # ---------------------------------------------------------------- expressions
    def named_value(self, name: str) -> str:
        if self.lex.is_resource(name):
            return f"your {self.lex.term(name)}"
        return self.lex.term(name)

    def e_Num(self, e: A.Num) -> str:
        return str(e.value)

    def e_Bool(self, e: A.Bool) -> str:
        return "always" if e.value else "never"

    def e_VarX(self, e) -> str:
        return "X"

    def e_Name(self, e: A.Name) -> str:
        v = self.lex.param(e.name)
        if isinstance(v, int) and not isinstance(v, bool):
            return str(v)
        if isinstance(v, list):
            return f"{self.lex.term(e.name)} ({', '.join(map(str, v))})"
        if e.name == "player-count":
            return "the number of players"
        return self.named_value(e.name)

    def e_Param(self, e: A.Param) -> str:
        return f"${e.name}"

    def e_It(self, e) -> str:
        return "it"

    def e_This(self, e) -> str:
        return "this card"

    def e_Attr(self, e: A.Attr) -> str:
        ref = e.ref
        if isinstance(ref, A.PlayerRef):
            if ref.kind == "you":
                return self.named_value(e.name)
            return f"{self.player(ref)}'s {self.lex.term(e.name)}"
        owner = {A.It: "its", A.This: "this card's"}.get(type(ref), "its")
        if self.lex.timing_kind(e.name) == "condition":
            return f"{owner} {self.lex.term(e.name)} is met"
        if e.name == "requires":
            return f"{owner} requirements are met"
        if e.name in ("row", "column", "position"):
            return f"{owner} {e.name}"
        if self.lex.is_piece(e.name):
            return f"the number of {self.lex.piece(e.name, plural=True)} on {self.ref_object(ref)}"
        return f"{owner} {self.lex.stat(e.name)}"

    def ref_object(self, ref) -> str:
        return "this card" if isinstance(ref, A.This) else "it"

    def e_Pieces(self, e: A.Pieces) -> str:
        whose = "your " if e.owned else ""
        return f"the number of {whose}{self.lex.piece(e.piece, plural=True)} on {self.ref_object(e.ref)}"

    def e_Count(self, e: A.Count) -> str:
        return f"the number of {self.query(e.query, plural=True, article=False)}"

    def e_SumOf(self, e: A.SumOf) -> str:
        if self.lex.is_piece(e.name):
            return (f"the number of {self.lex.piece(e.name, plural=True)} on "
                    f"{self.query(e.query, plural=True, article=False)}")
        return f"the total {self.lex.stat(e.name)} of {self.query(e.query, plural=True, article=False)}"

    def e_Func(self, e: A.Func) -> str:
        f = getattr(self, "f_" + e.name, None)
        if f is None:
            return self.fallback(e)
        return f(e.args)

    def arg(self, a) -> str:
        if isinstance(a, A.Query):
            return self.query(a, plural=True, article=False)
        if isinstance(a, A.TraitIs):
            return _or([self.lex.term(v) for v in a.values])
        return self.value(a)

    def f_min(self, args) -> str:
        return "the smallest of " + _and([self.value(a) for a in args])

    def f_max(self, args) -> str:
        return "the largest of " + _and([self.value(a) for a in args])

    def f_abs(self, args) -> str:
        return f"the absolute value of {self.value(args[0])}"

    def f_nth(self, args) -> str:
        lst, idx = args
        values = self.lex.param(lst.name) if isinstance(lst, A.Name) else None
        shown = f"{self.lex.term(lst.name)} ({', '.join(map(str, values))})" if values else self.value(lst)
        if isinstance(idx, A.BinOp) and idx.op == "-" and self.const(idx.right) == 1:
            return f"the entry of {shown} given by {self.value(idx.left)} (the first entry for 1)"
        c = self.const(idx)
        if c is not None:
            return f"entry {c + 1} of {shown}"
        return f"the entry of {shown} given by {self.value(idx)} (the first entry for 0)"

    def f_sets(self, args) -> str:
        return f"the number of sets of {self.slots(args[1:])} among {self.arg(args[0])}"

    def slots(self, slots) -> str:
        return _and([f"one {self.arg(s) if not isinstance(s, A.Name) else self.lex.term(s.name)}" for s in slots])

    def f_path(self, args) -> str:
        return (f"the number of cards in the longest orthogonal line of {self.arg(args[0])} "
                f"through {self.value(args[1])}")

    def f_rows(self, args) -> str:
        return f"the number of complete rows made only of {self.arg(args[0])}"

    def f_columns(self, args) -> str:
        return f"the number of complete columns made only of {self.arg(args[0])}"

    def f_neighbours(self, args) -> str:
        return f"the number of {self.arg(args[0])} next to {self.value(args[1])}"

    def f_distinct(self, args) -> str:
        return f"the number of different cards among {self.arg(args[0])}"

    def f_occurrences(self, args) -> str:
        return f"the number of {self.arg(args[1])} symbols on {self.arg(args[0])}"

    def e_CardIs(self, e: A.CardIs) -> str:
        who = "this card" if isinstance(e.ref, A.This) else "it"
        adj = self.adjective(e.filter)
        if adj is not None:
            return f"{who} is {_a(adj)} card"
        return f"{who} is a card {self.with_phrase(e.filter)}"

    _ARITH: ClassVar[dict[str, str]] = {"+": "+", "-": "−", "*": "×", "/": "÷", "%": "mod"}

    def e_BinOp(self, e: A.BinOp) -> str:
        if e.op in COMPARISONS or e.op in ("and", "or"):
            return self.cond(e)
        c = self.const(e)
        if c is not None:
            return str(c)
        left, right = self.operand(e.left), self.operand(e.right)
        text = f"{left} {self._ARITH.get(e.op, e.op)} {right}"
        if e.op == "/":
            text += " (rounded down)"
        return text

    def operand(self, e) -> str:
        text = self.value(e)
        if isinstance(e, A.BinOp) or (" " in text and not text[0].isdigit()):
            return f"({text})"
        return text

    def e_Not(self, e: A.Not) -> str:
        return self.cond(e)

    def e_Neg(self, e: A.Neg) -> str:
        c = self.const(e)
        return str(c) if c is not None else f"−{self.operand(e.operand)}"

    # units: what a counting expression counts, for 'per' and 'for each'
    def has_unit(self, e) -> bool:
        if isinstance(e, A.Count | A.Pieces):
            return True
        if isinstance(e, A.SumOf):
            return self.lex.is_piece(e.name)
        if isinstance(e, A.Name):
            return self.lex.is_resource(e.name) or self.lex.is_counter(e.name)
        if isinstance(e, A.Func):
            return e.name in ("path", "rows", "columns", "neighbours", "sets", "distinct", "occurrences")
        return False

    def unit(self, e, plural: bool) -> str:
        if isinstance(e, A.Count):
            return self.query(e.query, plural=plural, article=False)
        if isinstance(e, A.SumOf) and self.lex.is_piece(e.name):
            return (f"{self.lex.piece(e.name, plural=plural)} on "
                    f"{self.query(e.query, plural=True, article=False)}")
        if isinstance(e, A.Pieces):
            return f"{self.lex.piece(e.piece, plural=plural)}{' of yours' if e.owned else ''} on " \
                   f"{self.ref_object(e.ref)}"
        if isinstance(e, A.Name):
            return self.lex.term(e.name, plural=plural)
        if isinstance(e, A.Func):
            cards = "cards" if plural else "card"
            a = e.args
            if e.name == "path":
                return (f"{cards} in the longest orthogonal line of {self.arg(a[0])} through "
                        f"{self.value(a[1])}")
            if e.name in ("rows", "columns"):
                what = e.name if plural else e.name[:-1]
                return f"complete {what} made only of {self.arg(a[0])}"
            if e.name == "neighbours":
                return f"{self.arg(a[0]) if plural else self.query(a[0], False, False)} next to {self.value(a[1])}"
            if e.name == "sets":
                return f"{'sets' if plural else 'set'} of {self.slots(a[1:])} among {self.arg(a[0])}"
            if e.name == "distinct":
                return f"different {cards} among {self.arg(a[0])}"
            if e.name == "occurrences":
                return f"{self.arg(a[1])} {'symbols' if plural else 'symbol'} on {self.arg(a[0])}"
        return f"({self.value(e)})"

    # conditions
    _CMP: ClassVar[dict[str, str]] = {
        ">=": "at least", "<=": "at most", ">": "more than", "<": "fewer than", "=": "exactly",
            "!=": "other than"}

    def compare_phrase(self, op: str, rhs) -> str:
        c = self.const(rhs)
        r = str(c) if c is not None else self.value(rhs)
        if c is not None:
            return {">=": f"{r} or more", "<=": f"{r} or less", ">": f"more than {r}", "<": f"less than {r}",
                    "=": r, "!=": f"other than {r}"}[op]
        return {">=": f"at least {r}", "<=": f"at most {r}", ">": f"more than {r}", "<": f"less than {r}",
                "=": f"equal to {r}", "!=": f"other than {r}"}[op]

    def cond(self, e) -> str:
        if isinstance(e, A.BinOp) and e.op == "and":
            return f"{self.cond(e.left)} and {self.cond(e.right)}"
        if isinstance(e, A.BinOp) and e.op == "or":
            return f"{self.cond(e.left)} or {self.cond(e.right)}"
        if isinstance(e, A.Not):
            inner = e.operand
            if isinstance(inner, A.BinOp) and inner.op in COMPARISONS:
                flipped = {">=": "<", "<=": ">", ">": "<=", "<": ">=", "=": "!=", "!=": "="}[inner.op]
                return self.cond(A.BinOp(flipped, inner.left, inner.right))
            return f"it is not the case that {self.cond(inner)}"
        if isinstance(e, A.BinOp) and e.op in COMPARISONS:
            return self.compare(e)
        if isinstance(e, A.Bool):
            return "always" if e.value else "never"
        if isinstance(e, A.Attr | A.CardIs):
            return self.value(e)
        return f"{self.value(e)} is not 0"

    def compare(self, e: A.BinOp) -> str:
        left, op, right = e.left, e.op, e.right
        if self.const(left) is not None and self.const(right) is None:  # 3 <= x  ->  x >= 3
            left, right = right, left
            op = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "=": "=", "!=": "!="}[op]
        c = self.const(right)
        if op == ">" and c == 0:
            op, c = ">=", 1
        r = str(c) if c is not None else self.value(right)
        cmp = self._CMP[op] if op != "=" or c is None else "exactly"
        if self.is_param(left):  # a rule option: name it ('if the beginner side is 1'), do not fold it
            word = {">=": "at least ", "<=": "at most ", ">": "more than ", "<": "less than ", "=": "",
                    "!=": "not "}[op]
            return f"{self.lex.term(left.name)} is {word}{r}"
        if isinstance(left, A.Count) and c is not None:
            noun = self.query(left.query, plural=c != 1, article=False)
            be = "is" if c == 1 else "are"
            if op == "=":
                return f"there {be} exactly {r} {noun}" if c else f"there are no {noun}"
            return f"there {be} {cmp} {r} {noun}"
        if isinstance(left, A.Name) and self.lex.is_resource(left.name) and c is not None:
            res = self.lex.term(left.name, plural=c != 1)
            if op == "=":
                return f"you have exactly {r} {res}" if c else f"you have no {res}"
            return f"you have {cmp} {r} {res}"
        if self.has_unit(left) and not isinstance(left, A.Name) and c is not None:
            be = "is" if c == 1 else "are"
            what = self.unit(left, plural=c != 1)
            if op == "=" and c == 0:
                return f"there are no {self.unit(left, plural=True)}"
            return f"there {be} {cmp} {r} {what}"
        lhs = self.value(left)
        if op == "=":
            return f"{lhs} is {r}"
        if op == "!=":
            return f"{lhs} is not {r}"
        word = {">=": "at least", "<=": "at most", ">": "more than", "<": "less than"}[op]
        return f"{lhs} is {word} {r}"


# --------------------------------------------------------------------------- English helpers


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "”.")) else text + "."


def you_may(s: str) -> str:
    return "You may " + s[4:] if s.startswith("May ") else s


def _and(parts: list[str]) -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _or(parts: list[str]) -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def _a(text: str) -> str:
    if text.startswith("other "):
        return "an" + text
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


_MODALS = {"may", "must", "can"}


def third_person(text: str) -> str:
    """'draw 2 cards and gain 1 soil' -> 'draws 2 cards and gains 1 soil' (for 'each opponent ...')."""
    word, sep, rest = text.partition(" ")
    joined = text if word in _MODALS or not _looks_like_verb(word) else _verb_s(word) + sep + rest
    return re.sub(r"\byour\b", "their", re.sub(r"\byou\b", "they", joined))


def _looks_like_verb(word: str) -> bool:
    return word.isalpha() and word.islower() and word not in ("the", "a", "an", "all", "each", "up")


def _verb_s(word: str) -> str:
    if word == "have":
        return "has"
    if re.search(r"(s|sh|ch|x|z|o)$", word):
        return word + "es"
    if re.search(r"[^aeiou]y$", word):
        return word[:-1] + "ies"
    return word + "s"


def english_plural_marks(text: str) -> str:
    """'draw 1 card(s)' -> 'draw 1 card'; 'draw up to 2 card(s)' -> 'draw up to 2 cards'."""

    def fix(m: re.Match) -> str:
        before = text[: m.start()]
        num = re.findall(r"(\d+)\D*$", before)
        singular = bool(num) and num[-1] == "1" and not before.rstrip().endswith("up to 1")
        return m.group(1) + ("" if singular else "s")

    return re.sub(r"(\w+)\(s\)", fix, text)


class _EnglishPhrases(EnglishRenderer):
    def fill(self, phrase: str, info: CallInfo) -> str:
        return english_plural_marks(super().fill(phrase, info))


# --------------------------------------------------------------------------- the facade


@dataclass
class AbilityText:
    timing: str
    label: str  # the timing's name in the language
    kind: str  # activated | on-play | ongoing | end | condition | scoring | requires
    text: str


@dataclass(frozen=True)
class SourceText:
    """Effect-language source as text. `free_it`: the source speaks of 'it' without choosing it itself,
    so 'it' is a card its context chose (the card a loop or a trigger is at)."""

    text: str
    free_it: bool


class Describer:
    """Text for a compiled pack in one language. Build once per pack and language."""

    def __init__(self, result, lang: str = "en", mode: str = "card") -> None:
        if lang not in LANGS:
            raise ValueError(f"unknown language '{lang}': choose one of {', '.join(LANGS)}")
        if result.compiler is None or result.pack is None:
            raise ValueError("describe needs a pack that compiled without errors")
        self.result = result
        self.pack = result.pack
        self.voc = result.compiler.voc
        self.lang = lang
        self.lex = Lexicon(self.voc, self.pack, lang)
        self.fallbacks: list = []
        self.macros = result.compiler.macros
        self.mode = mode
        self.renderer = self.make_renderer(mode)

    def make_renderer(self, mode: str, macro_sections: set[str] | None = None) -> Renderer:
        if self.lang == "ja":
            from .describe_ja import JapaneseRenderer

            return JapaneseRenderer(self.lex, mode, self.fallbacks, macro_sections)
        return _EnglishPhrases(self.lex, mode, self.fallbacks, macro_sections)

    # programs
    def program(self, body) -> str:
        return self.renderer.program(body)

    def condition(self, e) -> str:
        return self.renderer.condition(e)

    def value(self, e) -> str:
        return self.renderer.value(e)

    def code(self, name: str) -> str | None:
        """The text of one compiled program by its code name ('setup', 'scoring base', 'oak yellow')."""
        node = self.result.asts.get(name)
        if node is None:
            return None
        if isinstance(node, tuple):
            return self.program(node)
        if self.renderer.is_bool(node):
            return self.condition(node)
        return self.value(node)

    def source(self, text: str) -> SourceText | None:
        """Text for a piece of effect-language source written against this pack, such as a decision's
        option (the VM labels a choice with its source). It is parsed, macro-expanded and checked as an
        ability of any card; a macro call reads as its glossary phrase, else as the call as written (its
        body is the rules' machinery, not what a player picks). None when the source does not parse or
        check, or holds a construct the renderer cannot say."""
        from cardsmith.compiler.check import Checker, Context
        from cardsmith.compiler.expand import BROKEN, Expander
        from cardsmith.compiler.parse import parse_program, plain_locate

        diags = Diagnostics()
        prog = parse_program(text, plain_locate(), diags)
        if prog is None or diags.has_errors:
            return None
        expander = Expander(self.macros, diags)
        prog = expander.program(prog)
        checker = Checker(self.voc, diags, set(self.macros) - {BROKEN}, expander.broken)
        checker.program(prog, Context("ability", has_this=True, has_it=True, scoring=True))
        if diags.has_errors:
            return None
        # Checked again with no card in scope: an error about 'it' means nothing in the source chose it.
        checker.program(prog, Context("ability", has_this=True, scoring=True))
        free_it = any(d.code == "E112" and d.message.startswith("'it'") for d in diags.errors)
        renderer = self.make_renderer("source")
        renderer.fallbacks = []  # not the describer's: a label that cannot be said is the caller's fallback
        rendered = renderer.program(prog.body)
        return None if renderer.fallbacks else SourceText(rendered, free_it)

    # cards
    def timing_label(self, timing: str) -> str:
        return self.lex.term(timing)

    def ability(self, card_id: str, timing: str) -> str | None:
        return self.code(f"{card_id} {timing}")

    def card(self, card) -> list[AbilityText]:
        out = []
        for timing in self._timings(card):
            text = self.code(f"{card.id} {timing}")
            if text is None:
                continue
            kind = self.lex.timing_kind(timing) or "activated"
            out.append(AbilityText(timing, self.timing_label(timing), kind, text))
        if f"{card.id} requires" in self.result.asts:
            label = self.lex.term("requires") if "requires" in self.lex.glossary else \
                ("Requires" if self.lang == "en" else "条件")
            out.insert(0, AbilityText("requires", label, "requires", self.code(f"{card.id} requires")))
        return out

    def _timings(self, card) -> list[str]:
        """The card's timings in the order rules.yaml declares them."""
        present = {name.split(" ", 1)[1] for name in self.result.asts if name.startswith(card.id + " ")}
        return [t for t in self.voc.timings if t in present]

    def card_name(self, card) -> str:
        return self.lex.card_name(card)

    def macro_body(self, signature: str) -> str | None:
        """A macro's body as text, its $parameters left as they are (for the rule reference)."""
        for ms in self.macros.values():
            for m in ms:
                if m.signature == signature:
                    from cardsmith.compiler.expand import Expander

                    body = Expander(self.macros, Diagnostics()).program(m.body).body
                    return self.program(body)
        return None


def describe_card(result, card_id: str, lang: str = "en") -> list[AbilityText]:
    d = Describer(result, lang)
    card = result.pack.card(card_id)
    if card is None:
        raise KeyError(card_id)
    return d.card(card)
