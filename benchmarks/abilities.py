"""Ability benchmark: 20 representative abilities run by the VM vs hand-written Python (hand.py).

Each ability runs on fresh copies of one mid-game state (a seeded random game stopped part-way),
once by the VM (push the program, run, answer decisions, until done) and once by its hand-written
twin; both answer decisions with the same policy. After the timing, the two end states are compared
field by field: a row is only reported when both did exactly the same thing.

Sources: the built-in pack first (cards/), else the language fixture (tests/fixtures/language/);
when a built-in card has changed so that its hand-written twin no longer matches, the row falls back
to the fixture and says so. Programs marked "rules" are steps of a game's rules (macros in its
rules.yaml) compiled against the pack, since that is where those games keep them.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from cardsmith.bytecode import Code, CompiledPack
from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.pipeline import CompileResult, compile_pack
from cardsmith.runtime.game import Game
from cardsmith.runtime.state import SHARED, GameState
from cardsmith.runtime.vm import VM, linker_for

from .hand import Hand, choose, policy

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "language"
CLOCK = time.process_time  # CPU time of this process: other processes on the machine do not count


class Unsupported(Exception):
    """The state took a path the hand-written twin does not cover (the row falls back or is skipped)."""


# ---------------------------------------------------------------------------- hand-written abilities
# Signature: (h, st, you, it, this) -> None. `h` holds the pack's tables.


def earth_negative_cost(h, st, you, it, this):
    # Earth's planting step, "choose a card in hand with kind mushroom and cost <= soil: pay cost of it soil:
    # move it to compost face down", under mycelial-web's "modify cost of card with kind mushroom by -1"
    cards, web = st.cards, h.index["mycelial-web"]
    discount = sum(1 for mid in st.live_modifiers if cards[mid].defn == web and cards[mid].seat == you)
    mushroom, stats = h.having("kind", "mushroom"), h.stats
    soil = st.counters[you].get("soil", 0)
    options = [(c, cost) for c in st.zones[("hand", you)] if mushroom[cards[c].defn]
               and (cost := stats[cards[c].defn].get("cost", 0) - discount) <= soil]
    if options:
        c, cost = options[choose(options)]
        h.lose(st, you, "soil", cost)
        h.move(st, c, "compost", you, "down")


def earth_per_n(h, st, you, it, this):
    # thunder-cedar brown: "score 1 per 2 card in tableau with kind tree"
    h.score(st, you, "vp", h.count(st, "tableau", you, "kind", "tree") // 2)


def earth_choice(h, st, you, it, this):
    # sunshower-arc black: "choose one: gain 2 soil | draw 2"
    if choose(["gain 2 soil", "draw 2"]) == 0:
        h.gain(st, you, "soil", 2)
    else:
        h.draw(st, you, 2)


def earth_trigger(h, st, you, it, this):
    # frostneedle-spruce: "when you play a card with kind tree: gain 1 soil", fired by 'emit play' of `it`
    if not h.having("kind", "tree")[st.cards[it].defn]:
        return
    spruce = h.index["frostneedle-spruce"]
    for tid in st.live_triggers:
        t = st.cards[tid]
        if t.defn == spruce and t.seat == you and tid != it:
            h.gain(st, you, "soil", 1)


def earth_grow(h, st, you, it, this):
    # starwood-redcrown black: "grow 2" = "place 2 growth on card in tableau"
    h.place_up_to(st, you, "growth", 2, optional=False)


def earth_scaled_gain(h, st, you, it, this):
    # cracked-earth-drought black: "gain 1 soil per card in tableau with habitat sunny"
    h.gain(st, you, "soil", h.count(st, "tableau", you, "habitat", "sunny"))


def earth_sets(h, st, you, it, this):
    # four-kingdoms ecosystem: "score 3 * sets(card in tableau, kind tree, kind herb, kind mushroom, kind bush)"
    slots = ("tree", "herb", "mushroom", "bush")
    traits, cards = h.traits, st.cards
    fits = [[i for i, k in enumerate(slots) if k in ks] for c in st.zones[("tableau", you)] if c is not None
            for ks in (traits[cards[c].defn].get("kind", ()),)]
    h.score(st, you, "vp", 3 * _max_sets(fits, len(slots)))


def _max_sets(fits: list[list[int]], nslots: int) -> int:
    usable = [f for f in fits if f]
    for k in range(min((sum(1 for f in usable if s in f) for s in range(nslots)), default=0), 0, -1):
        owner: dict[tuple[int, int], int] = {}

        def augment(ci, seen, k=k, owner=owner):
            for s in usable[ci]:
                for copy in range(k):
                    if (s, copy) in seen:
                        continue
                    seen.add((s, copy))
                    if (s, copy) not in owner or augment(owner[(s, copy)], seen):
                        owner[(s, copy)] = ci
                        return True
            return False

        if sum(1 for ci in range(len(usable)) if augment(ci, set())) >= k * nslots and len(owner) == k * nslots:
            return k
    return 0


def earth_rows(h, st, you, it, this):
    # ordered-rows ecosystem: "score 3 * rows(card in tableau with type flora)"
    grid = st.zones[("tableau", you)]
    rows = sum(1 for row in h.geo["tableau"].rows
               if all(grid[c] is not None and h.types[st.cards[grid[c]].defn] == "flora" for c in row))
    h.score(st, you, "vp", 3 * rows)


def earth_if_draw(h, st, you, it, this):
    # hush-of-snow black: "if count(card in tableau with habitat cold) >= 3: draw 3 else: draw 1"
    h.draw(st, you, 3 if h.count(st, "tableau", you, "habitat", "cold") >= 3 else 1)


def earth_for_each(h, st, you, it, this):
    # moonpull-tide black: "for each card in tableau with habitat wet: place 1 sprout on it"
    for c in h.matching(st, "tableau", you, "habitat", "wet"):
        h.place(st, c, "sprout", 1)


def earth_each_player(h, st, you, it, this):
    # monsoon-burst black: "each player: sprout up to 2, gain 1 soil"
    for i in range(st.n):
        seat = (you + i) % st.n
        h.place_up_to(st, seat, "sprout", 2, optional=True)
        h.gain(st, seat, "soil", 1)


def earth_goal(h, st, you, it, this):
    # thicket-wren goal: "count(card in tableau with kind bush) >= 4 and count(card in tableau with kind herb) >= 2"
    bush, herb, cards = h.having("kind", "bush"), h.having("kind", "herb"), st.cards
    bushes = herbs = 0
    for c in st.zones[("tableau", you)]:  # one pass counts both
        if c is not None:
            d = cards[c].defn
            bushes += bush[d]
            herbs += herb[d]
    st.counters[you]["_goal"] = int(bushes >= 4 and herbs >= 2)  # the VM's result is stored the same way


def _tm_raise_temperature(h, st, you, add_ocean):
    if st.globals.get("temperature", 0) < 8:
        h.gain(st, you, "temperature", 2)
        h.gain(st, you, "tr", 1)
        h.gain(st, you, "tr-raised", 1)
        t = st.globals["temperature"]
        if t in (-24, -20):
            h.gain(st, you, "heat-production", 1)
        if t == 0:
            add_ocean()


def _fixture_ocean(h, st, you):
    def add():
        if st.globals.get("oceans", 0) < 9:
            h.gain(st, you, "oceans", 1)
            h.gain(st, you, "tr", 1)
            h.gain(st, you, "tr-raised", 1)
    return add


def _no_ocean():
    raise Unsupported("an ocean placement")


def tm_production_raise(h, st, you, it, this, fixture=True):
    # deep-well-heating play: "gain 1 energy-production, raise temperature 1"
    h.gain(st, you, "energy-production", 1)
    _tm_raise_temperature(h, st, you, _fixture_ocean(h, st, you) if fixture else _no_ocean)


def tm_conditional(h, st, you, it, this):
    # nitrogen-rich-asteroid play (fixture): "raise tr 2, raise temperature 1,
    #   if count(card in tableau with tag plant) >= 3: gain 4 plant-production else: gain 1 plant-production"
    h.gain(st, you, "tr", 2)
    h.gain(st, you, "tr-raised", 2)
    _tm_raise_temperature(h, st, you, _fixture_ocean(h, st, you))
    h.gain(st, you, "plant-production", 4 if h.count(st, "tableau", you, "tag", "plant") >= 3 else 1)


def tm_per_card(h, st, you, it, this):
    # miranda-resort play: "gain 1 megacredit-production per card in tableau with tag earth"
    h.gain(st, you, "megacredit-production", h.count(st, "tableau", you, "tag", "earth"))


def tm_city(h, st, you, it, this):
    # city-project (built-in Terraforming Mars): "add city, gain 1 megacredit-production", where
    # "add city" = choose a card in mars with area land and no ocean/city/greenery/special where
    # neighbours(card in mars with city, it) = 0: place 1 city of yours on it, tile bonus
    neighbours = h.geo["mars"].neighbours
    grid = st.zones[("mars", SHARED)]
    cards = st.cards
    land = h.having("area", "land")

    def near(c, piece):
        return sum(1 for nb in neighbours[cards[c].pos] if grid[nb] is not None and cards[grid[nb]].pieces.get(piece))

    def has_city_near(c):
        return any(grid[nb] is not None and cards[grid[nb]].pieces.get("city") for nb in neighbours[cards[c].pos])

    options = []
    for c in grid:
        if c is None:
            continue
        card = cards[c]
        p = card.pieces
        if land[card.defn] and not (p and (p.get("ocean") or p.get("city") or p.get("greenery") or p.get("special"))) \
                and not has_city_near(c):
            options.append(c)
    if options:
        space = options[choose(options)]
        h.place(st, space, "city", 1, owner=you)
        stats = h.stats[cards[space].defn]
        for res in ("steel", "titanium", "plant"):
            h.gain(st, you, res, stats.get(f"{res}-bonus", 0))
        h.gain(st, you, "megacredit", stats.get("ocean-bonus", 0) * near(space, "ocean"))
        h.draw(st, you, stats.get("card-bonus", 0))
    h.gain(st, you, "megacredit-production", 1)


def lf_symbol_sums(zones):
    def run(h, st, you, it, this):
        # Living Forest: the turn's symbol totals, "set sun-total to sum(sun of card in ZONES), ..."
        sun = water = seed = wind = flower = 0
        stats, cards = h.stats, st.cards
        for z in zones:  # one pass adds up the five symbols
            for c in st.zones[(z, you)]:
                if c is not None:
                    s = stats[cards[c].defn]
                    sun += s.get("sun", 0)
                    water += s.get("water", 0)
                    seed += s.get("seed", 0)
                    wind += s.get("wind", 0)
                    flower += s.get("flower", 0)
        counters = st.counters[you]
        counters["sun-total"], counters["water-total"], counters["seed-total"] = sun, water, seed
        counters["wind-total"], counters["flower-total"] = wind, flower
    return run


def bird_row_fixture(h, st, you, it, this):
    # Birdscaping (fixture): "for each card in tree-row: mark it tilted, activate a on-activate ability of it"
    for c in list(h.cards_in(st, "tree-row", you)):
        st.cards[c].flags.add("tilted")
        bird = h.pack.cards[st.cards[c].defn].id
        done = st.activated[you]  # None outside an activation: then 'once per card' does not apply
        if "on-activate" not in h.pack.cards[st.cards[c].defn].abilities or (done is not None and c in done):
            continue
        if done is not None:
            done.add(c)
        if bird == "dawn-wren":  # draw 1
            h.draw(st, you, 1)
        elif bird == "chaffinch":  # if count(card in hand) < hand-limit: move 1 card from top of discard to hand
            if len(h.cards_in(st, "hand", you)) < st.params["hand-limit"]:
                h.draw(st, you, 1, source="discard")
        elif "on-activate" in h.pack.cards[st.cards[c].defn].abilities:
            raise Unsupported(bird)


# ---------------------------------------------------------------------------- setups
# (h, st, you) -> (it, this): put the cards an ability is about where it can act on them.


def _instance(h: Hand, st: GameState, card_id: str) -> int:
    defn = h.index[card_id]
    for c in st.cards:
        if c.defn == defn:
            return c.id
    raise Unsupported(f"no card {card_id}")


def _to_grid(h, st, cid, zone, you):
    card = st.cards[cid]
    if card.zone == zone and card.seat == you:
        return
    cells = st.zones[(zone, you)]
    if None not in cells:
        raise Unsupported(f"{zone} is full")
    h.move(st, cid, zone, you, pos=cells.index(None))


def setup_negative_cost(h, st, you):
    web = _instance(h, st, "mycelial-web")
    _to_grid(h, st, web, "tableau", you)
    st.live_modifiers[:] = [web]
    mush = next((c.id for c in st.cards if c.zone in ("deck", "discard") and h.has(st, c.id, "kind", "mushroom")
                 and h.stats[c.defn].get("cost", 0) >= 2), None)
    if mush is None:
        raise Unsupported("no mushroom")
    h.move(st, mush, "hand", you)
    st.counters[you]["soil"] = max(st.counters[you].get("soil", 0), 5)
    return mush, web


def setup_trigger(h, st, you):
    spruce = _instance(h, st, "frostneedle-spruce")
    _to_grid(h, st, spruce, "tableau", you)
    st.live_triggers[:] = [spruce]
    tree = next((c.id for c in st.cards if c.zone == "hand" and h.has(st, c.id, "kind", "tree")), None)
    if tree is None:
        tree = next(c.id for c in st.cards if c.zone == "deck" and h.has(st, c.id, "kind", "tree"))
    return tree, spruce


def setup_bird_row(h, st, you):
    deck, discard = st.zones[("deck", SHARED)], st.zones[("discard", SHARED)]
    while len(deck) < 4 and len(discard) > 2:  # a few cards to draw, and some left in the discard
        h.move(st, discard[0], "deck", SHARED)
    for bird in ("dawn-wren", "chaffinch", "tawny-owl"):
        cid = next((c.id for c in st.cards if h.pack.cards[c.defn].id == bird and c.zone in ("deck", "discard", "hand")
                    and c.id not in st.zones[("discard", SHARED)][-1:]), None)
        if cid is None:
            raise Unsupported(bird)
        h.move(st, cid, "tree-row", you)
    return None, None


# ---------------------------------------------------------------------------- the items
@dataclass
class Candidate:
    pack: str  # a built-in pack id, or a folder under tests/fixtures/language
    kind: str  # ability | condition | trigger | rules
    target: str  # "card timing" for ability/condition, a program text for rules, a card id for trigger
    hand: Callable
    setup: Callable | None = None


@dataclass
class Item:
    label: str
    candidates: list[Candidate]


TM_FIX = str(FIXTURES / "terraforming-mars")
LF_FIX = str(FIXTURES / "living-forest")
BIRD_FIX = str(FIXTURES / "birdscaping")
LF_SUMS = ("set sun-total to sum(sun of card in {z}), set water-total to sum(water of card in {z}), "
           "set seed-total to sum(seed of card in {z}), set wind-total to sum(wind of card in {z}), "
           "set flower-total to sum(flower of card in {z})")

ITEMS: list[Item] = [
    Item("Earth negative cost (mycelial-web -1, pay cost)", [Candidate(
        "earth", "rules", "choose a card in hand with kind mushroom and cost <= soil: pay cost of it soil: "
        "move it to compost face down", earth_negative_cost,
        setup_negative_cost)]),
    Item("Earth per-N scoring (thunder-cedar)", [Candidate("earth", "ability", "thunder-cedar brown", earth_per_n)]),
    Item("Earth choice (sunshower-arc)", [Candidate("earth", "ability", "sunshower-arc black", earth_choice)]),
    Item("Earth trigger (frostneedle-spruce, on play)", [Candidate(
        "earth", "trigger", "frostneedle-spruce", earth_trigger, setup_trigger)]),
    Item("Earth grow 2 (starwood-redcrown)", [Candidate("earth", "ability", "starwood-redcrown black", earth_grow)]),
    Item("Earth per-card gain (cracked-earth-drought)", [Candidate("earth", "ability", "cracked-earth-drought black",
                                                                   earth_scaled_gain)]),
    Item("Earth sets() (four-kingdoms)", [Candidate("earth", "ability", "four-kingdoms ecosystem", earth_sets)]),
    Item("Earth rows() (ordered-rows)", [Candidate("earth", "ability", "ordered-rows ecosystem", earth_rows)]),
    Item("Earth if/else draw (hush-of-snow)", [Candidate("earth", "ability", "hush-of-snow black", earth_if_draw)]),
    Item("Earth for each (moonpull-tide)", [Candidate("earth", "ability", "moonpull-tide black", earth_for_each)]),
    Item("Earth each player (monsoon-burst)", [Candidate("earth", "ability", "monsoon-burst black",
                                                         earth_each_player)]),
    Item("Earth goal condition (thicket-wren)", [Candidate("earth", "condition", "thicket-wren goal", earth_goal)]),
    Item("TM production + raise (deep-well-heating)", [
        Candidate("terraforming-mars", "ability", "deep-well-heating play",
                  lambda h, st, you, it, this: tm_production_raise(h, st, you, it, this, fixture=False)),
        Candidate(TM_FIX, "ability", "deep-well-heating play", tm_production_raise)]),
    Item("TM raise + if/else (nitrogen-rich-asteroid)", [Candidate(TM_FIX, "ability", "nitrogen-rich-asteroid play",
                                                                   tm_conditional)]),
    Item("TM per-card production (miranda-resort)", [
        Candidate("terraforming-mars", "ability", "miranda-resort play", tm_per_card),
        Candidate(TM_FIX, "ability", "miranda-resort play", tm_per_card)]),
    Item("TM city tile on the hex board (city-project)", [Candidate(
        "terraforming-mars", "ability", "city-project perform", tm_city)]),
    Item("Living Forest symbol sums", [
        Candidate("living-forest", "rules", LF_SUMS.format(z="help-line or forest"),
                  lf_symbol_sums(("help-line", "forest"))),
        Candidate(LF_FIX, "rules", LF_SUMS.format(z="played"), lf_symbol_sums(("played",)))]),
    Item("Birdscaping row activation (tree row)", [Candidate(
        BIRD_FIX, "rules", "for each card in tree-row: mark it tilted, activate a on-activate ability of it",
        bird_row_fixture, setup_bird_row)]),
    Item("Earth cost check of an optional ability (polar-night)", [Candidate(
        "earth", "rules", "if soil >= 1: pay 1 soil: draw 2", lambda h, st, you, it, this: (
            st.counters[you].get("soil", 0) >= 1 and (h.lose(st, you, "soil", 1), h.draw(st, you, 2))))]),
    Item("Earth place on each (velvet-plantain)", [Candidate(
        "earth", "ability", "velvet-plantain black", lambda h, st, you, it, this: [
            h.place(st, c, "sprout", 1) for c in h.matching(st, "tableau", you, "kind", "herb")])]),
]


# ---------------------------------------------------------------------------- running
_COMPILED: dict[str, CompileResult] = {}


def _compiled(ref: str) -> CompileResult:
    if ref not in _COMPILED:
        _COMPILED[ref] = compile_pack(ref, Diagnostics())
    return _COMPILED[ref]


def _program(res: CompileResult, cand: Candidate) -> Code:
    pack = res.pack
    if cand.kind in ("ability", "condition"):
        card_id, timing = cand.target.split(" ", 1)
        card = pack.card(card_id)
        if card is None:
            raise Unsupported(f"no card {card_id}")
        table = card.abilities if cand.kind == "ability" else card.conditions
        if timing not in table:
            raise Unsupported(f"{card_id} has no {timing} ability")
        return table[timing]
    if cand.kind == "trigger":
        if pack.card(cand.target) is None:
            raise Unsupported(f"no card {cand.target}")
        return Code("benchmark: emit play", [["EMIT", "play", None]], [0])
    import yaml

    from cardsmith.compiler.yamlsrc import load_yaml_text

    diags = Diagnostics()
    doc = load_yaml_text(yaml.safe_dump({"do": cand.target}), "<benchmark>", diags)
    before = len(res.compiler.diags.items)
    code = res.compiler.snippet(doc, ("do",), "benchmark")
    del res.compiler.diags.items[before:]
    if code is None:
        raise Unsupported(f"does not compile: {cand.target}")
    return code


_STATES: dict[str, tuple[GameState, int]] = {}


def mid_game_state(pack: CompiledPack, ref: str) -> tuple[GameState, int]:
    """A seeded random game of the pack's smallest player count, stopped about 40% into it."""
    if ref not in _STATES:
        n = max(pack.players[0], 2) if pack.players[1] >= 2 else pack.players[0]
        full = Game(pack, n, seed=11, log=False)
        full.play()
        game = Game(pack, n, seed=11, log=False)
        stop = max(1, int(len(full.decisions) * 0.4))
        d = game.advance()
        while d is not None and len(game.decisions) < stop:
            game.decide(game.agents[d.seat].choose(game, d))
            d = game.advance()
        _STATES[ref] = (game.state, d.seat if d is not None else 0)
    return _STATES[ref]


