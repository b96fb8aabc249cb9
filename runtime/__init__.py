"""The runtime: a generic VM, game state, agents and simulation. It reads compiled packs only."""

from .agents import GreedyAgent, RandomAgent, ScriptedAgent
from .game import Game, GameResult

__all__ = ["Game", "GameResult", "GreedyAgent", "RandomAgent", "ScriptedAgent"]
