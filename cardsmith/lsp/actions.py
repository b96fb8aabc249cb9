"""Code actions: the checker's did-you-mean hints as one-click fixes."""

from __future__ import annotations

import re

from lsprotocol import types as T

HINT = re.compile(r"did you mean '([^']+)'\?")
UNKNOWN = re.compile(r"'([^']+)'")


def quick_fixes(uri: str, text: str, diagnostics: list[T.Diagnostic], codec=None) -> list[T.CodeAction]:
    from .positions import Lines

    lines = Lines(text, codec)
    out = []
    for d in diagnostics:
        hint = (d.data or {}).get("hint") if isinstance(d.data, dict) else None
        m = HINT.search(hint or "")
        wrong = UNKNOWN.search(d.message)
        if m is None or wrong is None:
            continue
        start = lines.code_points(d.range.start)
        end = lines.code_points(d.range.end)
        if start[0] != end[0] or start[0] >= len(lines.lines):
            continue
        row = lines.lines[start[0]]
        at = row.find(wrong.group(1), start[1], max(end[1], start[1] + len(wrong.group(1))))
        if at < 0:
            continue
        edit = T.TextEdit(T.Range(lines.position(start[0], at), lines.position(start[0], at + len(wrong.group(1)))),
                          m.group(1))
        out.append(T.CodeAction(title=f"Change '{wrong.group(1)}' to '{m.group(1)}'", kind=T.CodeActionKind.QuickFix,
                                diagnostics=[d], is_preferred=True, edit=T.WorkspaceEdit(changes={uri: [edit]})))
    return out
