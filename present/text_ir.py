"""The intermediate structure of generated text: what the planner (text_plan.py) hands a realiser.

A `Phrase` is a template key ('gain', 'compare.count.ge', 'amount.n.upto') and typed slots: text that
is already final (numbers, '$n'), pack words (`Word`, with the number the planner agreed), verbs,
nested phrases, `Clause`s and `Body`s (statements said inline). Nothing here is in any language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Word:
    """A pack name to be said in the language; `plural` is the planner's number agreement."""

    name: str
    sec: str | None = None
    plural: bool = False


@dataclass(frozen=True)
class Verb:
    """An event or trigger verb a pack names ('play', 'places')."""

    name: str


@dataclass(frozen=True)
class Points:
    """The points a `score` statement gives (the language's 'VP' unless the pack's glossary renames it)."""

    plural: bool = False


@dataclass
class Phrase:
    """What to say: a template key and its slots."""

    key: str
    slots: dict[str, Any] = field(default_factory=dict)


@dataclass
class Clause:
    """One statement. `joins`: a single verb phrase that may be joined to the clauses next to it."""

    phrase: Phrase
    joins: bool = True


@dataclass
class Body:
    """Statements said inline, one after the other ('pay 1 soil: gain 2 coins and draw 1 card')."""

    clauses: list[Clause]


def P(key: str, **slots: Any) -> Phrase:
    """A phrase, briefly: P("gain", amount=..., per=None)."""
    return Phrase(key, slots)
