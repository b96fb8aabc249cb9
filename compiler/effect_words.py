"""The words of an effect text, each with what it names in the pack: for editors (highlighting, references,
rename). The grammar's own lexer cuts the text; the pack's vocabulary and a word's neighbours say what a
name is ('plant' after a trait name is a trait value, elsewhere the resource; the word after 'emit' is an
event). A text with a mistake is read up to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from lark.exceptions import UnexpectedInput
from lark.lexer import LexerThread

from . import parse
from .expand import BROKEN
from .vocab import Vocabulary

# Sections of rules.yaml in the order a bare name is looked up; the kind of word each gives.
SECTIONS = (("resources", "resource"), ("counters", "counter"), ("params", "param"), ("zones", "zone"),
            ("traits", "trait"), ("stats", "stat"), ("pieces", "piece"), ("timings", "timing"),
            ("card-types", "card type"))
# After these a statement begins (where a macro is called).
_STATEMENT_START = {None, "COMMA", "SEMICOLON", "COLON", "LPAR", "VBAR", "THEN", "MAY", "ELSE"}
_SUBJECT_END = {"YOU", "PLAYER", "OPPONENT"}  # 'when you', 'when any player', 'when an opponent' + verb


@dataclass(frozen=True)
class Word:
    start: int  # offsets in the text
    end: int
    text: str
    kind: str  # keyword, number, sign, parameter, macro, event, name, or a SECTIONS kind, 'trait value', 'flag'
    signature: str | None = None  # for a macro's words: the macro


def words(text: str, voc: Vocabulary | None = None, macros: dict | None = None) -> list[Word]:
    out: list[Word] = []
    tokens = []
    try:
        for tok in _lex(text):
            tokens.append(tok)
    except UnexpectedInput:
        pass  # the words before the mistake
    macros = macros or {}
    prev_type: str | None = None
    prev_kind: str | None = None
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        start, end, value = tok.start_pos or 0, tok.end_pos or 0, str(tok)
        if tok.type == "NAME":
            phrase = _macro_call(tokens, i, macros) if prev_type in _STATEMENT_START else None
            if phrase is not None:
                signature, fixed = phrase
                for j in fixed:
                    t = tokens[j]
                    out.append(Word(t.start_pos or 0, t.end_pos or 0, str(t), "macro", signature))
                prev_type, prev_kind = tok.type, "macro"
                i += 1
                while i < len(tokens) and i in fixed:
                    i += 1
                continue
            kind = _name_kind(value, prev_type, prev_kind, tokens, i, voc)
            out.append(Word(start, end, value, kind))
            prev_kind = kind
        elif tok.type == "NUMBER":
            out.append(Word(start, end, value, "number"))
            prev_kind = "number"
        elif value.isalpha():
            out.append(Word(start, end, value, "keyword"))
            prev_kind = "keyword"
        else:
            out.append(Word(start, end, value, "sign"))
            prev_kind = "sign"
        prev_type = tok.type
        i += 1
    return out


@cache
def _lexer():
    """The grammar's lexer without the parser: Lark.lex builds one on every call (a tenth of a second)."""
    try:
        return parse.parser()._build_lexer()
    except AttributeError:  # a Lark that moved it: its own (slower) entry point
        return None


def _lex(text: str):
    lexer = _lexer()
    if lexer is None:
        return parse.parser().lex(text)
    return LexerThread.from_text(lexer, text).lex(None)


def _macro_call(tokens, i: int, macros: dict) -> tuple[str | None, set[int]] | None:
    """The macro called by the words from tokens[i], and the indexes of its fixed words."""
    name = str(tokens[i])
    if name == BROKEN or name not in macros:
        return None
    best = None
    for m in macros[name]:
        fixed = {i}
        ok = True
        for k, want in enumerate(m.shape, start=1):
            if i + k >= len(tokens):  # the text ends inside the call
                ok = False
                break
            if want is not None:
                if str(tokens[i + k]) != want:
                    ok = False
                    break
                fixed.add(i + k)
        if ok and (best is None or len(fixed) > len(best[1])):
            best = (m.signature, fixed)
    if best is None:  # a call being written, or with the wrong words: the name alone (the family of macros)
        return (macros[name][0].signature if len(macros[name]) == 1 else None), {i}
    return best


def _name_kind(value: str, prev_type, prev_kind, tokens, i: int, voc: Vocabulary | None) -> str:
    if value.startswith("$"):
        return "parameter"
    if prev_type == "EMIT" or (prev_type in _SUBJECT_END and i >= 2 and _after_when(tokens, i)):
        return "event"
    if prev_type == "THE":
        return "name"  # a card named with 'as NAME' or 'let NAME = ...'
    if voc is None:
        return "name"
    if prev_kind == "trait" or (prev_type == "OR" and prev_kind == "trait value"):
        return "trait value"
    for section, kind in SECTIONS:
        if value in voc.sections[section]:
            return kind
    if value in voc.flags:
        return "flag"
    if value in voc.trait_values:
        return "trait value"
    return "name"


def _after_when(tokens, i: int) -> bool:
    """tokens[i] is the verb of 'when you VERB', 'when any player VERB', 'when (an) opponent VERB'."""
    back = [t.type for t in tokens[max(0, i - 3):i]]
    return "WHEN" in back
