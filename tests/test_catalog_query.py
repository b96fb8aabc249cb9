"""`cardsmith query`: the query language over Earth, Abundance and Terraforming Mars. Expected results are
computed from the compiled pack and the checked AST directly, not through the catalog."""

from __future__ import annotations

import json

import pytest
from catalog_sites import catalog
from click.testing import CliRunner
from conftest import compiled_result

from cardsmith.catalog.fields import search_index
from cardsmith.catalog.query import QueryErrors, run
from cardsmith.catalog.query_parse import And, Bare, Not, Or, QueryError, Term, parse_query
from cardsmith.cli import main
from cardsmith.compiler import ast as A


def ids(ref: str, query: str) -> list[str]:
    cat = catalog(ref)
    return [cat.cards[i].id for i in run(search_index(cat), query)]


def walk(node):
    if isinstance(node, tuple):
        for n in node:
            yield from walk(n)
    elif isinstance(node, A.Node):
        yield node
        for f in node.__dataclass_fields__:
            if f != "span":
                yield from walk(getattr(node, f))


def card_nodes(ref: str, card_id: str):
    res = compiled_result(ref)
    for name, body in res.asts.items():
        if name.startswith(card_id + " "):
            yield from walk(body)


# ------------------------------------------------------------------------------ the grammar


def test_the_parse_tree_follows_scryfalls_shape():
    tree = parse_query('type:event -uses:draw (tag:science or tag:space) "two words" sort:-cost')
    assert isinstance(tree, And) and len(tree.items) == 5
    t, neg, either, phrase, sort = tree.items
    assert t == Term("type", ":", "event", False, 1, 6)
    assert isinstance(neg, Not) and neg.inner.field == "uses" and neg.col == 12
    assert isinstance(either, Or) and [x.value for x in either.items] == ["science", "space"]
    assert phrase == Bare("two words", 50)
    assert sort.field == "sort" and sort.value == "-cost"
    assert parse_query("") is None
    assert isinstance(parse_query("a or b c"), Or)  # 'or' binds looser than side by side
    assert parse_query("orange").text == "orange"  # 'or' only as a whole word


@pytest.mark.parametrize("query, col, message", [
    ("cost <= 3", 5, "a space before '<='"),
    ("cost<=", 6, "a value is missing"),
    ("(type:event or kind:tree", 1, "parenthesis is never closed"),
    ("type:event)", 11, "closes no parenthesis"),
    ('text:"compost', 6, "quote is never closed"),
    ("type:event or", 12, "'or' needs a term after it"),
    ("kind:tree -", 11, "'-' needs a term after it"),
    (":tree", 1, "needs a field name"),
])
def test_syntax_errors_name_the_column(query, col, message):
    with pytest.raises(QueryError) as e:
        parse_query(query)
    assert e.value.col == col and message in e.value.message
    assert e.value.render(query).startswith(f"query:1:{col}: error:")


@pytest.mark.parametrize("query, cols, fragments", [
    ("tpe:event", [1], ["unknown field 'tpe'"]),
    ("type:evnt cost<x", [6, 16], ["'evnt' is not a value of 'type'", "'cost' is a number"]),
    ("kind<3", [5], ["'<' compares numbers"]),
    ("sort:nothing limit:x", [6, 20], ["cannot sort by 'nothing'", "limit takes a whole number"]),
    ("-(sort:cost kind:tree)", [3], ["applies to the whole query"]),
])
def test_every_meaning_error_is_reported_with_its_column(query, cols, fragments):
    with pytest.raises(QueryErrors) as e:
        run(search_index(catalog("earth")), query)
    assert [x.col for x in e.value.errors] == cols
    for frag, err in zip(fragments, e.value.errors, strict=True):
        assert frag in err.message
    assert "did you mean 'type'?" in e.value.render(query) if query.startswith("tpe") else True


def test_an_unknown_value_suggests_the_nearest_one():
    with pytest.raises(QueryErrors) as e:
        run(search_index(catalog("earth")), "type:evnt")
    assert e.value.errors[0].hint == "did you mean 'event'?"


# ------------------------------------------------------------------------------ fields, on two packs


@pytest.mark.parametrize("ref, card_type", [("earth", "event"), ("terraforming-mars", "event")])
def test_type_finds_exactly_the_cards_of_that_type(ref, card_type):
    pack = compiled_result(ref).pack
    want = [c.id for c in pack.cards if c.type == card_type]
    assert want and ids(ref, f"type:{card_type}") == want
    assert len(ids(ref, f"-type:{card_type}")) == len(pack.cards) - len(want)


