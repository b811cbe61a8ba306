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
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NamedTuple, Sequence

from tienlen.cards import Card, as_mask, cards_of, format_cards, parse_cards
from tienlen.combos import (
    FOUR_OF_A_KIND,
    SINGLE,
    TWOS_MASK,
    Combo,
    all_combos,
    beating_combos,
    bombs_beating,
    classify,
)
from tienlen.errors import IllegalPlayError
from tienlen.holdings import held_value
from tienlen.instant import InstantWin, find_instant_win
from tienlen.rules import RULESETS, Bomb, CongRule, FinishOnTwo, OutOfTurnResume, RuleSet  # noqa: F401 (RULESETS: doctests)

__all__ = ["Game", "SeatView", "legal_plays_on_turn", "Action", "Payment", "PaymentReason", "ChopEvent", "Outcome", "JSON_FORMAT"]

JSON_FORMAT = 1


class Action(NamedTuple):
    """One accepted action: ``kind`` is "play", "pass", "timeout" or "leave"."""

    kind: str
    seat: int
    mask: int = 0

    @property
    def cards(self) -> list[Card]:
        return cards_of(self.mask)

    def to_json(self) -> list[Any]:
        if self.kind == "play":
            return [self.kind, self.seat, format_cards(cards_of(self.mask), ascii=True)]
        return [self.kind, self.seat]

    @classmethod
    def from_json(cls, data: Sequence[Any]) -> "Action":
        kind, seat = str(data[0]), int(data[1])
        if kind not in ("play", "pass", "timeout", "leave"):
            raise ValueError(f"unknown action kind: {kind}")
        mask = as_mask(parse_cards(data[2])) if kind == "play" else 0
        return cls(kind, seat, mask)


class PaymentReason(str, Enum):
    PLACE = "place"  # money by finishing place
    CHOP = "chop"  # chặt: 2s and bombs chopped
    INSTANT_WIN = "instant-win"  # tới trắng
    CONG = "cong"  # frozen (cóng)
    LEFTOVER = "leftover"  # thối / úng: 2s and bombs still held at the end
    FINISH_PENALTY = "finish-penalty"  # mien-bac: went out on a 2 or four of a kind
    LEAVE_PENALTY = "leave-penalty"  # left mid-game


class Payment(NamedTuple):
    """``payer`` owes ``payee`` ``units`` bet units for ``reason``."""

    payer: int
    payee: int
    units: int
    reason: PaymentReason


class ChopEvent(NamedTuple):
    """A bomb landing on a 2 or a bomb.

    ``chain_value`` is the chain's total so far (what the chopped player pays
    if nobody chops back); ``chopped_went_out`` is true when the chopped play
    was its player's last cards (then nobody pays for the chain).
    """

    round: int
    chopper: int
    chopped: int
    bomb: Combo
    target: Combo
    value: int
    chain_value: int
    chopped_went_out: bool


class Outcome(NamedTuple):
    """What one action changed, for announcing it."""

    action: Action
    combo: Combo | None = None
    chop: ChopEvent | None = None
    out_of_turn: bool = False
    went_out: int | None = None
    """The place (0 = first) the actor took by playing their last cards."""
    finish_penalty: bool = False
    """mien-bac: the actor went out on a 2 / four of a kind and is ranked last (thối)."""
    frozen: tuple[int, ...] = ()
    """Seats found frozen (cóng) when the first player went out."""
    stuck: tuple[int, ...] = ()
    """mien-bac with going out on a 2 forbidden: leaders holding only unplayable cards."""
    round_over: bool = False
    leader: int | None = None
    """Who leads the new round, when ``round_over``."""
    finished: bool = False
    timed_out_pass: bool = False


