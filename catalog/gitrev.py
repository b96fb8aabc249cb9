"""`PACK@GITREV`: a pack as it was at a git revision, read from git objects, never from the work tree.

The pack folder (and each pack it extends that lies beside it at that revision) is written from
`git archive REV -- PATH` into a temporary folder, keeping the repository's relative layout so that
`extends` finds its siblings as it did then. Nothing in the repository or its work tree is touched.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from cardsmith.compiler.packs import resolve_pack_ref


class SideError(ValueError):
    """A side of a comparison that cannot be read; the message says why and what to write instead."""


@dataclass
class Side:
    """One side of a comparison: a folder to compile, and how the user named it."""

    label: str
    folder: Path
    temp: Path | None = None  # a temporary folder to remove when done

    def cleanup(self) -> None:
        if self.temp is not None:
            shutil.rmtree(self.temp, ignore_errors=True)
            self.temp = None


def split_ref(ref: str) -> tuple[str, str | None]:
    """'earth@v1.2' -> ('earth', 'v1.2'); a path that exists as a pack is never split."""
    if resolve_pack_ref(ref) is not None or "@" not in ref:
        return ref, None
    pack, rev = ref.rsplit("@", 1)
    return pack, rev or None


def open_side(ref: str) -> Side:
    pack, rev = split_ref(ref)
    folder = resolve_pack_ref(pack)
    if rev is None:
        if folder is None:
            raise SideError(f"no pack '{ref}': not a built-in pack id nor a folder with a pack.yaml "
                            "(PACK@REV reads a pack at a git revision)")
        return Side(ref, folder)
    if folder is None:
        folder = Path(pack)
        if not folder.is_dir():
            raise SideError(f"no pack '{pack}' (in '{ref}'): not a built-in pack id nor a folder")
    return _from_git(ref, folder.resolve(), rev)


def _git(cwd: Path, *args: str, binary: bool = False):
    try:
        run = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=not binary, check=False)
    except FileNotFoundError:
        raise SideError("PACK@REV needs git, which is not installed") from None
    return run


def _from_git(label: str, folder: Path, rev: str) -> Side:
    top = _git(folder, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise SideError(f"'{label}': {folder} is not in a git repository")
    root = Path(top.stdout.strip()).resolve()
    if _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").returncode != 0:
        raise SideError(f"'{label}': the repository {root} has no revision '{rev}'")
    rel = PurePosixPath(folder.relative_to(root).as_posix())
    tmp = Path(tempfile.mkdtemp(prefix="cardsmith-rev-"))
    try:
        if not _extract(root, rev, rel, tmp):
            raise SideError(f"'{label}': there is no pack at {rel}/pack.yaml in revision {rev}")
        _extract_parents(root, rev, rel, tmp, seen={str(rel)})
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Side(label, tmp / rel if str(rel) != "." else tmp, tmp)


def _exists(root: Path, rev: str, path: PurePosixPath) -> bool:
    return _git(root, "cat-file", "-e", f"{rev}:{path.as_posix()}").returncode == 0


def _extract(root: Path, rev: str, rel: PurePosixPath, dest: Path) -> bool:
    """Write the folder `rel` as it was at `rev` under dest/rel; False when it had no pack.yaml."""
    if not _exists(root, rev, rel / "pack.yaml"):
        return False
    spec = [] if str(rel) == "." else ["--", rel.as_posix()]
    run = _git(root, "archive", "--format=tar", rev, *spec, binary=True)
    if run.returncode != 0:
        raise SideError(f"git archive {rev} {rel} failed: {run.stderr.decode(errors='replace').strip()}")
    with tarfile.open(fileobj=io.BytesIO(run.stdout)) as tar:
        tar.extractall(dest, filter="data")
    return True


def _extract_parents(root: Path, rev: str, rel: PurePosixPath, dest: Path, seen: set[str]) -> None:
    """The packs `rel` extends that were its siblings at `rev` (as the compiler looks for them first)."""
    try:
        doc = yaml.safe_load((dest / rel / "pack.yaml").read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return  # the compiler reports it, with its line
    for parent in doc.get("extends") or []:
        sib = rel.parent / str(parent)
        if str(sib) in seen:
            continue
        seen.add(str(sib))
        if _extract(root, rev, sib, dest):
            _extract_parents(root, rev, sib, dest, seen)
