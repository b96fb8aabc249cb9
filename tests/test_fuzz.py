"""Fuzzing the loader, the schemas, the effect-language parser and the compiler (hypothesis).

Every input must end in success or in diagnostics (errors with a file, line and column, which render
in every format); no other exception may escape. Inputs: random text and token soup into
`parse_program` and into card abilities; random text as whole card files; random YAML structures as
card files, rules.yaml and pack.yaml; and mutations of the real files in cards/ (lines deleted,
duplicated or swapped, characters flipped, numbers changed, words of abilities replaced). Programs
that compile are also run in a game, which must end or stop with a RuntimeFault.

Default: FUZZ_EXAMPLES (200) examples per test, derandomized so the suite is reproducible. Long mode,
random and with hypothesis' example database:

    CARDSMITH_FUZZ_EXAMPLES=20000 pytest tests/test_fuzz.py -s     # -s prints how many inputs ran

fuzz/atheris_compile.py is the coverage-guided harness (docs/reliability.rst); it is smoke-tested here.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import random
import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import cardsmith.runtime.vm as vm
from cardsmith.compiler.diagnostics import Diagnostics, SourceCache, render_github, render_json, render_text
from cardsmith.compiler.packs import builtin_packs, card_files, load_chain
from cardsmith.compiler.parse import parse_expression, parse_program, plain_locate
from cardsmith.compiler.pipeline import _Compiler
from cardsmith.compiler.schema import validate
from cardsmith.compiler.yamlsrc import load_yaml_text
from cardsmith.runtime.game import Game

ROOT = Path(__file__).resolve().parent.parent
VMTEST = ROOT / "tests" / "fixtures" / "packs" / "vmtest"
MINIMAL = ROOT / "tests" / "fixtures" / "valid" / "minimal"

LONG = "CARDSMITH_FUZZ_EXAMPLES" in os.environ
FUZZ_EXAMPLES = int(os.environ.get("CARDSMITH_FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=not LONG, database=None if not LONG else
                settings.default.database, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])

RAN: Counter = Counter()  # inputs tried per test, printed at the end of the module (pytest -s)


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    if RAN:
        print(f"\nfuzz inputs: {sum(RAN.values())} in all; " + ", ".join(f"{k} {v}" for k, v in sorted(RAN.items())))


# ----------------------------------------------------------------------------- the oracle


def diagnosed(diags: Diagnostics, ok: bool) -> None:
    """The contract: success, or at least one error; every diagnostic is well formed and renders."""
    if not ok:
        assert diags.has_errors, "failed without an error diagnostic"
    for d in diags.items:
        assert isinstance(d.message, str) and d.message, d
        assert re.fullmatch(r"[EWR]\d{3}", d.code), d
        sp = d.span
        assert isinstance(sp.file, str) and sp.file, d
        assert isinstance(sp.line, int) and isinstance(sp.col, int) and sp.line >= 0 and sp.col >= 0, d
    render_text(diags.items, SourceCache())
    render_json(diags.items)
    render_github(diags.items)


@cache
def base_chain(ref: str) -> tuple:
    folder = builtin_packs().get(ref) or Path(ref)
    diags = Diagnostics()
    chain = load_chain(folder, diags)
    assert chain is not None, diags.items
    return tuple(chain)


def compile_with(ref: str, text: str, kind: str = "cards", name: str = "fuzzed.yaml",
                 keep_cards: bool = False):
    """Compile pack `ref` with one file replaced by `text` (in memory): a card file (the only card file,
    unless keep_cards), or rules.yaml (with the pack's smallest card file). Returns (result or None, diags)."""
    diags = Diagnostics()
    chain = list(base_chain(ref))
    top = chain[-1]
    display = str(top.folder / name)
    doc = load_yaml_text(text, display, diags)
    if doc is None or not validate(doc, kind, diags):
        diagnosed(diags, False)
        return None, diags
    parents = [dataclasses.replace(s, card_docs=[]) for s in chain[:-1]]
    if kind == "cards":
        docs = [*top.card_docs, doc] if keep_cards else [doc]
        top = dataclasses.replace(top, card_docs=docs)
    elif kind == "rules":
        small = sorted(top.card_docs, key=lambda d: len(d.text))[:1]
        top = dataclasses.replace(top, rules_doc=doc, card_docs=small)
    result = _Compiler([*parents, top], diags).run()
    diagnosed(diags, result.ok)
    return result, diags


def run_compiled(pack, players: int = 1) -> None:
    """A compiled pack's game runs to its end, or stops with a RuntimeFault; nothing else."""
    lo, hi = pack.players
    game = Game(pack, min(max(players, lo), hi), seed=1, max_decisions=200)
    try:
        game.play()
    except vm.RuntimeFault as e:
        assert e.span is not None and str(e)


@pytest.fixture(autouse=True)
def _small_step_budget(monkeypatch):
    monkeypatch.setattr(vm, "STEP_BUDGET", 20_000)  # fuzzed loops stop fast


# ----------------------------------------------------------------------------- strategies

GRAMMAR_WORDS = sorted(set(re.findall(r'"([A-Za-z]+)"', (ROOT / "grammar" / "effect.lark").read_text("utf-8"))))
VOCAB_WORDS = ["gold", "wood", "debt", "vp", "heat", "loops", "ladder", "bonus", "deck", "discard", "hand", "board",
               "row", "unit", "colour", "red", "blue", "green", "cost", "slots", "token", "full", "tilted", "act",
               "any", "play", "ongoing", "end", "goal", "draw", "card", "ping", "pong", "it", "this"]
PUNCT = ["(", ")", ":", ",", ";", "|", "+", "-", "*", "/", "<", ">", "=", ">=", "<=", "!=", "$n", "X", "0", "1",
         "2", "3", "10", "99"]
TOKENS = st.sampled_from(sorted(set(GRAMMAR_WORDS) | set(VOCAB_WORDS) | set(PUNCT)))
token_soup = st.lists(TOKENS, max_size=30).map(" ".join)
any_text = st.text(max_size=300)
dsl_text = st.one_of(token_soup, any_text, st.text(alphabet=" ()|:,;-+*/<>=0123456789abcdefgilmnoprstuvwxy",
                                                    max_size=120))


@cache
def real_abilities() -> list[tuple[str, str]]:
    """(pack, text) of every ability and rule program in the built-in packs."""
    out = []
    for pid, folder in builtin_packs().items():
        for path in [folder / "rules.yaml", *card_files(folder)]:
            if not path.is_file():
                continue
            try:
                value = yaml.safe_load(path.read_text(encoding="utf-8"))
            except yaml.YAMLError:
                continue
            stack = [value]
            while stack:
                v = stack.pop()
                if isinstance(v, dict):
                    stack.extend(v.values())
                elif isinstance(v, list):
                    stack.extend(v)
                elif isinstance(v, str) and len(v) > 6 and " " in v:
                    out.append((pid, v))
    return sorted(out)


@st.composite
def mutated_ability(draw) -> tuple[str, str]:
    pid, text = draw(st.sampled_from(real_abilities()))
    words = text.split()
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "replace", "swap"]))
        i = draw(st.integers(0, max(len(words) - 1, 0)))
        if op == "delete" and words:
            del words[i]
        elif op == "insert":
            words.insert(i, draw(TOKENS))
        elif op == "replace" and words:
            words[i] = draw(st.one_of(TOKENS, st.sampled_from(words)))
        elif op == "swap" and len(words) > 1:
            j = draw(st.integers(0, len(words) - 1))
            words[i], words[j] = words[j], words[i]
    return pid, " ".join(words)


