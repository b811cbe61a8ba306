"""One game of Tiến lên: deal, turns, rounds, chops, going out, instant wins, money.

:class:`Game` is the single entry point.  It is event-sourced: a game is its
rule set, its dealt hands and the list of accepted :class:`Action` values, and
replaying those actions on the same hands gives the same state
(:meth:`Game.to_json` / :meth:`Game.from_json`).

>>> from tienlen import Game, RULESETS, parse_cards
>>> game = Game(RULESETS["mien-nam"], ["3S 4S 5S 9H", "6D 7D 8D 2H", "JC QC KC 10H"])
>>> game.turn  # the holder of 3♠ leads the first game
0
>>> game.play(0, parse_cards("3S 4S 5S")).combo
Combo(STRAIGHT, '3S 4S 5S')
>>> game.play(1, "6D 7D 8D").combo.top_card
Card('8D')
>>> game.pass_turn(2).round_over, game.pass_turn(0).round_over, game.turn
(False, True, 1)

Inside, hands are card masks, and the seats in play and the seats locked out
of the round are bit sets (bit ``s`` = seat ``s``), so the next seat to act is
one table lookup; :class:`Card` values appear only at the edges.  The state
lives in slots (integers, tuples and a few short lists), so :meth:`Game.copy`
is cheap.  A listed play on turn is checked and applied inline; a pass that
does not end the round returns a shared, immutable :class:`Outcome`.
"""

from __future__ import annotations

import random
from _random import Random as _CRandom
from typing import Any, Sequence

from tienlen.cards import Card, as_mask, cards_of, format_cards, parse_cards
from tienlen.combos import classify
from tienlen.errors import IllegalPlayError
from tienlen.generate import (
    ABOVE,
    Q0,
    Q1,
    Q2,
    Q3,
    S6,
    SAME_RANK_COMBOS,
    beating_combos,
    bombs_beating,
    finishes_on_two,
    legal_plays_on_turn,
    may_hold_bomb,
    run_combos,
    same_rank_combos,
)
from tienlen.holdings import held_value
from tienlen.instant import InstantWin, find_instant_win
from tienlen.records import Action, ChopEvent, Outcome, Payment, PaymentReason, SeatView
from tienlen.rules import (  # noqa: F401 (RULESETS: doctests)
    RULESETS,
    Bomb,
    CongRule,
    FinishOnTwo,
    OutOfTurnResume,
    RuleSet,
)
from tienlen.settlement import cong_culprit, game_payments
from tienlen.values import CONSECUTIVE_PAIRS, FOUR_OF_A_KIND, SINGLE, Combo

__all__ = ["Game", "SeatView", "legal_plays_on_turn", "Action", "Payment", "PaymentReason", "ChopEvent", "Outcome", "JSON_FORMAT"]

JSON_FORMAT = 1

_NO_SEAT = -1
_BOMB_KINDS = (FOUR_OF_A_KIND, CONSECUTIVE_PAIRS)

# _NEXT[players][16 * after + seats]: the first seat of the bit set ``seats`` after
# ``after`` in turn order (``after`` itself last), or -1 when the set is empty.
_NEXT = {
    players: tuple(
        next(((after + step) % players for step in range(1, players + 1) if seats >> ((after + step) % players) & 1), _NO_SEAT)
        for after in range(players)
        for seats in range(16)
    )
    for players in range(2, 5)
}
_SEAT_SETS = tuple(frozenset(seat for seat in range(4) if seats >> seat & 1) for seats in range(16))
_PASSES = tuple(Action(kind="pass", seat=seat) for seat in range(4))
_QUIET_PASSES = tuple(Outcome(action=action) for action in _PASSES)
"""What a pass that leaves the round going returns: the same value every time."""
_ROUND_ENDING_PASSES = tuple(
    tuple(Outcome(action=action, round_over=True, leader=leader) for leader in range(4)) for action in _PASSES
)
"""[seat][leader]: what a pass that ends the round returns when no leader is found stuck."""
_QUIET_PLAYS = tuple(
    {mask: Outcome(action=Action(kind="play", seat=seat, mask=mask), combo=combo) for mask, combo in SAME_RANK_COMBOS.items()}
    for seat in range(4)
)
"""[seat][mask]: what a single, pair, triple or four played on turn that leaves
the round going returns, made once (as for passes): most plays are these, and
two tuples a play are a sizeable share of a game's cost."""


# The records made on nearly every play are built straight from their fields'
# tuple (NamedTuple's keyword parsing costs about 3 % of a game), by the small
# helpers below, each named for what it builds; everywhere else records are
# built by keyword.  The field order the helpers rely on is checked here.
_new = tuple.__new__
assert Action._fields == ("kind", "seat", "mask")
assert Outcome._fields == ("action", "combo", "chop", "out_of_turn", "went_out", "finish_penalty", "frozen", "stuck",
                           "round_over", "leader", "finished", "timed_out_pass")
assert tuple(Outcome._field_defaults[name] for name in Outcome._fields[3:]) == (
    False, None, False, (), (), False, None, False, False)  # what the helpers write out after chop


def _plain_play(action: Action, combo: Combo, chop: ChopEvent | None) -> Outcome:
    """``Outcome(action=action, combo=combo, chop=chop)``, made fast: a play on
    turn with the round going on."""
    return _new(Outcome, (action, combo, chop, False, None, False, (), (), False, None, False, False))


