"""cardsmith: cards and rules as data, compiled to bytecode, run by a generic VM."""
__version__ = "0.1.0"
