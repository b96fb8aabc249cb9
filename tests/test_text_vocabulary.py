"""Text generation knows no game: no word a built-in pack declares is a string literal of present/*.py.

Every name the built-in packs declare in rules.yaml (resources, counters, params, zones, card types,
traits and their values, stats, pieces, flags, timings, scoring step ids, and the first word of every
macro signature) is searched for in the string literals of the presentation code, docstrings and
comments aside. A language's words live in its data file (present/lang/CODE.yaml), a game's in its
pack (names and glossary); a hit here means one of them leaked into code.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import yaml
from test_engine_vocabulary import ENGLISH, FORMAT_WORDS

ROOT = Path(__file__).resolve().parent.parent
PRESENT = ROOT / "present"
SECTIONS = ("resources", "counters", "params", "zones", "card-types", "stats", "pieces", "timings")
WORD = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")

# Words that are the engine's own and that some pack happens to declare too: the effect language's keywords,
# the pack format's keys and enumerations (rules.schema.json), and the words test_engine_vocabulary.py lets
# every engine package use (ordinary English, the format's conventions). Beyond those, only:
ALLOWED = {
    "seat", "final",  # the balance report's prose ('win rate by seat', 'final score'); macros start with them
    "after",  # prose and the activation drawing's positions (render.py, coverage.py); macros too
    "fill", "stop",  # SVG's own words (fill=, <stop>, stop-color) in the icons drawn for sheets (icons.py)
}


def _grammar_words() -> set[str]:
    return set(re.findall(r'"([a-z][a-z-]*)"', (ROOT / "grammar" / "effect.lark").read_text(encoding="utf-8")))


def _schema_words() -> set[str]:
    """Every key and string value of the pack format's JSON Schemas that looks like a name."""
    out: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            out.update(k for k in node if isinstance(k, str))
            for k, v in node.items():
                if k != "description":
                    walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif isinstance(node, str):
            out.add(node)

    for schema in (ROOT / "compiler" / "schemas").glob("*.json"):
        walk(json.loads(schema.read_text(encoding="utf-8")))
    return {w for w in out if re.fullmatch(r"[a-z][a-z0-9-]*", w)}


def _allowed() -> set[str]:
    return ALLOWED | _grammar_words() | _schema_words() | FORMAT_WORDS | ENGLISH


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
        for step in data.get("scoring") or []:
            names.setdefault(step["id"], f"{pack} scoring")
        for signature in data.get("macros") or {}:
            names.setdefault(signature.split()[0], f"{pack} macro '{signature}'")
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


def test_present_code_names_no_pack_word():
    declared = _declared()
    allowed = _allowed()
    hits = sorted({f"present/{path.name}:{line}: '{word}' ({declared[word]})"
                   for path in sorted(PRESENT.glob("*.py"))
                   for line, text in _literals(path)
                   for word in WORD.findall(text) if word in declared and word not in allowed})
    assert not hits, "pack words in present/ code:\n" + "\n".join(hits)


def test_allowed_words_are_still_declared_by_some_pack():
    stale = sorted(ALLOWED - set(_declared()))
    assert not stale, f"no pack declares these any more; drop them from ALLOWED: {stale}"
