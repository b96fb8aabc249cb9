"""compiler/yamlsrc.py: YAML with a position for every value, key and word, and the input limits.

Expected positions are computed from the test text (where the word is), never copied from
the loader. Lines and columns are 1-based, columns count characters, span ends are exclusive.
"""

from __future__ import annotations

import pytest
import yaml

import cardsmith.compiler.yamlsrc as ys
from cardsmith.compiler.diagnostics import Diagnostics, Span
from cardsmith.compiler.yamlsrc import YamlDoc, decode_source, load_yaml_file, load_yaml_text

LOADERS = [pytest.param(yaml.SafeLoader, id="python")]
if hasattr(yaml, "CSafeLoader"):
    LOADERS.insert(0, pytest.param(yaml.CSafeLoader, id="libyaml"))


@pytest.fixture(params=LOADERS)
def loader(request, monkeypatch):
    """Run a test with libyaml (the default where available) and with the pure-Python fallback."""
    monkeypatch.setattr(ys, "_Loader", request.param)
    return request.param


def pos(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based (line, col) of the nth occurrence of `needle` in `text`."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
        assert i >= 0
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return line, col


def load(text: str, file: str = "f.yaml") -> tuple[YamlDoc | None, Diagnostics]:
    d = Diagnostics()
    return load_yaml_text(text, file, d), d


def codes(d: Diagnostics) -> list[str]:
    return [x.code for x in d]


def word_span(doc: YamlDoc, path: tuple, word: str, nth: int = 0) -> Span:
    """The span text_span gives the nth occurrence of `word` in the string at `path`."""
    value = doc._get(path)
    i = -1
    for _ in range(nth + 1):
        i = value.index(word, i + 1)
    return doc.text_span(path, i, i + len(word))


def assert_word(doc: YamlDoc, path: tuple, word: str, text: str, needle: str | None = None, nth: int = 0,
                value_nth: int = 0) -> None:
    """The word in the value at `path` is found at `needle` (default: the word) in the source."""
    sp = word_span(doc, path, word, value_nth)
    line, col = pos(text, needle or word, nth)
    end_line, end_col = pos(text, needle or word, nth)
    assert (sp.line, sp.col) == (line, col), f"{word!r}: got {sp.line}:{sp.col}, want {line}:{col}"
    assert (sp.end_line, sp.end_col) == (end_line, end_col + len(word)), sp
    src_line = text.split("\n")[sp.line - 1].rstrip("\r")
    assert src_line[sp.col - 1 : sp.end_col - 1] == word


# ----------------------------------------------------------------------------- values and spans

NESTED = """\
# a comment line
cards:
  - id: oak
    stats: {cost: 2, vp: 3}
    traits:
      kind: [tree, herb]
    abilities:
      green: "draw 1"
  - id: mint
"""


def test_plain_values(loader) -> None:
    doc, d = load(NESTED)
    assert not list(d)
    assert doc.value == {"cards": [{"id": "oak", "stats": {"cost": 2, "vp": 3}, "traits": {"kind": ["tree", "herb"]},
                                    "abilities": {"green": "draw 1"}}, {"id": "mint"}]}
    assert doc.file == "f.yaml"


@pytest.mark.parametrize(("path", "needle", "nth"), [
    (("cards", 0, "id"), "oak", 0),
    (("cards", 0, "stats", "cost"), "2", 0),
    (("cards", 0, "stats", "vp"), "3", 0),
    (("cards", 0, "traits", "kind", 1), "herb", 0),
    (("cards", 0, "abilities", "green"), '"draw 1"', 0),
    (("cards", 1, "id"), "mint", 0),
    (("cards", 0, "stats"), "{cost", 0),
    (("cards", 0, "traits", "kind"), "[tree", 0),
])
def test_value_spans(loader, path, needle, nth) -> None:
    doc, _ = load(NESTED)
    sp = doc.span(path)
    assert (sp.file, sp.line, sp.col) == ("f.yaml", *pos(NESTED, needle, nth))


def test_value_span_ends() -> None:
    doc, _ = load(NESTED)
    sp = doc.span(("cards", 0, "abilities", "green"))
    line, col = pos(NESTED, '"draw 1"')
    assert (sp.end_line, sp.end_col) == (line, col + len('"draw 1"'))
    sp = doc.span(("cards", 0, "stats"))
    line, col = pos(NESTED, "{cost: 2, vp: 3}")
    assert (sp.line, sp.col, sp.end_line, sp.end_col) == (line, col, line, col + len("{cost: 2, vp: 3}"))


@pytest.mark.parametrize(("path", "needle", "nth"), [
    (("cards",), "cards", 0),
    (("cards", 0, "id"), "id", 0),
    (("cards", 0, "stats", "vp"), "vp", 0),
    (("cards", 0, "traits", "kind"), "kind", 0),
    (("cards", 0, "abilities", "green"), "green", 0),
    (("cards", 1, "id"), "id", 1),
])
def test_key_spans(loader, path, needle, nth) -> None:
    doc, _ = load(NESTED)
    sp = doc.key_span(path)
    line, col = pos(NESTED, needle, nth)
    assert (sp.line, sp.col, sp.end_line, sp.end_col) == (line, col, line, col + len(needle))


def test_span_falls_back_to_nearest_enclosing_value() -> None:
    doc, _ = load(NESTED)
    assert doc.span(("cards", 0, "stats", "missing")) == doc.span(("cards", 0, "stats"))
    assert doc.span(("cards", 7, "id")) == doc.span(("cards",))
    assert doc.span(("nope",)) == doc.span(())
    # a list item has no key: key_span gives the value's span
    assert doc.key_span(("cards", 0)) == doc.span(("cards", 0))


def test_root_span_and_empty_document() -> None:
    doc, d = load("")
    assert doc is not None and doc.value is None and not list(d)
    assert (doc.span(()).line, doc.span(()).col) == (1, 1)
    doc, d = load("# only a comment\n")
    assert doc is not None and doc.value is None and not list(d)


def test_scalars_are_typed_like_yaml() -> None:
    doc, d = load("a: 1\nb: -2\nc: true\nd: ~\ne: '3'\nf: 2.5\n")
    assert not list(d)
    assert doc.value == {"a": 1, "b": -2, "c": True, "d": None, "e": "3", "f": 2.5}


def test_bad_tagged_scalar_is_reported_and_loading_goes_on() -> None:
    text = "a: !!int abc\nb: ok\n"
    doc, d = load(text)
    assert codes(d) == ["E001"]
    assert (d.items[0].span.line, d.items[0].span.col) == pos(text, "!!int")
    assert doc is not None and doc.value["b"] == "ok"


# ----------------------------------------------------------------------------- text_span


def test_text_span_plain(loader) -> None:
    text = "abilities:\n  green: gain 1 soil, move 1 card from dek to hand\n"
    doc, _ = load(text)
    assert_word(doc, ("abilities", "green"), "dek", text)
    assert_word(doc, ("abilities", "green"), "gain", text)
    assert_word(doc, ("abilities", "green"), "hand", text)


def test_text_span_plain_multiline(loader) -> None:
    text = "green: gain 1 soil,\n  move 1 card\n  from dek to hand\n"
    doc, _ = load(text)
    assert doc.value["green"] == "gain 1 soil, move 1 card from dek to hand"
    assert_word(doc, ("green",), "dek", text)
    assert_word(doc, ("green",), "move", text)


def test_text_span_double_quoted(loader) -> None:
    text = 'cards:\n  - {id: oak, abilities: {green: "gain 1 Soil"}}\n'
    doc, _ = load(text)
    path = ("cards", 0, "abilities", "green")
    assert_word(doc, path, "Soil", text)
    assert_word(doc, path, "gain", text)
    sp = doc.text_span(path, 0)  # no end: a point
    assert (sp.line, sp.col, sp.end_line) == (*pos(text, "gain"), None)


def test_text_span_double_quoted_with_escaped_quotes(loader) -> None:
    # (other escapes such as \\t or \\u00e9 are not aligned exactly: the docstring says so)
    text = 'a: "say \\"hi\\", then z"\n'
    doc, _ = load(text)
    assert doc.value["a"] == 'say "hi", then z'
    assert_word(doc, ("a",), "hi", text)
    assert_word(doc, ("a",), "then", text)
    assert_word(doc, ("a",), "z", text)


def test_text_span_double_quoted_over_lines(loader) -> None:
    text = 'a: "gain 1 soil, move 1 card \\\n  from dek to hand"\n'
    doc, _ = load(text)
    assert doc.value["a"] == "gain 1 soil, move 1 card from dek to hand"
    assert_word(doc, ("a",), "dek", text)


def test_text_span_single_quoted(loader) -> None:
    text = "a: 'gain 1 soil, it''s z'\n"
    doc, _ = load(text)
    assert doc.value["a"] == "gain 1 soil, it's z"
    assert_word(doc, ("a",), "soil", text)
    assert_word(doc, ("a",), "z", text)


def test_text_span_literal_block(loader) -> None:
    text = "macros:\n  go: |\n    gain 1 soil,\n    move 1 card from dek to hand\nnext: 1\n"
    doc, _ = load(text)
    assert doc.value["macros"]["go"] == "gain 1 soil,\nmove 1 card from dek to hand\n"
    assert_word(doc, ("macros", "go"), "gain", text)
    assert_word(doc, ("macros", "go"), "dek", text)
    assert_word(doc, ("macros", "go"), "hand", text)


@pytest.mark.parametrize("indicator", ["|-", "|+", ">-", ">+"])
def test_text_span_block_chomping_indicators(loader, indicator) -> None:
    text = f"a: {indicator}\n  gain 1 soil,\n  move 1 card from dek to hand\n\nb: 1\n"
    doc, _ = load(text)
    assert_word(doc, ("a",), "gain", text)
    assert_word(doc, ("a",), "dek", text)


def test_text_span_folded_block(loader) -> None:
    text = "a: >\n  gain 1 soil,\n  move 1 card\n    from dek to hand\n  then gain 2 coin\n"
    doc, _ = load(text)
    assert "move 1 card\n  from dek" in doc.value["a"]  # more-indented lines keep their break
    assert_word(doc, ("a",), "dek", text)
    assert_word(doc, ("a",), "coin", text)
    assert_word(doc, ("a",), "soil", text)


def test_text_span_folded_block_with_blank_line(loader) -> None:
    text = "a: >\n  gain 1 soil,\n\n  gain 2 coin\n"
    doc, _ = load(text)
    assert_word(doc, ("a",), "gain", text, nth=1, value_nth=1)
    assert_word(doc, ("a",), "coin", text)


def test_text_span_literal_block_with_header_comment(loader) -> None:
    text = "green: | # grow things\n  grow 1\n"
    doc, _ = load(text)
    assert doc.value["green"] == "grow 1\n"
    assert_word(doc, ("green",), "grow", text, nth=1)


def test_text_span_in_list_item_and_after_non_ascii(loader) -> None:
    text = 'cards:\n  - {name: "樫の木 😀", abilities: {green: "gain 1 Soil"}}\n'
    doc, _ = load(text)
    assert_word(doc, ("cards", 0, "abilities", "green"), "Soil", text)
    assert_word(doc, ("cards", 0, "name"), "😀", text)


def test_text_span_with_crlf_line_ends(loader) -> None:
    text = "a: >\r\n  gain 1 soil,\r\n  move 1 card from dek to hand\r\nb: x\r\n"
    doc, _ = load(text)
    assert_word(doc, ("a",), "dek", text)
    assert doc.span(("b",)).line == 4


def test_text_span_with_bom(tmp_path) -> None:
    p = tmp_path / "bom.yaml"
    p.write_bytes(b"\xef\xbb\xbfa: gain 1 Soil\n")
    d = Diagnostics()
    doc = load_yaml_file(p, d)
    assert not list(d)
    sp = word_span(doc, ("a",), "Soil")
    assert (sp.line, sp.col) == (1, len("a: gain 1 ") + 1)


def test_text_span_of_non_string_falls_back_to_value_span() -> None:
    doc, _ = load("a: 12\n")
    assert doc.text_span(("a",), 0, 1) == doc.span(("a",))


# ----------------------------------------------------------------------------- duplicate and odd keys


def test_duplicate_key_block(loader) -> None:
    text = "cards:\n  - id: oak\n    name: Oak\n    name: Oak again\n"
    doc, d = load(text)
    assert codes(d) == ["E003"]
    diag = d.items[0]
    assert (diag.span.line, diag.span.col) == pos(text, "name", 1)
    assert "'name'" in diag.message
    ((note, first),) = diag.notes
    assert "first" in note
    assert (first.line, first.col) == pos(text, "name", 0)
    assert doc.value["cards"][0]["name"] == "Oak"  # the first one counts


def test_duplicate_key_flow_and_top_level(loader) -> None:
    text = "a: {x: 1, y: 2, x: 3, x: 4}\nb: 1\nb: 2\n"
    doc, d = load(text)
    assert codes(d) == ["E003", "E003", "E003"]
    got = [(x.span.line, x.span.col) for x in d]
    assert got == [pos(text, "x:", 1), pos(text, "x:", 2), pos(text, "b:", 1)]
    assert doc.value == {"a": {"x": 1, "y": 2}, "b": 1}


@pytest.mark.parametrize(("key", "shown"), [
    ("7", "7"), ("-1", "-1"), ("2.5", "2.5"), ("true", "true"), ("false", "false"), ("yes", "yes"),
    ("off", "off"), ("~", "~"), ("null", "null"), ("2024-01-01", "2024-01-01"),
])
def test_non_string_scalar_keys(loader, key, shown) -> None:
    text = f"stats:\n  cost: 1\n  {key}: 2\n  vp: 3\n"
    doc, d = load(text)
    assert codes(d) == ["E004"], [x.message for x in d]
    diag = d.items[0]
    assert (diag.span.line, diag.span.col) == (3, 3)
    assert shown in diag.message
    assert doc.value == {"stats": {"cost": 1, "vp": 3}}  # the bad key is left out, the rest kept


def test_quoted_keys_are_strings(loader) -> None:
    doc, d = load("'7': a\n\"true\": b\n'~': c\n")
    assert not list(d)
    assert doc.value == {"7": "a", "true": "b", "~": "c"}


def test_collection_keys(loader) -> None:
    text = "? [a, b]\n: 1\n{c: d}: 2\nok: 3\n"
    doc, d = load(text)
    assert codes(d) == ["E004", "E004"]
    assert [(x.span.line, x.span.col) for x in d] == [pos(text, "[a"), pos(text, "{c")]
    assert doc.value == {"ok": 3}


def test_merge_key_rejected(loader) -> None:
    text = "base: &b {cost: 1}\ncard:\n  <<: *b\n  vp: 2\n"
    doc, d = load(text)
    assert codes(d) == ["E004"]
    assert (d.items[0].span.line, d.items[0].span.col) == pos(text, "<<")
    assert doc.value["card"] == {"vp": 2}


# ----------------------------------------------------------------------------- syntax errors


@pytest.mark.parametrize(("text", "needle"), [
    ("cards:\n  - id: oak\n    name: Oak: tree\n", ": tree"),
    ("a: 1\n\tb: 2\n", "\tb"),
    ("a: 1\n---\nb: 2\n", "---"),
])
def test_yaml_syntax_error_position(loader, text, needle) -> None:
    doc, d = load(text)
    assert doc is None
    assert codes(d) == ["E001"]
    assert (d.items[0].span.line, d.items[0].span.col) == pos(text, needle)


def test_yaml_syntax_error_unclosed_flow(loader) -> None:
    doc, d = load("a: [1, 2\n")
    assert doc is None and codes(d) == ["E001"]
    assert d.items[0].span.line == 2


# ----------------------------------------------------------------------------- encodings


def test_invalid_utf8_line_and_col() -> None:
    data = b"cards:\n  - id: oak\n    name: O\xffk\n"
    d = Diagnostics()
    assert decode_source(data, "c.yaml", d) is None
    assert codes(d) == ["E002"]
    sp = d.items[0].span
    assert (sp.file, sp.line, sp.col) == ("c.yaml", 3, len("    name: O") + 1)
    assert "0xff" in d.items[0].message


def test_invalid_utf8_first_byte_and_truncated_sequence() -> None:
    d = Diagnostics()
    assert decode_source(b"\xfe\xff", "a.yaml", d) is None
    assert (d.items[0].span.line, d.items[0].span.col) == (1, 1)
    d = Diagnostics()
    assert decode_source(b"a: b\nc: \xe3\x81", "b.yaml", d) is None  # cut in the middle of a character
    assert (d.items[0].span.line, d.items[0].span.col) == (2, 4)


def test_invalid_utf8_col_counts_characters() -> None:
    data = "cards:\n  - id: oak\n    name: ミント".encode() + b"\xff\n"
    d = Diagnostics()
    assert decode_source(data, "c.yaml", d) is None
    sp = d.items[0].span
    assert (sp.line, sp.col) == (3, len("    name: ミント") + 1)


def test_invalid_utf8_through_load_yaml_file(tmp_path) -> None:
    p = tmp_path / "cards.yaml"
    p.write_bytes(b"cards:\n  - id: o\xc3\x28k\n")
    d = Diagnostics()
    assert load_yaml_file(p, d, "cards.yaml") is None
    assert codes(d) == ["E002"]
    assert (d.items[0].span.file, d.items[0].span.line, d.items[0].span.col) == ("cards.yaml", 2, 10)


def test_utf8_bom_is_accepted() -> None:
    d = Diagnostics()
    assert decode_source(b"\xef\xbb\xbfa: 1\n", "f", d) == "a: 1\n"
    assert not list(d)


# ----------------------------------------------------------------------------- limits


def _billion_laughs(levels: int = 9) -> str:
    text = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    prev = "a"
    for name in "bcdefghijklmnop"[: levels - 1]:
        text += f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]\n"
        prev = name
    return text


