"""English: imperative, as printed cards speak ('Gain 2 soil and draw 1 card.').

The words and sentence shapes are in lang/en.yaml; this is the morphology its templates use: plurals,
the indefinite article, third-person verbs ('each opponent draws'), 'is'/'are', and how sentences end.
"""

from __future__ import annotations

import re
from typing import ClassVar

from .text_ir import Body, Phrase, Word
from .text_realise import Realiser

_MODALS = {"may", "must", "can"}
# In a glossary phrase, the noun an amount counts: '$n card(s)', '$n step(s)'.
_COUNTED = r" (?P<noun>(?:[\w€'-]+ ){0,2}?[\w€'-]+)\(s\)"
_NOT_VERBS = {"the", "a", "an", "all", "each", "up"}


def pluralise(word: str) -> str:
    """'tree card' -> 'tree cards', 'bush' -> 'bushes'; acronyms, numbers and plurals stay."""
    if not word or word[-1].isdigit() or not word[-1].isalpha() or word.isupper():
        return word
    head, _, last = word.rpartition(" ")
    if last.endswith("s") and not last.endswith("ss"):
        return word  # already a plural ('oceans')
    if len(last) > 4 and re.search(r"[^e]ed$", last):
        return word  # a participle names a state, not a thing to count ('TR raised', 'tilted')
    if re.search(r"(s|sh|ch|x|z)$", last):
        last += "es"
    elif re.search(r"[^aeiou]y$", last):
        last = last[:-1] + "ies"
    else:
        last += "s"
    return f"{head} {last}" if head else last


def with_article(text: str) -> str:
    if text.startswith("other "):
        return "an" + text  # 'another card'
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


def third_person(text: str) -> str:
    """'draw 2 cards' -> 'draws 2 cards'; 'your' -> 'their' (for 'each opponent ...')."""
    word, sep, rest = text.partition(" ")
    joined = text if word in _MODALS or not _looks_like_verb(word) else _verb_s(word) + sep + rest
    return re.sub(r"\byours\b", "theirs", re.sub(r"\byour\b", "their", re.sub(r"\byou\b", "they", joined)))


def _looks_like_verb(word: str) -> bool:
    return word.isalpha() and word.islower() and word not in _NOT_VERBS


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


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", "”.")) else text + "."


class EnglishRealiser(Realiser):
    code = "en"
    marks_plural: ClassVar[bool] = True

    def plural(self, word: str) -> str:
        return pluralise(word)

    def sentence(self, text: str) -> str:
        return sentence(text)

    def program_sentence(self, text: str) -> str:
        text = sentence(text)
        return "You may " + text[4:] if text.startswith("May ") else text

    def inline_part(self, text: str) -> str:
        return "you " + text if text.startswith("may ") else text

    def run(self, texts: list[str]) -> str:
        """Clauses that join, as one; one that is optional among them keeps apart from the others ('you may
        compost 1 card from your hand, then draw 1 card': the draw is not optional)."""
        if len(texts) > 1 and any(t.startswith("may ") for t in texts):
            return self.data.get("then", ", ").join(texts[:1] + [self.inline_part(t) for t in texts[1:]])
        return super().run(texts)

    def glossary_phrase(self, text: str, args: dict) -> str:
        """A macro's phrase with its arguments; '$what(s)' for a word argument is its singular or its plural
        by the number before it ('steal up to 3 plants', 'steal up to 2 steel')."""
        words = {name: arg for name, arg in args.items() if isinstance(arg, Word) and f"${name}(s)" in text}
        for name in words:
            text = text.replace(f"${name}(s)", f"\x00{name}\x00")
        text = super().glossary_phrase(text, args)
        for name, arg in words.items():
            while (m := re.search(f"\x00{re.escape(name)}\x00", text)) is not None:
                num = re.findall(r"(\d+)\D*$", text[:m.start()])
                one = bool(num) and num[-1] == "1" and not text[:m.start()].rstrip().endswith("up to 1")
                text = text[:m.start()] + self.lex.term(arg.name, plural=not one) + text[m.end():]
        return english_plural_marks(text)

    def fit_amount(self, text: str, slot: str, arg: Phrase) -> str:
        """'draw $n card(s)' with a count: 'draw 1 card per jovian tag'; with a value: 'draw cards equal to ...'."""
        m = re.search(re.escape(slot) + _COUNTED, text)
        if arg.key == "call-per":
            per = self.text(arg.slots["per"])
            if m is None:
                return text.replace(slot, arg.slots["k"]) + per
            return f"{text[:m.start()]}{arg.slots['k']} {m['noun']}(s){per}{text[m.end():]}"
        value = self.text(arg.slots["value"])
        if m is None:
            return text.replace(slot, value)
        return f"{text[:m.start()]}{pluralise(m['noun'])} equal to {value}{text[m.end():]}"

    def title(self, text: str) -> str:
        return text[:1].upper() + text[1:]

    # template filters
    def f_a(self, text: str, raw) -> str:
        """The indefinite article: 'a tree card', 'an oak', 'another card'."""
        return with_article(text)

    def f_third(self, text: str, raw) -> str:
        """Clauses said of someone else ('each opponent draws 2 cards and gains 1 soil')."""
        if isinstance(raw, Body):
            return self.run([third_person(self.text(c)) for c in raw.clauses])
        return third_person(text)

    def f_theirs(self, text: str, raw) -> str:
        """Instructions for other players after '{who}:': their cards are 'their', not the reader's."""
        return re.sub(r"\byours\b", "theirs", re.sub(r"\byour\b", "their", re.sub(r"\byou\b", "they", text)))

    def f_agree(self, text: str, raw) -> str:
        """A verb for a third-person subject, unless it already is one ('plays')."""
        return text if text.endswith("s") else third_person(text)

    def f_be(self, text: str, raw) -> str:
        """'is' or 'are', for the count in `raw`."""
        return "is" if raw == 1 else "are"

    def f_bracket(self, text: str, raw) -> str:
        """An operand that is several words, in brackets: '(the number of cards) × 2'."""
        return f"({text})" if " " in text and not text[0].isdigit() else text
