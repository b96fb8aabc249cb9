"""The compile cache: compiled packs kept on disk, keyed by what they were compiled from.

The key is a SHA-256 over

- every source file of the pack chain (the pack, the packs it extends): its bytes, its path as
  diagnostics and spans show it (relative to the working directory when inside it) and its folder;
- the compiler itself: every file of `cardsmith.compiler` (Python, JSON Schemas), the grammar, the
  cardsmith version, the bytecode format and the Python version (the entry is a pickle).

An entry is a pickle, which can run code when it is read, so it is signed: an HMAC-SHA256 with a key of
the user's own, kept outside the cache folder (`$XDG_CONFIG_HOME/cardsmith/cache-key`, else
`~/.config/cardsmith/cache-key`, made on first use, readable by the user alone). An entry whose
signature does not check is never unpickled: whoever can write the cache folder but not that key
cannot make cardsmith run their code. Without a usable key the cache is simply not used.

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
import hmac
import os
import pickle
import secrets
import stat
import sys
import tempfile
from pathlib import Path

from cardsmith.bytecode import CompiledPack
from cardsmith.bytecode.inputs import InputError, read_input
from cardsmith.bytecode.opcodes import BYTECODE_VERSION

from .diagnostics import Diagnostic, Diagnostics
from .packs import MAX_CHAIN, _find_parent, card_files, display_path, resolve_pack_ref
from .result import CompileResult
from .yamlsrc import MAX_FILE_BYTES, load_yaml_bytes

ENTRY_VERSION = 2
MAGIC = b"cardsmith-cache 2\n"
MAX_ENTRY_BYTES = 256_000_000  # an entry is read with this bound (the largest built-in pack's is under 1 MB)
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
    once per process (`reset_fingerprint` forgets it, for a benchmark that counts it)."""
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


def reset_fingerprint() -> None:
    global _fingerprint
    _fingerprint = None


def key_path() -> Path:
    """Where the signing key lives: outside the cache folder, in the user's configuration."""
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".config"
    return base / "cardsmith" / "cache-key"


_key: tuple[Path, bytes | None] | None = None


def signing_key() -> bytes | None:
    """The user's cache key (made on first use, mode 0600); None when it cannot be made or read safely."""
    global _key
    where = key_path()
    if _key is not None and _key[0] == where:
        return _key[1]
    key = _read_key(where)
    if key is None and not where.exists() and not where.is_symlink():
        try:
            where.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=".cache-key-", dir=where.parent)
            try:
                os.write(fd, secrets.token_bytes(32))
            finally:
                os.close(fd)
            try:
                os.link(tmp, where)  # never replaces a key another process made meanwhile
            except FileExistsError:
                pass
            finally:
                os.unlink(tmp)
        except OSError:
            pass
        key = _read_key(where)
    _key = (where, key)
    return key


def _read_key(where: Path) -> bytes | None:
    try:
        st = os.lstat(where)
        # the user's own regular file, which nobody else can read or write
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o077 or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            return None
        key = read_input(where, 64)
    except (OSError, InputError):
        return None
    return key if len(key) == 32 else None


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
        try:  # read as the compiler reads it: a regular file, bounded, with the careful YAML reader
            doc = load_yaml_bytes(read_input(pack_yaml, MAX_FILE_BYTES), str(pack_yaml), Diagnostics())
            if rules.is_symlink():
                return None
        except InputError:
            return None
        meta = doc.value if doc is not None else None
        if not isinstance(meta, dict):
            return None
        links: list[Path] = []
        problems: list[tuple[Path, str]] = []
        files = [pack_yaml, *([rules] if rules.is_file() else []), *card_files(path, links, problems)]
        if links or problems:
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
            data = read_input(f, MAX_FILE_BYTES)
        except InputError:  # a pipe, a device, a file too large: the compile says so
            return None
        for part in (str(pack_folder.resolve()), display_path(f), str(len(data))):
            h.update(part.encode("utf-8", "surrogateescape") + b"\0")
        h.update(data)
    return h.hexdigest()


def entry_path(key: str) -> Path:
    return cache_dir() / "packs" / f"{key}.pickle"


def load(key: str) -> tuple[CompiledPack, list[Diagnostic], int] | None:
    """The cached pack, its warnings and its card count; None on a miss, an unreadable entry or one whose
    signature does not check (which is never unpickled)."""
    secret = signing_key()
    if secret is None:
        return None
    try:
        data = read_input(entry_path(key), MAX_ENTRY_BYTES)
    except InputError:
        return None
    head = len(MAGIC)
    mac, payload = data[head:head + 32], data[head + 32:]
    if data[:head] != MAGIC or not hmac.compare_digest(mac, _sign(secret, key, payload)):
        return None
    try:
        entry = pickle.loads(payload)
        if entry.get("entry") != ENTRY_VERSION or entry.get("key") != key:
            return None
        return entry["pack"], entry["diagnostics"], entry["cards_compiled"]
    except Exception:  # signed by us but unreadable (another cardsmith's classes): a miss
        return None


def _sign(secret: bytes, key: str, payload: bytes) -> bytes:
    return hmac.new(secret, key.encode() + b"\0" + payload, hashlib.sha256).digest()


def store(key: str, pack: CompiledPack, diagnostics: list[Diagnostic], cards_compiled: int) -> bool:
    """Write a signed entry atomically; False (and nothing written) when the cache folder is not writable
    or there is no signing key."""
    secret = signing_key()
    if secret is None:
        return False
    target = entry_path(key)
    entry = {"entry": ENTRY_VERSION, "key": key, "pack": pack, "diagnostics": list(diagnostics),
             "cards_compiled": cards_compiled}
    payload = pickle.dumps(entry, protocol=pickle.HIGHEST_PROTOCOL)
    tmp = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}-", suffix=".tmp", dir=target.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC + _sign(secret, key, payload) + payload)
        os.replace(tmp, target)
        return True
    except OSError:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return False


def compile_cached(ref: str | Path, diags: Diagnostics | None = None) -> CompileResult:
    """`compile_pack(ref, diags, cache=True)`, with a hit served before any stage of the compiler is imported:
    a command run on a pack that did not change pays for hashing its files and reading the entry, not for
    loading the parser, the schemas and the checker."""
    diags = diags if diags is not None else Diagnostics()
    folder = resolve_pack_ref(str(ref))
    key = cache_key(folder) if folder is not None else None
    hit = load(key) if key else None
    if hit is not None:
        diags.items.extend(hit[1])
        return CompileResult(hit[0], diags, cards_compiled=hit[2])
    from .pipeline import compile_pack

    return compile_pack(ref, diags, cache=True)


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
