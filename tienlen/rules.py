"""Rule sets: every table option of docs/rules.md as a field of a frozen :class:`RuleSet`.

The three presets of ``docs/rules.md`` live in :data:`RULESETS`.  A table that
wants a variation changes a field with :func:`dataclasses.replace`; the engine,
the AI and the help text all read these same fields, so they cannot drift apart.

>>> rules = RULESETS["mien-nam"]
>>> rules.name, rules.turn_seconds, rules.rake_percent
('mien-nam', 30, 0)
>>> from dataclasses import replace
>>> replace(rules, dragon_length=12).dragon_length
12
>>> from tienlen.combos import classify
>>> rules.can_beat(classify("3S 3C 4S 4C 5S 5C", rules), classify("2S", rules))
True
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Mapping

from tienlen.values import (
    BOMB_CODES,
    PAIR,
    SINGLE,
    STRAIGHT,
    TARGET_CODES,
    TRIPLE,
    Bomb,
    ChopTarget,
    bomb_code,
    target_code,
)

if TYPE_CHECKING:
    from tienlen.values import Combo

__all__ = [
    "Bomb",
    "ChopTarget",
    "InstantWinKind",
    "FinishOnTwo",
    "CongRule",
    "LeftoverRule",
    "InstantWinTieBreak",
    "OutOfTurnResume",
    "RuleSet",
    "RULESETS",
    "DEFAULT_RULESET",
    "deal_order",
]


class InstantWinKind(str, Enum):
    """Tới trắng hands, highest first (the order used by ``mien-nam`` ties; keep it)."""

    DRAGON = "dragon"  # sảnh rồng
    SIX_PAIRS = "six-pairs"  # 6 đôi
    FIVE_CONSECUTIVE_PAIRS = "five-consecutive-pairs"  # 5 đôi thông
    FOUR_TWOS = "four-twos"  # tứ quý heo
    THREE_SPADES_OPENING = "three-spades-opening"  # iwin: 3♠ holder with 3-4-5 ĐT or four 3s


class FinishOnTwo(str, Enum):
    """Going out with a play containing a 2 or a four of a kind (``mien-bac``)."""

    ALLOWED = "allowed"  # the Southern way
    PENALTY = "penalty"  # thối: ranked last, pays each other player
    FORBIDDEN = "forbidden"  # the play is refused


class CongRule(str, Enum):
    """Cóng: a player who has played no card when the first player goes out."""

    NONE = "none"
    SOUTH = "mien-nam"  # frozen pay the winner `cong_base` + value of 2s/bombs
    IWIN = "iwin"  # as SOUTH, plus: two frozen → third pays 1B; three → đền bài


class LeftoverRule(str, Enum):
    """Thối / úng: paying for 2s and bombs still held at the end."""

    NONE = "none"
    CHOP_VALUES = "chop-values"  # iwin: pays the one placed above the chop value of 2s and bombs
    NORTH = "north"  # mien-bac: black 2 = 1B, red 2 = 2B, four of a kind = 2B


class InstantWinTieBreak(str, Enum):
    """Several instant winners at once."""

    KIND_THEN_DEAL_ORDER = "kind-then-deal-order"  # mien-nam
    DEAL_ORDER = "deal-order"  # iwin


class OutOfTurnResume(str, Enum):
    """Who plays next after an out-of-turn chop (decision)."""

    AFTER_CHOPPER = "after-chopper"
    INTERRUPTED_SEAT = "interrupted-seat"  # the seat that was on turn keeps it


_SOUTH_CHOPS = frozenset(
    {
        (ChopTarget.SINGLE_TWO, Bomb.THREE_PAIRS),
        (ChopTarget.SINGLE_TWO, Bomb.FOUR_OF_A_KIND),
        (ChopTarget.SINGLE_TWO, Bomb.FOUR_PAIRS),
        (ChopTarget.PAIR_OF_TWOS, Bomb.FOUR_OF_A_KIND),
        (ChopTarget.PAIR_OF_TWOS, Bomb.FOUR_PAIRS),
        (ChopTarget.THREE_TWOS, Bomb.FOUR_PAIRS),
        (ChopTarget.THREE_PAIRS, Bomb.THREE_PAIRS),
        (ChopTarget.THREE_PAIRS, Bomb.FOUR_OF_A_KIND),
        (ChopTarget.THREE_PAIRS, Bomb.FOUR_PAIRS),
        (ChopTarget.FOUR_OF_A_KIND, Bomb.FOUR_OF_A_KIND),
        (ChopTarget.FOUR_OF_A_KIND, Bomb.FOUR_PAIRS),
        (ChopTarget.FOUR_PAIRS, Bomb.FOUR_PAIRS),
    }
)
_NORTH_CHOPS = frozenset(
    {
        (ChopTarget.SINGLE_TWO, Bomb.FOUR_OF_A_KIND),
        (ChopTarget.FOUR_OF_A_KIND, Bomb.FOUR_OF_A_KIND),
    }
)

# Place money: (payer place, payee place, bet units) per number of players; place 0 = first.
_SOUTH_PLACES = (
    (2, ((1, 0, 2),)),
    (3, ((2, 0, 2), (1, 0, 1))),
    (4, ((3, 0, 2), (2, 1, 1))),
)
_NORTH_PLACES = (
    (2, ((1, 0, 1),)),
    (3, ((1, 0, 1), (2, 0, 2))),
    (4, ((1, 0, 1), (2, 0, 2), (3, 0, 3))),
)

_ALL_INSTANT_WINS = frozenset(
    {
        InstantWinKind.DRAGON,
        InstantWinKind.SIX_PAIRS,
        InstantWinKind.FIVE_CONSECUTIVE_PAIRS,
        InstantWinKind.FOUR_TWOS,
    }
)


@dataclass(frozen=True)
class RuleSet:
    """Everything that differs between tables; money is in bet units (B).

    A single rule set object is shared by all games that use it, so it is
    immutable; derive variants with ``dataclasses.replace``.
    """

    name: str
    # --- combinations and beating (docs/rules.md §1) ---
    follow_suit: bool = False
    """Northern suit-following: singles same suit, pairs same colour, triples same
    suits, straights one suit; mixed-colour pairs and mixed-suit straights are no combos."""
    twos_beat_any_suit: bool = True
    """With ``follow_suit``: a 2 beats any lower single, a pair of 2s any lower pair (decision)."""
    consecutive_pairs: bool = True
    """Whether đôi thông exist as a combination (and so 3ĐT/4ĐT bombs)."""
    # --- chopping (docs/rules.md §2) ---
    chops: frozenset[tuple[ChopTarget, Bomb]] = _SOUTH_CHOPS
    """Which bomb may land on which 2 or bomb (same-kind bombs: only higher ones)."""
    four_pairs_out_of_turn: bool = True
    """4 đôi thông "tự do": playable out of turn, even after passing."""
    out_of_turn_resume: OutOfTurnResume = OutOfTurnResume.AFTER_CHOPPER
    # --- flow (docs/rules.md §3) ---
    first_lead_must_include_lowest: bool = True
    """First game: the lead must contain 3♠ (or the lowest dealt card when 3♠ is not dealt)."""
    winner_left_lead: str = "three-spades"
    """Later game whose previous winner left: ``"three-spades"`` or ``"second-place"``."""
    finish_on_two: FinishOnTwo = FinishOnTwo.ALLOWED
    turn_seconds: int = 30
    dealer_seat: int = 0
    """Seat that deals; cards go to the seat after it first (instant-win ties)."""
    # --- instant wins (docs/rules.md §4) ---
    instant_wins: frozenset[InstantWinKind] = _ALL_INSTANT_WINS
    dragon_length: int = 13
    """13: 3…2; 12: 3…A also counts as a dragon."""
    quad_counts_as_two_pairs: bool = True
    """For "6 pairs" a four of a kind counts as two pairs (decision)."""
    instant_win_tie_break: InstantWinTieBreak = InstantWinTieBreak.KIND_THEN_DEAL_ORDER
    instant_win_payment: int = 2
    # --- money (docs/rules.md §5) ---
    place_payments: tuple[tuple[int, tuple[tuple[int, int, int], ...]], ...] = _SOUTH_PLACES
    """Per number of players: (payer place, payee place, bet units) lines; place 0 = first."""
    chop_money: bool = True
    black_two_value: int = 1
    red_two_value: int = 2
    three_pairs_value: int = 2
    four_of_a_kind_value: int = 3
    four_pairs_value: int = 4
    leftover: LeftoverRule = LeftoverRule.NONE
    north_leftover_four_of_a_kind: int = 2
    cong: CongRule = CongRule.SOUTH
    cong_base: int = 2
    """Cóng base in bet units (decision for mien-nam: 2B; iwin: two ván nhất = 4B)."""
    finish_on_two_penalty: int = 2
    """Thối for going out on a 2 / four of a kind: pays this to each other player."""
    leave_penalty: int = 0
    """Extra bet units a leaver pays each other player (mien-nam: 1)."""
    rake_percent: int = 0
    """Taken by the chips layer from each winner's gain (iwin: 5)."""
    min_players: int = 2
    max_players: int = 4

    def __post_init__(self) -> None:
        if self.dragon_length not in (12, 13):
            raise ValueError("dragon_length must be 12 or 13")
        if not 2 <= self.min_players <= self.max_players <= 4:
            raise ValueError("a table seats 2 to 4 players")
        if self.winner_left_lead not in ("three-spades", "second-place"):
            raise ValueError("winner_left_lead must be 'three-spades' or 'second-place'")
        defined = {players for players, _ in self.place_payments}
        for players in range(self.min_players, self.max_players + 1):
            if players not in defined:
                raise ValueError(f"no place money for {players} players")
        # Derived, not a field: bit ``4 * target code + bomb code`` is set when that
        # bomb may chop that target (codes of tienlen.values), so a chop check is a shift.
        chop_bits = 0
        for target, bomb in self.chops:
            chop_bits |= 1 << (4 * TARGET_CODES[ChopTarget(target)] + BOMB_CODES[Bomb(bomb)])
        object.__setattr__(self, "_chop_bits", chop_bits)
        object.__setattr__(self, "_forbid_finish_on_two", FinishOnTwo(self.finish_on_two) is FinishOnTwo.FORBIDDEN)
        # The enabled instant wins, highest first (InstantWinKind is declared in that order).
        enabled = {InstantWinKind(kind) for kind in self.instant_wins}
        object.__setattr__(self, "_instant_win_order", tuple(kind for kind in InstantWinKind if kind in enabled))

    # ------------------------------------------------------------------ beating
    def can_beat(self, play: "Combo", top: "Combo") -> bool:
        """May ``play`` go on ``top``? By kind, size, suit-following and chops;
        whose turn it is does not matter here.

        >>> from tienlen.combos import classify
        >>> south, north = RULESETS["mien-nam"], RULESETS["mien-bac"]
        >>> south.can_beat(classify("10S", south), classify("9H", south))
        True
        >>> north.can_beat(classify("9H", north), classify("7S", north))
        False
        """
        if play[0] is top[0] and play[3] == top[3]:
            if play[2] <= top[2]:
                return False
            return not self.follow_suit or _follows_suit(self, play, top)
        if not self._chop_bits >> (4 * target_code(top) + bomb_code(play)) & 1:
            return False
        # A longer run of pairs beats a shorter one, never the other way round.
        return play[0] is not top[0] or play[3] > top[3]

    def is_chop(self, play: "Combo", top: "Combo") -> bool:
        """Whether ``play`` on ``top`` is a chop (a bomb landing on a 2 or a bomb,
        as listed in :attr:`chops`); a chop pays chop money.

        >>> from tienlen.combos import classify
        >>> south = RULESETS["mien-nam"]
        >>> south.is_chop(classify("9S 9C 9D 9H", south), classify("2H", south))
        True
        """
        return bool(self._chop_bits >> (4 * target_code(top) + bomb_code(play)) & 1)

    def chop_value(self, combo: "Combo") -> int:
        """Chop money of a played 2, 2s or bomb, in bet units (0 for anything else)."""
        code = bomb_code(combo)
        if code:
            return (0, self.three_pairs_value, self.four_of_a_kind_value, self.four_pairs_value)[code]
        if combo[2] >= 48 and (combo[0] is SINGLE or combo[0] is PAIR or combo[0] is TRIPLE):
            return sum(self.two_value(index) for index in range(48, 52) if combo[1] >> index & 1)
        return 0

    def two_value(self, index: int) -> int:
        """Chop value of the 2 with card index ``index`` (48..51)."""
        return self.red_two_value if index >= 50 else self.black_two_value

    def place_lines(self, players: int) -> tuple[tuple[int, int, int], ...]:
        """Place money for ``players`` players: (payer place, payee place, units)."""
        for count, lines in self.place_payments:
            if count == players:
                return lines
        raise ValueError(f"no place money for {players} players")

    def max_plausible_loss(self, players: int = 4) -> int:
        """Bet units one player could plausibly lose in one game; a table asks
        this many bets of each player before they sit down.

        The worst of: last place plus thối on two red 2s and a four of a kind;
        cóng with the same cards; going out on a 2 (mien-bac) — plus one chopped
        red 2 and the leave penalty to everyone else.

        >>> [RULESETS[name].max_plausible_loss() for name in ("mien-nam", "iwin", "mien-bac")]
        [14, 13, 9]
        """
        others = players - 1
        worst_place = max(units for count, lines in self.place_payments for _, _, units in lines)
        caught_quad = self.north_leftover_four_of_a_kind if self.leftover is LeftoverRule.NORTH else self.four_of_a_kind_value
        caught = 2 * self.red_two_value + caught_quad
        leftover = caught if self.leftover is not LeftoverRule.NONE else 0
        frozen = self.cong_base + caught if self.cong is not CongRule.NONE else 0
        finish = self.finish_on_two_penalty * others if self.finish_on_two is FinishOnTwo.PENALTY else 0
        chop = self.red_two_value if self.chop_money else 0
        return max(worst_place + leftover, frozen, finish) + chop + self.leave_penalty * others

    def players_ok(self, players: int) -> bool:
        return self.min_players <= players <= self.max_players

    # ------------------------------------------------------------ serialisation
    def options(self) -> dict[str, Any]:
        """The fields that differ from this rule set's preset, JSON-ready."""
        base = RULESETS.get(self.name)
        out: dict[str, Any] = {}
        for item in dataclasses.fields(self):
            value = getattr(self, item.name)
            if item.name == "name":
                continue
            if base is None or getattr(base, item.name) != value:
                out[item.name] = _to_json(value)
        return out

    @classmethod
    def from_options(cls, name: str, options: Mapping[str, Any] | None = None) -> "RuleSet":
        """Rebuild a rule set from a preset name and :meth:`options`."""
        base = RULESETS[name] if name in RULESETS else DEFAULT_RULESET
        changes: dict[str, Any] = {"name": name}
        types = {item.name: item for item in dataclasses.fields(cls)}
        for key, value in (options or {}).items():
            if key not in types:
                raise ValueError(f"unknown rule option: {key}")
            changes[key] = _from_json(key, value, getattr(base, key))
        return dataclasses.replace(base, **changes)


