"""The lines of files changed since a git revision, for `cardsmith validate --changed-since REV`.

A line counts as changed when `git diff REV` (REV against the working tree, staged or not) adds or
rewrites it; a file git does not track counts as changed in full.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cardsmith.compiler.diagnostics import Diagnostic, Span

_BATCH = 200  # paths per git command, well under any command-line limit


class GitError(Exception):
    """A usage problem: no git, not a repository, an unknown revision. The message says which."""


@dataclass
class ChangedLines:
    root: Path
    lines: dict[Path, set[int]] = field(default_factory=dict)  # file -> line numbers in the working tree
    files: set[Path] = field(default_factory=set)  # every changed file, also one with deletions only
    whole: set[Path] = field(default_factory=set)  # untracked files: every line is new

    def touches(self, span: Span, primary: bool = True) -> bool:
        """Does the span cover a changed line (or, without a line, lie in a changed file)? A finding about no
        file at all ("no such pack") is about the command line, not the history: it always counts."""
        path = _resolve(span.file)
        if path is None or not path.is_file():
            return primary
        if path in self.whole:
            return True
        if span.line <= 0:
            return path in self.files
        last = span.end_line if span.end_line and span.end_line >= span.line else span.line
        changed = self.lines.get(path, ())
        return any(n in changed for n in range(span.line, last + 1))

    def reports(self, d: Diagnostic) -> bool:
        """A finding counts when it, or one of its notes (say, the macro body behind an error at a call), is on a
        changed line."""
        return self.touches(d.span) or any(self.touches(s, primary=False) for _, s in d.notes)


def _resolve(file: str) -> Path | None:
    try:
        return Path(file).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, encoding="utf-8",
                              errors="surrogateescape", check=False)
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH); --changed-since needs it") from None


def resolve_revision(rev: str, cwd: Path | None = None) -> tuple[Path, str]:
    """The work tree holding `cwd` and the commit `rev` names; raises GitError."""
    cwd = cwd or Path.cwd()
    top = _git(["rev-parse", "--show-toplevel"], cwd)
    if top.returncode != 0:
        raise GitError(f"{cwd} is not inside a git repository; --changed-since compares with a git revision")
    root = Path(top.stdout.strip()).resolve()
    if not rev or rev.startswith("-"):
        raise GitError(f"'{rev}' is not a git revision")
    sha = _git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], root)
    if sha.returncode != 0:
        raise GitError(f"unknown git revision '{rev}' (try a branch, a tag or a commit, e.g. origin/main or HEAD~1)")
    return root, sha.stdout.strip()


def changed_since(root: Path, commit: str, files: Iterable[str]) -> ChangedLines:
    """The changed lines of `files` (paths as diagnostics name them) since `commit`; raises GitError."""
    out = ChangedLines(root)
    inside: dict[str, Path] = {}
    for f in dict.fromkeys(files):
        path = _resolve(f)
        if path is None or not path.is_file():
            continue
        try:
            inside[path.relative_to(root).as_posix()] = path
        except ValueError:  # outside the repository (a built-in pack of an installed cardsmith): never changed
            continue
    rels = sorted(inside)
    for i in range(0, len(rels), _BATCH):
        batch = rels[i:i + _BATCH]
        tracked = _git(["ls-files", "-z", "--", *batch], root)
        known = set(tracked.stdout.split("\0"))
        for rel in batch:
            if rel not in known:
                out.whole.add(inside[rel])
                out.files.add(inside[rel])
        diff = _git(["-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv",
                     "--find-renames", "--unified=0", "--src-prefix=a/", "--dst-prefix=b/", commit,
                     "--", *batch], root)
        if diff.returncode != 0:
            raise GitError(f"git diff failed: {diff.stderr.strip() or 'no reason given'}")
        _parse_diff(diff.stdout, root, out)
    return out


def _unquote(name: str) -> str:
    """git writes a path with unusual characters as a C string in double quotes."""
    if len(name) >= 2 and name[0] == name[-1] == '"':
        raw = name[1:-1].encode("utf-8", "surrogateescape").decode("unicode_escape")
        return raw.encode("latin-1", "surrogateescape").decode("utf-8", "replace")
    return name


def _parse_diff(text: str, root: Path, out: ChangedLines) -> None:
    current: Path | None = None
    for line in text.splitlines():
        if line.startswith("diff --git "):
            current = None
        elif line.startswith("rename to "):
            current = (root / _unquote(line[len("rename to "):])).resolve()
            out.files.add(current)
        elif line.startswith("+++ "):
            name = _unquote(line[4:].rstrip("\t"))
            current = None if name == "/dev/null" else (root / name.removeprefix("b/")).resolve()
            if current is not None:
                out.files.add(current)
        elif line.startswith("@@ ") and current is not None:
            # @@ -old[,count] +new[,count] @@: the new side's lines; a count of 0 deletes only
            new = line.split(" ")[2].removeprefix("+")
            start, _, count = new.partition(",")
            n = int(count) if count else 1
            out.lines.setdefault(current, set()).update(range(int(start), int(start) + n))
