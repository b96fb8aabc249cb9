"""Scenario tests as data: a starting state, a program with scripted decisions, the expected state.

A scenario file names its pack and lists scenarios. Each builds a state from scratch (only
the cards it names exist), runs its `do` program for the active player with its scripted
decisions, optionally scores, and compares what it expects. `cardsmith test` runs them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cardsmith.bytecode import CompiledPack
from cardsmith.bytecode.inputs import InputError, printable, read_input
from cardsmith.compiler.diagnostics import Diagnostic, Diagnostics, Span, did_you_mean
from cardsmith.compiler.packs import MAX_SEARCH_DEPTH, builtin_packs, display_path, has_pack, resolve_pack_ref, walk
from cardsmith.compiler.pipeline import CompileResult, compile_pack
from cardsmith.compiler.schema import validate
from cardsmith.compiler.yamlsrc import MAX_FILE_BYTES, YamlDoc, load_yaml_file
from cardsmith.runtime.agents import ScriptedAgent, ScriptExhausted, ScriptMismatch
from cardsmith.runtime.game import Game
from cardsmith.runtime.geometry import geometry
from cardsmith.runtime.params import MAX_VALUE, param_problems
from cardsmith.runtime.state import SHARED, Card, GameState
from cardsmith.runtime.vm import RuntimeFault, linker_for


@dataclass
class Outcome:
    file: str
    name: str
    span: Span
    passed: bool
    problems: list[str] = field(default_factory=list)
    cites: str = ""
    game: Game | None = None  # the finished game, for tests that look further


class _Setup(Exception):
    def __init__(self, message: str, path: tuple) -> None:
        super().__init__(message)
        self.path = path


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
    diags = res.compiler.diags
    before = len(diags.items)
    code = res.compiler.snippet(doc, (*path, "do"), f"scenario {sc['name']}", scoring=False)
    new = diags.items[before:]
    del diags.items[before:]
    if code is None:
        out.problems = [_fmt(d) for d in new]
        return out
    n = sc.get("players", 2)
    bad = param_problems(pack, sc.get("params"))
    if bad:
        out.problems = [f"{doc.span((*path, 'params'))}: {bad[0]}"]
        return out
    try:
        state = build_state(pack, n, sc)
    except _Setup as e:
        out.problems = [f"{doc.span((*path, *e.path))}: {e}"]
        return out
    script = ScriptedAgent(list(sc.get("decisions", [])))
    try:
        game = Game(pack, n, sc.get("seed", 0), [script] * n, sc.get("params"), log=True, state=state)
    except ValueError as e:
        out.problems = [str(e)]
        return out
    game.phase = "play"
    game.vm.push(code, state.active)
    if not sc.get("score"):
        game.phase = "scoring"  # stop after the program: no flow, no scoring
    try:
        game.play()
    except ScriptExhausted as e:
        out.problems = [f"a decision had no scripted answer: {e.decision.prompt} — options: "
                        f"{', '.join(f'{i}: {label}' for i, label in enumerate(e.decision.labels))}"]
        return out
    except ScriptMismatch as e:
        out.problems = [str(e)]
        return out
    except RuntimeFault as e:
        out.problems = [str(e)]
        return out
    out.game = game
    out.problems = check_expectations(game, sc.get("expect") or {}, len(script.answers))
    out.passed = not out.problems
    return out


def _fmt(d: Diagnostic) -> str:
    return f"{d.span}: {d.severity}[{d.code}]: {d.message}" + (f" ({d.hint})" if d.hint else "")


def build_state(pack: CompiledPack, n: int, sc: dict) -> GameState:
    """A state holding exactly the cards the scenario names, where it puts them."""
    st = GameState(n, len(pack.automa))
    import random

    st.rng = random.Random(sc.get("seed", 0))
    st.params = {**pack.params, **(sc.get("params") or {})}
    for seat in range(st.seats):
        st.counters[seat] = {k: d.get("start", 0) for k, d in pack.resources.items()}
    st.globals = {k: d.get("start", 0) for k, d in pack.counters.items()}
    for zname, z in pack.zones.items():
        seats = [SHARED] if z.get("owner", "player") == "shared" else list(range(st.seats))
        for seat in seats:
            geo = geometry(z)
            st.zones[(zname, seat)] = [None] * geo.size if geo else []
    st.active = sc.get("active", 0)
    if st.active >= n:
        raise _Setup(f"active player {st.active} does not exist with {n} players", ("active",))
    index = {c.id: i for i, c in enumerate(pack.cards)}
    setup = sc.get("state") or {}
    players = setup.get("players") or []
    if len(players) > n:
        raise _Setup(f"the state describes {len(players)} players but the scenario has {n}", ("state", "players"))
    linker = linker_for(pack)
    for seat, p, base in _described_seats(pack, n, setup, "state"):
        store = st.counters[seat] if seat != SHARED else st.globals
        decls = pack.resources if seat != SHARED else pack.counters
        for k, v in (p.get("counters") or {}).items():
            if k not in decls:
                raise _Setup(f"unknown {'resource' if seat != SHARED else 'shared counter'} '{k}'",
                             (*base, "counters", k))
            if not -MAX_VALUE <= v <= MAX_VALUE:
                raise _Setup(f"a counter stays within ±{MAX_VALUE:.0e} in a game", (*base, "counters", k))
            store[k] = v
        for zname, content in (p.get("zones") or {}).items():
            z = pack.zones.get(zname)
            if z is None:
                raise _Setup(f"unknown zone '{zname}'", (*base, "zones", zname))
            zseat = SHARED if z.get("owner", "player") == "shared" else seat
            if zseat == SHARED and seat != SHARED:
                raise _Setup(f"zone '{zname}' is shared: describe it under 'shared'", (*base, "zones", zname))
            if zseat != SHARED and seat == SHARED:
                raise _Setup(f"zone '{zname}' belongs to a player", (*base, "zones", zname))
            _fill_zone(st, pack, index, z, zname, zseat, content, (*base, "zones", zname))
        for key in ("pieces", "flags"):
            for cid_name, value in (p.get(key) or {}).items():
                card = _find(st, pack, cid_name, seat)
                if card is None:
                    raise _Setup(f"no card '{cid_name}' in this player's zones", (*base, key, cid_name))
                if key == "pieces":
                    for piece, count in value.items():
                        if piece not in pack.pieces:
                            raise _Setup(f"unknown piece '{piece}'", (*base, key, cid_name, piece))
                        if count > MAX_VALUE:
                            raise _Setup(f"pieces stay within {MAX_VALUE:.0e} in a game", (*base, key, cid_name, piece))
                        card.pieces[piece] = count
                else:
                    for flag in value:
                        if flag not in pack.flags:
                            raise _Setup(f"unknown flag '{flag}'", (*base, key, cid_name))
                        card.flags.add(flag)
    for card in st.cards:
        if card.zone in linker.in_play:
            for lst, table in ((st.live_triggers, linker.live_cards), (st.live_modifiers, linker.modifiers)):
                if table[card.defn]:
                    lst.append(card.id)
    return st


def _described_seats(pack: CompiledPack, n: int, described: dict, key: str):
    """(seat, entry, path) for each player, each automa seat (by name) and the shared part a scenario's
    state or expectation describes."""
    out = [(seat, p, (key, "players", seat)) for seat, p in enumerate(described.get("players") or [])]
    names = [a["id"] for a in pack.automa]
    for name, p in (described.get("automa") or {}).items():
        if name not in names:
            from cardsmith.compiler.diagnostics import did_you_mean

            hint = did_you_mean(name, names)
            raise _Setup(f"the pack has no automa seat '{name}'" + (f"; {hint}" if hint else ""),
                         (key, "automa", name))
        out.append((n + names.index(name), p, (key, "automa", name)))
    out.append((SHARED, described.get("shared") or {}, (key, "shared")))
    return out


def _fill_zone(st: GameState, pack: CompiledPack, index: dict, z: dict, zname: str, seat: int, content,
               path: tuple) -> None:
    def new(card_id: str, where: tuple) -> Card:
        if card_id not in index:
            from cardsmith.compiler.diagnostics import did_you_mean

            hint = did_you_mean(card_id, index)
            raise _Setup(f"the pack has no card '{card_id}'" + (f"; {hint}" if hint else ""), where)
        c = Card(len(st.cards), index[card_id], zname, seat)
        st.cards.append(c)
        return c

    zone = st.zones[(zname, seat)]
    geo = geometry(z)
    if geo is not None:
        if not isinstance(content, dict):
            raise _Setup("a board zone is described as 'row,col': card-id", path)
        places = {}
        for key in content:
            places[key] = _board_key(key)
            if places[key] is None:
                raise _Setup(f"board position {printable(repr(key))} should look like '1,2' (row, column)",
                             (*path, key))
        shift = _growing_shift(geo, places.values())
        for key, card_id in content.items():
            r, c = places[key]
            cell = geo.cell(r + shift[0], c + shift[1])
            if cell is None:
                raise _Setup(f"position '{key}' is not on the board of zone '{zname}'", (*path, key))
            card = new(card_id, (*path, key))
            card.pos = cell
            zone[card.pos] = card.id
        return
    if not isinstance(content, list):
        raise _Setup("list the card ids in this zone", path)
    cards = [new(cid, (*path, i)).id for i, cid in enumerate(content)]
    if z["kind"] == "pile":
        cards.reverse()  # listed top first; the top of a pile is the end of its list
    zone.extend(cards)


def _board_key(key: str) -> tuple[int, int] | None:
    """'row,col' as two numbers (1-based), or None when the key is not of that form."""
    parts = key.split(",")
    if len(parts) != 2 or not all(p.strip().isdigit() and len(p.strip()) <= 6 for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def _growing_shift(geo, places) -> tuple[int, int]:
    """Where a growing grid's described rows and columns (counted from the top-left corner of its cards)
    lie in its frame: centred, so that the span can still grow to its limit on every side."""
    if geo.limit is None or not places:
        return 0, 0
    rows = [r for r, _ in places]
    cols = [c for _, c in places]
    frame_h, frame_w = len(geo.rows), geo.width
    return ((frame_h - (max(rows) - min(rows) + 1)) // 2 - (min(rows) - 1),
            (frame_w - (max(cols) - min(cols) + 1)) // 2 - (min(cols) - 1))


def _find(st: GameState, pack: CompiledPack, card_id: str, seat: int) -> Card | None:
    for c in st.cards:
        if pack.cards[c.defn].id == card_id and (c.seat == seat):
            return c
    return None


def _zone_ids(game: Game, zname: str, seat: int) -> list[str]:
    pack = game.pack
    cards = [c for c in game.state.zones[(zname, seat)] if c is not None]
    if pack.zones[zname]["kind"] == "pile":
        cards = list(reversed(cards))
    return [pack.cards[game.state.cards[c].defn].id for c in cards]


def check_expectations(game: Game, expect: dict, answers_left: int) -> list[str]:
    pack, st = game.pack, game.state
    problems: list[str] = []
    try:
        described = _described_seats(pack, st.n, expect, "expect")
    except _Setup as e:
        return [str(e)]
    for seat, p, _ in described:
        who = (f"player {seat}" if seat < st.n else f"automa {pack.automa[seat - st.n]['id']}") \
            if seat != SHARED else "shared"
        store = st.counters[seat] if seat != SHARED else st.globals
        for k, v in (p.get("counters") or {}).items():
            if store.get(k, 0) != v:
                problems.append(f"{who} {k}: expected {v}, got {store.get(k, 0)}")
        for zname, want in (p.get("zones") or {}).items():
            if zname not in pack.zones:
                problems.append(f"{who}: unknown zone '{zname}'")
                continue
            zseat = SHARED if pack.zones[zname].get("owner", "player") == "shared" else seat
            geo = geometry(pack.zones[zname])
            if geo is not None and isinstance(want, dict) and not set(want) & {"count", "contains", "excludes"}:
                grid = st.zones[(zname, zseat)]
                for key, cid in want.items():
                    place = _board_key(key)
                    if place is None:
                        problems.append(f"{who} {zname}: board position {printable(repr(key))} should look like "
                                        "'1,2' (row, column)")
                        continue
                    r, c = place
                    # a growing grid counts from the top-left corner of its cards' span
                    cell = geo.absolute(grid, r, c) if any(x is not None for x in grid) else None
                    got = grid[cell] if cell is not None else None
                    got_id = pack.cards[st.cards[got].defn].id if got is not None else None
                    if got_id != cid:
                        problems.append(f"{who} {zname} at {key}: expected {cid}, got {got_id or 'nothing'}")
                continue
            have = _zone_ids(game, zname, zseat)
            if isinstance(want, list):
                if have != want:
                    problems.append(f"{who} {zname}: expected {want}, got {have}")
                continue
            if "count" in want and len(have) != want["count"]:
                problems.append(f"{who} {zname}: expected {want['count']} cards, got {len(have)} ({have})")
            for cid in want.get("contains", []):
                if cid not in have:
                    problems.append(f"{who} {zname}: expected to contain {cid}, has {have}")
            for cid in want.get("excludes", []):
                if cid in have:
                    problems.append(f"{who} {zname}: expected not to contain {cid}")
        for cid_name, pieces in (p.get("pieces") or {}).items():
            card = _find(st, pack, cid_name, seat)
            if card is None:
                problems.append(f"{who}: no card '{cid_name}' to check pieces on")
                continue
            for piece, count in pieces.items():
                if card.pieces.get(piece, 0) != count:
                    problems.append(f"{who} {cid_name} {piece}: expected {count}, got {card.pieces.get(piece, 0)}")
        for cid_name, flags in (p.get("flags") or {}).items():
            card = _find(st, pack, cid_name, seat)
            if card is None or set(flags) != card.flags:
                problems.append(f"{who} {cid_name} flags: expected {sorted(flags)}, got "
                                f"{sorted(card.flags) if card else 'no such card'}")
        if "score" in p and seat != SHARED:
            got = sum(st.scores[seat].values())
            if got != p["score"]:
                problems.append(f"{who} score: expected {p['score']}, got {got} ({st.scores[seat]})")
        for step, v in (p.get("score-steps") or {}).items():
            if st.scores[seat].get(step, 0) != v:
                problems.append(f"{who} score step {step}: expected {v}, got {st.scores[seat].get(step, 0)}")
    if "decisions-left" in expect and answers_left != expect["decisions-left"]:
        problems.append(f"expected {expect['decisions-left']} scripted answers left over, {answers_left} were")
    elif "decisions-left" not in expect and answers_left:
        problems.append(f"{answers_left} scripted answers were never asked for")
    if "winners" in expect:
        res = game.result()
        if res.winners != expect["winners"]:
            problems.append(f"winners: expected {expect['winners']}, got {res.winners} (totals {res.totals})")
    if "places" in expect:
        res = game.result()
        if res.places != expect["places"]:
            problems.append(f"places: expected {expect['places']}, got {res.places} (totals {res.totals})")
    return problems


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
    if code is None:
        raise ValueError(render_text(new))
    n = sc.get("players", 2)
    try:
        state = build_state(res.pack, n, sc)
    except _Setup as e:
        raise ValueError(str(e)) from None
    game = Game(res.pack, n, sc.get("seed", 0), None, sc.get("params"), state=state)
    game.phase = "scoring" if not sc.get("score") else "play"
    game.vm.push(code, state.active)
    return game