@dataclass(frozen=True)
class SeatView:
    """What one seat may know: its own hand and everything played in public.

    This is all an AI player receives; other hands appear only as card counts.
    """

    rules: RuleSet
    seat: int
    players: int
    hand: int
    """This seat's cards (mask)."""
    counts: tuple[int, ...]
    """Cards left in each seat's hand."""
    played: tuple[int, ...]
    """Cards each seat has played so far (masks)."""
    top: Combo | None
    top_owner: int | None
    turn: int | None
    passed: frozenset[int]
    in_play: tuple[bool, ...]
    places: tuple[int, ...]
    left: tuple[int, ...]
    has_played: tuple[bool, ...]
    first_game: bool
    previous_winner: int | None
    required: int
    """Mask of the card the opening lead must contain (0 if none)."""
    actions: tuple[Action, ...]
    """The public action log (a lead-time-out records the card it played)."""
    legal_plays: tuple[Combo, ...]
    """The engine's legal plays for this seat now."""
    round_number: int = 0
    chain_value: int = 0
    """Chop money riding on the current round's chain of chops (public)."""

    @property
    def unseen(self) -> int:
        """Cards this seat has not seen: in other hands, or out of play."""
        from tienlen.cards import FULL_DECK

        seen = self.hand
        for mask in self.played:
            seen |= mask
        return FULL_DECK & ~seen


@dataclass
class _Round:
    """State of the round in progress."""

    number: int = 0
    top: Combo | None = None
    owner: int | None = None
    top_was_last: bool = False
    passed: set[int] = field(default_factory=set)
    chain_value: int = 0


