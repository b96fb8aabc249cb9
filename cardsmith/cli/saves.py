"""`resume`: continue a saved game (saves are made with `simulate --save-at N FILE`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from . import main


def save_target(path: str) -> None:
    """Check, before any game is played, that a save can be written at `path`: its folder exists, and what is
    there is nothing or a regular file (a save never replaces a link, a device or a pipe). Exits 2 otherwise."""
    from cardsmith.bytecode.inputs import printable
    from cardsmith.runtime.save import _not_replaceable

    from .options import output_target

    output_target(path)
    what = _not_replaceable(Path(path))
    if what:
        click.echo(f"cardsmith: cannot save to {printable(path)}: it is {what}; a save replaces only a regular file",
                   err=True)
        sys.exit(2)


def save_first_game(pack, players: int, seed: int, agent_names: list[str], params: dict, max_decisions: int | None,
                    at: int, path: str) -> None:
    """Play the game of seed SEED with the agents `simulate` gives it, to `at` decisions, and save it."""
    from cardsmith.runtime.agents import make_agent
    from cardsmith.runtime.game import Game
    from cardsmith.runtime.save import SaveError, play_until, write_save

    agents = [make_agent(agent_names[i % len(agent_names)], seed * 7919 + i) for i in range(players)]
    kw = {"max_decisions": max_decisions} if max_decisions else {}
    game = Game(pack, players, seed, agents, params, **kw)
    from cardsmith.runtime.vm import RuntimeFault

    try:
        play_until(game, at)
        write_save(game, path)  # which plays on to the next decision first
    except RuntimeFault as e:  # the game to save cannot be played that far: the fault, as simulate reports it
        click.echo(f"{e}", err=True)
        sys.exit(1)
    except (SaveError, OSError) as e:
        from cardsmith.bytecode.inputs import printable

        click.echo(f"cardsmith: cannot save to {printable(path)}: {getattr(e, 'message', None) or e}", err=True)
        sys.exit(2)
    click.echo(f"saved game {seed} after {len(game.decisions)} decisions to {path}", err=True)


@main.command()
@click.argument("save", type=click.Path(exists=True, dir_okay=False))
@click.option("--log", "log_file", type=click.Path(dir_okay=False), default=None,
              help="Write the whole game's event log here (JSON lines), for `cardsmith replay`.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--pack", "pack_ref", default=None, metavar="PACK",
              help="The pack folder, when the saved game's pack is not a built-in one.")
def resume(save: str, log_file: str | None, as_json: bool, pack_ref: str | None) -> None:
    """Resume a saved game and play it to the end with the saved agents.

    The game continues exactly as it would have without the interruption: same decisions,
    same event log (its hash is printed). A save that is damaged, edited by hand or made with
    another version of the pack is refused with the line at fault; nothing is written then.

    \b
    Example:
      cardsmith simulate earth -n 1 -p 3 --seed 7 --save-at 200 game.save.json
      cardsmith resume game.save.json --log game-7.jsonl
    """
    from cardsmith.bytecode.inputs import printable
    from cardsmith.runtime.replay import log_text
    from cardsmith.runtime.save import SaveError, read_save
    from cardsmith.runtime.save import resume as resume_game
    from cardsmith.runtime.vm import RuntimeFault

    from .options import compile_or_exit, named_pack, output_target, write_output

    if log_file:
        output_target(log_file)
    try:
        data = read_save(save)
    except SaveError as e:
        click.echo(f"{printable(save)}:{e.line or 1}: error: {e.message}", err=True)
        sys.exit(1)
    res = compile_or_exit(named_pack(data["pack"], pack_ref, save), cache=True)
    try:
        game = resume_game(res.pack, data)
        done = len(game.decisions)
        result = game.play()
    except SaveError as e:
        click.echo(f"{printable(save)}:{e.line or 1}: error: {e.message}", err=True)
        sys.exit(1)
    except RuntimeFault as e:
        click.echo(f"{e}", err=True)
        sys.exit(1)
    if log_file:
        write_output(log_file, log_text(game))
    if as_json:
        click.echo(json.dumps({"resumed_at": done, **result.to_json()}, indent=1, sort_keys=True))
    else:
        click.echo(f"{res.pack.name} {res.pack.version}: resumed after {done} decisions, seed {result.seed}, "
                   f"{result.players} players")
        click.echo(f"  totals {result.totals}, winners {[w + 1 for w in result.winners]}, {result.turns} turns, "
                   f"{result.decisions} decisions, log hash {result.log_hash}")
