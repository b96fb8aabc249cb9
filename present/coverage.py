"""Which language features each card of a pack uses, and how many cards use each feature.

Features come from what the compiler made, never from the card text: the checked, macro-expanded
AST of every ability (constructs and the macros that were expanded), the triggers of ongoing
abilities, the ability timings, and the opcodes of the emitted bytecode. So a card that says
`raise temperature` depends on the macro and on every construct its expansion uses.

Feature categories, in report order: timing, trigger, macro, construct, opcode.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields

from cardsmith.bytecode import CardDef
from cardsmith.compiler import ast as A
from cardsmith.compiler.pipeline import CompileResult

CATEGORIES = ("timing", "trigger", "macro", "construct", "opcode")

# What a designer calls each node, by AST class; None: plumbing that says nothing on its own (a number,
# a zone name, a plain group). A class missing here is named after itself, so new nodes still show up.
CONSTRUCTS: dict[type, str | None] = {
    A.Gain: "gain", A.Lose: "lose", A.Pay: "pay", A.SetCounter: "set counter", A.Score: "score",
    A.May: "may", A.Nothing: "nothing", A.Emit: "emit event", A.PassFirst: "pass first player",
    A.EndGame: "end the game", A.Shuffle: "shuffle", A.Modify: "modify (continuous)",
    A.ActivateTiming: "activate timing", A.ActivateCopy: "activate a card's ability", A.Mark: "mark flag",
    A.Flip: "flip", A.Reveal: "reveal", A.ChooseX: "choose X", A.Move: "move cards", A.MoveCard: "move it/this",
    A.Cell: "move to a named cell",
    A.Place: "place pieces", A.Remove: "remove pieces", A.Costed: "cost: effect", A.ForEach: "for each",
    A.ChooseOne: "choose one", A.ChooseCard: "choose a card", A.Trigger: "when (trigger)",
    A.Count: "count()", A.SumOf: "sum()", A.CardIs: "card is (test)", A.Attr: "X of (stat or counter)",
    A.Pieces: "pieces on a card", A.VarX: "X", A.Not: "not", A.Neg: "negative", A.Per: "per N",
    A.EachOf: "each of (target)", A.AnyOf: "any of (target)", A.It: "it", A.This: "this",
    A.TraitIs: "filter: trait", A.Has: "filter: with", A.HasNo: "filter: without",
    A.HasAbility: "filter: with ability", A.StatCmp: "filter: stat compare", A.FilterNot: "filter: not",
    A.NotThis: "filter: other than this", A.Param: "macro parameter",
    A.PaySource: "payment source", A.InAnyOrder: "in any order", A.Can: "can (test)",
    A.Num: None, A.Bool: None, A.Name: None, A.ZoneRef: None, A.PlayerRef: None, A.Query: None, A.Source: None,
    A.Dest: None, A.Group: None, A.Amount: None, A.Players: None, A.If: None, A.Repeat: None, A.BinOp: None,
    A.Func: None, A.Scoped: None, A.Call: None, A.CallArg: None,
}

_PLAYERS = {"each": "each player", "each_other": "each other player", "turns": "each player in turn order",
            "chosen": "a chosen player", "ref": "one player (scope)"}
_OPS = {"+": "arithmetic", "-": "arithmetic", "*": "arithmetic", "/": "arithmetic", "%": "arithmetic",
        "and": "logic (and/or)", "or": "logic (and/or)"}


def _variants(node: A.Node) -> list[str]:
    """The constructs whose name depends on a node's fields, not only on its class."""
    if isinstance(node, A.If):
        return ["if/otherwise" if node.otherwise else "if"]
    if isinstance(node, A.Repeat):
        return [f"repeat {node.kind.replace('_', ' ')}"]
    if isinstance(node, A.BinOp):
        return [_OPS.get(node.op, "comparison")]
    if isinstance(node, A.Func):
        return [f"{node.name}()"]
    if isinstance(node, A.Players):
        return [_PLAYERS.get(node.kind, node.kind)]
    if isinstance(node, A.Amount) and node.kind != "exact":
        return ["up to" if node.kind == "up_to" else "all"]
    if isinstance(node, A.Query) and node.where is not None:
        return ["where (card condition)"]
    if isinstance(node, A.ForEach) and node.reverse:
        return ["from right to left"]
    if isinstance(node, A.Source | A.Dest) and node.end:
        return [f"{node.end} of a zone"]
    if isinstance(node, A.Move | A.MoveCard) and node.face:
        return [f"face {node.face}"]
    return []


def _kebab(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "-", name).lower()


def _walk(node, constructs: set[str], macros: set[str]) -> None:
    if isinstance(node, tuple):
        for n in node:
            _walk(n, constructs, macros)
        return
    if not isinstance(node, A.Node):
        return
    kind = type(node)
    name = CONSTRUCTS[kind] if kind in CONSTRUCTS else _kebab(kind.__name__)
    if name:
        constructs.add(name)
    constructs.update(_variants(node))
    if isinstance(node, A.Group) and node.macro:
        macros.add(node.macro)
    for f in fields(node):
        if f.name != "span":
            _walk(getattr(node, f.name), constructs, macros)


def _trigger_name(t) -> str:
    what = f" {t.name}" if t.name else (" a card" if t.filters is not None else "")
    return f"when {t.subject} {t.verb}{what}"