def card_file(ability: str, timing: str = "act") -> str:
    return yaml.safe_dump({"cards": [{"id": "fuzzed", "name": "Fuzzed", "type": "unit",
                                      "abilities": {timing: ability}}]}, allow_unicode=True)


FIELDS = ["cards", "defaults", "id", "name", "names", "type", "number", "original", "copies", "traits", "stats",
          "abilities", "requires", "notes", "back", "act", "any", "ongoing", "end", "goal", "colour", "cost", "vp",
          "slots", "players", "min", "max", "start", "resources", "counters", "params", "zones", "kind", "owner",
          "width", "height", "card-types", "timings", "macros", "game", "setup", "scoring", "score", "pieces",
          "capacity", "flags", "activation", "main", "block", "tiebreakers", "version", "extends", "description"]
keys = st.one_of(st.sampled_from(FIELDS), st.text(max_size=12))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-3, 300), st.floats(allow_nan=True),
                    st.text(max_size=30), st.sampled_from(VOCAB_WORDS + GRAMMAR_WORDS), token_soup,
                    st.sampled_from(["pile", "grid", "hex", "row", "hand", "slot", "shared", "player", "activated",
                                     "ongoing", "0.1.0", "draw 1", "gain 1 gold", "nothing"]))
yaml_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=5),
                                                            st.dictionaries(keys, inner, max_size=6)), max_leaves=40)
