"""Immutable pictures of a table for the Discord layer: public and per player.

The runtime builds these inside the table lock, after a change is stored, from
the committed :class:`~runtime.state.TableState` and the deadline the
scheduler derived, so what the cogs display is always a committed,
consistent state.  The public
:class:`TableSnapshot` holds no hidden card; a :class:`HandSnapshot` holds one
player's own cards and is only ever sent to that player.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tienlen import Card, Combo, RuleSet
from tienlen.table import NextLead, Phase, Table

if TYPE_CHECKING:
    from runtime.state import TableState
    from tienlen.game import Game

__all__ = ["Event", "TAKEN_OVER", "SeatInfo", "TableSnapshot", "HandSnapshot", "GameSummary", "PaymentLine", "snapshot_of", "hand_of"]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened at a table, for the announcement line.

    ``kind`` is one of: joined, left_table, ai_added, ai_removed, host_changed,
    configured, game_started, played, passed, timeout, chop, out, finish_penalty,
    frozen, stuck, round_over, left_game, afk, back, instant_win, game_over,
    aborted, restored.  Only public facts are carried (played cards are public).
    """

    kind: str
    seat: int | None = None
    name: str = ""
    other: str = ""
    combo: Combo | None = None
    value: int = 0


TAKEN_OVER = "takeover"
"""``Event("restored").other`` when the slot had a holder before (PostgreSQL):
a restart and a failover to another process look alike from here."""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    index: int
    name: str
    user_id: int | None
    is_ai: bool
    ai_level: str | None
    afk: bool
    cards_left: int
    passed: bool
    place: int | None
    left: bool
    frozen: bool
    on_turn: bool
    is_host: bool
    ready: bool


@dataclass(frozen=True, slots=True)
class PaymentLine:
    payer: str
    payee: str
    units: int
    reason: str
    settled: bool = True
    """Chips moved for it (False when an AI seat pays or is paid: AI seats hold no chips)."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """The public end-of-game result."""

    game_id: int | None
    places: tuple[str, ...]
    payments: tuple[PaymentLine, ...]
    chips: tuple[tuple[str, int, int | None], ...]
    """(name, chips won or lost, balance after) for each human seat."""
    instant_win: tuple[str, str] | None
    """(winner name, kind) of a tới trắng."""
    frozen: tuple[str, ...]
    final_hands: tuple[tuple[str, tuple[Card, ...]], ...]
    """Everyone's remaining cards, shown once the game is over."""
    bet: int
    rake_percent: int
    language: str | None = None
    """The language the server chose for the table's public messages (None: its own)."""
    ratings: tuple[tuple[str, int, int], ...] = ()
    """(name, shown rating before, after) for each human, when the game moved ratings."""


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    channel_id: int
    guild_id: int
    version: int
    phase: Phase
    rules: RuleSet
    bet: int
    turn_seconds: int
    host_id: int
    message_id: int | None
    seats: tuple[SeatInfo, ...]
    game_id: int | None
    game_number: int
    turn: int | None
    deadline: float | None
    top: Combo | None
    top_owner: int | None
    lead: NextLead | None
    events: tuple[Event, ...]
    tally: tuple[tuple[str, int], ...]
    summary: GameSummary | None = None
    closed: bool = False
    opening_requires_lowest: bool = False
    """Nothing played yet and the opening play must contain the lowest card (docs/rules.md §3)."""
    language: str | None = None
    """The language the server chose for this table message (None: its own Discord language)."""
    ranked: bool = False
    """A ranked table: people only, the rule set's own turn time."""

    def seat_name(self, index: int | None) -> str:
        if index is None or not 0 <= index < len(self.seats):
            return "?"
        return self.seats[index].name


@dataclass(frozen=True, slots=True)
class HandSnapshot:
    """One player's private view: their cards and what they may do now."""

    channel_id: int
    guild_id: int
    game_id: int
    seat: int
    cards: tuple[Card, ...]
    legal: tuple[Combo, ...]
    is_turn: bool
    can_pass: bool
    """On turn with a play to answer (the round's leader cannot pass)."""
    out_of_turn: bool
    """They hold a chop they may play now although it is not their turn."""
    top: Combo | None
    required: Card | None
    in_play: bool
    finished: bool
    deadline: float | None
    locale: str = "en-US"
    """The player's Discord language (their DMs follow it)."""
    selected: tuple[Card, ...] = field(default=())
    turn_name: str | None = None
    """Who is on turn (so a waiting player knows whom they wait for)."""
    version: int = 0
    """How many actions the game had when this view was made: of two views of
    one game, the one with the smaller version is older."""


