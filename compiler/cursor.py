"""What an effect text accepts at a cursor: for editors' completion.

Both answers come from the compiler itself, so they follow the grammar and the checker as they change:

- the words and signs the grammar accepts next, from the LALR parser's state after the text before the cursor;
- where a name may stand, the names the checker would accept there: the text is completed with a placeholder
  name at the cursor (and, if what follows the cursor does not make a program, with the shortest ending the
  parser accepts), expanded and checked against the pack, and the candidate lists the checker consults for
  the unknown placeholder (its did-you-mean lists) are the answer.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from functools import cache

from lark import Token
from lark.exceptions import UnexpectedInput

from . import parse
from .check import Checker, Context
from .diagnostics import Diagnostics, consulted_candidates
from .expand import BROKEN, Expander
from .vocab import Vocabulary

PLACEHOLDER = "zq-cursor-name"  # a NAME no pack declares
_WORD_BEFORE = re.compile(r"\$?[a-z0-9-]*$")
# A context as permissive as any program's (as for macros nothing used): completion offers what some
# program may say; the check of the finished text tells whether this one may.
_ANY = Context("macro", has_this=True, has_it=True, scoring=True, allow_live=True)
_SEARCH_BUDGET = 400  # parser states tried when looking for an ending of the text


@dataclass
class Expected:
    prefix: str  # the part of the word under the cursor before it (what the editor filters by)
    keywords: list[str] = field(default_factory=list)  # literal words and signs the grammar accepts next
    name: bool = False  # a name may stand here
    candidates: list[str] = field(default_factory=list)  # the names the checker would accept here
    # macro calls the statement has begun: (signature, what comes next: a word, or a $parameter)
    macro_next: list[tuple[str, str]] = field(default_factory=list)
    ending: str = ""  # the text the check ran on (for tests and debugging)


def word_start(text: str, offset: int) -> int:
    """Where the name (or keyword) the cursor is in begins."""
    return offset - len(_WORD_BEFORE.search(text[:offset]).group(0))


def expected_at(text: str, offset: int, voc: Vocabulary | None = None, macros: dict | None = None,
                start: str = "program") -> Expected | None:
    """What may be written at `offset` of `text` (an effect program, or an expression with start='expression').
    None when the text before the cursor cannot begin any program."""
    begin = word_start(text, offset)
    before = text[:begin]
    state = _state_after(before, start)
    if state is None:
        return None
    accepted = state.accepts()
    out = Expected(prefix=text[begin:offset], keywords=sorted(_literals(accepted)), name="NAME" in accepted)
    out.macro_next = _macro_next(before, macros or {})
    if out.name and voc is not None:
        out.ending, out.candidates = _names(before, text[offset:].lstrip("abcdefghijklmnopqrstuvwxyz0123456789-$"),
                                            state, voc, macros or {}, start)
    return out


_STATEMENT_START = re.compile(r"(?:^|[,;:(|]|\bthen\b)\s*(?:may\s+)?([^,;:(|]*)$")


def _macro_next(before: str, macros: dict) -> list[tuple[str, str]]:
    """For each macro whose call the statement before the cursor has begun: its signature and next word."""
    m = _STATEMENT_START.search(before)
    words = m.group(1).split() if m else []
    if not words or words[0] not in macros or words[0] == BROKEN:
        return []
    typed, out = words[1:], []
    for macro in macros[words[0]]:
        shape = macro.shape
        if len(typed) >= len(shape):
            continue
        if all(want is None or want == word for want, word in zip(shape, typed, strict=False)):
            nxt = shape[len(typed)]
            if nxt is None:
                nxt = "$" + macro.params[sum(1 for w in shape[:len(typed)] if w is None)]
            out.append((macro.signature, nxt))
    return out


def _state_after(before: str, start: str):
    try:
        state = parse.parser().parse_interactive(before, start=start)
        state.exhaust_lexer()
    except UnexpectedInput:
        return None
    return state


@cache
def _terminal_literal(name: str) -> str | None:
    try:
        pattern = parse.parser().get_terminal(name).pattern
    except KeyError:
        return None
    if pattern.type == "str":
        return pattern.value
    words = re.fullmatch(r"\(\?:((?:[a-z]+\|)+[a-z]+)\)", pattern.value)  # a choice of words, e.g. _PREP
    return words.group(1).split("|")[0] if words else None


def _literals(accepted: set[str]) -> set[str]:
    out = set()
    for name in accepted:
        try:
            pattern = parse.parser().get_terminal(name).pattern
        except KeyError:
            continue
        if pattern.type == "str":
            out.add(pattern.value)
        else:
            words = re.fullmatch(r"\(\?:((?:[a-z]+\|)+[a-z]+)\)", pattern.value)
            if words:
                out.update(words.group(1).split("|"))
    return out


# A stand-in for each kind of token when the search writes an ending: the shortest text of that kind.
_STAND_IN = {"NAME": "x", "NUMBER": "1", "CMP": "="}


def _ends(state) -> bool:
    """The parser accepts the end of the text here (a state may list the end for a reduction that then fails)."""
    if "$END" not in state.choices():
        return False
    try:
        state.copy().feed_eof()
    except UnexpectedInput:
        return False
    return True


# Closing signs first: most texts broken off at the cursor end after a ':' and a statement, or a ')'.
_FIRST = {"COLON": 0, "RPAR": 1, "NAME": 2, "NUMBER": 3}


def _ending(state) -> str | None:
    """The shortest sequence of tokens after which the parser accepts the end of the text."""
    if _ends(state):
        return ""
    todo = deque([(state, ())])
    tried = 0
    while todo and tried < _SEARCH_BUDGET:
        s, words = todo.popleft()
        choices = [t for t in s.choices() if t.isupper() or t.startswith("_")]
        for t in sorted(choices, key=lambda t: (_FIRST.get(t, 9), t)):
            value = _STAND_IN.get(t) or _terminal_literal(t)
            if value is None:
                continue
            tried += 1
            nxt = s.copy()
            try:
                nxt.feed_token(Token(t, value))
            except UnexpectedInput:
                continue
            if _ends(nxt):
                return " ".join((*words, value))
            todo.append((nxt, (*words, value)))
    return None


def _names(before: str, after: str, state, voc: Vocabulary, macros: dict, start: str) -> tuple[str, list[str]]:
    candidates_of = []
    texts = [f"{before}{PLACEHOLDER}{after}"]
    with_name = state.copy()
    try:
        with_name.feed_token(Token("NAME", PLACEHOLDER))
        ending = _ending(with_name)
    except UnexpectedInput:
        ending = None
    if ending is not None:
        texts.append(f"{before}{PLACEHOLDER} {ending}")
    for text in texts:
        diags = Diagnostics()
        read = parse.parse_program if start == "program" else parse.parse_expression
        node = read(text, parse.plain_locate(), diags)
        if node is None:
            continue
        expander = Expander(macros, diags)
        checker = Checker(voc, diags, set(macros) - {BROKEN}, expander.broken)
        with consulted_candidates() as seen:
            if start == "program":
                checker.program(expander.program(node), _ANY)
            else:
                checker.expect(expander.expand(node), "int", _ANY)
                checker.expect(expander.expand(node), "bool", _ANY)
        for name, cands in seen:
            if name == PLACEHOLDER:
                candidates_of.extend(c for c in cands if c not in candidates_of)
        if candidates_of:
            return text, candidates_of
    return texts[-1], candidates_of