def state_key(st: GameState):
    return (st.counters, st.globals, st.zones, st.scores, st.live_triggers, st.live_modifiers, st.activated,
            st.active, st.turn, [(c.id, c.defn, c.zone, c.seat, c.pos, c.pieces, sorted(c.flags), c.face_down)
                                 for c in st.cards], st.rng.getstate())


def _run_vm(vm: VM, lc, you, it, this, condition: bool) -> None:
    if condition:
        vm.state.counters[you]["_goal"] = int(bool(vm.eval_sync(lc, you, it, this)))
        return
    vm.push(lc, you, it, this)
    d = vm.run()
    while d is not None:
        vm.resume(policy(d.options))
        d = vm.run()


@dataclass
class AbilityResult:
    label: str
    source: str
    vm_us: float
    hand_us: float
    note: str = ""

    @property
    def ratio(self) -> float:
        return self.vm_us / self.hand_us if self.hand_us else float("nan")


def measure(item: Item, runs: int, repeat: int) -> AbilityResult:
    notes = []
    for cand in item.candidates:
        res = _compiled(cand.pack)
        name = Path(cand.pack).name if "/" in cand.pack else cand.pack
        src = f"{'fixture ' if '/' in cand.pack else ''}{name}"
        if not res.ok:
            notes.append(f"{src}: does not compile")
            continue
        try:
            pack = res.pack
            code = _program(res, cand)
            h = Hand(pack)
            base, you = mid_game_state(pack, cand.pack)
            base = base.clone()
            it = this = None
            if cand.setup:
                it, this = cand.setup(h, base, you)
            elif cand.kind in ("ability", "condition"):
                this = it = _instance(h, base, cand.target.split(" ")[0])
            linker = linker_for(pack)
            lc = linker.link(code)
            cond = cand.kind == "condition"
            # the two must agree before anything is timed
            a, b = base.clone(), base.clone()
            _run_vm(VM(pack, a, linker, None), lc, you, it, this, cond)
            cand.hand(h, b, you, it, this)
            if state_key(a) != state_key(b):
                raise Unsupported("the hand-written twin does a different thing (card text changed?)")
            vm_best = hand_best = float("inf")
            hand = cand.hand
            for _ in range(repeat):  # alternate the two, keep each one's best (as timeit does, without GC)
                states = [base.clone() for _ in range(runs)]
                vms = [VM(pack, s, linker, None) for s in states]
                gc.collect()
                gc.disable()
                try:
                    t = CLOCK()
                    for vm in vms:
                        _run_vm(vm, lc, you, it, this, cond)
                    vm_best = min(vm_best, CLOCK() - t)
                finally:
                    gc.enable()
                del states, vms
                states = [base.clone() for _ in range(runs)]
                gc.collect()
                gc.disable()
                try:
                    t = CLOCK()
                    for s in states:
                        hand(h, s, you, it, this)
                    hand_best = min(hand_best, CLOCK() - t)
                finally:
                    gc.enable()
                del states
            return AbilityResult(item.label, src, vm_best / runs * 1e6, hand_best / runs * 1e6, "; ".join(notes))
        except Unsupported as e:
            notes.append(f"{src}: {e}")
    return AbilityResult(item.label, "-", float("nan"), float("nan"), "; ".join(notes) or "no source")


def run(runs: int = 300, repeat: int = 5) -> list[AbilityResult]:
    return [measure(item, runs, repeat) for item in ITEMS]