def _follows_suit(rules: RuleSet, play: "Combo", top: "Combo") -> bool:
    """Northern suit-following for two combos of the same kind and size."""
    kind = play[0]
    if kind is SINGLE:
        return (play[2] & 3) == (top[2] & 3) or (play[2] >= 48 and rules.twos_beat_any_suit)
    if kind is PAIR:  # same colour: ♠♣ (suits 0, 1) or ♦♥ (2, 3)
        return (play[2] & 2) == (top[2] & 2) or (play[2] >= 48 and rules.twos_beat_any_suit)
    if kind is TRIPLE:
        return (play[1] >> (play[2] & ~3)) == (top[1] >> (top[2] & ~3))
    if kind is STRAIGHT:
        return (play[2] & 3) == (top[2] & 3)
    return True


def deal_order(rules: RuleSet, players: int) -> list[int]:
    """Seats in dealing order: the seat after the dealer first, the dealer last.

    >>> deal_order(RULESETS["mien-nam"], 4)
    [1, 2, 3, 0]
    """
    dealer = rules.dealer_seat % players
    return [(dealer + step) % players for step in range(1, players + 1)]


def _to_json(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, frozenset):
        return sorted(_to_json(item) for item in value)
    if isinstance(value, tuple):
        return [_to_json(item) for item in value]
    return value


