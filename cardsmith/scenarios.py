"""Scenario tests as data: a starting state, a program with scripted decisions, the expected state.

A scenario file names its pack and lists scenarios. Each builds a state from scratch (only
the cards it names exist; cardsmith/scenario_state.py), runs its `do` program (or its steps, one
after the other) for the active player with its scripted decisions, optionally scores, and
compares what it expects, at the checkpoints between steps and at the end
(cardsmith/scenario_expect.py). `cardsmith test` runs them. Nothing in a scenario passes by
default: a step that does not compile, or a name in `state` or `expect` the pack does not
declare, fails it at its line and column.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cardsmith.bytecode.inputs import InputError, printable, read_input
from cardsmith.compiler.diagnostics import Diagnostic, Diagnostics, Severity, Span, did_you_mean
from cardsmith.compiler.packs import MAX_SEARCH_DEPTH, builtin_packs, display_path, has_pack, resolve_pack_ref, walk
from cardsmith.compiler.pipeline import CompileResult, compile_pack
from cardsmith.compiler.schema import validate
from cardsmith.compiler.yamlsrc import MAX_FILE_BYTES, YamlDoc, load_yaml_file
from cardsmith.runtime.agents import ScriptedAgent, ScriptExhausted, ScriptMismatch
from cardsmith.runtime.game import Game
from cardsmith.runtime.params import param_problems
from cardsmith.runtime.vm import RuntimeFault

from .scenario_expect import check_names, compare
from .scenario_state import SetupError, build_state


@dataclass
class Outcome:
    file: str
    name: str
    span: Span
    passed: bool
    problems: list[str] = field(default_factory=list)
    cites: str = ""
    game: Game | None = None  # the finished game, for tests that look further


_PACKS: dict[str, CompileResult] = {}


def _compiled(ref: str, diags: Diagnostics) -> CompileResult:
    if ref not in _PACKS:
        _PACKS[ref] = compile_pack(ref)
    res = _PACKS[ref]
    if not res.ok:
        diags.extend(res.diagnostics)
    return res


MAX_SCENARIO_BYTES = MAX_FILE_BYTES  # a scenario file is read with the bound of a pack file


@dataclass
class Found:
    """Scenario files at or under the paths given, and what was passed over: symbolic links and special files
    found while searching (never read), folders that could not be read; each with why."""

    files: list[Path] = field(default_factory=list)
    named: set[Path] = field(default_factory=set)  # files named on the command line (a link there is followed)
    refused: list[tuple[Path, str]] = field(default_factory=list)


def find_scenarios(paths: list[Path]) -> Found:
    """Scenario files at or under the paths: YAML files whose top level has `scenarios:`. A folder is searched
    without following symbolic links, and only regular files are opened (a pipe or a device never is)."""
    out = Found()
    for p in paths:
        if not p.is_dir():
            out.named.add(p)
            candidates = [p]
        else:
            found = walk(p, lambda rel: rel.name.endswith(".yaml"), max_depth=MAX_SEARCH_DEPTH)
            candidates = found.files
            out.refused += [(link, "a symbolic link, not followed") for link in found.links
                            if link.name.endswith(".yaml")]
            out.refused += found.problems
        for f in candidates:
            try:
                head = read_input(f, MAX_SCENARIO_BYTES, follow=f in out.named).decode("utf-8", errors="replace")
            except InputError as e:
                if f in out.named or "regular file" in e.message:
                    out.refused.append((f, e.message))
                continue
            if "\nscenarios:" in "\n" + head:
                out.files.append(f)
    return out


def scenario_files(paths: list[Path]) -> list[Path]:
    """The scenario files `find_scenarios` finds."""
    return find_scenarios(paths).files


def run_file(path: Path, diags: Diagnostics, follow: bool = False) -> list[Outcome]:
    doc = load_yaml_file(path, diags, display_path(path), follow=follow)
    if doc is None or not validate(doc, "scenario", diags):
        return []
    ref = doc.value["pack"]
    local = Path(os.path.normpath(path.parent / ref))  # "pack/scenarios/.." -> "pack": siblings it extends are found
    if has_pack(local):
        ref = str(local)
    elif resolve_pack_ref(ref) is None:  # said at the file's 'pack:' line, not at a path that is not there
        hint = did_you_mean(ref, builtin_packs())
        diags.error("E024", f"no pack {printable(repr(ref))}: neither a folder with a pack.yaml (relative to this "
                    "file) nor a built-in pack id", doc.span(("pack",)), hint=hint)
        return []
    res = _compiled(ref, diags)
    if not res.ok:
        return []
    outcomes = []
    for i, sc in enumerate(doc.value["scenarios"]):
        outcomes.append(_run_one(doc, ("scenarios", i), sc, res))
    return outcomes


def _run_one(doc: YamlDoc, path: tuple, sc: dict, res: CompileResult) -> Outcome:
    pack = res.pack
    assert pack is not None and res.compiler is not None
    out = Outcome(doc.file, sc["name"], doc.span(path), False, cites=sc.get("cites", ""))
    steps = _steps(sc)
    codes = []
    for step, text_path in steps:
        code, errors = _compile_step(res, doc, (*path, *text_path), f"scenario {sc['name']}"
                                     + (f" step {step}" if len(steps) > 1 else ""))
        if errors:  # a step that does not compile fails the scenario, whatever else happened
            out.problems += [_fmt(d) for d in errors]
        codes.append(code)
    if out.problems:
        return out
    n = sc.get("players", 2)
    bad = param_problems(pack, sc.get("params"))
    if bad:
        out.problems = [f"{doc.span((*path, 'params'))}: error[E160]: {bad[0]}"]
        return out
    lo, hi = pack.players
    if not lo <= n <= hi:
        out.problems = [f"{doc.span((*path, 'players'))}: error[E160]: {pack.name} is for {lo} to {hi} players, "
                        f"not {n}"]
        return out
    try:
        state, roster = build_state(pack, n, sc)
    except SetupError as e:
        out.problems = [_located(doc, path, e)]
        return out
    checks = [(("expect",), sc.get("expect") or {})]
    checks += [(("checkpoints", i, "expect"), cp.get("expect") or {}) for i, cp in enumerate(sc.get("checkpoints", []))]
    for key, expect in checks:
        out.problems += [_located(doc, path, e) for e in check_names(pack, state, roster, expect, key)]
    stops, bad_stops = _checkpoint_steps(sc, steps)
    out.problems += [_located(doc, path, e) for e in bad_stops]
    if out.problems:
        return out
    script = ScenarioScript(sc.get("decisions", []), doc, (*path, "decisions"))
    game = Game(pack, n, sc.get("seed", 0), [script] * n, sc.get("params"), log=True, state=state)
    game.phase = "play"
    try:
        for i, code in enumerate(codes):
            if state.over:  # 'end game': the steps after it do not run
                out.problems += [f"checkpoint after step {steps[i - 1][0]}: not reached, the game ended before "
                                 f"step {steps[i][0]}" for j in stops if j >= i]
                break
            game.vm.push(code, state.active)
            _drain(game)
            for j, cp in enumerate(sc.get("checkpoints", [])):
                if stops[j] == i:
                    out.problems += [f"after step {steps[i][0]}: {p}" for p in compare(game, roster, cp["expect"])]
        if not sc.get("score"):
            game.phase = "scoring"  # no flow and no scoring after the program
        game.play()
    except ScriptExhausted as e:
        out.problems += [f"a decision had no scripted answer: {e.decision.prompt} — options: "
                         f"{', '.join(f'{i}: {label}' for i, label in enumerate(e.decision.labels))}"]
        return out
    except (ScriptMismatch, RuntimeFault) as e:
        out.problems += [str(e)]
        return out
    out.game = game
    expect = sc.get("expect") or {}
    out.problems += script.problems + compare(game, roster, expect) + _results(game, expect, len(script.answers))
    out.passed = not out.problems
    return out


def _steps(sc: dict) -> list[tuple[str, tuple]]:
    """(name, path of its text) of each step of `do`: one program, or a list of them (a text, or {name, do})."""
    do = sc["do"]
    if isinstance(do, str):
        return [("0", ("do",))]
    return [(str(s["name"]) if isinstance(s, dict) else str(i), ("do", i, "do") if isinstance(s, dict) else ("do", i))
            for i, s in enumerate(do)]


def _compile_step(res: CompileResult, doc: YamlDoc, path: tuple, name: str):
    """The step's code and the errors of compiling it (expanding its macros included)."""
    diags = res.compiler.diags
    before = len(diags.items)
    code = res.compiler.snippet(doc, path, name, scoring=False)
    new = diags.items[before:]
    del diags.items[before:]
    errors = [d for d in new if d.severity is Severity.ERROR]
    if code is None and not errors:  # silenced for a fault reported elsewhere: say so rather than pass
        errors = [Diagnostic("E100", "this program does not compile", doc.span(path))]
    return code, errors


