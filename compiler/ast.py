"""The whole AST of the effect language, in one place: frozen dataclasses with a span.

Parsing hands the rest of the compiler these nodes, never Lark trees. Spans do not take
part in equality, so two programs that say the same thing compare equal.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .diagnostics import NO_SPAN, Span


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False)


class Node:
    __slots__ = ()
    span: Span


# ----------------------------------------------------------------- references


@dataclass(frozen=True)
class PlayerRef(Node):
    kind: str  # you | active | left | right | first | automa | local; in zone owners also others | all
    name: str | None = None  # the seat, for kind automa; the local name, for kind local ('of the rival')
    span: Span = _span()


@dataclass(frozen=True)
class It(Node):
    span: Span = _span()


@dataclass(frozen=True)
class This(Node):
    span: Span = _span()


@dataclass(frozen=True)
class Param(Node):
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class LocalCard(Node):
    """`the NAME`: a card bound by `choose ... as NAME`, `for each ... as NAME` or `let NAME = CARD`."""

    name: str
    span: Span = _span()


CardRef = It | This | LocalCard


# ------------------------------------------------------------------- queries


@dataclass(frozen=True)
class ZoneRef(Node):
    name: str
    player: PlayerRef | None = None
    span: Span = _span()


@dataclass(frozen=True)
class ZoneOf(Node):
    """`the zone of CARD`: whichever zone (and owner) the card is in when the query runs."""

    card: CardRef
    span: Span = _span()


@dataclass(frozen=True)
class TraitIs(Node):
    trait: str
    values: tuple[str, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Has(Node):
    """`with NAME`: a card type, a flag, or at least one piece of a kind."""

    name: str
    span: Span = _span()


@dataclass(frozen=True)
class HasNo(Node):
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class HasAbility(Node):
    """`with TIMING ability`: the card has an ability of that timing (or of one that matches it)."""

    timing: str
    span: Span = _span()


@dataclass(frozen=True)
class StatCmp(Node):
    stat: str
    op: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class FilterNot(Node):
    inner: Filter
    span: Span = _span()


@dataclass(frozen=True)
class NotThis(Node):
    span: Span = _span()


@dataclass(frozen=True)
class NotCard(Node):
    """`other than it` / `other than the NAME`: not that card (in a nested query: not the outer candidate)."""

    card: It | LocalCard
    span: Span = _span()


@dataclass(frozen=True)
class MacroFilter(Node):
    """A filter macro of rules.yaml ('filters:') where it is used: all of its filters hold."""

    name: str
    filters: tuple
    span: Span = _span()


Filter = TraitIs | Has | HasNo | HasAbility | StatCmp | FilterNot | NotThis | NotCard | MacroFilter


@dataclass(frozen=True)
class Query(Node):
    zones: tuple[ZoneRef | ZoneOf, ...]  # empty: the zones the context implies
    filters: tuple[Filter, ...] = ()
    where: Expr | None = None  # "where EXPR": a condition checked with each candidate card as 'it'
    span: Span = _span()


# --------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Num(Node):
    value: int
    span: Span = _span()


@dataclass(frozen=True)
class Bool(Node):
    value: bool
    span: Span = _span()


@dataclass(frozen=True)
class VarX(Node):
    span: Span = _span()


@dataclass(frozen=True)
class Name(Node):
    """A bare name in an expression: a counter of the current player, a global counter or a param."""

    name: str
    span: Span = _span()


@dataclass(frozen=True)
class Attr(Node):
    """`NAME of REF`: a card's stat or a player's counter."""

    name: str
    ref: PlayerRef | It | This | LocalCard | Param
    span: Span = _span()


@dataclass(frozen=True)
class Pieces(Node):
    """`NAME on CARD`: how many pieces of a kind sit on a card."""

    piece: str
    ref: It | This | LocalCard | Param
    owned: bool = False  # only the current player's pieces ("leaf of yours on it")
    span: Span = _span()


@dataclass(frozen=True)
class Count(Node):
    query: Query
    span: Span = _span()


@dataclass(frozen=True)
class CountPlayers(Node):
    """'count(players [other than you] [with FILTERS])': how many players (not automa seats) the filters keep."""

    other: bool = False
    filters: tuple = ()
    span: Span = _span()


@dataclass(frozen=True)
class SumOf(Node):
    name: str  # a stat or a piece
    query: Query
    span: Span = _span()


@dataclass(frozen=True)
class Func(Node):
    name: str
    args: tuple[Expr | Query | TraitIs, ...]
    span: Span = _span()


@dataclass(frozen=True)
class CardIs(Node):
    ref: It | This | LocalCard | Param
    filter: Filter
    span: Span = _span()


@dataclass(frozen=True)
class Can(Node):
    """'can STATEMENT': whether the statement can be done in full now (its costs paid, its conditions met,
    every effect it must perform performed)."""

    stmt: Stmt
    span: Span = _span()


@dataclass(frozen=True)
class BinOp(Node):
    op: str  # + - * / and or = != < <= > >=
    left: Expr
    right: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Not(Node):
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Neg(Node):
    operand: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Cond(Node):
    """`(if COND then A else B)`: a value chosen by a condition."""

    cond: Expr
    then: Expr
    otherwise: Expr
    span: Span = _span()


@dataclass(frozen=True)
class MacroValue(Node):
    """An expression macro of rules.yaml ('expressions:') where it is used: its body, with its name."""

    name: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Rank(Node):
    """Which players a ranking names: the place (1 first, 2 second, ...) by the most (or fewest) of a value, and
    what a tie does (share | split | none | friendly; None: share, not declared)."""

    place: int
    fewest: bool
    ties: str | None = None
    span: Span = _span()


@dataclass(frozen=True)
class HasRank(Node):
    """'you have the [second] most|fewest VALUE [(ties T)]': whether the current player is placed there."""

    rank: Rank
    measure: Expr
    span: Span = _span()


Expr = (Num | Bool | VarX | Name | Attr | Pieces | Count | SumOf | Func | CardIs | Can | BinOp | Not | Neg | Cond
        | Param | MacroValue | HasRank)


# ------------------------------------------------------------------- players


@dataclass(frozen=True)
class PlayerFlag(Node):
    """'with NAME' on a player: a player flag set, or at least 1 of a counter."""

    name: str
    span: Span = _span()


@dataclass(frozen=True)
class PlayerNoFlag(Node):
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class PlayerNot(Node):
    inner: PlayerFilter
    span: Span = _span()


@dataclass(frozen=True)
class PlayerCmp(Node):
    """'with NAME CMP EXPR' on a player: a counter of the candidate compared (EXPR is read for the chooser)."""

    name: str
    op: str
    value: Expr
    span: Span = _span()


PlayerFilter = PlayerFlag | PlayerNoFlag | PlayerNot | PlayerCmp


@dataclass(frozen=True)
class Amount(Node):
    kind: str  # exact | up_to | all
    value: Expr | None
    span: Span = _span()


@dataclass(frozen=True)
class Per(Node):
    divisor: int
    of: Query | Expr
    span: Span = _span()


# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Gain(Node):
    amount: Amount
    resource: str
    per: Per | None = None
    span: Span = _span()


@dataclass(frozen=True)
class Lose(Node):
    amount: Amount
    resource: str
    per: Per | None = None
    span: Span = _span()


@dataclass(frozen=True)
class Pay(Node):
    items: tuple[tuple[Amount, str], ...]
    for_card: CardRef | Param | None = None  # "for it": the card paid for (sources "for a card with ..." apply)
    span: Span = _span()


@dataclass(frozen=True)
class PaySource(Node):
    """'pay CURRENCY with SOURCE [at RATE] [for a card with FILTERS] [: SPEND]': what else pays a currency.

    The source is a resource of the payer (its units are lost) or a card query (each card pays once, by the
    SPEND statements, run with the card as 'it'); RATE is what one unit or card is worth (the card as 'it')."""

    currency: str
    counter: str | None = None
    query: Query | None = None
    rate: Expr | None = None
    target: tuple[Filter, ...] | None = None  # the thing paid for must be a card with these filters
    spend: tuple[Stmt, ...] | None = None
    span: Span = _span()


@dataclass(frozen=True)
class InAnyOrder(Node):
    """'in any order: A, B, C': the player orders the statements (each a part)."""

    parts: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class SetCounter(Node):
    name: str
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Score(Node):
    amount: Amount
    per: Per | None = None
    step: str | None = None  # 'score 2 for rounds': the scoring step the points go to
    span: Span = _span()


@dataclass(frozen=True)
class PassZones(Node):
    """'pass every ZONE to left|right neighbour': each player's zone goes to the neighbour's, all at once."""

    zone: str
    to: str  # left | right
    span: Span = _span()


@dataclass(frozen=True)
class Swap(Node):
    """'swap ZONE and ZONE': the two zones trade their cards."""

    first: ZoneRef
    second: ZoneRef
    span: Span = _span()


@dataclass(frozen=True)
class May(Node):
    body: Stmt
    span: Span = _span()


@dataclass(frozen=True)
class Group(Node):
    body: tuple[Stmt, ...]
    macro: str | None = None  # set when this group is the expansion of a macro call
    call: str | None = field(default=None, compare=False)  # the call as written, for labels and text
    span: Span = _span()


@dataclass(frozen=True)
class Nothing(Node):
    span: Span = _span()


@dataclass(frozen=True)
class CallArg(Node):
    """One word of a macro call: a number, a name, a parameter, a keyword or an expression."""

    kind: str  # num | word | words (names joined by 'or') | param | expr | it | this | x
    value: object
    span: Span = _span()


@dataclass(frozen=True)
class Call(Node):
    name: str
    args: tuple[CallArg, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Emit(Node):
    event: str
    object: str | None = None  # "emit place ocean": triggers "when ... places an ocean" match it
    span: Span = _span()


@dataclass(frozen=True)
class PassFirst(Node):
    """Hand the first-player marker on (Terraforming Mars' turn order, Living Forest's sacred tree)."""

    to: PlayerRef
    span: Span = _span()


@dataclass(frozen=True)
class EndGame(Node):
    span: Span = _span()


@dataclass(frozen=True)
class Shuffle(Node):
    zone: ZoneRef
    span: Span = _span()


@dataclass(frozen=True)
class Modify(Node):
    stat: str
    query: Query
    by: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Prevent(Node):
    """'prevent [opponents] remove NAME [or NAME ...] from this|you': a live prohibition."""
    names: tuple[str, ...]  # counters (lost) or pieces (removed)
    opponents: bool  # only abilities of other players' cards are stopped
    scope: str  # "this": pieces on this card; "you": your counters and pieces on your cards
    span: Span = _span()


@dataclass(frozen=True)
class ActivateTiming(Node):
    timing: str
    span: Span = _span()


@dataclass(frozen=True)
class Activation(Node):
    """`activate TIMING abilities` after expansion: the pack's activation order with $timing filled in.
    Each card activates at most once in it (once-per-card); its 'activate ... ability of' may be skipped
    (optional)."""

    timing: str
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ActivateCopy(Node):
    timing: str
    target: Target
    span: Span = _span()


@dataclass(frozen=True)
class Mark(Node):
    target: Target | PlayerRef  # a player: a player flag ('mark you passed')
    flag: str
    on: bool = True
    span: Span = _span()


@dataclass(frozen=True)
class Flip(Node):
    """Turn a double-sided card to its other side."""

    target: Target
    span: Span = _span()


@dataclass(frozen=True)
class Reveal(Node):
    amount: Amount
    source: Source
    span: Span = _span()


@dataclass(frozen=True)
class OpenWindow(Node):
    """`open window NAME`: the current player may do what the window offers, as often as they like."""

    name: str
    span: Span = _span()


@dataclass(frozen=True)
class AsSoonAs(Node):
    """`as soon as COND [for each QUERY]: BODY`: a claim, live like a trigger; the body runs the moment the
    condition holds, once per player (and per card of the query), kept once claimed."""

    cond: Expr
    query: Query | None
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Let(Node):
    """`let NAME = VALUE`: a local name for the rest of the enclosing group (a number, a truth value, a card or a
    player)."""

    name: str
    value: Expr | CardRef | PlayerRef
    span: Span = _span()


@dataclass(frozen=True)
class ChooseX(Node):
    low: Expr
    high: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Source(Node):
    zone: ZoneRef
    end: str | None = None  # top | bottom | None (the zone's default)
    filters: tuple[Filter, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class Cell(Node):
    """'at row R column C': one cell of a board zone (1-based, as geometry labels them)."""

    row: Expr
    column: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Dest(Node):
    zone: ZoneRef
    end: str | None = None
    cell: Cell | None = None  # a board's cell named by the program; None: the player chooses
    span: Span = _span()


@dataclass(frozen=True)
class Move(Node):
    amount: Amount
    source: Source
    dest: Dest
    face: str | None = None
    span: Span = _span()


@dataclass(frozen=True)
class MoveCard(Node):
    card: It | This | LocalCard
    dest: Dest
    face: str | None = None
    span: Span = _span()


@dataclass(frozen=True)
class EachOf(Node):
    query: Query
    span: Span = _span()


@dataclass(frozen=True)
class AnyOf(Node):
    query: Query
    span: Span = _span()


Target = It | This | LocalCard | Param | EachOf | AnyOf


@dataclass(frozen=True)
class Place(Node):
    amount: Amount
    piece: str
    target: Target
    owned: bool = False
    span: Span = _span()


@dataclass(frozen=True)
class Remove(Node):
    amount: Amount
    piece: str
    target: Target
    span: Span = _span()


@dataclass(frozen=True)
class Costed(Node):
    cost: Stmt
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class If(Node):
    cond: Expr
    then: tuple[Stmt, ...]
    otherwise: tuple[Stmt, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class Players(Node):
    # each | turns | each_other (other players) | opponents (other players and automa seats) | ref | chosen
    # | at_once (each player, choosing unseen) | named ('the NAME:'; the chooser keeps the choices unless
    # `chooses`)
    kind: str
    ref: PlayerRef | None = None
    start: PlayerRef | None = None
    other: bool = False  # chosen: not the chooser ('other than you')
    filters: tuple[PlayerFilter, ...] = ()  # chosen: what the player must be
    name: str | None = None  # named: the local name of the player
    chooses: bool = False  # named: the named player makes the choices of the scope
    span: Span = _span()


@dataclass(frozen=True)
class ChoosePlayer(Node):
    """'choose a player [other than you] [with FILTERS] as NAME: ...': the rest runs for you, with the player
    chosen as 'the NAME'."""

    name: str
    body: tuple[Stmt, ...]
    other: bool = False
    filters: tuple[PlayerFilter, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class ForRanked(Node):
    """'for the players with the [second] most|fewest VALUE [(ties T)]: ...': each of them in turn as 'you'."""

    rank: Rank
    measure: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Scoped(Node):
    players: Players
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ForEach(Node):
    query: Query
    body: tuple[Stmt, ...]
    reverse: bool = False  # "from right to left": the zone's order backwards
    name: str | None = None  # "as NAME": each card is also 'the NAME' in the body
    span: Span = _span()


@dataclass(frozen=True)
class Repeat(Node):
    kind: str  # times | until | while | up_to
    value: Expr
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ChooseOne(Node):
    options: tuple[tuple[Stmt, ...], ...]
    span: Span = _span()


@dataclass(frozen=True)
class ChooseCard(Node):
    query: Query
    body: tuple[Stmt, ...]
    name: str | None = None  # "as NAME": the chosen card is also 'the NAME' in the body
    span: Span = _span()


@dataclass(frozen=True)
class Trigger(Node):
    subject: str  # you | any | opponent
    verb: str
    object: Query | str | None
    body: tuple[Stmt, ...]
    span: Span = _span()


Stmt = (
    Gain | Lose | Pay | SetCounter | Score | May | Group | Nothing | Call | Emit | PassFirst | EndGame
    | Shuffle | Modify | Prevent | ActivateTiming | Activation | ActivateCopy | OpenWindow | AsSoonAs | Mark
    | Flip | Reveal | ChooseX | Let | Move
    | MoveCard | Place | Remove | Costed | If | Scoped | ForEach | Repeat | ChooseOne | ChooseCard | Trigger
    | PaySource | InAnyOrder | PassZones | Swap | ChoosePlayer | ForRanked
)


@dataclass(frozen=True)
class Program(Node):
    body: tuple[Stmt, ...]
    span: Span = _span()


@dataclass(frozen=True)
class Signature(Node):
    name: str
    args: tuple[CallArg, ...]
    span: Span = _span()
