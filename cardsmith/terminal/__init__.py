"""Playing a game in a terminal: what a person sees at a decision (`view`) and the prompt loop
(`session`). Plain text in and out through two callables, so tests drive it without a terminal;
the `cardsmith play` command (cardsmith/cli/interactive.py) wires it to stdin and stdout."""

from .session import HumanSeat, PlaySession
from .view import Viewer

__all__ = ["HumanSeat", "PlaySession", "Viewer"]
