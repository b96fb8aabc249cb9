"""The runtime: a generic VM, game state, agents and simulation."""
