"""Every opcode of the bytecode, declared once.

The VM's dispatch table, the disassembler, the bytecode validator and the
documentation page are all derived from this list. Operands are JSON values;
`stack` gives the stack effect as "before -- after".

Decision opcodes (marked `decides`) may suspend the VM: they compute their options,
and if there is a real choice they hand a Decision to the agent and run again, with
the answer, when the game resumes. They change nothing before that answer.
"""

from __future__ import annotations

from dataclasses import dataclass

BYTECODE_VERSION = 1


@dataclass(frozen=True)
class Op:
    name: str
    operands: tuple[str, ...]
    stack: str
    doc: str
    example: str = ""
    decides: bool = False


OPS: tuple[Op, ...] = (
    # values
    Op("PUSH", ("value",), "-- v", "Push a constant (number or boolean).", "gain 3 coin -> PUSH 3"),
    Op("POP", (), "v --", "Drop the top of the stack."),
    Op("COUNTER", ("name",), "-- n", "The current player's counter (a resource).", "if coin > 3 -> COUNTER coin"),
    Op("GLOBAL", ("name",), "-- n", "A shared counter.", "if harvests >= 5 -> GLOBAL harvests"),
    Op("PARAM", ("name",), "-- v", "A rule parameter from rules.yaml (a game may override it at setup).",
       "repeat rounds times: ... -> PARAM rounds"),
    Op("PLAYER", ("who",), "-- p", "A player: you, active, left, right or first.", "coin of left neighbour"),
    Op("PLAYER_COUNTER", ("name",), "p -- n", "A counter of the player on the stack.", "coin of active player"),
    Op("IT", (), "-- c", "The card 'it' refers to (loop variable, chosen or moved card, trigger card)."),
    Op("THIS", (), "-- c", "The card whose ability is running."),
    Op("X", (), "-- n", "The number X chosen for this ability.", "pay X coin: place X fruit on this"),
    Op("LOCAL", ("name",), "-- v", "A local name's value: a number, a truth value or a card ('let', 'as NAME').",
       "let picked = count(card in hand), gain picked coin -> LOCAL picked"),
    Op("SET_LOCAL", ("name",), "v --", "Bind a local name for the rest of the program's group.",
       "let picked = count(card in hand) -> SET_LOCAL picked"),
    Op("CHOOSE_X", (), "lo hi --", "The player chooses X between lo and hi.", "pay X coin", decides=True),
    Op("BIN", ("op",), "a b -- c", "Arithmetic (+ - * / % min max; / rounds down, x/0 = x%0 = 0), comparison "
       "(= != < <= > >=) or logic (and or).", "count(card in hand) >= 2 -> BIN >="),
    Op("NOT", (), "b -- !b", "Logical not."),
    Op("NEG", (), "n -- -n", "Arithmetic negation."),
    Op("ABS", (), "n -- |n|", "Absolute value."),
    Op("PER", ("divisor",), "a n -- a*(n//divisor)", "Scale an amount per N of something.",
       "gain 1 coin per 2 card in orchard -> PER 2"),
    Op("COUNT", ("query",), "-- n", "How many cards match the query.", "count(card in orchard with fruit apple)"),
    Op("SUM", ("name", "query"), "-- n", "Sum of a stat or piece count over the cards of a query.",
       "sum(baskets of card in orchard)"),
    Op("STAT", ("name",), "c -- n", "A card's stat, with the continuous modifiers that apply to it.",
       "baskets of it"),
    Op("PIECES", ("name",), "c -- n", "How many pieces of a kind are on a card.", "fruit on this"),
    Op("MATCH", ("filter",), "c -- b", "Whether a card matches a filter.", "it is fruit apple"),
    Op("CONDITION", ("timing",), "c -- b", "Evaluate a card's condition (a goal or a requirement) for the "
       "current player.", "goal of it"),
    Op("NTH", ("param",), "i -- v", "The i-th number (from 0) of a list param; the last one past the end.",
       "nth(contract-ladder, fruit on it)"),
    Op("SETS", ("query", "slots"), "-- n", "The greatest number of disjoint sets, each with one card per slot "
       "filter, each card used at most once.", "sets(card in orchard, fruit apple, fruit pear)"),
    Op("PATH", ("query",), "c -- n", "Cards on the longest orthogonal path through a card among the query's "
       "cards in a grid.", "path(card in orchard with size large, this)"),
    Op("LINES", ("query", "axis"), "-- n", "Complete rows or columns of a grid whose cards all match.",
       "rows(card in orchard)"),
    Op("NEIGHBOURS", ("query",), "c -- n", "Grid neighbours of a card that match the query.",
       "neighbours(card in orchard with fruit plum, this)"),
    # control flow
    Op("JUMP", ("target",), "--", "Continue at an instruction index."),
    Op("JUMP_IF", ("target",), "b --", "Jump when true."),
    Op("JUMP_IF_NOT", ("target",), "b --", "Jump when false.", "if ...: -> JUMP_IF_NOT"),
    Op("SWITCH", ("targets",), "i --", "Jump to the i-th target.", "choose one: a | b"),
    Op("CHOOSE", ("labels",), "g1 .. gn -- i", "The player chooses one of the labelled options whose guard g "
       "is true (an option starting with 'if' or a cost is offered only when it could happen); i is n when none "
       "can.", "choose one: a | b", decides=True),
    Op("BOOL", (), "v -- b", "Truth value of the top of the stack."),
    Op("MAY", ("prompt",), "-- b", "The player says yes or no.", "may discard 1 card from hand", decides=True),
    Op("COUNTDOWN", ("target",), "n -- n-1 | ", "Loop counter: when n > 0 leave n-1, else drop it and jump.",
       "repeat 3 times: ..."),
    Op("FOR_CARDS", ("query",), "-- iter", "Start a loop over the cards of a query (a snapshot).",
       "for each card in orchard: ..."),
    Op("NEXT_CARD", ("target",), "iter -- iter | ", "Set 'it' to the next card, or restore 'it', drop the "
       "iterator and jump."),
    Op("FOR_PLAYERS", ("kind", "start"), "-- iter", "Start a loop over players: each, each_other, opponents, turns "
       "(also sets the active player), ref (start names the player); chosen (start: {other, filters}: one player "
       "the current player chooses among those the filters allow, and for whom what the loop governs can be done; "
       "the chooser keeps the loop's choices), named (start: {name, chooses}: the player bound to the local name; "
       "the loop's choices stay with whoever was choosing unless chooses), ranked (start: {by, place, fewest, "
       "ties[, count]}: the players placed there by the value of the program by, run for each player; count names the "
       "local that holds how many share the place).", "each opponent: ...", decides=True),
    Op("NEXT_PLAYER", ("target",), "iter -- iter | ", "Make the next player current, or restore and jump."),
    Op("CHOOSE_CARD", ("query", "optional"), "-- b", "The player chooses a matching card as 'it'; false if "
       "there is none (or the player declines an optional choice). A card another player reserved (a piece "
       "with reserves: true) is not offered.", "choose a card in hand: ...",
       decides=True),
    # effects
    Op("GAIN", ("name",), "n --", "Add to a counter of the current player (shared if the name is a shared "
       "counter), within its bounds; emits 'gain'.", "gain 2 coin"),
    Op("LOSE", ("name",), "n --", "Take from a counter, not below its minimum; emits 'lose'.", "lose 1 coin"),
    Op("SET", ("name",), "n --", "Set a counter.", "set harvests to 0"),
    Op("HAS", ("name",), "n -- b", "Whether the current player has at least n of a counter (cost check).",
       "pay 2 coin: ..."),
    Op("UPTO", ("prompt",), "n -- k", "The player picks k between 0 and n.", "gain up to 2 coin", decides=True),
    Op("TAKE", ("source", "optional"), "-- b", "Pick a card from a source as 'it': the top of a pile, or "
       "the player's choice in other zones or when filtered; runs the zone's on-empty program first when it "
       "is empty. False when none is left (or the player stops an optional take).",
       "move 2 card from top of stack to shed", decides=True),
    Op("CAN_TAKE", ("source",), "n -- b", "Whether a source holds at least n cards (cost check)."),
    Op("PUT", ("dest", "face"), "--", "Move 'it' to a zone: a pile's top or bottom, a row's end, or a grid "
       "cell the player chooses among the legal ones.", "move it to orchard", decides=True),
    Op("PUT_CELL", ("dest", "face"), "row col --", "Move 'it' to the cell at a row and column (1-based) of a "
       "board zone. The card stays where it is when there is no such cell or it is not a legal place (taken, or "
       "not next to a card on a board with placement: adjacent).",
       "move it to orchard at row 2 column 3 -> PUT_CELL"),
    Op("CAN_PUT", ("dest",), "-- b", "Whether 'it' has a legal place in the destination."),
    Op("PICK_HOLDER", ("target", "piece", "mode", "optional"), "-- b", "Choose a card that can take "
       "(mode add) or give up (mode remove) one piece, as 'it'; not a card another player reserved.",
       "place up to 3 fruit on card in orchard",
       decides=True),
    Op("ADD_PIECES", ("piece", "owned"), "n --", "Put up to n pieces on 'it', as many as fit; runs the "
       "piece's when-full program if it fills; emits 'place'.", "place 1 fruit on this"),
    Op("TAKE_PIECES", ("piece", "owned"), "n --", "Remove up to n pieces from 'it'; emits 'remove'.",
       "remove 1 fruit from this"),
    Op("CAN_REMOVE", ("piece", "target"), "n -- b", "Whether n pieces can be removed (cost check)."),
    Op("MARK", ("flag", "on"), "c --", "Set or clear a flag on a card; emits the flag's name.", "mark it ripe"),
    Op("FLIP", (), "c --", "Turn a double-sided card to its other side.", "flip it"),
    Op("CAN_MARK", ("flag", "on", "target"), "-- b", "Whether a target card (it, this, or any card of a "
       "query) can be marked or unmarked, i.e. is not already in that state (cost check)."),
    Op("SCORE", ("step",), "n --", "Add to the current player's score: in the step named, else in the scoring step "
       "being counted, else (during play) in the first step declared during-play.", "score 2 per card in orchard"),
    Op("EMIT", ("event", "object"), "--", "Announce an event about the current player and 'it', with an "
       "optional object name; triggers that match run now.", "emit harvest apple"),
    Op("PASS_FIRST", ("who",), "--", "Hand the first-player marker to a player.",
       "pass first player to left neighbour"),
    Op("NPLAYERS", (), "-- n", "The number of players.", "player-count"),
    Op("TOTAL_SCORE", (), "-- n", "The current player's score so far: the sum of every scoring step.", "total-score"),
    Op("DISTINCT", ("query",), "-- n", "How many different cards (by id) a query finds.", "distinct(card in shed)"),
    Op("OCCURRENCES", ("query", "trait", "values"), "-- n", "How many times trait values occur on the cards of "
       "a query (a card may list a value twice). With the query {card_on_stack: true} it counts on one card "
       "popped from the stack (c -- n): occurrences(it, fruit apple).", "occurrences(card in orchard, fruit apple)"),
    Op("DUP", (), "v -- v v", "Duplicate the top of the stack."),
    Op("PLACE_OF", ("which",), "c -- n", "Where a card lies: its board row or column (1-based), or its position "
       "in its zone (1 = top of a pile, first of a row, first cell of a board).", "column of it"),
    Op("END_GAME", (), "--", "End the game at once: every running program stops and scoring begins."),
    Op("SHUFFLE", ("zone",), "--", "Shuffle a pile with the game's seeded generator.", "shuffle stack"),
    Op("BEGIN_ACTIVATION", ("timing",), "--", "Start an activation of the current player: from here to "
       "END_ACTIVATION each card's activated abilities run at most once (once-per-card). What runs in "
       "between is the pack's activation order.", "activate spring abilities"),
    Op("END_ACTIVATION", (), "--", "End the current player's activation."),
    Op("WINDOW", ("window",), "--", "Offer the current player the window's options that can happen now, and "
       "'pass'; run the one chosen and offer again, until they pass.", "open window market-hours", decides=True),
    Op("RUN_ABILITY", ("timing", "optional"), "c --", "Run a card's ability of a timing, at most once per "
       "card per activation; optional ones ask first and are skipped when their cost cannot be paid.",
       "activate autumn ability of it", decides=True),
    Op("REVEAL", ("source",), "n --", "Reveal the n-th card from the top of a pile as 'it' without moving it.",
       "reveal 1 from stack"),
    # payment with substitutes, and what can be done
    Op("CAN_PAY", ("currencies", "for_card"), "a1 .. ak [c] -- b", "Whether the current player can pay the "
       "amounts a1 .. ak of the currencies, from the currency itself (a resource) and every payment source that "
       "applies (rules.yaml's payments, live sources of the player's cards in play; with for_card, also those for "
       "a card matching the card c popped last, never c itself). Exact: a bounded search over the sources (cost "
       "check).", "pay 2 coin for it: ... -> CAN_PAY"),
    Op("PAY", ("currencies", "for_card"), "a1 .. ak [c] --", "Pay the amounts as CAN_PAY reads them, asking for one "
       "source at a time among those that leave the rest payable (a resource: which one, then how many units; a "
       "card: which card as which currency) and asking nothing when one way is left. Units are lost; a card is "
       "spent by its source's program, with the card as 'it'.", "pay 2 coin for it", decides=True),
    Op("CAN_ACTIVATE", ("timing",), "c -- b", "Whether card c has an ability of the timing (or of one that matches "
       "it) whose leading conditions and cost hold (read from its bytecode) and which can be performed "
       "in full (a trial, when the ability has an effect that may fall short).", "can activate spring ability of it"),
    Op("CAN_PERFORM", ("code",), "-- b", "Whether the program can be performed in full now: its leading conditions "
       "and cost hold, then a trial on a copy of the game in which an effect that falls short (beyond the pack's "
       "may-fall-short) fails, exploring the decisions met (skipped when nothing in it can fall short).",
       "can (move it to shed, gain 2 coin)"),
    Op("ORDER", ("labels",), "-- iter", "The player orders the parts of 'in any order' (the labels); only the "
       "orders that can be performed in full are offered when a part may fall short.",
       "in any order: gain 1 coin, lose 1 coin", decides=True),
    Op("NEXT_PART", ("target",), "iter -- iter i | ", "The next part of the chosen order, or drop the iterator and "
       "jump."),
    # players as values, rankings, choices made at once, whole zones
    Op("CHOOSE_PLAYER", ("pick", "end"), "-- b", "The current player chooses a player among those the pick allows "
       "({other, filters, name}: not themselves, player flags and counters), and for whom instructions up to end "
       "can be done in full; the player is bound to the local name. False when nobody can be chosen.",
       "choose a player other than you as rival: ...", decides=True),
    Op("MARK_PLAYER", ("flag", "on"), "p --", "Set or clear a player flag of player p; emits the flag's name (or un "
       "and the name).", "mark you passed"),
    Op("COUNT_PLAYERS", ("pick",), "-- n", "How many players (not automa seats) the pick's filters keep, less the "
       "current player when it says 'other than you'.", "count(players with passed)"),
    Op("PLACED", ("rank",), "-- b", "Whether the current player is among the players a ranking places "
       "({by, place, fewest, ties}: the program by is run for each player; ties share, split, none or friendly).",
       "you have the most coin (ties share)"),
    Op("BEST", ("by", "fewest"), "-- n", "The greatest (or least) value of the program by among the players.",
       "highest(coin)"),
    Op("AT_ONCE", ("start",), "-- iter", "Start 'each player at once': first each player's part runs on the game as it "
       "was at the start, unseen by the others, and their answers are noted; then every part runs for real, in turn, "
       "with the answers noted (a player is asked again when their answer is no longer possible).",
       "each player at once: choose a card in hand: ...", decides=True),
    Op("NEXT_AT_ONCE", ("target",), "iter -- iter | ", "The next player of 'each player at once' (the game set back "
       "to the start between two unseen parts), or drop the iterator and jump."),
    Op("PASS_ZONES", ("zone", "to"), "--", "Every player's zone goes, all at once and in its order, to the same "
       "zone of their left or right neighbour.", "pass every hand to left neighbour"),
    Op("SWAP", ("first", "second"), "--", "Two zones trade their cards, all at once and in their order.",
       "swap hand and reserve"),
)

BY_NAME: dict[str, Op] = {op.name: op for op in OPS}
