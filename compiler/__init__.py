"""The compiler: YAML packs and effect-language text to bytecode.

`compile_pack(ref)` takes a built-in pack id or a pack folder and returns a CompileResult
with the compiled pack (when there were no errors) and every diagnostic of the run.
"""

from .pipeline import CompileResult, compile_pack

__all__ = ["CompileResult", "compile_pack"]
