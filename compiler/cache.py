"""The compile cache: compiled packs kept on disk, keyed by what they were compiled from.

The key is a SHA-256 over

- every source file of the pack chain (the pack, the packs it extends): its bytes, its path as
  diagnostics and spans show it (relative to the working directory when inside it) and its folder;
- the compiler itself: every file of `cardsmith.compiler` (Python, JSON Schemas), the grammar, the
  cardsmith version, the bytecode format and the Python version (the entry is a pickle).

A change anywhere gives another key, so a stale entry is never used; old entries are simply
never read again. Only clean compiles (no errors) are stored, with their warnings, which are
reported again on every hit.

Where: `$CARDSMITH_CACHE` if set, else `$XDG_CACHE_HOME/cardsmith`, else `~/.cache/cardsmith`.
The folder is safe to delete at any time. Two processes may compile the same pack at once:
each writes a private temporary file and renames it into place (`os.replace`, atomic), so a
reader sees a whole entry or none; an unreadable entry counts as a miss.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from pathlib import Path

import yaml

from cardsmith.bytecode import CompiledPack
from cardsmith.bytecode.opcodes import BYTECODE_VERSION

from .diagnostics import Diagnostic
from .packs import MAX_CHAIN, _find_parent, card_files, display_path

ENTRY_VERSION = 1
_COMPILER_DIR = Path(__file__).resolve().parent
_GRAMMAR_DIR = _COMPILER_DIR.parent / "grammar"
_FORMAT_DIR = _COMPILER_DIR.parent / "bytecode"
_fingerprint: str | None = None


def cache_dir() -> Path:
    """The cache folder (not created here)."""
    env = os.environ.get("CARDSMITH_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "cardsmith"


def compiler_fingerprint() -> str:
    """A hash of the compiler's own source, the bytecode format's, the grammar and the versions; computed
    once per process."""
    global _fingerprint
    if _fingerprint is None:
        h = hashlib.sha256()
        h.update(f"bytecode {BYTECODE_VERSION} entry {ENTRY_VERSION} python {sys.version_info[:2]}\0".encode())
        files = sorted([*_COMPILER_DIR.rglob("*.py"), *_COMPILER_DIR.rglob("*.json"), *_FORMAT_DIR.rglob("*.py"),
                        *_GRAMMAR_DIR.glob("*.lark")])
        for f in files:
            if "__pycache__" in f.parts:
                continue
            h.update(f.relative_to(_COMPILER_DIR.parent).as_posix().encode() + b"\0")
            h.update(f.read_bytes())
            h.update(b"\0")
        _fingerprint = h.hexdigest()
    return _fingerprint


def source_files(folder: Path) -> list[tuple[Path, Path]] | None:
    """(pack folder, file) for every file the compiler reads for the pack at `folder` and the packs it
    extends, or None when that cannot be told cheaply (a broken pack.yaml, a cycle, a symbolic link):
    such packs are never cached."""
    out: list[tuple[Path, Path]] = []
    seen: set[Path] = set()
    todo = [(folder, 0)]
    while todo:
        path, depth = todo.pop()
        key = path.resolve()
        if key in seen:
            continue
        if depth > MAX_CHAIN:
            return None
        seen.add(key)
        pack_yaml = path / "pack.yaml"
        rules = path / "rules.yaml"
        if pack_yaml.is_symlink() or rules.is_symlink():
            return None
        try:
            meta = yaml.load(pack_yaml.read_bytes(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except (OSError, yaml.YAMLError):
            return None
        if not isinstance(meta, dict):
            return None
        links: list[Path] = []
        files = [pack_yaml, *([rules] if rules.is_file() else []), *card_files(path, links)]
        if links:
            return None
        out.extend((path, f) for f in files)
        extends = meta.get("extends") or []
        if not isinstance(extends, list):
            return None
        for parent in extends:
            if not isinstance(parent, str):
                return None
            ppath = _find_parent(parent, path)
            if ppath is None or ppath.is_symlink():
                return None
            todo.append((ppath, depth + 1))
    return out


def cache_key(folder: Path) -> str | None:
    files = source_files(folder)
    if files is None:
        return None
    h = hashlib.sha256(compiler_fingerprint().encode())
    h.update(str(folder.resolve()).encode() + b"\0")
    for pack_folder, f in files:
        try:
            data = f.read_bytes()
        except OSError:
            return None
        for part in (str(pack_folder.resolve()), display_path(f), str(len(data))):
            h.update(part.encode("utf-8", "surrogateescape") + b"\0")
        h.update(data)
    return h.hexdigest()


def entry_path(key: str) -> Path:
    return cache_dir() / "packs" / f"{key}.pickle"


def load(key: str) -> tuple[CompiledPack, list[Diagnostic], int] | None:
    """The cached pack, its warnings and its card count; None on a miss or an unreadable entry."""
    try:
        with open(entry_path(key), "rb") as fh:
            entry = pickle.load(fh)
        if entry.get("entry") != ENTRY_VERSION or entry.get("key") != key:
            return None
        return entry["pack"], entry["diagnostics"], entry["cards_compiled"]
    except Exception:  # a missing, partial or foreign file is a miss; the compile writes a good one
        return None


def store(key: str, pack: CompiledPack, diagnostics: list[Diagnostic], cards_compiled: int) -> bool:
    """Write an entry atomically; False (and nothing written) when the cache folder is not writable."""
    target = entry_path(key)
    entry = {"entry": ENTRY_VERSION, "key": key, "pack": pack, "diagnostics": list(diagnostics),
             "cards_compiled": cards_compiled}
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}-", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(entry, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, target)
        return True
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False


def clear() -> int:
    """Delete every cache entry; returns how many files were removed."""
    n = 0
    folder = cache_dir() / "packs"
    if folder.is_dir():
        for f in folder.iterdir():
            try:
                f.unlink()
                n += 1
            except OSError:
                pass
    return n