@pytest.mark.parametrize("levels", [9, 15])
def test_alias_bomb_rejected_quickly(loader, levels) -> None:
    # rejected from the anchors' sizes, never expanded: a few hundred nodes are built, not 9**levels
    built = []
    real = yaml.ScalarNode.__init__

    def counting(self, *args, **kw):
        built.append(1)
        real(self, *args, **kw)

    yaml.ScalarNode.__init__ = counting
    try:
        doc, d = load(_billion_laughs(levels))
    finally:
        yaml.ScalarNode.__init__ = real
    assert doc is None
    assert codes(d) == ["E005"]
    assert "alias" in d.items[0].message
    assert len(built) < 1_000


def test_alias_bomb_of_mappings(loader) -> None:
    fields = ", ".join(f"k{i}: {i}" for i in range(20))
    text = f"a: &a {{{fields}}}\nb: [" + ", ".join(["*a"] * 12_000) + "]\n"  # 21 nodes per alias
    doc, d = load(text)
    assert doc is None and codes(d) == ["E005"]


def test_a_few_aliases_are_fine(loader) -> None:
    doc, d = load("a: &a {x: 1}\nb: *a\nc: [*a, *a]\n")
    assert not list(d)
    assert doc.value == {"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 1}]}


@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: &a {b: *a}\n", "a: &a [1, [2, *a]]\n"])
def test_recursive_alias_rejected(loader, text) -> None:
    doc, d = load(text)
    assert doc is None and codes(d) == ["E005"]


def test_nesting_up_to_the_limit_is_fine(loader) -> None:
    n = ys.MAX_DEPTH  # the root is depth 0: n brackets under a key reach depth n
    doc, d = load("x: " + "[" * n + "]" * n + "\n")
    assert not list(d) and doc is not None


@pytest.mark.parametrize("shape", ["flow", "block"])
def test_deep_nesting_rejected(loader, shape) -> None:
    n = ys.MAX_DEPTH + 20
    if shape == "flow":
        text = "x: " + "[" * n + "]" * n + "\n"
        where = pos(text, "[", ys.MAX_DEPTH)  # x's value (the first '[') is depth 1: the 65th is too deep
    else:
        text = "".join("  " * i + "k:\n" for i in range(n)) + "  " * n + "1\n"
        where = pos(text, "k:", ys.MAX_DEPTH + 1)  # the mapping at depth d starts on line d + 1
    doc, d = load(text)
    assert doc is None
    assert codes(d) == ["E005"]
    assert "nesting" in d.items[0].message
    assert (d.items[0].span.line, d.items[0].span.col) == where


@pytest.mark.parametrize("which", [p.id for p in LOADERS])
def test_very_deep_nesting_is_e005(which, monkeypatch) -> None:
    monkeypatch.setattr(ys, "_Loader", yaml.CSafeLoader if which == "libyaml" else yaml.SafeLoader)
    n = 3000
    doc, d = load("x: " + "[" * n + "]" * n + "\n")
    assert doc is None
    assert codes(d) == ["E005"]


@pytest.mark.parametrize("n", [3000, 900_000])
def test_very_deep_nesting_does_not_crash(n) -> None:
    """libyaml (the default): no crash, no hang, one diagnostic, whatever its code."""
    doc, d = load("x: " + "[" * n + "]" * n + "\n")
    assert doc is None
    assert codes(d) in (["E005"], ["E001"])


def test_node_limit_on_a_plain_large_document(loader, monkeypatch) -> None:
    monkeypatch.setattr(ys, "MAX_NODES", 1000)
    doc, d = load("a: [" + ", ".join(["1"] * 2000) + "]\n")
    assert doc is None and codes(d) == ["E005"]


def test_file_over_size_limit(tmp_path) -> None:
    p = tmp_path / "huge.yaml"
    line = "- id: card\n"
    p.write_text(line * (ys.MAX_FILE_BYTES // len(line) + 2), encoding="utf-8")
    assert p.stat().st_size > ys.MAX_FILE_BYTES
    d = Diagnostics()
    read = []
    real = ys.load_yaml_bytes
    ys.load_yaml_bytes = lambda data, *a: read.append(len(data)) or real(data, *a)
    try:
        assert load_yaml_file(p, d, "huge.yaml") is None
    finally:
        ys.load_yaml_bytes = real
    assert read == []  # refused from its size, before a byte of it is parsed
    assert codes(d) == ["E005"]
    assert (d.items[0].span.file, d.items[0].span.line, d.items[0].span.col) == ("huge.yaml", 1, 1)
    assert f"{ys.MAX_FILE_BYTES:,}" in d.items[0].message


def test_file_at_size_limit_is_read(tmp_path) -> None:
    p = tmp_path / "big.yaml"
    body = "a: x\n#"
    p.write_text(body + "#" * (ys.MAX_FILE_BYTES - len(body) - 1) + "\n", encoding="utf-8")
    assert p.stat().st_size == ys.MAX_FILE_BYTES
    d = Diagnostics()
    doc = load_yaml_file(p, d)
    assert not list(d) and doc.value == {"a": "x"}


def test_missing_file(tmp_path) -> None:
    d = Diagnostics()
    assert load_yaml_file(tmp_path / "nope.yaml", d, "nope.yaml") is None
    assert codes(d) == ["E006"] and d.items[0].span.file == "nope.yaml"


def test_load_yaml_file_uses_display_name(tmp_path) -> None:
    p = tmp_path / "x.yaml"
    p.write_text("a: b\n", encoding="utf-8")
    d = Diagnostics()
    doc = load_yaml_file(p, d, "pack/x.yaml")
    assert doc.file == "pack/x.yaml" and doc.span(("a",)).file == "pack/x.yaml"
    doc = load_yaml_file(p, d)
    assert doc.file == str(p)