def _checkpoint_steps(sc: dict, steps: list[tuple[str, tuple]]) -> tuple[list[int], list[SetupError]]:
    """The step index each checkpoint follows; a checkpoint after no step is a located error."""
    names = [s for s, _ in steps]
    out, bad = [], []
    for i, cp in enumerate(sc.get("checkpoints", [])):
        after = cp["after"]
        at = ("checkpoints", i, "after")
        if isinstance(after, int):
            if not 0 <= after < len(steps):
                bad.append(SetupError(f"there is no step {after}: 'do' has {len(steps)} step(s), counted from 0", at,
                                      value=True))
            out.append(after)
        elif after in names:
            out.append(names.index(after))
        else:
            bad.append(SetupError(f"no step of 'do' is named '{printable(after)}'", at, "E101",
                                  did_you_mean(after, names) or "name a step: '- {name: NAME, do: ...}'", value=True))
            out.append(-1)
    return out, bad


def _drain(game: Game) -> None:
    """Run the programs pushed until none is left, answering every decision."""
    while True:
        if game.pending is None:
            if not game.vm.frames:
                return
            d = game.vm.run()
            if d is None:
                continue
            game.pending = d
        game.decide(game.ask(game.pending))


def _results(game: Game, expect: dict, answers_left: int) -> list[str]:
    problems = []
    if "decisions-left" in expect and answers_left != expect["decisions-left"]:
        problems.append(f"expected {expect['decisions-left']} scripted answers left over, {answers_left} were")
    elif "decisions-left" not in expect and answers_left:
        problems.append(f"{answers_left} scripted answers were never asked for")
    for key in ("winners", "places"):
        if key in expect:
            res = game.result()
            if getattr(res, key) != expect[key]:
                problems.append(f"{key}: expected {expect[key]}, got {getattr(res, key)} (totals {res.totals})")
    return problems


