"""The fast paths of issue 7 do exactly what the careful paths do.

Each fast path stands in for a slower reference that stays in the code: the one-pass LALR driver
(compiler/lalr.py) for Lark's parse-then-transform, the event-to-value YAML reader for the composer
and builder, and the VM's generated superinstructions for its opcode handlers. Diagnostics and games
must not change by a byte, so these tests compare the two paths on every built-in pack and fixture.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from lark import Token, Tree

from cardsmith.compiler import ast as A
from cardsmith.compiler import compile_pack, parse, yamlsrc
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.packs import builtin_packs
from cardsmith.runtime.game import Game
from cardsmith.runtime.vm import linker as linker_module

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
PACKS = sorted(str(p) for p in builtin_packs().values())


def _deep(x):
    """A value with every field, spans included (AST equality leaves spans out)."""
    if isinstance(x, A.Node) and dataclasses.is_dataclass(x):
        return type(x).__name__, tuple((f.name, _deep(getattr(x, f.name))) for f in dataclasses.fields(x))
    if isinstance(x, tuple | list):
        return tuple(_deep(v) for v in x)
    if isinstance(x, Token):
        return "token", x.type, str(x), x.start_pos, x.end_pos, x.line, x.column
    if isinstance(x, Tree):
        return "tree", x.data, _deep(x.children)
    return x


@pytest.fixture(scope="module")
def effect_texts() -> list[tuple[str, str]]:
    """Every effect text, expression and macro signature the built-in packs and language fixtures parse."""
    seen: dict[tuple[str, str], None] = {}
    real = parse._parse

    def spy(text, start, locate, diags, what):
        seen[(start, text)] = None
        return real(text, start, locate, diags, what)

    parse._parse = spy
    try:
        for ref in [*PACKS, *sorted(str(p) for p in (FIXTURES / "language").iterdir() if (p / "pack.yaml").is_file())]:
            compile_pack(ref, Diagnostics())
    finally:
        parse._parse = real
    return list(seen)


def test_the_one_pass_parser_is_in_use() -> None:
    # The driver refuses grammars or transformers with Lark features it does not reproduce (then every
    # text takes Lark's two passes, correct but several times slower): this grammar must not need them.
    assert parse._driver() is not None


def test_the_one_pass_parser_builds_what_lark_builds(effect_texts) -> None:
    assert len(effect_texts) > 500
    driver, lark = parse._driver(), parse.parser()
    locate = parse.plain_locate("f.yaml")
    for start, text in effect_texts:
        fast = driver.parse(text, start, parse._ToAst(locate), parse.MAX_NESTING, parse.MAX_DIGITS)
        slow = parse._ToAst(locate).transform(lark.parse(text, start=start))
        assert _deep(fast) == _deep(slow), text


@pytest.mark.parametrize("text", [
    "gain 2 soil,, draw 1",  # a syntax error
    "gain 1234567890123456789 soil",  # a number past the limit
    "(" * 120 + "draw 1" + ")" * 120,  # nested past the limit
])
def test_texts_the_driver_refuses_get_lark_s_diagnostic(text) -> None:
    # The driver answers None and Lark explains: the same E100 at the same column as before.
    assert parse._driver().parse(text, "program", parse._ToAst(parse.plain_locate()), parse.MAX_NESTING,
                                 parse.MAX_DIGITS) is None
    diags = Diagnostics()
    assert parse.parse_program(text, parse.plain_locate("f.yaml"), diags) is None
    assert [d.code for d in diags.items] == ["E100"]


def _yaml_files() -> list[Path]:
    found = {*(ROOT / "cards").rglob("*.yaml"), *FIXTURES.rglob("*.yaml"), *FIXTURES.rglob("*.yml")}
    return sorted(found)


def test_the_fast_yaml_reader_gives_the_careful_reader_s_values_and_spans(monkeypatch) -> None:
    fast_files = 0
    for path in _yaml_files():
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue  # a fixture for E002
        fast = yamlsrc.YamlDoc(file="f.yaml", text=text, value=None, _line_starts=yamlsrc._line_starts(text))
        if not yamlsrc._fast_load(text, fast):
            continue  # anchors, errors, limits: only the careful path reads these
        fast_files += 1
        with monkeypatch.context() as m:
            m.setattr(yamlsrc, "_fast_load", lambda text, doc: False)
            diags = Diagnostics()
            careful = yamlsrc.load_yaml_text(text, "f.yaml", diags)
        assert careful is not None and not diags.items, path
        assert (fast.value, fast.spans, fast.key_spans, fast._raw) == \
            (careful.value, careful.spans, careful.key_spans, careful._raw), path
        assert repr(fast.value) == repr(careful.value), path  # the same types too (1 is not True)
    assert fast_files > 100


def test_documents_the_fast_reader_leaves_to_the_careful_one() -> None:
    for text in ["a: &x 1\nb: *x\n", "a: 1\na: 2\n", "? [a]\n: 1\n", "a: !!int 3\n", "---\na: 1\n---\nb: 2\n",
                 "<<: {a: 1}\n", "a: !!int x\n", "[" * 70 + "]" * 70]:
        doc = yamlsrc.YamlDoc(file="f.yaml", text=text, value=None, _line_starts=yamlsrc._line_starts(text))
        assert not yamlsrc._fast_load(text, doc), text
        assert doc.value is None and not doc.spans


def _games(pack, seeds: range) -> list:
    out = []
    for seed in seeds:
        game = Game(pack, max(pack.players[0], 2) if pack.players[1] >= 2 else 1, seed, log=True)
        result = game.play()
        out.append((result.to_json(), game.events))
    return out


@pytest.mark.parametrize("ref", PACKS, ids=lambda p: Path(p).name)
def test_superinstructions_play_the_games_the_handlers_play(ref, monkeypatch) -> None:
    # The same seeded games, with every run of instructions fused into generated Python (the default)
    # and with every instruction run by its handler: results and event logs identical, event by event.
    fused = _games(compile_pack(ref).pack, range(2))
    monkeypatch.setattr(linker_module, "FUSE", False)
    plain = _games(compile_pack(ref).pack, range(2))  # a new pack, so a new linker links without fusing
    assert fused == plain