def snapshot_of(
    state: "TableState",
    *,
    version: int,
    deadline: float | None = None,
    events: tuple[Event, ...] = (),
    lead: NextLead | None = None,
    summary: GameSummary | None = None,
    closed: bool = False,
) -> TableSnapshot:
    """The public picture of the table of ``state`` now (``deadline``: when
    the seat on turn times out, as the scheduler derived it)."""
    table = state.table
    game = state.game
    seats = _game_seats(table, game) if game is not None else _lobby_seats(table)
    tally = tuple((_name_of(table, user_id), amount) for user_id, amount in table.tally.items())
    return TableSnapshot(
        channel_id=table.channel_id,
        guild_id=table.guild_id,
        version=version,
        phase=table.phase,
        rules=table.rules,
        bet=table.bet,
        turn_seconds=table.turn_seconds,
        host_id=table.host_id,
        message_id=state.message_id,
        seats=seats,
        game_id=table.game_id,
        game_number=table.games_played + (1 if table.phase is Phase.PLAYING else 0),
        turn=game.turn if game is not None else None,
        deadline=deadline if game is not None else None,
        top=game.top if game is not None else None,
        top_owner=game.top_owner if game is not None else None,
        lead=lead,
        events=events,
        tally=tally,
        summary=summary,
        closed=closed,
        ranked=table.ranked,
        opening_requires_lowest=game is not None and game.required_card is not None,
        language=state.language,
    )


def _game_seats(table: Table, game: "Game") -> tuple[SeatInfo, ...]:
    counts = game.card_counts()
    frozen, left = set(game.cong), set(game.left)
    return tuple(
        SeatInfo(
            index=index,
            name=seat.name,
            user_id=seat.user_id,
            is_ai=seat.is_ai,
            ai_level=seat.ai_level,
            afk=seat.afk,
            cards_left=0 if index in left else counts[index],
            passed=index in game.passed,
            place=game.place_of(index),
            left=index in left,
            frozen=index in frozen,
            on_turn=index == game.turn,
            is_host=seat.user_id == table.host_id and seat.user_id is not None,
            ready=False,
        )
        for index, seat in enumerate(table.game_seats)
    )


def _lobby_seats(table: Table) -> tuple[SeatInfo, ...]:
    return tuple(
        SeatInfo(
            index=index,
            name=seat.name,
            user_id=seat.user_id,
            is_ai=seat.is_ai,
            ai_level=seat.ai_level,
            afk=False,
            cards_left=0,
            passed=False,
            place=None,
            left=False,
            frozen=False,
            on_turn=False,
            is_host=seat.user_id == table.host_id and seat.user_id is not None,
            ready=seat.ready,
        )
        for index, seat in enumerate(table.seats)
    )


def _name_of(table: Table, user_id: int) -> str:
    for seat in table.seats + table.game_seats:
        if seat.user_id == user_id:
            return seat.name
    return str(user_id)


def hand_of(state: "TableState", seat: int, *, deadline: float | None = None,
            selected: tuple[Card, ...] = ()) -> HandSnapshot:
    """``seat``'s private view of the game in progress (or of the one just ended)."""
    table = state.table
    game = table.game
    assert game is not None
    is_turn = game.turn == seat
    legal = tuple(sorted(game.legal_plays(seat), key=lambda combo: (combo.size, combo.top)))
    hand = game.hand(seat)
    return HandSnapshot(
        channel_id=table.channel_id,
        guild_id=table.guild_id,
        game_id=table.game_id or 0,
        seat=seat,
        cards=tuple(hand),
        legal=legal,
        is_turn=is_turn,
        can_pass=game.can_pass(seat),
        out_of_turn=not is_turn and bool(legal),
        top=game.top,
        required=game.required_card if is_turn else None,
        in_play=game.in_play(seat),
        finished=game.finished,
        deadline=deadline,
        locale=state.locale_of(table.game_seats[seat].user_id),
        selected=tuple(card for card in selected if card in hand),
        turn_name=table.game_seats[game.turn].name if game.turn is not None else None,
        version=len(game.actions),
    )
