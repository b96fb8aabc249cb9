"""Fixtures every test file may use: compiled built-in packs (once per session) and their ids."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from cardsmith.bytecode import CompiledPack
from cardsmith.compiler import CompileResult, compile_pack
from cardsmith.compiler.diagnostics import render_text

ROOT = Path(__file__).resolve().parent.parent
BUILTIN_PACKS = sorted(p.parent.name for p in (ROOT / "cards").glob("*/pack.yaml"))

_RESULTS: dict[str, CompileResult] = {}


def compiled_result(ref: str) -> CompileResult:
    """A built-in pack (or a pack folder) compiled once per test session; it must compile cleanly."""
    if ref not in _RESULTS:
        res = compile_pack(ref)
        assert res.ok, render_text(res.diagnostics.items)
        assert not res.diagnostics.items, render_text(res.diagnostics.items)
        _RESULTS[ref] = res
    return _RESULTS[ref]


@pytest.fixture(scope="session")
def compiled() -> Callable[[str], CompiledPack]:
    """compiled("earth") -> the compiled pack, shared by every test of the session (read-only)."""
    return lambda ref: compiled_result(ref).pack
