"""`play`: a person plays one seat of a game in the terminal against bots (cardsmith/terminal/)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from typing import NoReturn

import click

from cardsmith.compiler.diagnostics import did_you_mean
from cardsmith.compiler.packs import builtin_packs, resolve_pack_ref
from cardsmith.runtime.agents import AGENTS, agent_problem, make_agent

from . import main
from .options import compile_or_exit, parse_params


def _fail(message: str) -> NoReturn:
    click.echo(f"cardsmith play: {message}", err=True)
    sys.exit(2)


def _write(text: str = "") -> None:
    """The session's output: a pack's names may hold escape sequences; only cardsmith's own colours get through."""
    from cardsmith.bytecode.inputs import for_terminal

    click.echo(for_terminal(text))


def _read(prompt: str) -> str:
    """A line from the person. From a pipe the line is echoed, so the transcript reads like a session."""
    if sys.stdin.isatty():
        return input(prompt)
    from cardsmith.bytecode.inputs import for_terminal

    click.echo(for_terminal(prompt), nl=False)
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    click.echo(line.rstrip("\n"))
    return line


@main.command()
@click.argument("pack", required=False)
@click.option("--players", "-p", default=None, type=int, help="Players (default: the pack's minimum).")
@click.option("--seat", "-k", default=None, type=int,
              help="Your seat, 1 to PLAYERS (default 1; with --load, the seat the save marks as yours).")
@click.option("--agents", "-a", default=None,
              help=f"Comma-separated agents for the other seats, in turn ({', '.join(AGENTS)}; search:400 or "
                   "search:0.5s gives the search agent a budget per decision; default: greedy).")
@click.option("--seed", "-s", default=None, type=int, help="The game's seed (default 0).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Override a rule parameter.")
@click.option("--load", "load", type=click.Path(dir_okay=False), default=None,
              help="Go on with a saved game (made with the `save` command, or `simulate --save-at`). PACK is "
                   "then only needed for a pack that is not built in.")
@click.option("--max-decisions", default=None, type=click.IntRange(100),
              help="Stop a game that runs this long and score it where it stands (default 50,000).")