def _round_ending_play(action: Action, combo: Combo, chop: ChopEvent | None, stuck: tuple[int, ...], leader: int | None,
                       finished: bool) -> Outcome:
    """``Outcome(action=action, combo=combo, chop=chop, stuck=stuck, round_over=True,
    leader=leader, finished=finished)``, made fast: nobody is left to answer the play."""
    return _new(Outcome, (action, combo, chop, False, None, False, (), stuck, True, leader, finished, False))


def _quiet_play(seat: int, combo: Combo) -> Outcome:
    """The outcome of ``seat`` playing ``combo`` on turn with the round going on
    (for the plays :data:`_QUIET_PLAYS` does not hold: runs)."""
    return _new(Outcome, (_new(Action, ("play", seat, combo[1])), combo, None, False, None, False, (), (), False, None,
                          False, False))


_BIT_OF = tuple(1 << index for index in range(52))
# Each step of random.shuffle on 52 cards, as (draws below, bits per draw, position).
_SHUFFLE_STEPS = tuple((i + 1, (i + 1).bit_length(), i) for i in range(51, 0, -1))


def _generator(seed: int | str) -> _CRandom:
    """``random.Random(seed)``, or for an int seed its C base class, which seeds
    the same Mersenne Twister the same way without the Python layer's two calls."""
    return _CRandom(seed) if type(seed) is int else random.Random(seed)


def _shuffled_deck(seed: int | str) -> list[int]:
    """``random.Random(seed).shuffle(list(range(52)))``, card for card, with the
    stdlib's draw (``getrandbits`` with rejection) inlined: the deck
    :func:`_dealt_slots` deals from.  Tests hold both to the stdlib's result."""
    getrandbits = _generator(seed).getrandbits
    deck = list(range(52))
    for n, k, i in _SHUFFLE_STEPS:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _slot_dealer(players: int):
    """The shuffle of :func:`_shuffled_deck` dealt as it goes (the shuffle fixes
    position i at step i and never touches it again; position i goes to slot
    ``i % players``, positions past ``13 * players`` to nobody), written out as
    straight-line code, one step after another, like ``Game.copy``: the loop's
    own bookkeeping was a fifth of a deal."""
    lines = ["def deal(getrandbits, deck):"]
    for n, k, i in _SHUFFLE_STEPS:
        lines.append(f"    j = getrandbits({k})")
        lines.append(f"    while j >= {n}: j = getrandbits({k})")
        if i < 13 * players:
            slot = i % players
            first = i + players >= 13 * players  # the slot's first card dealt (the deck is dealt from its end)
            lines.append(f"    s{slot} = deck[j]" if first else f"    s{slot} |= deck[j]")
        lines.append(f"    deck[j] = deck[{i}]")
    lines.append("    return [s0 | deck[0], " + ", ".join(f"s{slot}" for slot in range(1, players)) + "]")
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), namespace)  # noqa: S102 (generated from the constants above only)
    return namespace["deal"]


_SLOT_DEALERS = {players: _slot_dealer(players) for players in range(2, 5)}


def _dealt_slots(seed: int | str, players: int) -> list[int]:
    """The cards (masks) dealt at positions 0, 1, … ``players - 1`` modulo
    ``players`` of the deck :func:`_shuffled_deck` gives, shuffling and dealing
    in one pass."""
    return _SLOT_DEALERS[players](_generator(seed).getrandbits, list(_BIT_OF))