timings = st.sampled_from(["act", "any", "ongoing", "end", "goal", "play", "nope"])
card_like = st.fixed_dictionaries({"id": st.one_of(st.sampled_from(["a", "b", "red-a", "x-1"]), st.text(max_size=8)),
                                   "name": st.text(max_size=10)},
                                  optional={"type": st.sampled_from(["unit", "plant", "x"]), "copies": scalars,
                                            "traits": yaml_values, "stats": st.dictionaries(keys, scalars, max_size=3),
                                            "abilities": st.dictionaries(timings, dsl_text, max_size=3),
                                            "requires": dsl_text, "back": yaml_values})
card_docs = st.one_of(yaml_values, st.fixed_dictionaries({"cards": st.lists(st.one_of(card_like, yaml_values),
                                                                            max_size=4)},
                                                         optional={"defaults": yaml_values}))


def dump(value, flow: bool) -> str:
    return yaml.safe_dump(value, default_flow_style=flow, allow_unicode=True, sort_keys=False)


# ----------------------------------------------------------------------------- the tests


@FUZZ
@given(dsl_text)
def test_parse_program_random_text(text):
    RAN["parse_program"] += 1
    diags = Diagnostics()
    prog = parse_program(text, plain_locate("fuzz"), diags)
    assert (prog is None) == diags.has_errors
    diagnosed(diags, prog is not None)
    diags = Diagnostics()
    e = parse_expression(text, plain_locate("fuzz"), diags)
    assert (e is None) == diags.has_errors


@FUZZ
@given(dsl_text, st.sampled_from(["act", "ongoing", "end", "goal", "play"]))
def test_random_ability_compiles_or_is_diagnosed(text, timing):
    RAN["ability"] += 1
    result, _ = compile_with(str(VMTEST), card_file(text, timing))
    if result is not None and result.ok:
        run_compiled(result.pack)


@FUZZ
@given(mutated_ability())
def test_mutated_real_ability(case):
    RAN["mutated ability"] += 1
    pid, text = case
    result, _ = compile_with(pid, card_file(text, "act"))  # the timing may not exist: diagnosed
    assume(result is not None)


@FUZZ
@given(dsl_text)
def test_random_game_program_runs_or_is_diagnosed(text):
    RAN["game program"] += 1
    rules = (VMTEST / "rules.yaml").read_text(encoding="utf-8").replace('game: "nothing"',
                                                                         f"game: {yaml.safe_dump(text).strip()}"
                                                                         .replace("\n...", ""))
    assume("game:" in rules)
    result, _ = compile_with(str(VMTEST), rules, kind="rules", name="rules.yaml")
    if result is not None and result.ok:
        run_compiled(result.pack, players=2)


@FUZZ
@given(st.one_of(any_text, st.binary(max_size=400).map(lambda b: b.decode("latin-1"))))
def test_random_text_as_a_card_file(text):
    RAN["card file text"] += 1
    compile_with(str(MINIMAL), text)


@FUZZ
@given(card_docs, st.booleans())
def test_random_yaml_structure_as_a_card_file(value, flow):
    RAN["yaml card file"] += 1
    compile_with(str(VMTEST), dump(value, flow))


@FUZZ
@given(yaml_values, st.booleans())
def test_random_yaml_structure_as_rules(value, flow):
    RAN["yaml rules"] += 1
    result, _ = compile_with(str(MINIMAL), dump(value, flow), kind="rules", name="rules.yaml")
    if result is not None and result.ok:
        run_compiled(result.pack)


@FUZZ
@given(st.one_of(yaml_values, st.fixed_dictionaries({"id": st.sampled_from(["fuzzed", "Bad", ""]),
                                                    "name": st.text(max_size=5),
                                                    "version": st.sampled_from(["0.1.0", "1", "x"])},
                                                   optional={"extends": st.one_of(
                                                       yaml_values, st.lists(st.sampled_from(
                                                           ["fuzzed", "minimal", "nope", "../x", "Earth"]),
                                                           max_size=3))})), st.booleans())
def test_random_yaml_structure_as_pack_yaml(tmp_path_factory, value, flow):
    RAN["yaml pack.yaml"] += 1
    folder = tmp_path_factory.mktemp("fuzzed")
    for name in ("rules.yaml", "cards.yaml"):
        (folder / name).write_text((MINIMAL / name).read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "pack.yaml").write_text(dump(value, flow), encoding="utf-8")
    from cardsmith.compiler import compile_pack

    res = compile_pack(folder)
    diagnosed(res.diagnostics, res.ok)


# --- mutations of the real files


@cache
def real_files() -> list[tuple[str, Path]]:
    out = []
    for pid, folder in builtin_packs().items():
        for path in [folder / "pack.yaml", folder / "rules.yaml", *card_files(folder)]:
            if path.is_file():
                out.append((pid, path))
    return out


