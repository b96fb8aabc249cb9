"""The JSON Schemas editors read: each valid against the meta-schema it declares, read alike by the fast
validator and by jsonschema, and understood by yaml-language-server (the engine of VS Code's YAML extension)
on a freshly scaffolded pack: it validates and completes a card file."""

from __future__ import annotations

import json
import shutil

import fastjsonschema
import pytest
from click.testing import CliRunner
from jsonschema import validators

from cardsmith.cli import main
from cardsmith.compiler.packs import builtin_packs, card_files
from cardsmith.compiler.schema import SCHEMA_DIR, SCHEMA_NAMES, fast_check, schema, validator
from cardsmith.compiler.yamlsrc import load_yaml_file

# jsonschema's validator class for a draft, and the code generator fastjsonschema uses for the same draft.
SAME_DRAFT = {
    "Draft4Validator": "CodeGeneratorDraft04",
    "Draft6Validator": "CodeGeneratorDraft06",
    "Draft7Validator": "CodeGeneratorDraft07",
    "Draft201909Validator": "CodeGeneratorDraft2019",
}


def printed_schemas() -> dict[str, dict]:
    res = CliRunner().invoke(main, ["schema"])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_printed_schema_is_valid_against_its_meta_schema(name):
    printed = printed_schemas()[name]
    assert printed == schema(name)
    cls = validators.validator_for(printed, default=None)
    assert cls is not None, f"{name}: $schema {printed.get('$schema')!r} names no draft jsonschema knows"
    cls.check_schema(printed)  # raises SchemaError with the path of the first problem


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_fast_validator_reads_the_declared_draft(name):
    s = schema(name)
    generator = fastjsonschema._get_code_generator_class(s).__name__
    declared = validators.validator_for(s).__name__
    assert type(validator(name)).__name__ == declared
    assert SAME_DRAFT.get(declared) == generator, f"{name}: declared {declared}, fastjsonschema reads {generator}"


def _card_documents():
    for folder in builtin_packs().values():
        for path in card_files(folder)[:3]:
            doc = load_yaml_file(path, _Nothing())
            if doc is not None:
                yield path.name, doc.value


class _Nothing:
    def error(self, *a, **k):
        raise AssertionError("a built-in card file does not load")


def test_fast_and_full_validators_agree_on_good_and_broken_card_files():
    docs = list(_card_documents())
    assert len(docs) >= 10
    broken = [
        {"cards": [{"id": "Bad Id", "name": "x"}]},
        {"cards": [{"id": "ok", "name": "x", "copies": "two"}]},
        {"cards": [{"id": "ok", "name": "x", "bogus": 1}]},
        {"cards": [{"id": "ok"}]},
        {"defaults": {"name": "not a default"}, "cards": []},
        {"cards": [{"id": "ok", "name": "x", "traits": {"kind": 3}}]},
        {"cards": [{"id": "ok", "name": "x", "back": {"id": "b"}}]},
    ]
    for label, value in [*docs, *(("broken", b) for b in broken)]:
        try:
            fast_check("cards")(value)
            fast_ok = True
        except fastjsonschema.JsonSchemaException:
            fast_ok = False
        full_ok = validator("cards").is_valid(value)
        assert fast_ok == full_ok, f"{label}: fastjsonschema says {fast_ok}, jsonschema says {full_ok}"
    assert all(not validator("cards").is_valid(b) for b in broken)


def _yaml_language_server() -> str:
    exe = shutil.which("yaml-language-server")
    if exe is None or shutil.which("node") is None:
        pytest.skip("yaml-language-server (npm i -g yaml-language-server) and node are needed; .ci/run installs them")
    return exe


def test_yaml_language_server_validates_and_completes_a_scaffolded_card_file(tmp_path):
    exe = _yaml_language_server()
    from lsp_client import StdioClient
    from lsprotocol import types as T

    res = CliRunner().invoke(main, ["new", "pack", "demo", "--dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    pack = tmp_path / "demo"
    cards = pack / "cards.yaml"
    assert cards.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=")
    settings = {"validate": True, "completion": True, "hover": True, "schemaStore": {"enable": False}}
    client = StdioClient([exe, "--stdio"], cwd=str(tmp_path),
                         configuration=lambda item: settings if item.section == "yaml" else None)
    try:
        client.initialize(pack.as_uri())
        client.notify("workspace_did_change_configuration", T.DidChangeConfigurationParams(settings={"yaml": settings}))
        text = cards.read_text(encoding="utf-8") + "  - id: second-card\n    name: Second\n    bogus: 1\n    \n"
        lines = text.split("\n")
        uri = cards.as_uri()
        client.open(uri, text)
        diags = client.wait_for_diagnostics(uri)
        messages = [d.message for d in diags]
        assert not any("is not valid" in m for m in messages), messages
        bogus = next(i for i, line in enumerate(lines) if "bogus" in line)
        assert [(d.range.start.line, "bogus" in d.message) for d in diags] == [(bogus, True)], messages
        blank = len(lines) - 2  # the indented empty line of the new card: its keys complete from the schema
        done = client.request("text_document_completion_async", T.CompletionParams(
            T.TextDocumentIdentifier(uri), T.Position(blank, 4)))
        labels = {i.label for i in (done.items if hasattr(done, "items") else done)}
        assert {"abilities", "traits", "copies", "requires"} <= labels, labels
        assert "id" not in labels and "bogus" not in labels  # given already; not a field
    finally:
        client.close()


def test_every_shipped_schema_is_printed_and_checked():
    assert {p.name.removesuffix(".schema.json") for p in SCHEMA_DIR.glob("*.schema.json")} == set(SCHEMA_NAMES)