@dataclass
class Coverage:
    """Per card, per category, the sorted features it uses; and per feature, how many cards use it."""

    pack_id: str
    version: str
    cards: dict[str, dict[str, list[str]]]

    def counts(self) -> dict[str, dict[str, int]]:
        """Per category, each feature with the number of cards using it: most used first, then by name."""
        out: dict[str, dict[str, int]] = {}
        for cat in CATEGORIES:
            tally: dict[str, int] = {}
            for feats in self.cards.values():
                for f in feats.get(cat, ()):
                    tally[f] = tally.get(f, 0) + 1
            out[cat] = dict(sorted(tally.items(), key=lambda kv: (-kv[1], kv[0])))
        return out

    def to_json(self) -> dict:
        return {"pack": self.pack_id, "version": self.version, "categories": list(CATEGORIES),
                "cards": self.cards, "features": self.counts()}

    def card_json(self, card_id: str) -> dict:
        """One card's features, each with the number of cards of the pack that use it."""
        counts = self.counts()
        feats = self.cards[card_id]
        return {"pack": self.pack_id, "version": self.version, "card": card_id,
                "features": {cat: {f: counts[cat][f] for f in feats[cat]} for cat in CATEGORIES if cat in feats}}


def card_features(res: CompileResult, card: CardDef) -> dict[str, list[str]]:
    """The features one card uses, by category (empty categories left out)."""
    constructs: set[str] = set()
    macros: set[str] = set()
    timings: set[str] = set()
    prefix = f"{card.id} "
    for name, tree in res.asts.items():
        if name.startswith(prefix):
            timing = name[len(prefix):]
            timings.add("requires (condition)" if timing == "requires" else timing)
            _walk(tree, constructs, macros)
    opcodes = {ins[0] for _label, code in res.pack.card_codes(card) for ins in code.ops}
    feats = {"timing": timings, "trigger": {_trigger_name(t) for t in card.triggers}, "macro": macros,
             "construct": constructs, "opcode": opcodes}
    return {cat: sorted(feats[cat]) for cat in CATEGORIES if feats[cat]}


def coverage(res: CompileResult) -> Coverage:
    """The coverage of a compiled pack. Needs the checked AST: compile without the cache."""
    if res.pack is None or res.compiler is None:
        raise ValueError("coverage needs a clean compile with its AST (compile_pack(..., cache=False))")
    return Coverage(res.pack.id, res.pack.version, {c.id: card_features(res, c) for c in res.pack.cards})


# ------------------------------------------------------------------------------ output


def render_text(cov: Coverage, card: str | None = None) -> str:
    if card is not None:
        d = cov.card_json(card)
        lines = [f"{card} ({cov.pack_id} {cov.version}: {len(cov.cards)} cards); after each feature, the cards "
                 "using it"]
        for cat, feats in d["features"].items():
            lines.append(f"  {cat}: " + ", ".join(f"{f} ({k})" for f, k in feats.items()))
        return "\n".join(lines)
    counts = cov.counts()
    n = len(cov.cards)
    lines = [f"{cov.pack_id} {cov.version}: {n} cards", "", "Features (cards using each):"]
    width = max((len(f) for c in counts.values() for f in c), default=10)
    for cat in CATEGORIES:
        lines.append(f"  {cat}:")
        lines += [f"    {f:<{width}}  {k:>4}" for f, k in counts[cat].items()] or ["    (none)"]
    lines += ["", "Cards:"]
    for cid, feats in cov.cards.items():
        lines.append(f"  {cid}")
        lines += [f"    {cat}: {', '.join(feats[cat])}" for cat in CATEGORIES if cat in feats]
    return "\n".join(lines)


def render_json(cov: Coverage, card: str | None = None) -> str:
    return json.dumps(cov.card_json(card) if card is not None else cov.to_json(), indent=1, ensure_ascii=False)


def _md(text: str) -> str:
    return re.sub(r"([\\`*_\[\]|<>])", r"\\\1", text)


def render_markdown(cov: Coverage, card: str | None = None) -> str:
    if card is not None:
        d = cov.card_json(card)
        out = [f"# Language coverage: {_md(card)} ({_md(cov.pack_id)} {_md(cov.version)})", "",
               "| category | feature | cards of the pack using it |", "|---|---|---:|"]
        out += [f"| {cat} | {_md(f)} | {k} |" for cat, feats in d["features"].items() for f, k in feats.items()]
        return "\n".join(out) + "\n"
    counts = cov.counts()
    out = [f"# Language coverage: {_md(cov.pack_id)} {_md(cov.version)}", "", f"{len(cov.cards)} cards.", ""]
    for cat in CATEGORIES:
        out += [f"## {cat}", "", "| feature | cards |", "|---|---:|"]
        out += [f"| {_md(f)} | {k} |" for f, k in counts[cat].items()] or ["| (none) | 0 |"]
        out.append("")
    out += ["## Cards", "", "| card | " + " | ".join(c for c in CATEGORIES if c != "opcode") + " |",
            "|---|" + "---|" * (len(CATEGORIES) - 1)]
    for cid, feats in cov.cards.items():
        cells = [", ".join(_md(f) for f in feats.get(cat, ())) for cat in CATEGORIES if cat != "opcode"]
        out.append(f"| {_md(cid)} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


RENDERERS = {"text": render_text, "json": render_json, "markdown": render_markdown}