class Game:
    """A game from the deal to the settlement.

    ``hands`` are the seats' cards in seat order (lists of cards, texts or
    masks).  ``first_game=True`` means the holder of the lowest dealt card
    (3♠ with four players) leads and, where the rules say so, must play it;
    otherwise ``previous_winner`` (a seat) leads anything.

    The state everyone reads all the time is plain attributes, as in
    python-chess's ``Board.turn`` (a property costs a Python call on every
    read; search and the bot read these after every action).  Read them; only
    the game's own methods change them:

    * ``turn``: the seat to act, or None when the game is over;
    * ``top``: the combination on top of the current round, or None when leading;
    * ``finished``: whether the game is over.
    """

    __slots__ = (
        "rules", "players", "first_game", "previous_winner", "seed", "instant_win",
        "_dealt", "_hands", "_next", "_live", "_top_places", "_bottom", "_left", "_frozen",
        "_penalised", "_passed_with_play", "_chops", "_actions",
        "_round_number", "top", "_owner", "_passed", "_chain_value", "_required",
        "turn", "finished", "_last_holder",
        "_runless", "_bombless", "_trust_combos", "_fast_plays", "_plain_singles", "_forbid_two_finish", "_iwin_cong",
        "_cong", "_two_finish_penalty",
    )

    def __init__(
        self,
        rules: RuleSet,
        hands: Sequence["Sequence[Card] | str | int"],
        *,
        first_game: bool = True,
        previous_winner: int | None = None,
        seed: int | str | None = None,
    ) -> None:
        masks = [hand if type(hand) is int else as_mask(hand) for hand in hands]
        _check_hands(rules, masks)
        self._start(rules, masks, first_game, previous_winner, seed)

    def _start(self, rules: RuleSet, masks: list[int], first_game: bool, previous_winner: int | None,
               seed: int | str | None) -> None:
        """Set up the game from checked hands (``masks``, one list the game keeps)."""
        players = len(masks)
        if not first_game and (previous_winner is None or not 0 <= previous_winner < players):
            raise ValueError("a later game needs the seat of the previous winner")
        self.rules = rules
        self.players = players
        self.first_game = first_game
        self.previous_winner = previous_winner if not first_game else None
        self.seed = seed
        self._dealt = tuple(masks)
        self._hands = masks
        self._next = _NEXT[players]
        self._live = (1 << players) - 1  # bit set: seats still in play
        self._top_places: list[int] = []
        self._bottom: list[int] = []  # bottom[0] takes the last place
        self._left: list[int] = []
        self._frozen: tuple[int, ...] = ()
        self._penalised: list[int] = []  # thối on going out (or stuck), mien-bac
        self._passed_with_play = 0  # bit set (iwin đền bài)
        self._chops: list[ChopEvent] = []
        self._actions: list[Action] = []
        # The round in progress.
        self._round_number = 0
        self.top: Combo | None = None
        self._owner: int | None = None
        self._passed = 0  # bit set: seats locked out of this round
        self._chain_value = 0
        self._required = 0
        self.turn: int | None = None
        self.finished = False
        self._last_holder: int | None = None
        # Facts that stay true as hands shrink (bit sets): seats whose hand holds no
        # straight or run of pairs, and seats whose hand holds no bomb.
        self._runless = 0
        self._bombless = 0
        # Rule switches read on every action.
        self._trust_combos = not rules.follow_suit and rules.consecutive_pairs
        self._forbid_two_finish = rules.finish_on_two is FinishOnTwo.FORBIDDEN
        self._plain_singles = not rules.follow_suit and not self._forbid_two_finish
        self._fast_plays = self._trust_combos and not self._forbid_two_finish
        self._iwin_cong = rules.cong is CongRule.IWIN
        self._cong = rules.cong is not CongRule.NONE
        self._two_finish_penalty = rules.finish_on_two is FinishOnTwo.PENALTY
        self.instant_win: InstantWin | None = find_instant_win(rules, masks, first_game=first_game)
        if self.instant_win is not None:
            self._finish_instant_win()
        else:
            self.turn = self._first_leader()

    # ----------------------------------------------------------- construction
    @classmethod
    def deal(
        cls,
        rules: RuleSet,
        players: "int | Sequence[Any]",
        seed: int | str,
        *,
        first_game: bool = True,
        previous_winner: int | None = None,
    ) -> "Game":
        """Shuffle with ``random.Random(seed)`` and deal 13 cards to each of
        2–4 seats, one at a time, starting with the seat after the dealer.

        >>> game = Game.deal(RULESETS["mien-nam"], 4, seed=7)
        >>> [len(hand) for hand in game.hands]
        [13, 13, 13, 13]
        """
        count = players if isinstance(players, int) else len(players)
        if not rules.players_ok(count):
            raise ValueError(f"{rules.name} is played by {rules.min_players} to {rules.max_players} players")
        slots = _dealt_slots(seed, count)
        # Dealing starts with the seat after the dealer (rules.deal_order): slot p
        # goes to seat (dealer + 1 + p) % count, a rotation of the slots.
        cut = count - (rules.dealer_seat + 1) % count
        game = object.__new__(cls)
        game._start(rules, slots[cut:] + slots[:cut], first_game, previous_winner, seed)  # a deal needs no checks
        return game

    def _first_leader(self) -> int:
        if not self.first_game:
            assert self.previous_winner is not None
            return self.previous_winner
        dealt = 0
        for hand in self._hands:
            dealt |= hand
        lowest = dealt & -dealt
        leader = 0
        while not self._hands[leader] & lowest:
            leader += 1
        if self.rules.first_lead_must_include_lowest:
            self._required = lowest
        return leader

    # -------------------------------------------------------------- read-only
    @property
    def top_owner(self) -> int | None:
        """Who played :attr:`top`."""
        return self._owner

    @property
    def round_number(self) -> int:
        return self._round_number

    @property
    def hands(self) -> tuple[list[Card], ...]:
        """Each seat's cards, lowest first."""
        return tuple(cards_of(mask) for mask in self._hands)

    def hand_mask(self, seat: int) -> int:
        return self._hands[seat]

    def hand(self, seat: int) -> list[Card]:
        return cards_of(self._hands[seat])

    @property
    def dealt(self) -> tuple[list[Card], ...]:
        return tuple(cards_of(mask) for mask in self._dealt)

    def card_counts(self) -> list[int]:
        return [mask.bit_count() for mask in self._hands]

    @property
    def passed(self) -> frozenset[int]:
        """Seats locked out of the current round."""
        return _SEAT_SETS[self._passed]

    @property
    def required_card(self) -> Card | None:
        """The card the opening lead must contain (3♠ in a first game), if any."""
        return Card.from_index(self._required.bit_length() - 1) if self._required else None

    @property
    def places(self) -> list[int]:
        """Seats in finishing order (first place first).  While the game runs,
        only the seats whose place is already settled, top ones then bottom ones."""
        middle = [self._last_holder] if self._last_holder is not None else []
        return self._top_places + middle + self._bottom[::-1]

    def place_of(self, seat: int) -> int | None:
        """The place (0 = first) a seat has taken, or None while still playing."""
        if seat in self._top_places:
            return self._top_places.index(seat)
        if seat == self._last_holder:
            return len(self._top_places)
        if seat in self._bottom:
            return self.players - 1 - self._bottom.index(seat)
        return None

    def in_play(self, seat: int) -> bool:
        """Still holding cards and taking turns."""
        if not 0 <= seat < self.players:
            raise IndexError("no such seat")
        return bool(self._live >> seat & 1)

    @property
    def cong(self) -> tuple[int, ...]:
        """Frozen seats (cóng), in seat order after the first player out."""
        return self._frozen

    @property
    def left(self) -> tuple[int, ...]:
        return tuple(self._left)

    @property
    def penalised(self) -> tuple[int, ...]:
        """mien-bac: seats ranked last for going out on a 2 / four of a kind (thối)."""
        return tuple(self._penalised)

    @property
    def chops(self) -> tuple[ChopEvent, ...]:
        return tuple(self._chops)

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every accepted action, in order."""
        return tuple(self._actions)

    @property
    def action_log(self) -> Sequence[Action]:
        """Every accepted action, as the game's own list: read it, never change it
        (no copy: play-outs read it at every move)."""
        return self._actions

    @property
    def cards_played(self) -> int:
        """Mask of every card played so far (visible to all)."""
        played = 0
        for dealt, now in zip(self._dealt, self._hands):
            played |= dealt & ~now
        return played

    def has_played(self, seat: int) -> bool:
        if not 0 <= seat < self.players:
            raise IndexError("no such seat")
        return self._hands[seat] != self._dealt[seat]  # a seat has played iff its hand shrank

    @property
    def last_holder(self) -> int | None:
        """The seat left holding cards when the game ended normally, if any."""
        return self._last_holder

    @property
    def passed_with_play(self) -> frozenset[int]:
        """Seats that passed (before ever playing) although they could have beaten (iwin đền bài)."""
        return _SEAT_SETS[self._passed_with_play]

    # ------------------------------------------------------------ legal plays
    def legal_plays(self, seat: int) -> list[Combo]:
        """Every combination ``seat`` may play now (passing is not listed).

        On turn: leads or beating plays; off turn: out-of-turn chops only.

        >>> game = Game(RULESETS["mien-nam"], ["3S 3C 9H", "4D 5D 6D"])
        >>> [str(combo) for combo in game.legal_plays(0)]
        ['3♠', '3♠ 3♣']
        >>> game.legal_plays(1)
        []
        """
        if seat == self.turn:
            top = self.top
            if top is not None and top[0] is SINGLE and self._plain_singles:
                index = top[2]
                cards = self._hands[seat] & ABOVE[index]  # following a single: its higher cards
                if index >= 48:  # a 2: the higher 2s, and bombs (unless the hand is known to hold none)
                    plays = list(S6[cards >> 48])
                    if not self._bombless >> seat & 1:
                        hand = self._hands[seat]
                        if may_hold_bomb(hand):
                            plays += bombs_beating(hand, top, self.rules, same_kind=False)
                        else:
                            self._bombless |= 1 << seat
                    return plays
                if not cards:
                    return []
                # Only the quarters of the deck (13 cards each) from the top's up can hold them.
                if index >= 39:
                    return list(Q3[cards >> 39])
                if index >= 26:
                    return [*Q2[cards >> 26 & 8191], *Q3[cards >> 39]]
                if index >= 13:
                    return [*Q1[cards >> 13 & 8191], *Q2[cards >> 26 & 8191], *Q3[cards >> 39]]
                return [*Q0[cards & 8191], *Q1[cards >> 13 & 8191], *Q2[cards >> 26 & 8191], *Q3[cards >> 39]]
            if self._required or self._forbid_two_finish:
                return legal_plays_on_turn(self.rules, self._hands[seat], top, self._required)
            if top is None:
                hand = self._hands[seat]
                plays = same_rank_combos(hand, self.rules)
                if not self._runless >> seat & 1:
                    runs = run_combos(hand, self.rules)
                    if runs:
                        plays += runs
                    else:
                        self._runless |= 1 << seat
                return plays
            return beating_combos(self._hands[seat], top, self.rules)
        top = self.top
        if (
            top is None
            or self.finished
            or not self._live >> seat & 1
            or seat == self._owner
            or not self.rules.four_pairs_out_of_turn
            or self._hands[seat].bit_count() < 8
        ):
            return []
        return bombs_beating(self._hands[seat], top, self.rules, only=Bomb.FOUR_PAIRS)

    def can_play_out_of_turn(self, seat: int) -> bool:
        """Whether ``seat`` (not on turn) holds a chop it may play right now."""
        return seat != self.turn and bool(self.legal_plays(seat))

    def out_of_turn_seats(self) -> tuple[int, ...]:
        """The seats not on turn that hold a chop they may play right now.

        >>> game = Game(RULESETS["mien-nam"], ["3S 4S", "2H 5D", "10S JS", "6S 6C 7S 7C 8S 8C 9S 9C"])
        >>> _ = game.play(0, "3S"); game.out_of_turn_seats()
        ()
        >>> _ = game.play(1, "2H"); game.turn, game.out_of_turn_seats()  # seat 3 may chop the 2 now
        (2, (3,))
        """
        if self.top is None or self.finished or not self.rules.four_pairs_out_of_turn:
            return ()
        return tuple(seat for seat in range(self.players) if seat != self.turn and self.legal_plays(seat))

    # ---------------------------------------------------------------- actions
    def play(self, seat: int, cards: "Combo | Sequence[Card] | str | int") -> Outcome:
        """Play ``cards`` from ``seat``'s hand; raises :class:`IllegalPlayError`.

        A seat that is not on turn may play only an out-of-turn chop (4 đôi thông
        on a 2 or a bomb, where the rules allow it).
        """
        if seat == self.turn and type(cards) is Combo and self._fast_plays:
            # The common case, a listed play on turn: the checks below, in the same order, inline.
            mask = cards[1]
            rest = self._hands[seat] ^ mask
            if mask and rest and not rest & mask:  # in the hand, and not the last cards
                top = self.top
                if top is None:
                    if not self._required or mask & self._required:
                        quiet = _QUIET_PLAYS[seat].get(mask)
                        if quiet is None or quiet[1] is not cards:
                            quiet = _quiet_play(seat, cards)
                        self._hands[seat] = rest
                        self._required = 0
                        self.top = cards
                        self._owner = seat
                        self._actions.append(quiet[0])
                        self.turn = self._next[16 * seat + (self._live & ~(1 << seat))]
                        return quiet
                elif cards[0] is top[0] and cards[3] == top[3] and cards[2] > top[2] and cards[0] not in _BOMB_KINDS:
                    # Beats the top and is no chop (a play of another kind can only be a chop);
                    # the seat on turn is never locked out, and only the first lead has a required card.
                    quiet = _QUIET_PLAYS[seat].get(mask)
                    if quiet is None or quiet[1] is not cards:
                        quiet = _quiet_play(seat, cards)
                    self._hands[seat] = rest
                    self._chain_value = 0
                    self.top = cards
                    self._owner = seat
                    self._actions.append(quiet[0])
                    turn = self._next[16 * seat + (self._live & ~self._passed & ~(1 << seat))]
                    if turn != _NO_SEAT:
                        self.turn = turn
                        return quiet
                    stuck = self._new_round(seat)  # nobody left to answer it: a new round, led by this seat
                    return _round_ending_play(quiet[0], cards, None, stuck, self.turn, self.finished)
        self._check_seat(seat)
        combo = self._combo_of(seat, cards)
        out_of_turn = seat != self.turn
        if out_of_turn:
            self._check_out_of_turn(seat, combo)
        else:
            self._check_on_turn(combo)
        if self._forbid_two_finish and finishes_on_two(self._hands[seat], combo):
            raise IllegalPlayError(
                "you cannot go out with a 2 or a four of a kind", code="finish_on_two"
            )
        action = _new(Action, ("play", seat, combo[1]))  # Action(kind="play", seat=seat, mask=...), made fast
        return self._apply_play(seat, combo, action, out_of_turn)

    def can_pass(self, seat: int) -> bool:
        """Whether ``seat`` may pass now: on turn, with a play to answer (the
        round's leader cannot pass).

        >>> game = Game(RULESETS["mien-nam"], ["3S 4S", "5D 6D"])
        >>> game.can_pass(0), game.can_pass(1)
        (False, False)
        >>> _ = game.play(0, "3S"); game.can_pass(1)
        True
        """
        return seat == self.turn and self.top is not None

    def pass_turn(self, seat: int) -> Outcome:
        """Pass: ``seat`` is locked out until the round ends."""
        if seat != self.turn or self.top is None:  # not can_pass(seat), inline: every pass asks
            self._check_seat(seat)
            self._check_turn(seat)
            raise IllegalPlayError("you lead this round, so you cannot pass", code="lead_cannot_pass")
        if self._iwin_cong:
            return self._apply_pass(seat, _PASSES[seat])
        passed = self._passed | (1 << seat)
        self._passed = passed
        self._actions.append(_PASSES[seat])
        turn = self._next[16 * seat + (self._live & ~passed & ~(1 << self._owner))]  # type: ignore[operator]
        if turn != _NO_SEAT:
            self.turn = turn
            return _QUIET_PASSES[seat]
        return self._end_round(_PASSES[seat], False)

    def timeout(self, seat: int) -> Outcome:
        """``seat`` ran out of time: pass, or play its lowest single when leading."""
        self._check_seat(seat)
        self._check_turn(seat)
        action = Action(kind="timeout", seat=seat)
        if self.top is not None:
            return self._apply_pass(seat, action, timed_out=True)
        plays = self.legal_plays(seat)
        singles = [combo for combo in plays if combo[0] is SINGLE]
        if not plays:
            raise IllegalPlayError("nothing can be played", code="no_play")
        combo = min(singles or plays, key=lambda combo: (combo[3], combo[2]))
        return self._apply_play(seat, combo, action._replace(mask=combo[1]), False)

    def leave(self, seat: int) -> Outcome:
        """``seat`` leaves mid-game: a loss, taking the last place not yet taken."""
        self._check_seat(seat)
        action = Action(kind="leave", seat=seat)
        self._actions.append(action)
        self._left.append(seat)
        was_turn = seat == self.turn
        self._eliminate(seat)
        if seat == self._required_holder():
            self._required = 0
        if self._check_end():
            return Outcome(action=action, finished=True)
        if not was_turn:
            return Outcome(action=action)
        if self.top is None:
            stuck = self._new_round(self._next_in_play(seat))
            return Outcome(action=action, round_over=True, leader=self.turn, stuck=stuck, finished=self.finished)
        round_over, stuck = self._advance(seat)
        return Outcome(action=action, round_over=round_over, leader=self.turn if round_over else None,
                       stuck=stuck, finished=self.finished)

    def apply(self, action: Action) -> Outcome:
        """Apply a recorded action (replay)."""
        if action.kind == "play":
            return self.play(action.seat, action.mask)
        if action.kind == "pass":
            return self.pass_turn(action.seat)
        if action.kind == "timeout":
            return self.timeout(action.seat)
        if action.kind == "leave":
            return self.leave(action.seat)
        raise ValueError(f"unknown action kind: {action.kind}")

    # ---------------------------------------------------------------- checks
    def _check_seat(self, seat: int) -> None:
        if self.finished:
            raise IllegalPlayError("the game is over", code="game_over")
        if not 0 <= seat < self.players:
            raise IllegalPlayError("you are not seated in this game", code="not_seated")
        if not self._live >> seat & 1:
            raise IllegalPlayError("you are out of this game", code="already_out")

    def _check_turn(self, seat: int) -> None:
        if seat == self.turn:
            return
        if self._passed >> seat & 1:
            raise IllegalPlayError("you passed and are locked out until the round ends", code="locked_out")
        raise IllegalPlayError("it is not your turn", code="not_your_turn", turn=self.turn)

    def _combo_of(self, seat: int, cards: "Combo | Sequence[Card] | str | int") -> Combo:
        if isinstance(cards, Combo):
            mask = cards[1]
        else:
            mask = as_mask(cards)
        if not mask:
            raise IllegalPlayError("choose at least one card", code="empty")
        missing = mask & ~self._hands[seat]
        if missing:
            raise IllegalPlayError(
                f"you do not hold {format_cards(cards_of(missing))}", code="not_in_hand", cards=cards_of(missing)
            )
        if isinstance(cards, Combo) and self._trust_combos:
            return cards  # any combination is valid under rules this lenient
        return classify(mask, self.rules)

    def _check_on_turn(self, combo: Combo) -> None:
        top = self.top
        if top is None:
            if self._required and not combo[1] & self._required:
                card = self.required_card
                raise IllegalPlayError(f"the first play must contain {card}", code="must_include", card=card)
            return
        if not self.rules.can_beat(combo, top):
            raise IllegalPlayError(
                f"{combo} cannot beat {top}", code="cannot_beat", play=combo, top=top
            )

    def _check_out_of_turn(self, seat: int, combo: Combo) -> None:
        top = self.top
        allowed = (
            top is not None
            and self.rules.four_pairs_out_of_turn
            and combo.bomb is Bomb.FOUR_PAIRS
            and seat != self._owner
            and self.rules.can_beat(combo, top)
            and self.rules.is_chop(combo, top)
        )
        if not allowed:
            self._check_turn(seat)

    # -------------------------------------------------------------- mutation
    def _apply_play(self, seat: int, combo: Combo, action: Action, out_of_turn: bool) -> Outcome:
        top = self.top
        chop = None
        if top is not None:
            if combo[0] is FOUR_OF_A_KIND or combo[0] is CONSECUTIVE_PAIRS:
                chop = self._record_chop(seat, combo, top)
            else:
                self._chain_value = 0
        hand = self._hands[seat] ^ combo[1]
        self._hands[seat] = hand
        self._required = 0
        self.top = combo
        self._owner = seat
        passed = self._passed & ~(1 << seat)
        self._passed = passed
        self._actions.append(action)
        if hand == 0 or out_of_turn:
            return self._after_special_play(seat, combo, action, chop, out_of_turn)
        turn = self._next[16 * seat + (self._live & ~passed & ~(1 << seat))]
        if turn != _NO_SEAT:
            self.turn = turn
            return _plain_play(action, combo, chop)
        stuck = self._new_round(seat)
        return _round_ending_play(action, combo, chop, stuck, self.turn, self.finished)

    def _after_special_play(self, seat: int, combo: Combo, action: Action, chop: ChopEvent | None,
                            out_of_turn: bool) -> Outcome:
        """The rest of a play that emptied the hand or came out of turn."""
        went_out = None
        penalty = False
        frozen: tuple[int, ...] = ()
        if not self._hands[seat]:
            penalty = self._two_finish_penalty and finishes_on_two(combo[1], combo)
            if penalty:
                self._penalised.append(seat)
                self._eliminate(seat)
            else:
                self._live &= ~(1 << seat)
                self._top_places.append(seat)
                went_out = len(self._top_places) - 1
                if not went_out and self._cong:
                    frozen = self._freeze(seat)
            if self._check_end():
                return Outcome(action=action, combo=combo, chop=chop, out_of_turn=out_of_turn, went_out=went_out,
                               finish_penalty=penalty, frozen=frozen, finished=True)
        resume = None
        if out_of_turn and self.rules.out_of_turn_resume is OutOfTurnResume.INTERRUPTED_SEAT:
            resume = self.turn
        round_over, stuck = self._advance(seat, resume)
        return Outcome(action=action, combo=combo, chop=chop, out_of_turn=out_of_turn, went_out=went_out,
                       finish_penalty=penalty, frozen=frozen, stuck=stuck, round_over=round_over,
                       leader=self.turn if round_over else None, finished=self.finished)

    def _record_chop(self, seat: int, combo: Combo, top: Combo) -> ChopEvent | None:
        owner = self._owner
        assert owner is not None
        rules = self.rules
        if not rules.is_chop(combo, top):
            self._chain_value = 0
            return None
        value = rules.chop_value(top)
        self._chain_value += value
        event = ChopEvent(
            round=self._round_number,
            chopper=seat,
            chopped=owner,
            bomb=combo,
            target=top,
            value=value,
            chain_value=self._chain_value,
            chopped_went_out=self._hands[owner] == 0,  # the chopped play was its owner's last cards
        )
        self._chops.append(event)
        return event

    def _apply_pass(self, seat: int, action: Action, *, timed_out: bool = False) -> Outcome:
        if self._iwin_cong and self._hands[seat] == self._dealt[seat] and self.legal_plays(seat):
            self._passed_with_play |= 1 << seat
        passed = self._passed | (1 << seat)
        self._passed = passed
        self._actions.append(action)
        owner = self._owner
        assert owner is not None
        turn = self._next[16 * seat + (self._live & ~passed & ~(1 << owner))]
        if turn != _NO_SEAT:
            self.turn = turn
            if timed_out:
                return Outcome(action=action, timed_out_pass=True)
            return _QUIET_PASSES[seat] if action is _PASSES[seat] else Outcome(action=action)
        return self._end_round(action, timed_out)

    def _end_round(self, action: Action, timed_out: bool) -> Outcome:
        """Everyone else has passed: the top's owner (or the next seat in play) leads."""
        owner = self._owner
        assert owner is not None
        stuck = self._new_round(owner if self._live >> owner & 1 else self._next_in_play(owner))
        if not stuck and action is _PASSES[action[1]]:  # a plain pass: a ready-made outcome
            return _ROUND_ENDING_PASSES[action[1]][self.turn]  # type: ignore[index]
        return Outcome(action=action, stuck=stuck, round_over=True, leader=self.turn, finished=self.finished,
                       timed_out_pass=timed_out)

    def _advance(self, after: int, resume: int | None = None) -> tuple[bool, tuple[int, ...]]:
        """Give the turn to the next seat that may still beat the top, or end
        the round.  Returns (round over, seats found stuck)."""
        owner = self._owner
        assert owner is not None
        open_seats = self._live & ~self._passed & ~(1 << owner)
        if resume is not None and open_seats >> resume & 1:
            self.turn = resume
            return False, ()
        turn = self._next[16 * after + open_seats]
        if turn != _NO_SEAT:
            self.turn = turn
            return False, ()
        leader = owner if self._live >> owner & 1 else self._next_in_play(owner)
        return True, self._new_round(leader)

    def _new_round(self, leader: int) -> tuple[int, ...]:
        """Start a round led by ``leader``; returns seats found stuck (mien-bac)."""
        self._round_number += 1
        self.top = None
        self._owner = None
        self._passed = 0
        self._chain_value = 0
        self.turn = leader
        if not self._forbid_two_finish:
            return ()
        stuck: list[int] = []
        # With going out on a 2 forbidden, a leader holding only 2s / a four of a
        # kind can never play: that hand is thối and ranked last.
        while not self.legal_plays(self.turn):
            seat = self.turn
            stuck.append(seat)
            self._penalised.append(seat)
            self._eliminate(seat)
            if self._check_end():
                break
            self.turn = self._next_in_play(seat)
        return tuple(stuck)

    def _eliminate(self, seat: int) -> None:
        """Take ``seat`` out of play at the lowest free place."""
        self._live &= ~(1 << seat)
        self._bottom.append(seat)
        self._passed &= ~(1 << seat)

    def _freeze(self, winner: int) -> tuple[int, ...]:
        hands, dealt, live = self._hands, self._dealt, self._live
        frozen = tuple(seat for seat in _SEATS_AFTER[self.players][winner] if live >> seat & 1 and hands[seat] == dealt[seat])
        # The nearest after the winner keeps the highest of the last places.
        for seat in reversed(frozen):
            self._eliminate(seat)
        self._frozen = frozen
        return frozen

    def _check_end(self) -> bool:
        live = self._live
        if live & (live - 1):  # two seats or more still in play
            return False
        if live:
            self._last_holder = live.bit_length() - 1
            self._live = 0
        self.finished = True
        self.turn = None
        return True

    def _finish_instant_win(self) -> None:
        assert self.instant_win is not None
        winner = self.instant_win.seat
        self._top_places = [winner] + [seat for seat in _seats_after(winner, self.players) if seat != winner]
        self._live = 0
        self.finished = True
        self.turn = None

    def _next_in_play(self, seat: int) -> int:
        turn = self._next[16 * seat + (self._live & ~(1 << seat))]
        if turn == _NO_SEAT:
            raise AssertionError("no seat left in play")
        return turn

    def _required_holder(self) -> int | None:
        if not self._required:
            return None
        return next(seat for seat in range(self.players) if self._dealt[seat] & self._required)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now (for AI players)."""
        played = tuple(dealt & ~now for dealt, now in zip(self._dealt, self._hands))
        players = range(self.players)
        return SeatView(
            rules=self.rules,
            seat=seat,
            players=self.players,
            hand=self._hands[seat],
            counts=tuple(mask.bit_count() if seat_ not in self._left else 0 for seat_, mask in enumerate(self._hands)),
            played=played,
            top=self.top,
            top_owner=self._owner,
            turn=self.turn,
            passed=_SEAT_SETS[self._passed],
            in_play=tuple(bool(self._live >> seat_ & 1) for seat_ in players),
            places=tuple(self.places),
            left=tuple(self._left),
            has_played=tuple(hand != dealt for hand, dealt in zip(self._hands, self._dealt)),
            first_game=self.first_game,
            previous_winner=self.previous_winner,
            required=self._required,
            actions=tuple(self._actions),
            legal_plays=tuple(self.legal_plays(seat)),
            round_number=self._round_number,
            chain_value=self._chain_value,
        )

    # ----------------------------------------------------------------- money
    def payments(self) -> list[Payment]:
        """Every payment of the finished game, pairwise, in bet units."""
        if not self.finished:
            raise IllegalPlayError("the game is not over yet", code="not_finished")
        return game_payments(self)

    def settlement(self) -> dict[int, int]:
        """Net bet units per seat (sums to zero): places, chops, instant win,
        cóng, thối, leaving — per the rule set."""
        net = {seat: 0 for seat in range(self.players)}
        for payment in self.payments():
            net[payment.payer] -= payment.units
            net[payment.payee] += payment.units
        return net

    def next_game_leader(self) -> int | None:
        """Who leads the next game at this table, if the seats stay the same:
        the winner, or (iwin) the player who had to "đền bài"."""
        if not self.finished:
            return None
        culprit = cong_culprit(self)
        return culprit if culprit is not None else self.places[0]

    def chop_counts(self) -> dict[int, tuple[int, int]]:
        """Per seat: (chops made, chops suffered)."""
        counts = {seat: [0, 0] for seat in range(self.players)}
        for event in self._chops:
            counts[event.chopper][0] += 1
            counts[event.chopped][1] += 1
        return {seat: (made, suffered) for seat, (made, suffered) in counts.items()}

    def held_value(self, seat: int) -> int:
        """Chop value of the 2s and bombs ``seat`` still holds (best split)."""
        return held_value(self.rules, self._hands[seat])

    # --------------------------------------------------------------- storage
    def to_json(self) -> dict[str, Any]:
        """A compact, JSON-ready record: rules, hands, flags and actions.

        It contains every hand: keep it private (database only)."""
        return {
            "format": JSON_FORMAT,
            "rules": self.rules.name,
            "options": self.rules.options(),
            "hands": [format_cards(cards_of(mask), ascii=True) for mask in self._dealt],
            "seed": self.seed,
            "first_game": self.first_game,
            "previous_winner": self.previous_winner,
            "actions": [action.to_json() for action in self._actions],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Game":
        """Rebuild a game from :meth:`to_json`, replaying its actions."""
        if data.get("format") != JSON_FORMAT:
            raise ValueError(f"unsupported game record format: {data.get('format')!r}")
        rules = RuleSet.from_options(data["rules"], data.get("options"))
        game = cls(
            rules,
            [parse_cards(hand) for hand in data["hands"]],
            first_game=data["first_game"],
            previous_winner=data.get("previous_winner"),
            seed=data.get("seed"),
        )
        for item in data.get("actions", ()):
            game.apply(Action.from_json(item))
        return game

    def copy(self) -> "Game":
        """An independent copy (for search): the state is integers, tuples and a
        few short lists, so this is a few dozen slot copies and seven list copies
        (about a microsecond; the method is written out from ``__slots__`` at import).

        >>> game = Game.deal(RULESETS["mien-nam"], 4, seed=5)
        >>> twin = game.copy()
        >>> _ = twin.play(twin.turn, twin.legal_plays(twin.turn)[0])
        >>> len(game.actions), len(twin.actions)
        (0, 1)
        """
        raise AssertionError("replaced by _slot_copier() below")

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in Game.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def __repr__(self) -> str:
        state = "finished" if self.finished else f"turn={self.turn}"
        return f"<Game {self.rules.name} players={self.players} {state} actions={len(self._actions)}>"


# --------------------------------------------------------------------- helpers
_LISTS = ("_hands", "_top_places", "_bottom", "_left", "_penalised", "_chops", "_actions")
_SHARED_SLOTS = tuple(name for name in Game.__slots__ if name not in _LISTS)
"""Slots a copy may share with its original: integers, tuples and immutable values."""


def _slot_copier():
    """``Game.copy`` as straight-line code, one assignment a slot (the lists
    copied, the rest shared), the way dataclasses write ``__init__``: a loop of
    getattr/setattr over the slot names costs five times as much."""
    lines = ["def copy(self):", "    other = new(Game)"]
    lines += [f"    other.{name} = self.{name}" for name in _SHARED_SLOTS]
    lines += [f"    other.{name} = self.{name}[:]" for name in _LISTS]
    lines.append("    return other")
    namespace: dict[str, Any] = {"new": object.__new__, "Game": Game}
    exec("\n".join(lines), namespace)  # noqa: S102 (generated from the slot names above only)
    copy = namespace["copy"]
    copy.__doc__, copy.__qualname__ = Game.copy.__doc__, Game.copy.__qualname__
    copy.__annotations__, copy.__module__ = Game.copy.__annotations__, __name__
    return copy


Game.copy = _slot_copier()  # type: ignore[method-assign]
_finishes_on_two = finishes_on_two  # the name Game used before the generator had its own module


def _seats_after(seat: int, players: int) -> list[int]:
    return [(seat + step) % players for step in range(1, players)]


_SEATS_AFTER = {players: tuple(tuple(_seats_after(seat, players)) for seat in range(players)) for players in range(2, 5)}


def _check_hands(rules: RuleSet, masks: list[int]) -> None:
    if not rules.players_ok(len(masks)):
        raise ValueError(f"{rules.name} is played by {rules.min_players} to {rules.max_players} players")
    seen = 0
    for seat, mask in enumerate(masks):
        if not mask:
            raise ValueError(f"seat {seat} has no cards")
        if mask.bit_count() > 13:
            raise ValueError(f"seat {seat} has more than 13 cards")
        if seen & mask:
            raise ValueError(f"a card is dealt twice: {format_cards(cards_of(seen & mask), ascii=True)}")
        seen |= mask