class ScenarioScript(ScriptedAgent):
    """A scenario's answers. An answer written `{answer: A, offered: [...], not-offered: [...]}` also says which
    options the decision it answers must offer and must not (labels matched as answers are: the whole label
    or its start)."""

    def __init__(self, answers: list, doc: YamlDoc, path: tuple) -> None:
        super().__init__([a["answer"] if isinstance(a, dict) else a for a in answers])
        self.checks = [a if isinstance(a, dict) else None for a in answers]
        self.doc, self.path = doc, path
        self.asked = 0
        self.problems: list[str] = []

    def choose(self, view, decision) -> int:
        i = self.asked
        self.asked += 1
        check = self.checks[i] if i < len(self.checks) else None
        if check is not None:
            labels = decision.labels
            for key, want in (("offered", True), ("not-offered", False)):
                for j, entry in enumerate(check.get(key, [])):
                    if any(label == entry or label.startswith(entry) for label in labels) != want:
                        self.problems.append(
                            f"{self.doc.span((*self.path, i, key, j))}: decision {i} ({decision.prompt}): "
                            f"{printable(repr(entry))} is {'not ' if want else ''}offered; the options: "
                            f"{', '.join(labels)}")
        return super().choose(view, decision)


def _located(doc: YamlDoc, path: tuple, e: SetupError) -> str:
    where = (*path, *e.path)
    span = doc.span(where) if e.value else doc.key_span(where)
    bag = Diagnostics()
    if e.code == "E101":  # a name the pack does not declare
        bag.error("E101", str(e), span, hint=e.hint)
    else:  # a state, an expectation or a checkpoint that cannot be used as written
        bag.error("E160", str(e), span, hint=e.hint)
    return _fmt(bag.items[0])


def _fmt(d: Diagnostic) -> str:
    return f"{d.span}: {d.severity}[{d.code}]: {d.message}" + (f" ({d.hint})" if d.hint else "")


def scenario_game(pack_ref: str, scenario: dict) -> Game:
    """A Game built from a pack and a scenario (a dict in the scenario-file format), ready to step.

        game = scenario_game("earth", {"players": 2, "do": "red action",
                                       "state": {"players": [{"counters": {"soil": 3}}]}})
        decision = game.advance()      # the first Decision, or None when the program is done
        game.decide(0)
        game.state.counters[0]["soil"]

    Raises ValueError with the diagnostics when the pack or the program does not compile."""
    import yaml

    from cardsmith.compiler.diagnostics import render_text
    from cardsmith.compiler.yamlsrc import load_yaml_text

    diags = Diagnostics()
    res = _compiled(pack_ref, diags)
    if not res.ok:
        raise ValueError(render_text(res.diagnostics.sorted()))
    sc = {"name": "api", **scenario}
    doc = load_yaml_text(yaml.safe_dump({"pack": pack_ref, "scenarios": [sc]}), "<scenario>", diags)
    if doc is None or not validate(doc, "scenario", diags):
        raise ValueError(render_text(diags.items))
    before = len(res.compiler.diags.items)
    code = res.compiler.snippet(doc, ("scenarios", 0, "do"), "scenario")
    new = res.compiler.diags.items[before:]
    del res.compiler.diags.items[before:]
    if code is None or any(d.severity is Severity.ERROR for d in new):
        raise ValueError(render_text(new))
    n = sc.get("players", 2)
    try:
        state, _ = build_state(res.pack, n, sc)
    except SetupError as e:
        raise ValueError(str(e)) from None
    game = Game(res.pack, n, sc.get("seed", 0), None, sc.get("params"), state=state)
    game.phase = "scoring" if not sc.get("score") else "play"
    game.vm.push(code, state.active)
    return game
