"""Reading an input file, and showing a name from one: the rule the compiler and the runtime both obey.

Every file cardsmith reads on a user's behalf (pack files, scenario files, saves, replay logs, cache
entries) is read by `read_input`:

- only a regular file: a folder, a device (``/dev/zero``), a pipe or a socket is refused before any
  byte is read (a FIFO is opened without blocking, then checked on the open descriptor, so nothing can
  swap the file in between);
- at most `limit` bytes: one byte more is read, so a file that lies about its size or grows while it
  is read is refused too;
- a symbolic link is refused unless `follow` is given. Files found by walking a pack are read with
  ``follow=False``: a pack can never make cardsmith read a file outside its folder. A file a person
  names on the command line may be a link they made (``follow=True``).

`printable` is how any name that came from outside (a path with bytes that are not UTF-8, a card
name with a terminal escape sequence in it) is shown: undecodable bytes as ``\\xNN``, control
characters as escapes, so output never breaks an encoder nor drives a terminal.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path


class InputError(Exception):
    """A file that cannot be read as an input: says why, in words (the caller knows the file)."""

    def __init__(self, message: str, size: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.size = size  # set when the file is too large: its size, or at least how much was read


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a pipe"), (stat.S_ISCHR, "a device"),
          (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))


def kind_of(mode: int) -> str:
    """What a file of this mode is, in words ('a regular file', 'a pipe', ...)."""
    return next((word for test, word in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode) else
                "a special file")


def read_input(path: str | os.PathLike, limit: int, follow: bool = False) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Raises InputError (never blocks on a pipe)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
        try:
            if stat.S_ISLNK(os.lstat(path).st_mode):
                raise InputError("it is a symbolic link; links are not followed")
        except OSError as e:
            raise InputError(_reason(e)) from None
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP and not follow:
            raise InputError("it is a symbolic link; links are not followed") from None
        raise InputError(_reason(e)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"it is {kind_of(st.st_mode)}, not a regular file")
        if st.st_size > limit:
            raise InputError(f"it is {st.st_size:,} bytes; the limit is {limit:,}", st.st_size)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        chunks, got = [], 0
        while got <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise InputError(f"it is over {limit:,} bytes (the limit)", got)
        return b"".join(chunks)
    except OSError as e:
        raise InputError(_reason(e)) from None
    finally:
        os.close(fd)


def _reason(e: OSError) -> str:
    if e.errno == errno.ENAMETOOLONG:
        return "its path is too long"
    return (e.strerror or str(e)).lower()


def is_regular(path: Path) -> bool:
    """A regular file, not through a symbolic link (never raises)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


# ---------------------------------------------------------------------------- showing names

# C0 and C1 control characters and DEL, lone surrogates (a path's undecodable bytes, as Python keeps them),
# and the bidirectional overrides that make text display in another order than it is read.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match) -> str:
    ch = m.group()
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if ch in _NAMED:
        return _NAMED[ch]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_SGR = re.compile(r"\x1b\[[0-9;]*m")  # a colour or a weight: the only escape sequence cardsmith writes itself


def for_terminal(text: str) -> str:
    """Text to write to a terminal: the colours cardsmith's own styling added are kept, any other escape
    sequence or control character (one a card name smuggled in: a title change, a screen clear) is shown
    escaped, and line breaks and tabs stay."""
    if "\x1b" not in text:
        return printable(text, keep="\n\t")
    parts = _SGR.split(text)
    colours = _SGR.findall(text)
    out = [printable(parts[0], keep="\n\t")]
    for colour, part in zip(colours, parts[1:], strict=True):
        out += [colour, printable(part, keep="\n\t")]
    return "".join(out)


def printable(text: str, keep: str = "") -> str:
    """`text` safe to print: control characters (but those in `keep`, e.g. "\\n\\t"), undecodable bytes and
    direction overrides written as escapes."""
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text)