NUMBER = re.compile(r"-?\d+")


@st.composite
def mutated_file(draw) -> tuple[str, Path, str]:
    pid, path = draw(st.sampled_from(real_files()))
    lines = path.read_text(encoding="utf-8").split("\n")
    for _ in range(draw(st.integers(1, 5))):
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "flip", "number", "indent", "truncate"]))
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, line)
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], line
        elif op == "flip" and line:
            k = draw(st.integers(0, len(line) - 1))
            ch = draw(st.one_of(st.characters(), st.sampled_from(list(":-[]{}'\"#&*!|>,%@` \t"))))
            lines[i] = line[:k] + ch + line[k + 1:]
        elif op == "number" and NUMBER.search(line):
            found = list(NUMBER.finditer(line))
            m = found[draw(st.integers(0, len(found) - 1))]
            new = draw(st.sampled_from(["0", "-1", "1", "64", "65", "-1000", "1001", "999999999999", "9" * 30,
                                        "1e400", ".nan", "0x1f", "1_000"]))
            lines[i] = line[:m.start()] + new + line[m.end():]
        elif op == "indent":
            lines[i] = draw(st.sampled_from(["", " ", "  ", "    ", "\t"])) + line.lstrip()
        elif op == "truncate":
            lines = lines[:i]
        if not lines:
            lines = [""]
    return pid, path, "\n".join(lines)


@FUZZ
@given(mutated_file())
def test_mutated_real_file(case):
    RAN["mutated file"] += 1
    pid, path, text = case
    if path.name == "pack.yaml":
        diags = Diagnostics()
        doc = load_yaml_text(text, str(path), diags)
        ok = doc is not None and validate(doc, "pack", diags)
        diagnosed(diags, ok)
    elif path.name == "rules.yaml":
        compile_with(pid, text, kind="rules", name="rules.yaml")
    else:
        compile_with(pid, text, name=path.name)


def test_the_real_files_compile_through_the_fuzz_harness():
    """The harness itself: unmutated files compile (so mutations start from valid input)."""
    smallest = {}
    for pid, path in real_files():
        if path.name not in ("pack.yaml", "rules.yaml"):
            smallest.setdefault(pid, []).append(path)
    for pid, paths in smallest.items():
        path = min(paths, key=lambda p: p.stat().st_size)
        result, diags = compile_with(pid, path.read_text(encoding="utf-8"), name=path.name)
        assert result is not None and result.ok, (pid, path, [f"{d.span} {d.message}" for d in diags.items][:3])


# --- the atheris harness


def test_atheris_harness_runs_without_atheris():
    spec = importlib.util.spec_from_file_location("atheris_compile", ROOT / "fuzz" / "atheris_compile.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rnd = random.Random(0)
    real = [p.read_bytes() for _, p in real_files()[:6]]
    inputs = [b"", b"\x00", b"\x01gain 1 gold", b"\x02cards: []", b"\x03players: {min: 2}", b"\x01(((", *real]
    inputs += [bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 200))) for _ in range(50)]
    for data in inputs:
        mod.one_input(data)
    RAN["atheris smoke"] += len(inputs)


# ----------------------------------------------------------------------------- hostile inputs (issue 20)
# The generator of fuzz/hostile.py, shared with the campaign (fuzz/campaign.py) and the atheris harness: file
# names and kinds, explicit tags, numbers at and beyond every bound, scenario files, saves, logs, output formats.


