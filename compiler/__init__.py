"""The compiler: YAML packs and effect-language text to bytecode.

`compile_pack(ref)` takes a built-in pack id or a pack folder and returns a CompileResult
with the compiled pack (when there were no errors) and every diagnostic of the run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .pipeline import CompileResult, compile_pack

__all__ = ["CompileResult", "compile_pack"]


def __getattr__(name: str):
    # Loaded on first use: the runtime imports only compiler.bytecode, and a simulation worker that
    # receives a compiled pack never needs the parser, the schemas or the checker.
    if name in __all__:
        from . import pipeline

        return getattr(pipeline, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
