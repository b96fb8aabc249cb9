"""The server's document cache: open buffers, and for each pack folder its compile memo and latest results.

A keystroke in a file recompiles the pack the file belongs to, through a `CompileMemo` that serves every open
buffer (of this pack or of a pack it extends) and compiles again only the cards that changed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from cardsmith.compiler.diagnostics import Diagnostics
from cardsmith.compiler.incremental import CompileMemo
from cardsmith.compiler.packs import display_path
from cardsmith.compiler.pipeline import CompileResult, compile_pack
from cardsmith.compiler.yamlsrc import YamlDoc

from .positions import file_kind, load
from .symbols import Index, build_index


@dataclass
class Buffer:
    path: Path
    text: str
    version: int | None = None
    _doc: tuple[str, YamlDoc | None] | None = None

    @property
    def doc(self) -> YamlDoc | None:
        """The buffer's YAML as typed (schema not applied), read once per version."""
        if self._doc is None or self._doc[0] != self.text:
            self._doc = (self.text, load(self.text, display_path(self.path)))
        return self._doc[1]

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")


@dataclass
class PackState:
    folder: Path
    memo: CompileMemo = field(default_factory=CompileMemo)
    result: CompileResult | None = None
    good: CompileResult | None = None  # the latest compile without errors: text and bytecode for hovers
    published: set[Path] = field(default_factory=set)  # files that were given diagnostics

    @property
    def latest(self) -> CompileResult | None:
        """The latest compile that got as far as the vocabulary (for completion and names)."""
        if self.result is not None and self.result.compiler is not None:
            return self.result
        return self.good


class Workspace:
    def __init__(self) -> None:
        self.buffers: dict[Path, Buffer] = {}
        self.packs: dict[Path, PackState] = {}
        self._disk: dict[Path, tuple[tuple, Buffer]] = {}  # files not open: read again when they change
        self._indexes: dict[Path, tuple[int, Index]] = {}

    @staticmethod
    def key(path: Path | str) -> Path:
        return Path(os.path.abspath(path))

    def open(self, path: Path, text: str, version: int | None) -> Buffer:
        buf = self.buffers[self.key(path)] = Buffer(self.key(path), text, version)
        return buf

    def change(self, path: Path, text: str, version: int | None) -> Buffer:
        buf = self.buffers.get(self.key(path))
        if buf is None:
            return self.open(path, text, version)
        buf.text, buf.version = text, version
        return buf

    def close(self, path: Path) -> None:
        self.buffers.pop(self.key(path), None)

    def text(self, path: Path) -> str | None:
        """The text of a file: its open buffer, else the disk."""
        buf = self.buffers.get(self.key(path))
        if buf is not None:
            return buf.text
        try:
            return Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def buffer(self, path: Path) -> Buffer | None:
        """The open buffer of `path`, or the file on disk as a buffer (for a file the editor has not opened)."""
        key = self.key(path)
        buf = self.buffers.get(key)
        if buf is not None:
            return buf
        try:
            st = key.stat()
        except OSError:
            return None
        stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
        kept = self._disk.get(key)
        if kept is None or kept[0] != stamp:
            text = self.text(key)
            if text is None:
                return None
            kept = self._disk[key] = (stamp, Buffer(key, text))
        return kept[1]

    @staticmethod
    def pack_folder(path: Path) -> Path | None:
        """The pack a file belongs to: the nearest folder above it with a pack.yaml."""
        for folder in Path(os.path.abspath(path)).parents:
            if (folder / "pack.yaml").is_file():
                return folder
        return None

    def pack(self, folder: Path) -> PackState:
        state = self.packs.get(folder)
        if state is None:
            state = self.packs[folder] = PackState(folder)
        return state

    def compile(self, folder: Path) -> PackState:
        state = self.pack(folder)
        state.memo.overlay = {p: b.text for p, b in self.buffers.items()}
        state.result = compile_pack(folder, Diagnostics(), memo=state.memo)
        if state.result.ok:
            state.good = state.result
        return state

    def state_for(self, path: Path, fresh: bool = False) -> PackState | None:
        """The pack of `path`, compiled (again when `fresh`, or when it never was)."""
        folder = self.pack_folder(path)
        if folder is None:
            return None
        state = self.pack(folder)
        if fresh or state.result is None:
            self.compile(folder)
        return state

    @staticmethod
    def kind(path: Path) -> str:
        folder = Workspace.pack_folder(path)
        rel = Path(os.path.abspath(path)).relative_to(folder).parts if folder else (Path(path).name,)
        return file_kind(Path(path).name, tuple(rel[:-1]))

    def chain_files(self, state: PackState) -> list[tuple[Path, str]]:
        """Every file of the pack chain (pack.yaml, rules.yaml, card files) and its kind, plus scenario files."""
        from cardsmith.compiler.packs import card_files

        out: list[tuple[Path, str]] = []
        result = state.latest
        folders = [p.folder for p in result.sources] if result is not None and result.sources else [state.folder]
        folders += self.extended_by(state.folder)
        for folder in folders:
            folder = self.key(folder)
            out.append((folder / "pack.yaml", "pack"))
            if (folder / "rules.yaml").is_file():
                out.append((folder / "rules.yaml", "rules"))
            out.extend((self.key(p), "cards") for p in card_files(folder))
            scen = folder / "scenarios"
            if scen.is_dir():
                out.extend((self.key(p), "scenario") for p in sorted(scen.rglob("*.yaml")))
        return out

    def extended_by(self, folder: Path) -> list[Path]:
        """The packs beside `folder` that extend it, directly or through each other (their files use its cards)."""
        import yaml

        ids: dict[Path, tuple[str, list]] = {}
        for sibling in sorted(folder.parent.iterdir()):
            try:
                meta = yaml.safe_load((sibling / "pack.yaml").read_text(encoding="utf-8"))
                ids[sibling] = (str(meta["id"]), list(meta.get("extends") or []))
            except (OSError, yaml.YAMLError, TypeError, KeyError):
                continue
        found: list[Path] = []
        wanted = {ids[folder][0]} if folder in ids else set()
        changed = True
        while changed:
            changed = False
            for sibling, (pid, parents) in ids.items():
                if sibling not in found and sibling != folder and wanted & set(parents):
                    found.append(sibling)
                    wanted.add(pid)
                    changed = True
        return [self.key(f) for f in found]

    def index(self, state: PackState) -> Index:
        """Every declaration and use of a name in the pack chain and its scenarios, built once per compile."""
        kept = self._indexes.get(state.folder)
        if kept is not None and kept[0] == id(state.result):
            return kept[1]
        result = state.latest
        voc = result.compiler.voc if result is not None and result.compiler is not None else None
        macros = result.compiler.macros if result is not None and result.compiler is not None else {}
        files = []
        for path, kind in self.chain_files(state):
            buf = self.buffer(path)
            if buf is not None and buf.doc is not None:
                files.append((path, kind, buf.doc))
        index = build_index(files, voc, macros)
        self._indexes[state.folder] = (id(state.result), index)
        return index
