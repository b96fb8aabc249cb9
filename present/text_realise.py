"""Realisers: a planned text (text_plan.py) said in one language.

A language is two things:

1. a data file, present/lang/CODE.yaml: `templates` (one per plan key the language needs: a key the
   file lacks is looked up with its last part dropped, so 'amount.n.upto' may fall back to
   'amount.n'), `joins` (how lists are joined: [separator, last separator]), `labels` (the words of
   rule references), `acronyms`, `verbs` (effect-language verbs: what a trigger's 'play' is),
   `score-unit` (the glossary term and default word for what `score` gives), `standalone` (clause kinds
   never joined to a neighbour), `counter` (the default counter word, for languages with them),
   `sentence-separator` and `then` (between sentences, and between the parts of inline statements) and
   `labelled` (a rule reference's 'label: text');
2. a short `Realiser` subclass with the language's morphology: how a noun becomes plural, how a
   sentence ends and clauses join, and the filters its templates use (`{slot|filter}`).

So a third language is one data file and one short class, registered in `describe.LANGUAGES`.

Template syntax: text with `{slot}`, `{slot@form}` (the slot's phrase realised with the templates
'KEY@form', e.g. Japanese counters '{what@counter}') and `{slot|filter|...}` (a join style of `joins`,
a filter of this module, or a method `f_NAME` of the realiser). A list slot without a join is
concatenated.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, ClassVar

import yaml

from .lexicon import Lexicon
from .text_ir import Body, Clause, P, Phrase, Points, Verb, Word

LANG_DIR = Path(__file__).parent / "lang"
_SLOT = re.compile(r"\{([a-z0-9_-]+)(?:@([a-z-]+))?((?:\|[a-z0-9_-]+)*)\}")


@functools.cache
def language_data(code: str) -> dict:
    """The data file of a language (present/lang/CODE.yaml), read once."""
    path = LANG_DIR / f"{code}.yaml"
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@functools.cache
def _compile(template: str) -> tuple:
    """A template as literal text and (slot, form, filters) parts."""
    parts: list = []
    pos = 0
    for m in _SLOT.finditer(template):
        if m.start() > pos:
            parts.append(template[pos:m.start()])
        parts.append((m.group(1), m.group(2), tuple(f for f in m.group(3).split("|") if f)))
        pos = m.end()
    if pos < len(template):
        parts.append(template[pos:])
    return tuple(parts)


class Realiser:
    """Says planned phrases in one language: templates from the data file, morphology in subclasses."""

    code: ClassVar[str] = ""

    def __init__(self, voc, pack, data: dict | None = None) -> None:
        self.data = data if data is not None else language_data(self.code)
        self.templates: dict[str, str] = dict(self.data.get("templates") or {})
        self.joins: dict[str, list[str]] = dict(self.data.get("joins") or {})
        self.verbs: dict[str, str] = dict(self.data.get("verbs") or {})
        self.lex = Lexicon(voc, pack, self.code, plural=self.plural if self.marks_plural else None,
                           acronyms=self.data.get("acronyms") or ())
        self._parts: dict[tuple[str, str | None], tuple] = {}  # (key, form) -> the compiled template
        self._filters: dict[str, Any] = {}

    @property
    def standalone(self) -> frozenset[str]:
        return frozenset(self.data.get("standalone") or ())

    @property
    def labels(self) -> dict[str, str]:
        return dict(self.data.get("labels") or {})

    # ---------------------------------------------------------------- morphology (subclasses)
    marks_plural: ClassVar[bool] = False

    def plural(self, word: str) -> str:
        """A noun's plural, for a language that marks plurals (the pack may give it instead)."""
        return word

    def sentence(self, text: str) -> str:
        """A clause as a whole sentence."""
        raise NotImplementedError

    # ---------------------------------------------------------------- phrases
    def template(self, key: str, form: str | None = None) -> str:
        """The template of a plan key (in a form), the key's last parts dropped until one is found."""
        parts = key.split(".")
        candidates = [".".join(parts[:i]) + f"@{form}" for i in range(len(parts), 0, -1)] if form else []
        candidates += [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
        for k in candidates:
            if k in self.templates:
                return self.templates[k]
        raise KeyError(f"language '{self.code}' has no template for '{key}'" + (f" (@{form})" if form else ""))

    def realise(self, value: Any, form: str | None = None) -> Any:
        """A slot's value as text (a list stays a list of texts, for a join or a filter)."""
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, Phrase):
            return self.phrase(value, form)
        if isinstance(value, Clause):
            return self.phrase(value.phrase, form)
        if isinstance(value, Word):
            if value.sec is not None and value.sec.startswith("local:"):
                return self.local(value)
            return self.counter(value) if form == "counter" else self.lex.term(value.name, value.plural, value.sec)
        if isinstance(value, Body):
            return self.inline(value.clauses)
        if isinstance(value, Verb):
            return self.verb(value.name)
        if isinstance(value, Points):
            return self.points(value.plural)
        if isinstance(value, list | tuple):
            return [self.realise(v, form) for v in value]
        return str(value)

    def text(self, value: Any, form: str | None = None) -> str:
        out = self.realise(value, form)
        return out if isinstance(out, str) else "".join(out)

    def phrase(self, p: Phrase, form: str | None = None) -> str:
        if p.key == "glossary-phrase":
            return self.glossary_phrase(p.slots["text"], p.slots["args"])
        parts = self._parts.get((p.key, form))
        if parts is None:
            parts = self._parts[(p.key, form)] = _compile(self.template(p.key, form))
        out = []
        for part in parts:
            if isinstance(part, str):
                out.append(part)
                continue
            name, slot_form, filters = part
            if name not in p.slots:
                raise KeyError(f"language '{self.code}': template of '{p.key}' names '{name}', which the plan lacks")
            raw = p.slots[name]
            value = self.realise(raw, slot_form)
            for f in filters:
                value = self.filter(f)(value, raw)
            out.append(value if isinstance(value, str) else "".join(value))
        return "".join(out)

    def glossary_phrase(self, text: str, args: dict[str, Any]) -> str:
        """A macro call as the phrase the pack's glossary gives it, its $parameters filled in: numbers,
        words and cards as they are; an amount the call computes fitted to the phrase's words (`fit_amount`)."""
        for name in sorted(args, key=len, reverse=True):
            arg = args[name]
            if isinstance(arg, Phrase) and arg.key in ("call-per", "call-value"):
                text = self.fit_amount(text, f"${name}", arg)
            else:
                text = text.replace(f"${name}", self.text(arg))
        return text

    def fit_amount(self, text: str, slot: str, arg: Phrase) -> str:
        """A computed amount in a phrase: 'call-per' (k per unit) or 'call-value' (equal to a value).
        A language moves the words around; by default the per-phrase follows and the value stands in."""
        if arg.key == "call-per":
            return text.replace(slot, arg.slots["k"]) + self.text(arg.slots["per"])
        return text.replace(slot, self.text(arg.slots["value"]))

    # ---------------------------------------------------------------- words
    def local(self, w: Word) -> str:
        """A local name (`Word(NAME, "local:KIND")`, KIND number, card or player): the glossary's 'local NAME',
        else what the language calls an unnamed one ('number placed'; Japanese 数A, not the English name)."""
        word = self.lex.local(w.name)
        if word:
            return word
        kind = w.sec.partition(":")[2] if w.sec else "number"
        return self.phrase(P(f"local-word.{kind}", name=self.lex.spell(w.name), letter=self.lex.local_letter(w.name)))

    def counter(self, w: Word) -> str:
        return self.lex.counter(w.name, self.data.get("counter", ""))

    def verb(self, name: str) -> str:
        """An event or trigger verb: the pack's glossary word, the language's verb, or one made from the term."""
        word = self.lex.glossary.get(name, {}).get(self.code)
        if word:
            return word
        if name in self.verbs:
            return self.verbs[name]
        return self.phrase(Phrase("verb", {"term": Word(name)}))

    def points(self, plural: bool) -> str:
        spec = self.data["score-unit"]
        if spec["glossary"] in self.lex.glossary:
            return self.lex.term(spec["glossary"], plural)
        return self.plural(spec["word"]) if plural and self.marks_plural else spec["word"]

    # ---------------------------------------------------------------- filters
    def filter(self, name: str):
        """A template filter: the realiser's method f_NAME, else a join style of the data."""
        found = self._filters.get(name)
        if found is not None:
            return found
        method = getattr(self, "f_" + name.replace("-", "_"), None)
        if method is None and name in self.joins:
            sep, last = self.joins[name]

            def method(value, raw):
                return self.join(value, sep, last)

        if method is None:
            raise KeyError(f"language '{self.code}' has no filter or join '{name}'")
        self._filters[name] = method
        return method

    @staticmethod
    def join(items: list[str], sep: str, last: str) -> str:
        items = [i for i in items if i]
        if len(items) <= 1:
            return "".join(items)
        return sep.join(items[:-1]) + last + items[-1]

    def f_reverse(self, value: list[str], raw) -> list[str]:
        return list(reversed(value))

    def f_spaced(self, value: list[str], raw) -> str:
        """Words each followed by a space ('cold tree ')."""
        return "".join(f"{v} " for v in value if v)

    # ---------------------------------------------------------------- clauses
    def program(self, clauses: list[Clause]) -> str:
        """Statements as sentences: clauses that join run together into one sentence."""
        out: list[str] = []
        run: list[str] = []
        for c in clauses:
            if c.joins:
                run.append(self.text(c))
                continue
            if run:
                out.append(self.program_sentence(self.run(run)))
                run = []
            out.append(self.program_sentence(self.text(c)))
        if run:
            out.append(self.program_sentence(self.run(run)))
        return self.data.get("sentence-separator", "").join(out)

    def program_sentence(self, text: str) -> str:
        return self.sentence(text)

    def run(self, texts: list[str]) -> str:
        """Clauses that join, as one."""
        sep, last = self.joins["and"]
        return self.join(texts, sep, last)

    def inline(self, clauses: list[Clause]) -> str:
        """Statements inside another ('pay 1 soil: THESE'): runs of joining clauses, then the rest in order."""
        parts: list[str] = []
        run: list[str] = []
        for c in clauses:
            if c.joins:
                run.append(self.text(c))
                continue
            if run:
                parts.append(self.run(run))
                run = []
            parts.append(self.text(c))
        if run:
            parts.append(self.run(run))
        return self.data.get("then", " ").join(self.inline_part(p) for p in parts)

    def inline_part(self, text: str) -> str:
        return text

    def stat_value(self, stat: str, value) -> str:
        """A stat and its value as a fact ('cost 3'; Japanese 'コスト3')."""
        return self.data.get("stat-value", "{stat} {value}").format(stat=stat, value=value)

    # ---------------------------------------------------------------- for rule references
    def title(self, text: str) -> str:
        """A phrase used as a heading."""
        return text

    def labelled(self, label: str, text: str) -> str:
        """'Base scoring: ...'."""
        return self.data["labelled"].format(label=label, text=text)
