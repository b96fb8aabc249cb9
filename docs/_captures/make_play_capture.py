"""Capture real `cardsmith play` sessions for docs/play.rst.

Runs the installed `cardsmith` in a pseudo-terminal (stdlib `pty`), types each answer when the
prompt appears, and writes what the terminal showed — the typed answers echoed by the terminal,
colour codes removed — to play-*.txt beside this script. Run it again after a change that
alters what `play` prints:

    python docs/_captures/make_play_capture.py
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CARDSMITH = Path(sys.executable).parent / "cardsmith"
PROMPT = b"\n> "
_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def session(args: list[str], keys: list[str], cwd: Path, max_answers: int = 0) -> str:
    """The terminal's text of `cardsmith ARGS`, typing `keys` one per prompt (then '1' up to
    `max_answers` times in all, for a game played to its end)."""
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "dumb", "COLUMNS": "100"}
    proc = subprocess.Popen([str(CARDSMITH), "play", *args], stdin=slave, stdout=slave, stderr=slave,
                            cwd=cwd, env=env, close_fds=True)
    os.close(slave)
    seen = b""
    typed = 0
    todo = list(keys)
    while proc.poll() is None or select.select([master], [], [], 0)[0]:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            # A prompt waits for a line: the game's '> ' or the question of `quit`.
            if seen.endswith(b"> ") or seen.endswith(b"without saving: "):
                if todo:
                    os.write(master, todo.pop(0).encode() + b"\n")
                elif typed < max_answers:
                    os.write(master, b"1\n")
                    typed += 1
                else:
                    os.write(master, b"\x04")  # Ctrl-D
        elif proc.poll() is not None:
            break
        else:
            time.sleep(0.05)
    proc.wait(timeout=60)
    os.close(master)
    text = seen.decode("utf-8", "replace").replace("\r\n", "\n")
    return f"$ cardsmith play {' '.join(args)}\n" + _ESCAPES.sub("", text)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        start = session(["earth", "--players", "2", "--seed", "7"],
                        ["?", "2", "1", "1", "? 1", "1", "1", "hello", "1", "undo", "1", "raw", "raw", "1",
                         "save earth-7.save.json", "quit", ""], Path(tmp))
        (HERE / "play-earth-start.txt").write_text(start, encoding="utf-8")
        load = session(["--load", "earth-7.save.json"], ["seat 2", "quit!"], Path(tmp))
        (HERE / "play-earth-load.txt").write_text(load, encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        end = session(["earth-gaia", "--seed", "3"], [], Path(tmp), max_answers=500)
        lines = end.splitlines()
        # The whole game is long: keep the command, then the last decision's view and the result.
        over = next(i for i, line in enumerate(lines) if line.startswith("== game over"))
        last = max(i for i, line in enumerate(lines[:over]) if line.startswith("== "))
        (HERE / "play-gaia-end.txt").write_text("\n".join([lines[0], "...", *lines[last:]]) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