@cache
def _hostile():
    import sys

    spec = importlib.util.spec_from_file_location("hostile", ROOT / "fuzz" / "hostile.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["hostile"] = mod  # its dataclasses look their module up there
    spec.loader.exec_module(mod)
    return mod


COMMAND_EXAMPLES = int(os.environ.get("CARDSMITH_FUZZ_EXAMPLES", "12"))  # a whole command each: fewer by default
COMMANDS = settings(FUZZ, max_examples=COMMAND_EXAMPLES)


@pytest.mark.parametrize("target", ["validate", "compile", "test", "simulate", "replay", "resume"])
@COMMANDS
@given(seed=st.integers(0, 2**40))
def test_hostile_command_case(tmp_path_factory, target, seed):
    """A whole command on a hostile case: a located finding or a clean run, never a crash or a hang."""
    RAN[f"command {target}"] += 1
    hostile = _hostile()
    where = tmp_path_factory.mktemp("case")
    hostile.materials(where.parent / "materials")
    try:
        case = hostile.make_case(seed, where / "c", target)
        outcome = hostile.run_case(case, hang_seconds=10.0)
    finally:
        hostile.clear(where)
    assert outcome.problem is None, (outcome.problem, case.args, case.notes, outcome.output[-2000:])


@FUZZ
@given(st.sampled_from(list(_hostile().TAGS)), st.sampled_from(["name", "copies", "type", "id", "stats"]),
       st.booleans())
def test_explicit_tags_anywhere_in_a_card(tag, field, keep_value):
    RAN["explicit tag"] += 1
    value = tag if not keep_value else f"{tag.split()[0]} x"
    text = f"cards:\n  - id: fuzzed\n    name: Fuzzed\n    type: unit\n    {field}: {value}\n"
    compile_with(str(VMTEST), text)


@FUZZ
@given(st.sampled_from(list(_hostile().NUMBERS)), st.sampled_from(["copies", "stats cost", "rules start",
                                                                    "rules max", "rules param", "ability"]))
def test_numbers_at_and_beyond_every_bound(number, where):
    RAN["bound number"] += 1
    if where.startswith("rules"):
        rules = (VMTEST / "rules.yaml").read_text(encoding="utf-8")
        old = {"rules start": "gold: {}", "rules max": "heat: {max: 10}", "rules param": "bonus: 4"}[where]
        new = {"rules start": f"gold: {{start: {number}}}", "rules max": f"heat: {{max: {number}}}",
               "rules param": f"bonus: {number}"}[where]
        result, _ = compile_with(str(VMTEST), rules.replace(old, new), kind="rules", name="rules.yaml")
        if result is not None and result.ok:
            run_compiled(result.pack, players=2)
        return
    card = {"copies": f"copies: {number}", "stats cost": f"stats: {{cost: {number}}}",
            "ability": f'abilities: {{act: "gain {number} gold, set wood to gold * gold"}}'}[where]
    result, _ = compile_with(str(VMTEST), f"cards:\n  - {{id: fuzzed, name: F, type: unit, {card}}}\n")
    if result is not None and result.ok:
        run_compiled(result.pack)


@FUZZ
@given(st.integers(0, 2**32))
def test_hostile_scenario_file(tmp_path_factory, seed):
    from cardsmith.scenarios import run_file

    RAN["scenario file"] += 1
    hostile = _hostile()
    folder = tmp_path_factory.mktemp("scenario")
    notes: list[str] = []
    f = folder / "s.yaml"
    f.write_text(hostile.scenario_text(random.Random(seed), str(VMTEST), notes), encoding="utf-8")
    diags = Diagnostics()
    for outcome in run_file(f, diags):
        assert outcome.passed or outcome.problems, notes
    diagnosed(diags, True)


@cache
def _living_forest():
    from cardsmith.compiler import compile_pack

    return compile_pack("living-forest").pack


@COMMANDS  # each replays a whole game
@given(st.integers(0, 2**32))
def test_tampered_save_and_log(tmp_path_factory, seed):
    """Saves and logs edited as a hostile user would: refused with their line (SaveError, LogError), never a crash."""
    from cardsmith.runtime.replay import LogError, replay
    from cardsmith.runtime.save import SaveError, parse_save, resume

    RAN["save and log"] += 1
    hostile = _hostile()
    base = hostile.materials(tmp_path_factory.getbasetemp() / "materials")
    pack = _living_forest()
    rng = random.Random(seed)
    notes: list[str] = []
    try:
        resume(pack, parse_save(hostile.mutate_json_lines(rng, base["save"], notes)))
    except SaveError as e:
        assert e.message, notes
    try:
        replay(pack, hostile.mutate_json_lines(rng, base["log"], notes))
    except LogError as e:
        assert e.line >= 1, notes


surrogate_names = st.text(alphabet=st.characters(blacklist_categories=()), max_size=20)


@FUZZ
@given(st.lists(st.tuples(surrogate_names, st.integers(0, 10**6), st.integers(0, 500), st.text(max_size=40)),
                min_size=1, max_size=4))
def test_every_output_format_survives_any_name(tmp_path_factory, items):
    """Diagnostics about files of any name (bytes that are not UTF-8, control characters, links) render in every
    format as text that encodes, with no control character left."""
    from cardsmith.bytecode import Span
    from cardsmith.compiler.diagnostics import render_sarif

    RAN["output formats"] += 1
    diags = Diagnostics()
    for name, line, col, message in items:
        diags.error("E001", message or "m", Span(name or "f", line, col))
    root = tmp_path_factory.getbasetemp()
    for text in (render_text(diags.items), render_json(diags.items), render_github(diags.items),
                 render_sarif(diags.items, root, "0")):
        text.encode("utf-8")
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", text.replace("\n", "")), text