def play(pack: str | None, players: int | None, seat: int | None, agents: str | None, seed: int | None,
         params: tuple[str, ...], load: str | None, max_decisions: int | None) -> None:
    """Play a game in the terminal: you take one seat, bots the others.

    At each of your decisions you see your cards and counters, a line or two per other
    player (score if the game ended now, counters, how many cards where) and the table,
    then the options, numbered. Type a number to answer, or a command: `? N` or
    `card NAME` (a card's text), `board`, `seat N`, `undo` (your last answer and the bots'
    moves since), `raw`, `save FILE`, `quit` (offers to save) or `quit!`; `?` lists them.
    Options and questions written in the effect language are shown as generated English
    ("Take the planting action (green)"); `raw` switches to the effect-language source
    ("green action") and back.
    End of input (Ctrl-D) leaves without saving. Bots' moves are logged one entry each,
    naming the card "it" is when they speak of it; a card they take from a hidden hand stays
    hidden. Colour only on a terminal.

    A save is a normal save file: `cardsmith play --load FILE` goes on with you in your
    seat, and `cardsmith resume FILE` finishes the game with a random bot in your seat.

    \b
    Examples:
      cardsmith play earth --players 3 --agents greedy,random --seed 7
      cardsmith play birdscaping --seat 2
      cardsmith play --load game.save.json
      printf '1\\n1\\nquit!\\n' | cardsmith play earth-gaia
    """
    from cardsmith.runtime.game import DEFAULT_MAX_DECISIONS, Game
    from cardsmith.runtime.save import SaveError, read_save, resume
    from cardsmith.runtime.vm import RuntimeFault
    from cardsmith.terminal import HumanSeat, PlaySession, Viewer
    from cardsmith.terminal.view import CardTexts, plain

    data = None
    if load:
        given = [f"--{k}" for k, v in (("players", players), ("agents", agents), ("seed", seed),
                                       ("param", params or None), ("max-decisions", max_decisions)) if v]
        if given:
            _fail(f"{', '.join(given)}: a loaded game keeps the settings of its save")
        try:
            data = read_save(load)
        except SaveError as e:
            _fail(f"{load}:{e.line or 1}: {e.message}")
        if pack is None:  # a save names its pack by id: only a built-in one, never a folder of its choosing
            if data["pack"] not in builtin_packs():
                _fail(f"{load}: the save is of pack '{data['pack']}', which is not a built-in pack; give its folder "
                      "as PACK")
            pack = str(builtin_packs()[data["pack"]])
    elif pack is None:
        _fail("give a PACK (see `cardsmith packs`), or --load a saved game")
    if resolve_pack_ref(pack) is None:
        hint = did_you_mean(pack, list(builtin_packs()))
        _fail(f"no pack '{pack}': not a built-in pack id nor a folder with a pack.yaml" + (f"; {hint}" if hint else ""))
    res = compile_or_exit(pack, cache=True)
    p = res.pack

    if data is not None:
        marked = [i for i, a in enumerate(data["agents"]) if isinstance(a, dict) and a.get("human")]
        you = (seat or (marked[0] + 1 if marked else 1)) - 1
        if not 0 <= you < data["players"]:
            _fail(f"--seat {seat}: the saved game has seats 1 to {data['players']}")
        try:
            game = resume(p, data)
        except SaveError as e:
            _fail(f"{load}:{e.line or 1}: {e.message}")
        mine = HumanSeat()
        mine.rng.setstate(game.agents[you].rng.getstate())
        game.agents[you] = mine
    else:
        n = players or p.players[0]
        if not p.players[0] <= n <= p.players[1]:
            _fail(f"--players {n}: {p.name} is for {p.players[0]} to {p.players[1]} players")
        you = (seat or 1) - 1
        if not 0 <= you < n:
            _fail(f"--seat {seat}: a {n}-player game has seats 1 to {n}")
        names = [a.strip() for a in (agents or "greedy").split(",") if a.strip()]
        bad = [problem for a in names if (problem := agent_problem(a))]
        if bad or not names:
            _fail(f"--agents: {bad[0] if bad else 'no agent given'}")
        try:
            overrides = parse_params(params)
        except click.BadParameter as e:
            _fail(f"--param: {e.message}")
        unknown = [k for k in overrides if k not in p.params]
        if unknown:
            _fail(f"--param: unknown parameter(s) {', '.join(unknown)}; parameters: {', '.join(p.params) or 'none'}")
        seed = seed or 0
        # Bots take the agents in turn, seeded as `simulate` seeds its seats.
        bots = iter(names * n)
        seats = [HumanSeat(seed * 7919 + i) if i == you else make_agent(next(bots), seed * 7919 + i)
                 for i in range(n)]
        game = Game(p, n, seed, seats, overrides, max_decisions=max_decisions or DEFAULT_MAX_DECISIONS)

    width = min(max(shutil.get_terminal_size((100, 24)).columns, 60), 120)
    color = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    texts = CardTexts(pack, width, res)
    viewer = Viewer(game, you, [a.name for a in game.agents], width, click.style if color else plain, texts.source,
                    texts.summary, texts.word)
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):  # platforms without readline keep plain input()
            import readline  # noqa: F401  (line editing and history for input())
    if data is not None:
        click.echo(f"{p.name} {p.version}: loaded {load} after {len(game.decisions)} decisions; you are "
                   f"seat {you + 1}")
    else:
        others = ", ".join(viewer.seat_name(s) for s in range(game.n) if s != you) or "no bots"
        click.echo(f"{p.name} {p.version}: {game.n} player{'s' * (game.n != 1)}, seed {seed}; you are seat "
                   f"{you + 1}; {others}. Type ? for help.")
    session = PlaySession(game, you, _read, _write, viewer, texts.card, texts.tiebreaker, loaded=data is not None)
    try:
        code = session.run()
    except RuntimeFault as e:
        click.echo(f"{e}", err=True)
        sys.exit(1)
    sys.exit(code)
