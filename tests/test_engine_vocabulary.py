"""The engine knows no game by name: no word a built-in pack declares appears in engine code.

Every name the built-in packs declare in rules.yaml (resources, shared counters, parameters, zones,
card types, traits and their values, stats, pieces, flags, timings, scoring steps) and every card id
is searched for in the string literals of the engine's code (bytecode/, compiler/, runtime/, present/,
cardsmith/), comments and docstrings aside. A hit means a game's word steers the engine or shows up in
a message for every pack's authors (DESIGN.md: "Rules the engine must know are declared, never named in
code"). Words the engine owns in its own sense (the effect language's keywords, the pack format's
words, ordinary English) are listed below with the reason; the list is short on purpose.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ("bytecode", "compiler", "runtime", "present", "cardsmith")
SECTIONS = ("resources", "counters", "params", "zones", "card-types", "stats", "pieces", "timings", "expressions",
            "filters")
WORD = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")

# The pack format's own words (schema keys and enumerations, the engine's phases and conventions).
FORMAT_WORDS = {
    "ongoing", "scoring", "hand",  # timing kinds, zone kinds
    "kind", "cost", "holds", "target", "level", "legal",  # schema keys and opcode operand names
    "play",  # the game's phase after setup
    "vp",  # the score step a SCORE outside any scoring step counts in
}
# Ordinary English (and programming) words that a pack happens to declare too: the engine uses them in
# their everyday sense, never to recognise a game.
ENGLISH = {"seed", "effect", "passed", "tree", "tag", "fire", "discard", "deck", "used", "points",
           "box", "complete", "action", "actions", "event", "continuous", "goal", "offered", "green",
           "stream", "second", "reach", "power", "round", "plain",
           "claim"}  # the language's own 'as soon as' claims


def _schema_words() -> set[str]:
    """The pack format's keys and enumerations, read from its JSON Schemas (e.g. rules.yaml 'events:', an icon
    'shape: leaf'): the engine owns these words in the format's sense."""
    import json

    words: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    words.update(value)
                if key == "enum" and isinstance(value, list):
                    words.update(v for v in value if isinstance(v, str))
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for schema in (ROOT / "compiler" / "schemas").glob("*.json"):
        walk(json.loads(schema.read_text(encoding="utf-8")))
    return words


def _grammar_words() -> set[str]:
    text = (ROOT / "grammar" / "effect.lark").read_text(encoding="utf-8")
    return set(re.findall(r'"([a-z][a-z-]*)"', text))


def _declared() -> dict[str, str]:
    """name -> where a built-in pack declares it."""
    names: dict[str, str] = {}
    for rules in sorted((ROOT / "cards").glob("*/rules.yaml")):
        pack = rules.parent.name
        data = yaml.safe_load(rules.read_text(encoding="utf-8")) or {}
        for sec in SECTIONS:
            for name in data.get(sec) or {}:
                names.setdefault(name, f"{pack} {sec}")
        for trait, values in (data.get("traits") or {}).items():
            names.setdefault(trait, f"{pack} traits")
            for v in values:
                names.setdefault(v, f"{pack} trait {trait}")
        for flag in data.get("flags") or []:
            names.setdefault(flag, f"{pack} flags")
        for flag in data.get("player-flags") or []:
            names.setdefault(flag, f"{pack} player-flags")
        for step in data.get("scoring") or []:
            names.setdefault(step["id"], f"{pack} scoring")
    for cards in sorted((ROOT / "cards").glob("*/*.yaml")):
        if cards.name in ("rules.yaml", "pack.yaml"):
            continue
        data = yaml.safe_load(cards.read_text(encoding="utf-8")) or {}
        for card in data.get("cards") or []:
            if isinstance(card, dict) and isinstance(card.get("id"), str):
                names.setdefault(card["id"], f"{cards.parent.name} card")
    return names


def _literals(path: Path):
    """(line, text) of every string literal of a module that is not a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_no_pack_vocabulary_in_engine_code():
    declared = _declared()
    allowed = _grammar_words() | _schema_words() | FORMAT_WORDS | ENGLISH
    hits = []
    for package in ENGINE:
        for path in sorted((ROOT / package).rglob("*.py")):
            for line, text in _literals(path):
                for word in WORD.findall(text):
                    if word in declared and word not in allowed:
                        hits.append(f"{path.relative_to(ROOT)}:{line}: '{word}' ({declared[word]})")
    assert not hits, "pack words in engine code:\n" + "\n".join(sorted(set(hits)))


def test_the_allow_list_holds_only_words_some_pack_declares():
    # a word nobody declares any more needs no excuse: keep the list honest
    declared = _declared()
    stale = sorted(w for w in FORMAT_WORDS | ENGLISH if w not in declared and w not in _grammar_words())
    assert not stale, stale
