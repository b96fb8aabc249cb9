"""Card sites and catalogs built once per test session (the site tests and the browser test share them)."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from conftest import compiled_result

from cardsmith.catalog.records import Catalog, build_catalog
from cardsmith.catalog.site import build_site
from cardsmith.compiler.packs import resolve_pack_ref

_CATALOGS: dict[str, Catalog] = {}
_SITES: dict[str, Path] = {}
_ROOT: list[Path] = []


def catalog(ref: str) -> Catalog:
    if ref not in _CATALOGS:
        _CATALOGS[ref] = build_catalog(compiled_result(ref))
    return _CATALOGS[ref]


def site(ref: str) -> Path:
    """The site of a built-in pack, built into a temporary folder removed at exit."""
    if ref not in _SITES:
        if not _ROOT:
            _ROOT.append(Path(tempfile.mkdtemp(prefix="cardsmith-test-sites-")))
            atexit.register(shutil.rmtree, _ROOT[0], True)
        out = _ROOT[0] / ref
        build_site(catalog(ref), out, pack_folder=resolve_pack_ref(ref))
        _SITES[ref] = out
    return _SITES[ref]
