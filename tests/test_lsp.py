"""`cardsmith lsp` end to end over stdio, driven by pygls' own client, on the Earth and Terraforming Mars packs
(and Abundance, which extends Earth): diagnostics as `cardsmith validate` gives them, completion, hover,
definition, references, rename, semantic tokens and quick fixes. Buffers are changed in the editor only:
no file of the packs is written."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")
from click.testing import CliRunner
from lsp_client import StdioClient
from lsprotocol import types as T

from cardsmith.cli import main
from helpers import ROOT

CARDS = ROOT / "cards"
EARTH_FLORA = CARDS / "earth" / "flora.yaml"
TM_CARDS = CARDS / "terraforming-mars" / "cards-001-050.yaml"
TM_RULES = CARDS / "terraforming-mars" / "rules.yaml"


@pytest.fixture(scope="module")
def lsp(tmp_path_factory):
    client = StdioClient([sys.executable, "-m", "cardsmith", "lsp"], cwd=str(ROOT),
                         env={"CARDSMITH_CACHE": str(tmp_path_factory.mktemp("cache")), "PATH": "/usr/bin:/bin"})
    client.initialize(CARDS.as_uri())
    yield client
    client.close()


def at(text: str, needle: str, nth: int = 0, delta: int = 0) -> T.Position:
    """The position `delta` characters into the nth occurrence of `needle` (ASCII text: UTF-16 = characters)."""
    i = -1
    for _ in range(nth + 1):
        i = text.index(needle, i + 1)
    i += delta
    line = text.count("\n", 0, i)
    return T.Position(line, i - (text.rfind("\n", 0, i) + 1))


def doc(path: Path) -> T.TextDocumentIdentifier:
    return T.TextDocumentIdentifier(path.as_uri())


def opened(lsp: StdioClient, path: Path, text: str | None = None) -> str:
    text = path.read_text(encoding="utf-8") if text is None else text
    before = lsp.publications(path.as_uri())
    lsp.open(path.as_uri(), text)
    lsp.wait_for_diagnostics(path.as_uri(), after=before)
    return text


def changed(lsp: StdioClient, path: Path, text: str, version: int) -> list[T.Diagnostic]:
    before = lsp.publications(path.as_uri())
    lsp.change(path.as_uri(), text, version)
    return lsp.wait_for_diagnostics(path.as_uri(), after=before)


def closed(lsp: StdioClient, path: Path) -> list[T.Diagnostic]:
    before = lsp.publications(path.as_uri())
    lsp.notify("text_document_did_close", T.DidCloseTextDocumentParams(doc(path)))
    return lsp.wait_for_diagnostics(path.as_uri(), after=before)


def labels(lsp: StdioClient, path: Path, position: T.Position) -> list[str]:
    done = lsp.request("text_document_completion_async", T.CompletionParams(doc(path), position))
    return [i.label for i in done.items]


def hover_text(lsp: StdioClient, path: Path, position: T.Position) -> str:
    h = lsp.request("text_document_hover_async", T.HoverParams(doc(path), position))
    return h.contents.value if h is not None else ""


def validate_json(tmp_path: Path, pack: str, rel: str, text: str) -> list[dict]:
    """What `cardsmith validate --format json` says of a copy of the pack chain with `rel` holding `text`."""
    for folder in CARDS.iterdir():
        if (folder / "pack.yaml").is_file() and not (tmp_path / folder.name).exists():
            shutil.copytree(folder, tmp_path / folder.name, ignore=shutil.ignore_patterns("scenarios"))
    (tmp_path / rel).write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["validate", str(tmp_path / pack), "--format", "json"])
    return json.loads(res.stdout)


# ------------------------------------------------------------------ diagnostics
@pytest.mark.parametrize(("pack", "path", "old", "new"), [
    ("earth", EARTH_FLORA, "gain 1 soil", "gain 1 soyl"),
    ("terraforming-mars", TM_CARDS, "raise temperature 1", "raise temprature 1"),
    ("terraforming-mars", TM_CARDS, "{tag: ", "{tagz: "),
])
def test_diagnostics_as_you_type_are_those_of_validate(lsp, tmp_path, pack, path, old, new):
    text = opened(lsp, path)
    assert lsp.published[path.as_uri()] == []
    edited = text.replace(old, new, 1)
    got = changed(lsp, path, edited, 2)
    want = [d for d in validate_json(tmp_path, pack, path.relative_to(CARDS).as_posix(), edited)
            if d["file"].endswith(path.name)]
    assert want, "the edit should be a mistake validate reports"
    assert [(d.code, d.message, d.range.start.line + 1, d.range.start.character + 1) for d in got] == \
        [(d["code"], d["message"], d["line"], d["col"]) for d in want]
    assert all(d.source == "cardsmith" for d in got)
    hinted = [d for d in got if "did you mean" in ((d.data or {}).get("hint") or "")]
    for d in hinted:  # each did-you-mean hint is a quick fix that puts the suggestion in place of the word
        (action,) = lsp.request("text_document_code_action_async", T.CodeActionParams(
            doc(path), d.range, T.CodeActionContext(diagnostics=[d])))
        (edit,) = action.edit.changes[path.as_uri()]
        wrong = d.message.split("'")[1]
        row = edited.split("\n")[edit.range.start.line]
        assert row[edit.range.start.character:edit.range.end.character] == wrong
        assert edit.new_text in d.data["hint"]
    assert hinted or pack == "terraforming-mars"
    assert closed(lsp, path) == []  # the buffer closed unsaved: the file on disk, which is clean


def test_an_incremental_change_and_a_file_of_a_pack_that_extends_another(lsp):
    path = CARDS / "earth-abundance" / "flora.yaml"
    text = opened(lsp, path)  # Abundance cards use Earth's vocabulary: clean
    assert lsp.published[path.as_uri()] == []
    start = at(text, '"gain 1 seed"', delta=8)
    before = lsp.publications(path.as_uri())
    lsp.notify("text_document_did_change", T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=2),
        [T.TextDocumentContentChangePartial(T.Range(start, T.Position(start.line, start.character + 4)), "seeds")]))
    (d,) = lsp.wait_for_diagnostics(path.as_uri(), after=before)
    assert (d.code, d.message) == ("E101", "unknown resource 'seeds'")
    assert d.range.start == start
    assert "seed" in " ".join(r.message for r in d.related_information or [])
    fix = lsp.request("text_document_code_action_async", T.CodeActionParams(
        doc(path), d.range, T.CodeActionContext(diagnostics=[d])))
    (action,) = fix
    (edit,) = action.edit.changes[path.as_uri()]
    assert (action.title, edit.new_text, edit.range.start) == ("Change 'seeds' to 'seed'", "seed", start)
    closed(lsp, path)


def test_a_burst_of_keystrokes_ends_with_the_diagnostics_of_the_last(lsp):
    text = opened(lsp, EARTH_FLORA)
    typed = "gain 1 soyl"
    at_ = text.index("gain 1 soil")
    for n in range(1, len(typed) + 1):  # one keystroke after another, without waiting for the server
        lsp.change(EARTH_FLORA.as_uri(), text[:at_] + typed[:n] + text[at_ + len("gain 1 soil"):], n + 1)
    final = len(typed) + 1
    got = lsp.wait_for_diagnostics(EARTH_FLORA.as_uri(),
                                   until=lambda _: lsp.document_versions.get(EARTH_FLORA.as_uri()) == final)
    assert [(d.code, d.message) for d in got] == [("E101", "unknown resource 'soyl'")]
    closed(lsp, EARTH_FLORA)


def test_a_file_changed_on_disk_is_compiled_again(lsp, tmp_path):
    shutil.copytree(CARDS / "earth", tmp_path / "earth", ignore=shutil.ignore_patterns("scenarios"))
    flora, events = tmp_path / "earth" / "flora.yaml", tmp_path / "earth" / "events.yaml"
    opened(lsp, flora)
    assert lsp.published[flora.as_uri()] == []
    events.write_text(events.read_text(encoding="utf-8").replace("gain", "gian", 1), encoding="utf-8")
    before = lsp.publications(events.as_uri())
    lsp.notify("workspace_did_change_watched_files", T.DidChangeWatchedFilesParams(
        [T.FileEvent(events.as_uri(), T.FileChangeType.Changed)]))
    (d,) = lsp.wait_for_diagnostics(events.as_uri(), after=before)
    assert (d.code, d.message) == ("E101", "unknown action 'gian'")
    closed(lsp, flora)


# ------------------------------------------------------------------ completion
def test_completion_in_ability_text_follows_the_grammar_and_the_vocabulary(lsp):
    text = opened(lsp, EARTH_FLORA)
    gain = labels(lsp, EARTH_FLORA, at(text, "gain 1 soil", delta=len("gain 1 ")))
    assert "soil" in gain and "leaf" in gain and "tableau" not in gain and "gain" not in gain
    edited = text.replace('"gain 1 soil"', '"for each card in tableau with habitat "', 1)
    changed(lsp, EARTH_FLORA, edited, 2)
    habitat = labels(lsp, EARTH_FLORA, at(edited, "with habitat ", delta=len("with habitat ")))
    assert {"sunny", "wet", "rocky", "cold"} <= set(habitat) and "soil" not in habitat
    zones = labels(lsp, EARTH_FLORA, at(edited, "for each card in ", delta=len("for each card in ")))
    assert {"tableau", "hand", "deck"} <= set(zones) and "soil" not in zones
    start = labels(lsp, EARTH_FLORA, at(edited, '"for each', delta=1))
    assert {"gain", "pay", "choose", "for", "if"} <= set(start)
    assert any(label.startswith("compost $n") for label in start)  # Earth's macros, with their parameters
    closed(lsp, EARTH_FLORA)


def test_completion_of_yaml_keys_and_values_from_the_pack(lsp):
    text = EARTH_FLORA.read_text(encoding="utf-8")
    anchor = "    abilities: {"
    i = text.index("\n", text.index(anchor))
    edited = text[:i] + "\n    traits:\n      kind: \n    abilities:\n      \n    type: " + text[i:]
    # (a second 'abilities' and 'traits' in one card: the YAML is broken, completion reads the indentation)
    opened(lsp, EARTH_FLORA, edited)
    lines = edited.split("\n")
    base = text[:i].count("\n") + 1
    assert lines[base + 3] == "      "
    timings = labels(lsp, EARTH_FLORA, T.Position(base + 3, 6))
    assert {"green", "red", "blue", "yellow", "black", "brown"} <= set(timings)
    kinds = labels(lsp, EARTH_FLORA, T.Position(base + 1, len("      kind: ")))
    assert {"tree", "herb", "mushroom", "bush"} <= set(kinds)
    types = labels(lsp, EARTH_FLORA, T.Position(base + 4, len("    type: ")))
    assert {"flora", "terrain", "event"} <= set(types)
    closed(lsp, EARTH_FLORA)


def test_completion_of_macro_words_tm_tags_and_card_ids_in_scenarios(lsp):
    text = opened(lsp, TM_CARDS)
    edited = text.replace('play: "gain 1 plant"', 'play: "raise "', 1)
    changed(lsp, TM_CARDS, edited, 2)
    words = labels(lsp, TM_CARDS, at(edited, '"raise "', delta=len('"raise ')))
    assert {"temperature", "oxygen", "tr"} <= set(words)
    trigger = text.replace('play: "gain 1 plant"', 'play: "when you play a card with tag "', 1)
    changed(lsp, TM_CARDS, trigger, 3)
    tags = labels(lsp, TM_CARDS, at(trigger, "with tag \"", delta=len("with tag ")))
    assert {"plant", "animal", "space", "building"} <= set(tags) and "heat" not in tags
    closed(lsp, TM_CARDS)
    scenario = CARDS / "earth" / "scenarios" / "abilities.yaml"
    stext = opened(lsp, scenario)
    ids = labels(lsp, scenario, at(stext, "[cloudbarrel-tree]", delta=1))
    assert {"cloudbarrel-tree", "mossback-oak"} <= set(ids)
    closed(lsp, scenario)


# ------------------------------------------------------------------ hover
def test_hover_on_a_card_and_an_ability_shows_english_japanese_and_bytecode(lsp):
    text = opened(lsp, EARTH_FLORA)
    card = hover_text(lsp, EARTH_FLORA, at(text, "id: mossback-oak", delta=6))
    assert "Mossback Oak" in card and "English" in card and "日本語" in card and "Bytecode" in card
    assert "ADD_PIECES" in card and "成長" in card
    ability = hover_text(lsp, EARTH_FLORA, at(text, "gain 1 soil", delta=1))
    assert "Gain 1 soil" in ability and "GAIN" in ability
    closed(lsp, EARTH_FLORA)


def test_hover_on_a_name_and_on_a_macro_call(lsp):
    text = opened(lsp, TM_CARDS)
    heat = hover_text(lsp, TM_CARDS, at(text, "heat-production", delta=1))
    assert "heat-production" in heat and "rules.yaml" in heat and "resource" in heat
    macro = hover_text(lsp, TM_CARDS, at(text, "raise temperature 1", delta=2))
    assert "raise temperature $n" in macro and "repeat $n times" in macro and "rules.yaml:" in macro
    closed(lsp, TM_CARDS)


# ------------------------------------------------------------------ definition, references, rename
def refs_params(path: Path, position: T.Position, declaration: bool = True) -> T.ReferenceParams:
    return T.ReferenceParams(text_document=doc(path), position=position,
                             context=T.ReferenceContext(include_declaration=declaration))


def _lines_at(locations, path: Path) -> list[int]:
    return sorted(loc.range.start.line + 1 for loc in locations if loc.uri == path.as_uri())


def test_definitions_of_macros_names_events_and_card_ids_across_extends(lsp):
    text = opened(lsp, TM_CARDS)
    rules = TM_RULES.read_text(encoding="utf-8")
    to_macro = lsp.request("text_document_definition_async", T.DefinitionParams(
        doc(TM_CARDS), at(text, "raise temperature 1", delta=1)))
    assert _lines_at(to_macro, TM_RULES) == [at(rules, '"raise temperature $n"').line + 1]
    to_heat = lsp.request("text_document_definition_async", T.DefinitionParams(
        doc(TM_CARDS), at(text, "heat-production")))
    assert _lines_at(to_heat, TM_RULES) == [at(rules, "\n  heat-production:", delta=1).line + 1]
    to_event = lsp.request("text_document_definition_async", T.DefinitionParams(
        doc(TM_CARDS), at(text, "when you play", delta=len("when you "))))
    assert at(rules, "emit play").line + 1 in _lines_at(to_event, TM_RULES)
    closed(lsp, TM_CARDS)
    scenario = CARDS / "earth-abundance" / "scenarios" / "cards.yaml"
    stext = opened(lsp, scenario)
    earth_id = next(w for w in ("cloudbarrel-tree", "mossback-oak") if w in stext)
    to_card = lsp.request("text_document_definition_async", T.DefinitionParams(doc(scenario), at(stext, earth_id)))
    assert _lines_at(to_card, EARTH_FLORA) == [at(EARTH_FLORA.read_text(encoding="utf-8"), f"id: {earth_id}").line + 1]
    closed(lsp, scenario)


def test_references_of_a_macro_a_resource_and_a_card(lsp):
    text = opened(lsp, TM_CARDS)
    refs = lsp.request("text_document_references_async", refs_params(TM_CARDS, at(text, "raise temperature 1")))
    files = {Path(r.uri).name for r in refs}
    assert {"rules.yaml", "cards-001-050.yaml"} <= files and len(refs) >= 10
    no_decl = lsp.request("text_document_references_async", refs_params(TM_CARDS, at(text, "raise temperature 1"),
                                                                        declaration=False))
    assert len(no_decl) == len(refs) - 1
    heat = lsp.request("text_document_references_async", refs_params(TM_CARDS, at(text, "heat-production")))
    assert len(heat) >= 5 and all(r.range.end.character - r.range.start.character == 15 for r in heat)
    tableau = lsp.request("text_document_references_async", refs_params(TM_CARDS, at(text, "card in tableau",
                                                                                       delta=len("card in "))))
    rules = TM_RULES.read_text(encoding="utf-8").split("\n")
    declared = [r for r in tableau if r.uri == TM_RULES.as_uri()
                and rules[r.range.start.line].lstrip().startswith("tableau:")]
    assert len(declared) == 1 and len(tableau) >= 10  # the zone: its declaration and its uses
    closed(lsp, TM_CARDS)
    flora = opened(lsp, EARTH_FLORA)
    uses = lsp.request("text_document_references_async", refs_params(EARTH_FLORA, at(flora, "id: mossback-oak",
                                                                                     delta=4)))
    places = {r.uri.rsplit("/cards/", 1)[1] for r in uses}
    assert {"earth/flora.yaml", "earth-abundance/scenarios/cards.yaml"} <= places  # Abundance extends Earth
    closed(lsp, EARTH_FLORA)


def test_rename_a_card_id_and_a_macro_across_the_pack(lsp):
    flora = opened(lsp, EARTH_FLORA)
    edit = lsp.request("text_document_rename_async", T.RenameParams(
        doc(EARTH_FLORA), at(flora, "id: cloudbarrel-tree", delta=5), "cloud-barrel-tree"))
    files = {uri.rsplit("/cards/", 1)[1] for uri in edit.changes}
    assert {"earth/flora.yaml", "earth/scenarios/abilities.yaml"} <= files
    for uri, edits in edit.changes.items():
        source = Path(uri[len("file://"):]).read_text(encoding="utf-8").split("\n")
        for e in edits:
            assert e.new_text == "cloud-barrel-tree"
            assert source[e.range.start.line][e.range.start.character:e.range.end.character] == "cloudbarrel-tree"
    with pytest.raises(Exception, match="not a card id"):
        lsp.request("text_document_rename_async", T.RenameParams(
            doc(EARTH_FLORA), at(flora, "id: cloudbarrel-tree", delta=5), "Cloud Barrel"))
    closed(lsp, EARTH_FLORA)
    text = opened(lsp, TM_CARDS)
    edit = lsp.request("text_document_rename_async", T.RenameParams(
        doc(TM_CARDS), at(text, "raise temperature 1", delta=1), "increase"))
    rules_edits = edit.changes[TM_RULES.as_uri()]
    rules = TM_RULES.read_text(encoding="utf-8").split("\n")
    keys = [e for e in rules_edits if rules[e.range.start.line].lstrip().startswith('"raise')]
    assert len(keys) == 3  # raise tr, raise temperature, raise oxygen: one name, three macros
    assert all(rules[e.range.start.line][e.range.start.character:e.range.end.character] == "raise"
               for e in rules_edits)
    assert len(edit.changes[TM_CARDS.as_uri()]) >= 5
    with pytest.raises(Exception, match="built-in word"):
        lsp.request("text_document_rename_async", T.RenameParams(
            doc(TM_CARDS), at(text, "raise temperature 1", delta=1), "gain"))
    closed(lsp, TM_CARDS)


# ------------------------------------------------------------------ semantic tokens
def test_semantic_tokens_mark_the_effect_language_inside_yaml_strings(lsp):
    text = opened(lsp, TM_CARDS)
    tokens = lsp.request("text_document_semantic_tokens_full_async", T.SemanticTokensParams(doc(TM_CARDS)))
    legend = ["keyword", "number", "operator", "variable", "namespace", "property", "enumMember", "event",
              "macro", "type", "parameter", "enum"]
    lines = text.split("\n")
    decoded, line, col = {}, 0, 0
    data = tokens.data
    for k in range(0, len(data), 5):
        line += data[k]
        col = data[k + 1] if data[k] else col + data[k + 1]
        decoded[(line, col)] = (lines[line][col:col + data[k + 2]], legend[data[k + 3]])
    raise_at = at(text, "raise temperature 1")
    assert decoded[(raise_at.line, raise_at.character)] == ("raise", "macro")
    gain_at = at(text, 'play: "gain 1 plant"', delta=len('play: "'))
    assert decoded[(gain_at.line, gain_at.character)] == ("gain", "keyword")
    tag = at(text, "with tag space", delta=len("with "))
    assert decoded[(tag.line, tag.character)] == ("tag", "enum")
    assert decoded[(tag.line, tag.character + 4)] == ("space", "enumMember")
    assert not any(kind == "keyword" and word in ("id", "name") for word, kind in decoded.values())
    closed(lsp, TM_CARDS)
    text = opened(lsp, EARTH_FLORA)
    tokens = lsp.request("text_document_semantic_tokens_full_async", T.SemanticTokensParams(doc(EARTH_FLORA)))
    lines, decoded, line, col = text.split("\n"), {}, 0, 0
    for k in range(0, len(tokens.data), 5):
        line += tokens.data[k]
        col = tokens.data[k + 1] if tokens.data[k] else col + tokens.data[k + 1]
        decoded[(line, col)] = (lines[line][col:col + tokens.data[k + 2]], legend[tokens.data[k + 3]])
    soil = at(text, "gain 1 soil", delta=len("gain 1 "))
    assert decoded[(soil.line, soil.character)] == ("soil", "variable")
    kind = at(text, "with kind tree", delta=len("with "))
    assert decoded[(kind.line, kind.character)] == ("kind", "enum")
    assert decoded[(kind.line, kind.character + 5)] == ("tree", "enumMember")
    closed(lsp, EARTH_FLORA)
