"""W130: a macro that card text calls needs a phrase in the pack's glossary, in every language it speaks.

Generated card text (cardsmith.present) never says a macro's body, which is the rules' machinery: a call
reads as its glossary phrase ("raise temperature $n": "raise temperature $n step(s)"), else as the call
as written, which is not a sentence in any language. So the checker asks for the phrase. A pack with no
`glossary:` has chosen not to word its text and is left alone; the languages asked for are those the
glossary's phrases (its macro signatures) are given in, English at least.
"""

from __future__ import annotations

from cardsmith.compiler import ast as A

from .diagnostics import Diagnostics


def _outer_calls(node, out: list[A.Group]) -> None:
    """The macro calls a program makes itself (not those inside another macro's body)."""
    if isinstance(node, tuple):
        for n in node:
            _outer_calls(n, out)
        return
    if not isinstance(node, A.Node):
        return
    if isinstance(node, A.Group) and node.macro is not None:
        out.append(node)
        return
    for name in getattr(node, "__dataclass_fields__", {}):
        if name != "span":
            value = getattr(node, name)
            if isinstance(value, tuple | A.Node):
                _outer_calls(value, out)


def phrase_languages(glossary: dict, signatures) -> set[str]:
    """The languages the glossary words its macro phrases in (English at least)."""
    langs = {"en"}
    for sig in signatures:
        entry = glossary.get(sig)
        if isinstance(entry, dict):
            langs |= {k for k in entry if "-" not in k}
    return langs


def unphrased_macros(glossary: dict | None, macros: dict, asts: dict, card_ids, diags: Diagnostics) -> None:
    """Warn (W130) once per macro that a card's ability or requirement calls without a glossary phrase in
    some language of the pack, at the first such call."""
    if not glossary:
        return
    signatures = {getattr(m, "signature", None) for ms in macros.values() if isinstance(ms, list | tuple) for m in ms}
    langs = phrase_languages(glossary, signatures)
    cards = set(card_ids)
    calls: dict[str, list[A.Group]] = {}
    for name, node in asts.items():
        if name.split(" ", 1)[0] not in cards:
            continue
        found: list[A.Group] = []
        _outer_calls(node, found)
        for g in found:
            calls.setdefault(g.macro, []).append(g)
    for sig, groups in calls.items():
        entry = glossary.get(sig)
        missing = sorted(langs - {k for k, v in (entry or {}).items() if isinstance(v, str) and v.strip()})
        if not missing:
            continue
        uses = f" ({len(groups)} calls)" if len(groups) > 1 else ""
        diags.warning("W130", f"card text calls the macro '{sig}'{uses}, which the glossary gives no phrase in "
                      f"{', '.join(missing)}: the text would show the call as written",
                      groups[0].span, hint=f"add to rules.yaml's glossary: \"{sig}\": {{"
                      + ", ".join(f"{lang}: ..." for lang in sorted(langs)) + "}")