def _from_json(key: str, value: Any, example: Any) -> Any:
    if key == "chops":
        return frozenset((ChopTarget(target), Bomb(bomb)) for target, bomb in value)
    if key == "instant_wins":
        return frozenset(InstantWinKind(item) for item in value)
    if key == "place_payments":
        return tuple(
            (int(players), tuple(tuple(int(x) for x in line) for line in lines)) for players, lines in value
        )
    if isinstance(example, Enum):
        return type(example)(value)
    return value


RULESETS: dict[str, RuleSet] = {
    "mien-nam": RuleSet(
        name="mien-nam",
        leave_penalty=1,
    ),
    "iwin": RuleSet(
        name="iwin",
        instant_wins=_ALL_INSTANT_WINS | {InstantWinKind.THREE_SPADES_OPENING},
        instant_win_tie_break=InstantWinTieBreak.DEAL_ORDER,
        cong=CongRule.IWIN,
        cong_base=4,
        leftover=LeftoverRule.CHOP_VALUES,
        turn_seconds=20,
        rake_percent=5,
    ),
    "mien-bac": RuleSet(
        name="mien-bac",
        follow_suit=True,
        consecutive_pairs=False,
        chops=_NORTH_CHOPS,
        four_pairs_out_of_turn=False,
        first_lead_must_include_lowest=False,
        winner_left_lead="second-place",
        finish_on_two=FinishOnTwo.PENALTY,
        instant_wins=frozenset(),
        place_payments=_NORTH_PLACES,
        chop_money=False,
        leftover=LeftoverRule.NORTH,
        cong=CongRule.NONE,
    ),
}
DEFAULT_RULESET = RULESETS["mien-nam"]
