"""The describe back end: compiled programs as readable sentences, in every language of `LANGUAGES`.

Text is generated from the checked, macro-expanded AST the pipeline keeps for every program it
compiled (`CompileResult.asts`), never from text written on a card, so what is printed cannot
drift from what runs. Words come from the pack (lexicon.py): `names: {ja: ...}` on rules entries and
cards, and the optional `glossary:` of rules.yaml (term -> {en, ja, en-plural, ja-counter}); a glossary
term that is a macro signature ("draw $n") gives the phrase its calls read as.

    d = Describer(compile_pack("earth"), "ja")
    d.ability("mossback-oak", "yellow")          # '自分の場に成長コマを1個置く。'

Two steps: the planner (text_plan.py) decides once, for every language, what a program says; a
realiser (text_realise.py and one short subclass per language, with the language's templates in
lang/CODE.yaml) says it. A node the planner does not know is shown as effect-language text and
recorded in `Describer.fallbacks`, so tests can insist there are none.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardsmith.compiler import ast as A
from cardsmith.compiler.diagnostics import Diagnostics

from .lexicon import Lexicon
from .text_english import EnglishRealiser, english_plural_marks, pluralise, third_person
from .text_japanese import JapaneseRealiser
from .text_plan import COMPARISONS, CallInfo, Clause, Planner, call_info
from .text_realise import Realiser

# A language: its code, and the realiser whose data file is lang/CODE.yaml. A third language is one more
# data file, one short Realiser subclass (its morphology) and one entry here; see text_realise.py.
LANGUAGES: dict[str, type[Realiser]] = {"en": EnglishRealiser, "ja": JapaneseRealiser}
LANGS = tuple(LANGUAGES)

__all__ = [
    "COMPARISONS", "LANGS", "LANGUAGES", "AbilityText", "CallInfo", "Clause", "Describer", "Lexicon",
    "SourceText", "call_info", "default_english", "describe_card", "english_plural_marks", "pluralise",
    "third_person",
]


def default_english(name: str, acronyms: frozenset[str] | set[str] = frozenset()) -> str:
    """A name as English words ('tr-raised' -> 'TR raised' when 'tr' is an acronym)."""
    return " ".join(w.upper() if w in acronyms else w for w in name.split("-"))


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
        if lang not in LANGUAGES:
            raise ValueError(f"unknown language '{lang}': choose one of {', '.join(LANGUAGES)}")
        if result.compiler is None or result.pack is None:
            raise ValueError("describe needs a pack that compiled without errors")
        self.result = result
        self.pack = result.pack
        self.voc = result.compiler.voc
        self.lang = lang
        self.realiser = LANGUAGES[lang](self.voc, self.pack)
        self.lex = self.realiser.lex
        self.fallbacks: list = []
        self.macros = result.compiler.macros
        self.mode = mode
        self.planner = self.make_planner(mode)

    def make_planner(self, mode: str, macro_sections: set[str] | None = None) -> Planner:
        return Planner(self.lex, mode, self.fallbacks, macro_sections, self.realiser.standalone)

    # programs
    def program(self, body) -> str:
        return self.realiser.program(self.planner.clauses(body))

    def condition(self, e) -> str:
        """A condition as a sentence."""
        return self.realiser.sentence(self.cond(e))

    def cond(self, e) -> str:
        """A condition as a clause ('there are at least 3 tree cards in your tableau')."""
        return self.realiser.text(self.planner.cond(e))

    def value(self, e) -> str:
        return self.realiser.text(self.planner.value(e))

    def statement(self, s) -> str:
        """One statement as a clause, without the sentence around it."""
        return self.realiser.text(self.planner.stmt(s))

    def zones(self, zones) -> str:
        """Zones as a phrase ('your tableau or hand')."""
        return self.realiser.text(self.planner.zones(zones))

    def uses_phrase(self, g: A.Group) -> bool:
        """Whether a macro call reads as its glossary phrase (else as its body)."""
        return self.planner.uses_phrase(g)

    def code(self, name: str) -> str | None:
        """The text of one compiled program by its code name ('setup', 'scoring base', 'oak yellow')."""
        node = self.result.asts.get(name)
        if node is None:
            return None
        if isinstance(node, tuple):
            return self.program(node)
        if self.planner.is_bool(node):
            return self.condition(node)
        return self.value(node)

    def source(self, text: str) -> SourceText | None:
        """Text for a piece of effect-language source written against this pack, such as a decision's
        option (the VM labels a choice with its source). It is parsed, macro-expanded and checked as an
        ability of any card; a macro call reads as its glossary phrase, else as the call as written (its
        body is the rules' machinery, not what a player picks). None when the source does not parse or
        check, or holds a construct the planner cannot say."""
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
        planner = self.make_planner("source")
        planner.fallbacks = []  # not the describer's: a label that cannot be said is the caller's fallback
        rendered = self.realiser.program(planner.clauses(prog.body))
        return None if planner.fallbacks else SourceText(rendered, free_it)

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
            label = self.lex.term("requires") if "requires" in self.lex.glossary else self.realiser.labels["requires"]
            out.insert(0, AbilityText("requires", label, "requires", self.code(f"{card.id} requires")))
        return out

    def _timings(self, card) -> list[str]:
        """The card's timings in the order rules.yaml declares them."""
        present = {name.split(" ", 1)[1] for name in self.result.asts if name.startswith(card.id + " ")}
        return [t for t in self.voc.timings if t in present]

    def card_name(self, card) -> str:
        return self.lex.card_name(card)

    def facts(self, card) -> str:
        """What a card without abilities is, in words: its type, trait values and stats ('space, land, steel
        bonus 2'), for a text that would otherwise be empty."""
        parts = [self.lex.term(card.type, sec="card-types")] if card.type else []
        for trait, values in card.traits.items():
            parts += [self.lex.term(v, sec=f"trait:{trait}") for v in values]
        parts += [self.realiser.stat_value(self.lex.stat(name), value) for name, value in card.stats.items()]
        sep, last = self.realiser.joins.get("comma", [", ", ", "])
        return self.realiser.join(parts, sep, last)

    def macro_body(self, signature: str) -> str | None:
        """A macro's body as text, its $parameters left as they are (for the rule reference)."""
        for ms in self.macros.values():
            for m in ms:
                if m.signature == signature:
                    from cardsmith.compiler.expand import Expander

                    if not hasattr(m.body, "body"):  # a named filter or value (rules.yaml 'filters:', 'expressions:')
                        return self.realiser.text(self.planner.query(A.Query((), m.body))) \
                            if isinstance(m.body, tuple) else self.value(m.body)
                    body = Expander(self.macros, Diagnostics()).program(m.body).body
                    return self.program(body)
        return None


def describe_card(result, card_id: str, lang: str = "en") -> list[AbilityText]:
    d = Describer(result, lang)
    card = result.pack.card(card_id)
    if card is None:
        raise KeyError(card_id)
    return d.card(card)