class Game:
    """A game from the deal to the settlement.

    ``hands`` are the seats' cards in seat order (lists of cards, texts or
    masks).  ``first_game=True`` means the holder of the lowest dealt card
    (3♠ with four players) leads and, where the rules say so, must play it;
    otherwise ``previous_winner`` (a seat) leads anything.
    """

    def __init__(
        self,
        rules: RuleSet,
        hands: Sequence["Sequence[Card] | str | int"],
        *,
        first_game: bool = True,
        previous_winner: int | None = None,
        seed: int | str | None = None,
    ) -> None:
        masks = [as_mask(hand) for hand in hands]
        _check_hands(rules, masks)
        if not first_game and (previous_winner is None or not 0 <= previous_winner < len(masks)):
            raise ValueError("a later game needs the seat of the previous winner")
        self.rules = rules
        self.players = len(masks)
        self.first_game = first_game
        self.previous_winner = previous_winner if not first_game else None
        self.seed = seed
        self._dealt = tuple(masks)
        self._hands = list(masks)
        self._in_play = [True] * self.players
        self._active = self.players  # seats still in play
        self._played_any = [False] * self.players
        self._top_places: list[int] = []
        self._bottom: list[int] = []  # bottom[0] takes the last place
        self._left: list[int] = []
        self._frozen: tuple[int, ...] = ()
        self._penalised: list[int] = []  # thối on going out (or stuck), mien-bac
        self._passed_with_play: set[int] = set()
        self._chops: list[ChopEvent] = []
        self._actions: list[Action] = []
        self._round = _Round()
        self._required = 0
        self._turn: int | None = None
        self._finished = False
        self._last_holder: int | None = None
        self.instant_win: InstantWin | None = find_instant_win(rules, masks, first_game=first_game)
        if self.instant_win is not None:
            self._finish_instant_win()
        else:
            self._turn = self._first_leader()

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
        deck = list(range(52))
        random.Random(seed).shuffle(deck)
        hands = [0] * count
        order = deal_order(rules, count)
        for position in range(13 * count):
            hands[order[position % count]] |= 1 << deck[position]
        return cls(rules, hands, first_game=first_game, previous_winner=previous_winner, seed=seed)

    def _first_leader(self) -> int:
        if not self.first_game:
            assert self.previous_winner is not None
            return self.previous_winner
        lowest = min(range(self.players), key=lambda seat: _lowest_bit(self._hands[seat]))
        if self.rules.first_lead_must_include_lowest:
            self._required = _lowest_bit(self._hands[lowest])
        return lowest

    # -------------------------------------------------------------- read-only
    @property
    def turn(self) -> int | None:
        """The seat to act, or None when the game is over."""
        return self._turn

    @property
    def top(self) -> Combo | None:
        """The combination on top of the current round, or None when leading."""
        return self._round.top

    @property
    def top_owner(self) -> int | None:
        """Who played :attr:`top`."""
        return self._round.owner

    @property
    def round_number(self) -> int:
        return self._round.number

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
        return frozenset(self._round.passed)

    @property
    def required_card(self) -> Card | None:
        """The card the opening lead must contain (3♠ in a first game), if any."""
        return Card.from_index(self._required.bit_length() - 1) if self._required else None

    @property
    def finished(self) -> bool:
        return self._finished

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
        return self._in_play[seat]

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
    def cards_played(self) -> int:
        """Mask of every card played so far (visible to all)."""
        played = 0
        for dealt, now in zip(self._dealt, self._hands):
            played |= dealt & ~now
        return played

    def has_played(self, seat: int) -> bool:
        return self._played_any[seat]

    @property
    def last_holder(self) -> int | None:
        """The seat left holding cards when the game ended normally, if any."""
        return self._last_holder

    @property
    def passed_with_play(self) -> frozenset[int]:
        """Seats that passed (before ever playing) although they could have beaten (iwin đền bài)."""
        return frozenset(self._passed_with_play)

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
        if self._finished or not self._in_play[seat]:
            return []
        if seat != self._turn:
            return self._out_of_turn_chops(seat)
        return legal_plays_on_turn(self.rules, self._hands[seat], self._round.top, self._required)

    def _out_of_turn_chops(self, seat: int) -> list[Combo]:
        round_ = self._round
        top = round_.top
        if (
            top is None
            or not self.rules.four_pairs_out_of_turn
            or seat == round_.owner
            or self._hands[seat].bit_count() < 8
        ):
            return []
        return bombs_beating(self._hands[seat], top, self.rules, only=Bomb.FOUR_PAIRS)

    def can_play_out_of_turn(self, seat: int) -> bool:
        """Whether ``seat`` (not on turn) holds a chop it may play right now."""
        return seat != self._turn and bool(self.legal_plays(seat))

    # ---------------------------------------------------------------- actions
    def play(self, seat: int, cards: "Combo | Sequence[Card] | str | int") -> Outcome:
        """Play ``cards`` from ``seat``'s hand; raises :class:`IllegalPlayError`.

        A seat that is not on turn may play only an out-of-turn chop (4 đôi thông
        on a 2 or a bomb, where the rules allow it).
        """
        self._check_seat(seat)
        combo = self._combo_of(seat, cards)
        out_of_turn = seat != self._turn
        if out_of_turn:
            self._check_out_of_turn(seat, combo)
        else:
            self._check_on_turn(combo)
        if self.rules.finish_on_two is FinishOnTwo.FORBIDDEN and _finishes_on_two(self._hands[seat], combo):
            raise IllegalPlayError(
                "you cannot go out with a 2 or a four of a kind", code="finish_on_two"
            )
        return self._apply_play(seat, combo, Action("play", seat, combo[1]), out_of_turn)

    def pass_turn(self, seat: int) -> Outcome:
        """Pass: ``seat`` is locked out until the round ends."""
        self._check_seat(seat)
        self._check_turn(seat)
        if self._round.top is None:
            raise IllegalPlayError("you lead this round, so you cannot pass", code="lead_cannot_pass")
        return self._apply_pass(seat, Action("pass", seat))

    def timeout(self, seat: int) -> Outcome:
        """``seat`` ran out of time: pass, or play its lowest single when leading."""
        self._check_seat(seat)
        self._check_turn(seat)
        action = Action("timeout", seat)
        if self._round.top is not None:
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
        action = Action("leave", seat)
        self._actions.append(action)
        self._left.append(seat)
        was_turn = seat == self._turn
        self._eliminate(seat)
        if seat == self._required_holder():
            self._required = 0
        if self._check_end():
            return Outcome(action, finished=True)
        if not was_turn:
            return Outcome(action)
        if self._round.top is None:
            stuck = self._new_round(self._next_in_play(seat))
            return Outcome(action, round_over=True, leader=self._turn, stuck=stuck, finished=self._finished)
        round_over, stuck = self._advance(after=seat)
        return Outcome(action, round_over=round_over, leader=self._turn if round_over else None,
                       stuck=stuck, finished=self._finished)

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
        if self._finished:
            raise IllegalPlayError("the game is over", code="game_over")
        if not 0 <= seat < self.players:
            raise IllegalPlayError("you are not seated in this game", code="not_seated")
        if not self._in_play[seat]:
            raise IllegalPlayError("you are out of this game", code="already_out")

    def _check_turn(self, seat: int) -> None:
        if seat == self._turn:
            return
        if seat in self._round.passed:
            raise IllegalPlayError("you passed and are locked out until the round ends", code="locked_out")
        raise IllegalPlayError("it is not your turn", code="not_your_turn", turn=self._turn)

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
        if isinstance(cards, Combo) and not (self.rules.follow_suit or not self.rules.consecutive_pairs):
            return cards  # any combination is valid under rules this lenient
        return classify(mask, self.rules)

    def _check_on_turn(self, combo: Combo) -> None:
        top = self._round.top
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
        top = self._round.top
        allowed = (
            top is not None
            and self.rules.four_pairs_out_of_turn
            and combo.bomb is Bomb.FOUR_PAIRS
            and seat != self._round.owner
            and self.rules.can_beat(combo, top)
            and self.rules.is_chop(combo, top)
        )
        if not allowed:
            self._check_turn(seat)

    # -------------------------------------------------------------- mutation
    def _apply_play(self, seat: int, combo: Combo, action: Action, out_of_turn: bool) -> Outcome:
        round_ = self._round
        chop = self._record_chop(seat, combo) if round_.top is not None else None
        hand = self._hands[seat] ^ combo[1]
        self._hands[seat] = hand
        self._played_any[seat] = True
        self._required = 0
        round_.top, round_.owner, round_.top_was_last = combo, seat, hand == 0
        round_.passed.discard(seat)
        self._actions.append(action)
        went_out = None
        penalty = False
        frozen: tuple[int, ...] = ()
        if hand == 0:
            penalty = self.rules.finish_on_two is FinishOnTwo.PENALTY and _finishes_on_two(combo[1], combo)
            if penalty:
                self._penalised.append(seat)
                self._eliminate(seat)
            else:
                self._in_play[seat] = False
                self._active -= 1
                self._top_places.append(seat)
                went_out = len(self._top_places) - 1
                if went_out == 0 and self.rules.cong is not CongRule.NONE:
                    frozen = self._freeze(seat)
            if self._check_end():
                return Outcome(action, combo, chop, out_of_turn, went_out, penalty, frozen, finished=True)
        resume = None
        if out_of_turn and self.rules.out_of_turn_resume is OutOfTurnResume.INTERRUPTED_SEAT:
            resume = self._turn
        round_over, stuck = self._advance(after=seat, resume=resume)
        return Outcome(action, combo, chop, out_of_turn, went_out, penalty, frozen, stuck, round_over,
                       self._turn if round_over else None, self._finished)

    def _record_chop(self, seat: int, combo: Combo) -> ChopEvent | None:
        round_ = self._round
        top = round_.top
        assert top is not None and round_.owner is not None
        if not self.rules.is_chop(combo, top):
            round_.chain_value = 0
            return None
        value = self.rules.chop_value(top)
        round_.chain_value += value
        event = ChopEvent(
            round=round_.number,
            chopper=seat,
            chopped=round_.owner,
            bomb=combo,
            target=top,
            value=value,
            chain_value=round_.chain_value,
            chopped_went_out=round_.top_was_last,
        )
        self._chops.append(event)
        return event

    def _apply_pass(self, seat: int, action: Action, *, timed_out: bool = False) -> Outcome:
        if self.rules.cong is CongRule.IWIN and not self._played_any[seat] and self.legal_plays(seat):
            self._passed_with_play.add(seat)
        self._round.passed.add(seat)
        self._actions.append(action)
        round_over, stuck = self._advance(after=seat)
        return Outcome(action, stuck=stuck, round_over=round_over, leader=self._turn if round_over else None,
                       finished=self._finished, timed_out_pass=timed_out)

    def _advance(self, *, after: int, resume: int | None = None) -> tuple[bool, tuple[int, ...]]:
        """Give the turn to the next seat that may still beat the top, or end
        the round.  Returns (round over, seats found stuck)."""
        round_ = self._round
        owner = round_.owner
        passed = round_.passed
        in_play = self._in_play
        if resume is not None and in_play[resume] and resume not in passed and resume != owner:
            self._turn = resume
            return False, ()
        count = self.players
        for step in range(1, count + 1):
            candidate = (after + step) % count
            if in_play[candidate] and candidate not in passed and candidate != owner:
                self._turn = candidate
                return False, ()
        assert owner is not None
        leader = owner if in_play[owner] else self._next_in_play(owner)
        return True, self._new_round(leader)

    def _new_round(self, leader: int) -> tuple[int, ...]:
        """Start a round led by ``leader``; returns seats found stuck (mien-bac)."""
        self._round = _Round(number=self._round.number + 1)
        self._turn = leader
        stuck: list[int] = []
        # With going out on a 2 forbidden, a leader holding only 2s / a four of a
        # kind can never play: that hand is thối and ranked last.
        while self.rules.finish_on_two is FinishOnTwo.FORBIDDEN and not self.legal_plays(self._turn):
            seat = self._turn
            stuck.append(seat)
            self._penalised.append(seat)
            self._eliminate(seat)
            if self._check_end():
                break
            self._turn = self._next_in_play(seat)
        return tuple(stuck)

    def _eliminate(self, seat: int) -> None:
        """Take ``seat`` out of play at the lowest free place."""
        self._in_play[seat] = False
        self._active -= 1
        self._bottom.append(seat)
        self._round.passed.discard(seat)

    def _freeze(self, winner: int) -> tuple[int, ...]:
        frozen = tuple(
            seat for seat in _seats_after(winner, self.players) if self._in_play[seat] and not self._played_any[seat]
        )
        # The nearest after the winner keeps the highest of the last places.
        for seat in reversed(frozen):
            self._eliminate(seat)
        self._frozen = frozen
        return frozen

    def _check_end(self) -> bool:
        if self._active > 1:
            return False
        remaining = [seat for seat in range(self.players) if self._in_play[seat]]
        if remaining:
            self._last_holder = remaining[0]
            self._in_play[remaining[0]] = False
            self._active = 0
        self._finished = True
        self._turn = None
        return True

    def _finish_instant_win(self) -> None:
        assert self.instant_win is not None
        winner = self.instant_win.seat
        self._top_places = [winner] + [seat for seat in _seats_after(winner, self.players) if seat != winner]
        self._in_play = [False] * self.players
        self._active = 0
        self._finished = True
        self._turn = None

    def _next_in_play(self, seat: int) -> int:
        for candidate in _seats_after(seat, self.players):
            if self._in_play[candidate]:
                return candidate
        raise AssertionError("no seat left in play")

    def _required_holder(self) -> int | None:
        if not self._required:
            return None
        return next(seat for seat in range(self.players) if self._dealt[seat] & self._required)

    def view(self, seat: int) -> SeatView:
        """What ``seat`` may know now (for AI players)."""
        played = tuple(dealt & ~now for dealt, now in zip(self._dealt, self._hands))
        round_ = self._round
        return SeatView(
            rules=self.rules,
            seat=seat,
            players=self.players,
            hand=self._hands[seat],
            counts=tuple(mask.bit_count() if seat_ not in self._left else 0 for seat_, mask in enumerate(self._hands)),
            played=played,
            top=round_.top,
            top_owner=round_.owner,
            turn=self._turn,
            passed=frozenset(round_.passed),
            in_play=tuple(self._in_play),
            places=tuple(self.places),
            left=tuple(self._left),
            has_played=tuple(self._played_any),
            first_game=self.first_game,
            previous_winner=self.previous_winner,
            required=self._required,
            actions=tuple(self._actions),
            legal_plays=tuple(self.legal_plays(seat)),
            round_number=round_.number,
            chain_value=round_.chain_value,
        )

    # ----------------------------------------------------------------- money
    def payments(self) -> list[Payment]:
        """Every payment of the finished game, pairwise, in bet units."""
        if not self._finished:
            raise IllegalPlayError("the game is not over yet", code="not_finished")
        from tienlen.settlement import game_payments

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
        if not self._finished:
            return None
        from tienlen.settlement import cong_culprit

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
        """An independent copy (for search)."""
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._hands = list(self._hands)
        other._in_play = list(self._in_play)
        other._played_any = list(self._played_any)
        other._top_places = list(self._top_places)
        other._bottom = list(self._bottom)
        other._left = list(self._left)
        other._penalised = list(self._penalised)
        other._passed_with_play = set(self._passed_with_play)
        other._chops = list(self._chops)
        other._actions = list(self._actions)
        round_ = self._round
        other._round = _Round(round_.number, round_.top, round_.owner, round_.top_was_last,
                              set(round_.passed), round_.chain_value)
        return other

    def __repr__(self) -> str:
        state = "finished" if self._finished else f"turn={self._turn}"
        return f"<Game {self.rules.name} players={self.players} {state} actions={len(self._actions)}>"


