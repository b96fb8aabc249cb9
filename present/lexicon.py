"""The pack's words in one language: what every name of a pack is called, and nothing else.

Words come from the pack only: `names: {LANG: ..., LANG-plural: ...}` on rules.yaml entries and cards,
and the optional `glossary:` of rules.yaml (term -> {LANG, LANG-plural, LANG-counter}); a glossary term
that is a macro signature ("draw $n") gives the phrase its calls read as, 'local NAME' what a program's
local name stands for, '$NAME' what a macro's parameter stands for where the rules show the macro itself.
A name the pack gives no word in the language reads as its English word, else as the name itself, spelled
out (`spell`).

Grammar is not here: a language that marks plurals passes its `plural` rule, and the acronyms its
realiser declares in its data file (present/lang/LANG.yaml) are upper-cased when a name is spelled.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

# The language rules.yaml prose (descriptions, scoring-step names, card names) is written in.
SOURCE_LANG = "en"


class Lexicon:
    """The pack's words in one language: names from rules.yaml entries, the glossary, card names."""

    SECTIONS = ("resources", "counters", "params", "zones", "card-types", "stats", "pieces", "timings")

    def __init__(self, voc, pack, lang: str, plural: Callable[[str], str] | None = None,
                 acronyms: Iterable[str] = ()) -> None:
        self.voc = voc
        self.pack = pack
        self.lang = lang
        self.plural_rule = plural  # None: the language does not inflect nouns for number
        self.glossary: dict[str, dict[str, str]] = dict(getattr(voc, "glossary", {}) or {})
        # A glossary word that is its own name upper-cased ('tr' -> 'TR') is an acronym wherever the name
        # is spelled out ('tr-raised' -> 'TR raised').
        self.acronyms = set(acronyms) | {name for name, g in self.glossary.items()
                                         if isinstance(g, dict) and g.get(lang) == name.upper() != name}
        self.kind: dict[str, str] = {}
        self.local_letters: dict[str, str] = {}  # local name -> its letter (`local_letter`)
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
        if sec == "automa":  # a seat: its names, and its English `name`
            entry = (getattr(self.voc, "automa", None) or {}).get(name)
            value = entry.value if entry is not None and isinstance(entry.value, dict) else {}
            names = dict(value.get("names") or {})
            if value.get("name"):
                names.setdefault(SOURCE_LANG, value["name"])
            return names
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
        (Earth's 'growth' is both a stat and a piece). `plural` only matters in a language with a plural rule.
        A trait's value (`sec` 'trait:TRAIT') reads as the glossary's 'TRAIT=VALUE' where there is one, so a
        tag keeps apart from a resource of the same name (Terraforming Mars: 植物タグ, the plant tag; 植物)."""
        if name.startswith("$"):  # a macro's parameter (the reference's game words): its glossary word, or as it is
            word = self.placeholder(name)
            if word is None:
                return name
            if plural and self.plural_rule is not None:
                return self.glossary[name].get(f"{self.lang}-plural") or self.plural_rule(word)
            return word
        if sec is not None and sec.startswith("trait:"):
            value = self.glossary.get(f"{sec[6:]}={name}", {})
            if value.get(self.lang):
                if plural and self.plural_rule is not None:
                    return value.get(f"{self.lang}-plural") or self.plural_rule(value[self.lang])
                return value[self.lang]
            sec = "card-types" if sec == "trait:type" else None  # a card type reads as its own entry's word
        g = self.glossary.get(name, {})
        names = self._entry_names(name, sec)
        if plural and self.plural_rule is not None:
            key = f"{self.lang}-plural"
            if names.get(key) or (not names.get(self.lang) and g.get(key)):
                return names.get(key) or g[key]
            return self.plural_rule(self.term(name, sec=sec))
        word = names.get(self.lang) or g.get(self.lang)
        if word:
            return word
        if self.lang != SOURCE_LANG:  # no word in this language: the English one is the best we have
            en = names.get(SOURCE_LANG) or g.get(SOURCE_LANG)
            if en:
                return en
        return self.spell(name)

    def spell(self, name: str) -> str:
        """A name no word is given for, as words: 'tr-raised' -> 'TR raised' (acronyms upper-cased)."""
        return " ".join(w.upper() if w in self.acronyms else w for w in name.split("-"))

    def piece(self, name: str, plural: bool = False) -> str:
        return self.term(name, plural, sec="pieces")

    def stat(self, name: str) -> str:
        return self.term(name, sec="stats")

    def counter(self, name: str | None, default: str) -> str:
        """The counter word for amounts of a term (Japanese 個, 枚): the glossary's LANG-counter."""
        if name is None:
            return default
        return self.glossary.get(name, {}).get(f"{self.lang}-counter", default)

    def phrase(self, signature: str) -> str | None:
        """The phrase a macro call reads as in this language (its glossary entry), or None."""
        return self.glossary.get(signature, {}).get(self.lang)

    def local(self, name: str) -> str | None:
        """What a local name ('let NAME = ...', 'as NAME') stands for in this language: the glossary's
        'local NAME' (a noun: 'number of greeneries placed'), or None."""
        return self.glossary.get(f"local {name}", {}).get(self.lang) or None

    def local_letter(self, name: str) -> str:
        """A letter for a local name the glossary gives no word (A, B, ... in the order they are met), so that a
        language without the name's English spelling can still tell two of them apart."""
        letters = self.local_letters
        if name not in letters:
            n = len(letters)
            letters[name] = chr(ord("A") + n % 26) + (str(n // 26) if n >= 26 else "")
        return letters[name]

    def placeholder(self, param: str) -> str | None:
        """What a macro's parameter ('$what') stands for where the rules show the macro itself, its calls
        aside: the glossary's '$what' ('resource'), or None."""
        return self.glossary.get(param, {}).get(self.lang) or None

    def param(self, name: str):
        entry = self.voc.params.get(name)
        return entry.value if entry is not None else None

    def is_piece(self, name: str) -> bool:
        return name in self.voc.pieces

    def is_internal(self, name: str) -> bool:
        """A counter the rules keep for themselves (`internal: true`): never named to players."""
        for sec in (self.voc.resources, self.voc.counters):
            entry = sec.get(name)
            if entry is not None and isinstance(entry.value, dict) and entry.value.get("internal"):
                return True
        return False

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
        """A scoring step's name: its `names`, else its English `name` (the glossary's word for its id
        in another language)."""
        return (step.get("names") or {}).get(self.lang) or (
            step.get("name") if self.lang == SOURCE_LANG or not self.glossary.get(step["id"])
            else self.term(step["id"]))
