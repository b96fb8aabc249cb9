"""What-if changes to a compiled pack: a card's stat, copies or traits changed, for balance comparisons.

    variant, changed = apply_changes(pack, ["mossback-oak.stats.cost=4"])

A change is `CARD.stats.NAME=NUMBER`, `CARD.copies=NUMBER` or `CARD.traits.NAME=VALUE,VALUE` (no values:
`CARD.traits.NAME=`). The pack is copied, never changed: cards other than the changed ones are shared
with the original. `changed_cards` lists the cards two packs define differently (a variant pack folder
against its original), so a comparison knows which cards to report.
"""

from __future__ import annotations

import dataclasses
import difflib
import json

from cardsmith.bytecode import CardDef, CompiledPack


class VariantError(ValueError):
    """A change that names no card, field or stat of the pack, or a value of the wrong kind."""


def _hint(word: str, known: list[str]) -> str:
    close = difflib.get_close_matches(word, known, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def parse_change(pack: CompiledPack, spec: str) -> tuple[str, str, str | None, object]:
    """(card id, field, name or None, value) of one change, checked against the pack."""
    target, eq, raw = spec.partition("=")
    if not eq:
        example = f"{pack.cards[0].id}.stats.{next(iter(pack.stats), 'cost')}=4" if pack.cards else "CARD.stats.cost=4"
        raise VariantError(f"'{spec}' should look like CARD.stats.NAME=VALUE (e.g. {example})")
    parts = target.strip().split(".")
    card_id = parts[0]
    ids = [c.id for c in pack.cards]
    if pack.card(card_id) is None:
        raise VariantError(f"'{spec}': {pack.id} has no card '{card_id}'{_hint(card_id, ids)}")
    field = parts[1] if len(parts) > 1 else ""
    raw = raw.strip()
    if field == "copies" and len(parts) == 2:
        return card_id, "copies", None, _number(spec, raw, low=0)
    if field == "stats" and len(parts) == 3:
        name = parts[2]
        if name not in pack.stats:
            raise VariantError(f"'{spec}': {pack.id} declares no stat '{name}'{_hint(name, list(pack.stats))}; "
                               f"stats: {', '.join(pack.stats) or 'none'}")
        return card_id, "stats", name, _number(spec, raw)
    if field == "traits" and len(parts) == 3:
        name = parts[2]
        if name not in pack.traits:
            raise VariantError(f"'{spec}': {pack.id} declares no trait '{name}'{_hint(name, list(pack.traits))}; "
                               f"traits: {', '.join(pack.traits) or 'none'}")
        values = [v.strip() for v in raw.split(",") if v.strip()]
        wrong = [v for v in values if v not in pack.traits[name]]
        if wrong:
            raise VariantError(f"'{spec}': '{wrong[0]}' is not a value of trait {name} "
                               f"({', '.join(pack.traits[name])})")
        return card_id, "traits", name, values
    raise VariantError(f"'{spec}': change CARD.stats.NAME, CARD.copies or CARD.traits.NAME (e.g. "
                       f"{card_id}.stats.cost=4)")


def _number(spec: str, raw: str, low: int | None = None) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise VariantError(f"'{spec}': '{raw}' is not a whole number") from None
    if low is not None and value < low:
        raise VariantError(f"'{spec}': {value} is below {low}")
    return value


def apply_changes(pack: CompiledPack, specs: list[str]) -> tuple[CompiledPack, list[str]]:
    """A copy of `pack` with the changes made, and the ids of the cards changed (in the order given)."""
    cards = list(pack.cards)
    changed: list[str] = []
    index = {c.id: i for i, c in enumerate(cards)}
    for spec in specs:
        card_id, field, name, value = parse_change(pack, spec)
        i = index[card_id]
        c: CardDef = cards[i]
        if field == "copies":
            c = dataclasses.replace(c, copies=value, copies_by_players={})  # the same copies at every player count
        elif field == "stats":
            c = dataclasses.replace(c, stats={**c.stats, name: value})
        else:
            traits = {k: v for k, v in c.traits.items() if k != name}
            if value:
                traits[name] = value
            c = dataclasses.replace(c, traits=traits)
        cards[i] = c
        if card_id not in changed:
            changed.append(card_id)
    return dataclasses.replace(pack, cards=cards), changed


def changed_cards(base: CompiledPack, variant: CompiledPack) -> list[str]:
    """Ids of the cards `variant` defines otherwise than `base` (or adds), in the variant's order."""
    def facts(c: CardDef) -> str:
        return json.dumps(_without_places(c.to_json()), sort_keys=True)

    before = {c.id: facts(c) for c in base.cards}
    return [c.id for c in variant.cards if before.get(c.id) != facts(c)]


def _without_places(value: object) -> object:
    """A card's facts without where they are written (spans index the pack's table of source places)."""
    if isinstance(value, dict):
        return {k: _without_places(v) for k, v in value.items() if k not in ("span", "spans")}
    if isinstance(value, list):
        return [_without_places(v) for v in value]
    return value