# --------------------------------------------------------------------- helpers
def legal_plays_on_turn(rules: RuleSet, hand: int, top: Combo | None, required: int = 0) -> list[Combo]:
    """What a seat holding ``hand`` (a mask) may play on its turn, with ``top``
    on the table (None: leading; ``required``: mask of a card the lead must
    contain).  :meth:`Game.legal_plays` uses it; AI players use it to reason
    about hands they imagine for the others.

    >>> from tienlen.cards import mask_of, parse_cards
    >>> south = RULESETS["mien-nam"]
    >>> [str(c) for c in legal_plays_on_turn(south, mask_of(parse_cards("4S 9H 2C")), classify("8D", south))]
    ['9♥', '2♣']
    """
    if top is None:
        plays = all_combos(hand, rules)
        if required:
            plays = [combo for combo in plays if combo[1] & required]
    else:
        plays = beating_combos(hand, top, rules)
    if rules.finish_on_two is FinishOnTwo.FORBIDDEN:
        plays = [combo for combo in plays if not _finishes_on_two(hand, combo)]
    return plays


def _finishes_on_two(hand: int, combo: Combo) -> bool:
    """Whether ``combo`` would be the hand's last cards and holds a 2 or is a four of a kind."""
    return combo[1] == hand and (bool(combo[1] & TWOS_MASK) or combo[0] is FOUR_OF_A_KIND)


def deal_order(rules: RuleSet, players: int) -> list[int]:
    """Seats in dealing order: the seat after the dealer first, the dealer last."""
    dealer = rules.dealer_seat % players
    return [(dealer + step) % players for step in range(1, players + 1)]


def _seats_after(seat: int, players: int) -> list[int]:
    return [(seat + step) % players for step in range(1, players)]


def _lowest_bit(mask: int) -> int:
    return mask & -mask if mask else 1 << 60


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