def test_traits_and_stats_by_their_pack_names():
    earth = compiled_result("earth").pack
    want = [c.id for c in earth.cards if "tree" in c.traits.get("kind", ()) and c.stats.get("cost", 99) <= 3]
    assert want and ids("earth", "kind:tree cost<=3") == want
    tm = compiled_result("terraforming-mars").pack
    want = [c.id for c in tm.cards if "science" in c.traits.get("tag", ()) and c.stats.get("vp", -99) >= 2]
    assert want and ids("terraforming-mars", "tag:science vp>=2") == want
    either = [c.id for c in tm.cards if {"science", "space"} & set(c.traits.get("tag", ()))]
    assert ids("terraforming-mars", "(tag:science or tag:space)") == either


def test_a_value_may_be_written_in_japanese():
    assert ids("earth", "type:現象") == ids("earth", "type:event")


def test_uses_reads_the_macros_from_the_checked_ast():
    found = ids("earth", "uses:draw")
    want = [c.id for c in compiled_result("earth").pack.cards
            if any(isinstance(n, A.Group) and (n.macro or "").startswith("draw ") for n in card_nodes("earth", c.id))]
    assert "lantern-birch" in found and found == want
    # an opcode and a resource too
    assert "copperbark-pine" in ids("earth", "uses:gain") and "copperbark-pine" in ids("earth", "uses:soil")


def test_gains_and_targets_read_what_abilities_do():
    gains = ids("earth", "gains:soil")
    want = [c.id for c in compiled_result("earth").pack.cards
            if any(isinstance(n, A.Gain) and n.resource == "soil" for n in card_nodes("earth", c.id))]
    assert "copperbark-pine" in gains and gains == want
    opponents = ids("earth-abundance", "targets:opponent")
    scoped = [c.id for c in catalog("earth-abundance").cards if any("each opponent" in a.source for a in c.abilities)]
    assert scoped and set(scoped) <= set(opponents)
    assert "mossback-oak" not in opponents


def test_text_searches_generated_english_and_japanese():
    cat = catalog("earth")
    en = ids("earth", 'text:"compost"')
    assert en == [c.id for c in cat.cards if any("compost" in a.text["en"].lower() for a in c.abilities)]
    ja = ids("earth", "text:堆肥")
    assert ja and ja == [c.id for c in cat.cards if any("堆肥" in a.text["ja"] for a in c.abilities)]
    # a bare Japanese word (no spaces to split on) searches names and generated text
    assert "cathedral-canopy" in ids("earth", "樹冠")


def test_pack_original_sort_and_limit():
    abundance = compiled_result("earth-abundance").pack
    assert ids("earth-abundance", "pack:earth-abundance") == [c.id for c in abundance.cards
                                                             if c.pack == "earth-abundance"]
    assert ids("earth", "original:false") == [c.id for c in compiled_result("earth").pack.cards if not c.original]
    top = ids("earth", "kind:tree sort:-cost limit:3")
    costs = [compiled_result("earth").pack.card(i).stats["cost"] for i in top]
    assert len(top) == 3 and costs == sorted(costs, reverse=True)
    assert costs[0] == max(c.stats["cost"] for c in compiled_result("earth").pack.cards
                           if "tree" in c.traits.get("kind", ()))


# ------------------------------------------------------------------------------ the command


def test_query_command_formats():
    r = CliRunner().invoke(main, ["query", "earth", "kind:tree cost<=3", "--format", "ids"])
    assert r.exit_code == 0 and r.output.split() == ids("earth", "kind:tree cost<=3")
    r = CliRunner().invoke(main, ["query", "terraforming-mars", "tag:science vp>=2", "--format", "json"])
    rows = json.loads(r.output)
    assert [x["id"] for x in rows] == ids("terraforming-mars", "tag:science vp>=2")
    assert all(x["abilities"][0]["text"]["ja"] for x in rows if x["abilities"])
    r = CliRunner().invoke(main, ["query", "earth", "type:event", "--format", "csv", "--lang", "ja"])
    lines = r.output.splitlines()
    assert lines[0].startswith("id,name,type") and len(lines) == 1 + len(ids("earth", "type:event"))
    assert all(",現象," in line for line in lines[1:])


def test_query_command_errors_point_into_the_query():
    r = CliRunner().invoke(main, ["query", "earth", "kind:tree cost <= 3"])
    assert r.exit_code == 2
    assert "query:1:15: error: a space before '<='" in r.output and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["query", "earth", "--fields"])
    assert r.exit_code == 0 and "habitat" in r.output and "gains (also gain)" in r.output
