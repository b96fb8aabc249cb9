"""Go to definition, find references and rename (card ids and macro names), over the pack chain's index."""

from __future__ import annotations

import re
from pathlib import Path

from lsprotocol import types as T

from cardsmith.compiler.parse import keywords

from .positions import Lines
from .symbols import Occurrence
from .workspace import Workspace

CARD_ID = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")  # as cards.schema.json
MACRO_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")  # a NAME of the grammar, no '$'


class RenameError(Exception):
    """A rename that cannot be done: the message says why."""


def _lines(ws: Workspace, path: Path, codec) -> Lines:
    return Lines(ws.text(path) or "", codec)


def _location(ws: Workspace, o: Occurrence, codec) -> T.Location:
    return T.Location(o.file.as_uri(), _lines(ws, o.file, codec).range(o.span))


def symbol_at(ws: Workspace, path: Path, line: int, col: int) -> tuple[list[Occurrence], Occurrence] | None:
    state = ws.state_for(path)
    if state is None:
        return None
    index = ws.index(state)
    o = index.at(ws.key(path), line, col)
    if o is None:
        return None
    return index.same(o), o


def definition(ws: Workspace, path: Path, line: int, col: int, codec=None) -> list[T.Location]:
    found = symbol_at(ws, path, line, col)
    if found is None:
        return []
    same, o = found
    defs = [x for x in same if x.definition]
    if o.kind == "macro" and o.signature is not None:  # the macro this call is, not the whole family
        defs = [x for x in defs if x.signature == o.signature] or defs
    return [_location(ws, x, codec) for x in defs]


def references(ws: Workspace, path: Path, line: int, col: int, include_declaration: bool = True,
               codec=None) -> list[T.Location]:
    found = symbol_at(ws, path, line, col)
    if found is None:
        return []
    same, _ = found
    return [_location(ws, x, codec) for x in same if include_declaration or not x.definition]


def prepare_rename(ws: Workspace, path: Path, line: int, col: int) -> Occurrence | None:
    found = symbol_at(ws, path, line, col)
    if found is None or found[1].kind not in ("card", "macro"):
        return None
    o = found[1]
    if o.kind == "macro" and not o.first_word:
        return None
    return o


def rename(ws: Workspace, path: Path, line: int, col: int, new_name: str, codec=None) -> T.WorkspaceEdit:
    """Rename a card id, or a macro's name (its first word: every macro of that name, and every call)."""
    o = prepare_rename(ws, path, line, col)
    if o is None:
        raise RenameError("only a card id or a macro's name can be renamed")
    state = ws.state_for(path)
    index = ws.index(state)
    if o.kind == "card":
        if not CARD_ID.match(new_name):
            raise RenameError(f"'{new_name}' is not a card id: lowercase kebab-case, e.g. 'golden-apple'")
        if new_name in index.cards and new_name != o.name:
            raise RenameError(f"the pack already has a card '{new_name}'")
        targets = [x for x in index.items if x.kind == "card" and x.name == o.name]
    else:
        if not MACRO_NAME.match(new_name) or new_name in keywords():
            raise RenameError(f"'{new_name}' cannot name a macro: one lowercase word that is not a built-in word")
        targets = [x for x in index.items if x.kind == "macro" and x.name == o.name and x.first_word]
    changes: dict[str, list[T.TextEdit]] = {}
    for x in targets:
        changes.setdefault(x.file.as_uri(), []).append(
            T.TextEdit(_lines(ws, x.file, codec).range(x.span), new_name))
    return T.WorkspaceEdit(changes=changes)
