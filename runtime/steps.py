"""Every table change as a pure step: (state, command) → new state, events, records.

A step reads the committed :class:`~runtime.state.TableState`, works on a
copy, and returns a :class:`Step`: the state to keep once its records are
stored, the public events, and the records.  It changes nothing shared, does
no I/O and reads no clock (``now`` comes in the :class:`Context`).  A command
that is not allowed raises (:class:`~tienlen.table.TableError`,
:class:`~tienlen.IllegalPlayError`) before anything is stored; a command
that no longer applies (a time-out for a turn already played) raises
:class:`Stale`.

>>> from tienlen import RULESETS
>>> ctx = Context(now=100.0)
>>> step = apply(None, CreateTable(channel_id=1, guild_id=2, host_id=10, host_name="An"), ctx)
>>> [type(record).__name__ for record in step.records], step.events[0].kind
(['SaveTable'], 'joined')
>>> step = apply(step.state, Join(user_id=11, name="Bình"), ctx)
>>> step = apply(step.state, Start(requester=10, seed=7), ctx)
>>> step.state.table.phase.value, [type(record).__name__ for record in step.records]
('playing', ['CreateGame', 'SaveTable'])

After the store writes a step's records, :func:`complete` fills in what
only the store knew (the new game's id, what a settlement paid).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Callable, Union

from runtime.outcomes import events_of, game_outcome
from runtime.records import (
    AbortGame, AppendAction, CreateGame, DeleteTable, Receipt, Record, SaveTable, SeatOutcome, SettleGame,
)
from runtime.snapshot import Event
from runtime.state import TableState
from tienlen import Combo, Game
from tienlen.ratings import MIN_HUMANS, ranks
from tienlen.table import MIN_TURN_SECONDS, NextLead, Phase, Seat, Table, TableError

__all__ = [
    "Context", "Step", "Stale", "GameJustEnded", "Owner", "apply", "complete", "in_store", "owner_of", "abandon",
    "next_game_deals",
    "CreateTable", "SetMessage", "NoteLocale", "Join", "Leave", "AddAi", "RemoveAi", "TransferHost", "Configure",
    "End", "Start", "NextGame", "Play", "Pass", "TimeOut", "AiMove", "Settle", "Conclude", "IdleClose",
    "AI_NAMES",
]

AI_NAMES = ("Bot Lan", "Bot Minh", "Bot Hùng", "Bot Mai", "Bot Tú", "Bot Hoa")


class Stale(TableError):
    """The command was meant for a moment that has passed (the turn was
    played, the table moved on): nothing to do."""

    def __init__(self) -> None:
        super().__init__("stale")


class GameJustEnded(TableError):
    """End met a game that had just ended (its last move came first): the
    game stands as played and paid, and the table was closed all the same."""

    def __init__(self) -> None:
        super().__init__("game_just_ended")


@dataclass(frozen=True)
class Context:
    """What a step may know besides the state and the command."""

    now: float
    min_turn_seconds: int = MIN_TURN_SECONDS
    idle_seconds: float = 15 * 60.0


@dataclass(frozen=True)
class Step:
    """What one command did."""

    state: TableState | None
    """The state to keep once the records are stored (None: the table closed)."""
    records: tuple[Record, ...] = ()
    events: tuple[Event, ...] = ()
    lead: NextLead | None = None
    """How the game just dealt starts."""
    dealt: bool = False
    refresh: frozenset[int] = frozenset()
    """Game seats whose private hands changed (or who may now chop out of turn)."""
    actor: int | None = None
    """The game seat that acted (the answer to its own press shows its hand)."""
    started: bool = False
    """A game was dealt (NextGame tells whether the host or the last ready player started it)."""
    closed: str | None = None
    """Why the table closed: "empty", "ended" or "idle"."""
    concluded: bool = False
    """A finished game was paid out and the table moved on (the summary is due)."""
    just_ended: bool = False
    """End found the game already over and paid: nothing was called off (the caller is told)."""
    final: TableState | None = None
    """What a closing step leaves to show, when not the state before it (the last game counted in)."""


# ------------------------------------------------------------------ commands
@dataclass(frozen=True)
class CreateTable:
    channel_id: int
    guild_id: int
    host_id: int
    host_name: str
    locale: str = "en-US"
    rules_name: str = "mien-nam"
    bet: int = 10
    turn_seconds: int | None = None
    language: str | None = None
    """The server's language for the public table message (None: its own Discord language)."""
    ranked: bool = False


@dataclass(frozen=True)
class SetMessage:
    message_id: int


@dataclass(frozen=True)
class NoteLocale:
    user_id: int
    locale: str


@dataclass(frozen=True)
class Join:
    user_id: int
    name: str
    locale: str = "en-US"


@dataclass(frozen=True)
class Leave:
    user_id: int


@dataclass(frozen=True)
class AddAi:
    requester: int
    level: str = "normal"


@dataclass(frozen=True)
class RemoveAi:
    requester: int


@dataclass(frozen=True)
class TransferHost:
    requester: int
    target: int


@dataclass(frozen=True)
class Configure:
    requester: int
    rules_name: str | None = None
    bet: int | None = None
    turn_seconds: int | None = None


@dataclass(frozen=True)
class End:
    requester: int
    is_admin: bool = False


@dataclass(frozen=True)
class Start:
    requester: int | None
    seed: int
    language: str | None = None
    """The server's language for the public table message of this game."""
    ranked_only: bool = False
    """The server rates only the games of ranked tables."""


@dataclass(frozen=True)
class NextGame:
    user_id: int
    seed: int
    language: str | None = None
    ranked_only: bool = False


@dataclass(frozen=True)
class Play:
    user_id: int
    cards: "Combo | int"


@dataclass(frozen=True)
class Pass:
    user_id: int


@dataclass(frozen=True)
class TimeOut:
    """The seat on turn ran out of time in game ``game_id`` after ``version`` actions."""

    game_id: int
    version: int


@dataclass(frozen=True)
class AiMove:
    """What the AI decided for ``seat`` (mask None: pass) at that version of the game."""

    game_id: int
    version: int
    seat: int
    mask: int | None


@dataclass(frozen=True)
class Settle:
    """Pay out a finished game that was not paid yet (restored from before a settlement)."""


@dataclass(frozen=True)
class Conclude:
    """The finished game is paid: the table moves on to the next game."""


@dataclass(frozen=True)
class IdleClose:
    """Close a lobby or finished table nobody touched for a while."""


Command = Union[CreateTable, SetMessage, NoteLocale, Join, Leave, AddAi, RemoveAi, TransferHost, Configure, End,
                Start, NextGame, Play, Pass, TimeOut, AiMove, Settle, Conclude, IdleClose]


def apply(state: TableState | None, command: Command, ctx: Context) -> Step:
    """The step ``command`` makes from ``state`` (None only for CreateTable)."""
    if isinstance(command, CreateTable):
        if state is not None:
            raise TableError("table_exists")
        return _create(command, ctx)
    if state is None:
        raise TableError("no_table")
    return _STEPS[type(command)](state, command, ctx)


def complete(step: Step, receipt: Receipt) -> TableState | None:
    """The step's state, with what storing its records made known."""
    state = step.state
    if state is None:
        return None
    if receipt.game_id is not None and state.table.game_id is None and state.table.phase is Phase.PLAYING:
        state.table.game_id = receipt.game_id  # the copy is the step's own until it is kept
    if receipt.payout is not None:
        state = replace(state, payout=replace(receipt.payout, game_id=state.table.game_id or receipt.payout.game_id))
    return state


def in_store(step: Step, stored: TableState | None) -> bool:
    """Whether ``stored``, the table as read back from the database, holds
    what ``step`` wrote (its commit's answer was lost): its table row, its
    game's deal and actions, and the settlement it made (only the store knows
    the new game's id and what was paid, so those are not compared)."""
    expected = step.state
    if expected is None or stored is None:
        return expected is None and stored is None
    settles = any(isinstance(record, SettleGame) for record in step.records)
    return (stored.stored() == expected.stored() and _game_json(stored) == _game_json(expected)
            and (stored.payout is not None) == (settles or expected.payout is not None))


def _game_json(state: TableState) -> dict[str, Any] | None:
    game = state.game
    return game.to_json() if game is not None else None


# ------------------------------------------------------------------- lobby
def _create(command: CreateTable, ctx: Context) -> Step:
    table = Table.create(
        channel_id=command.channel_id, guild_id=command.guild_id, host=Seat.human(command.host_id, command.host_name),
        rules_name=command.rules_name, bet=command.bet, turn_seconds=command.turn_seconds,
        min_turn_seconds=ctx.min_turn_seconds, ranked=command.ranked,
    )
    state = TableState(table=table, last_activity=ctx.now, locales={command.host_id: command.locale},
                       language=command.language)
    return _saved(state, Event(kind="joined", name=command.host_name))


def _set_message(state: TableState, command: SetMessage, ctx: Context) -> Step:
    if state.message_id == command.message_id:
        raise Stale()
    return _saved(replace(state, message_id=command.message_id))


def _note_locale(state: TableState, command: NoteLocale, ctx: Context) -> Step:
    if command.user_id not in state.locales or state.locales[command.user_id] == command.locale:
        raise Stale()
    locales = dict(state.locales)
    locales[command.user_id] = command.locale
    return _saved(replace(state, locales=locales))


def _join(state: TableState, command: Join, ctx: Context) -> Step:
    new = state.edit(last_activity=ctx.now)
    new.table.join(Seat.human(command.user_id, command.name))
    new.locales[command.user_id] = command.locale  # type: ignore[index]
    return _saved(new, Event(kind="joined", name=command.name))


def _add_ai(state: TableState, command: AddAi, ctx: Context) -> Step:
    table = state.table
    if not table.is_seated(command.requester) and command.requester != table.host_id:
        raise TableError("not_seated")
    taken = {seat.name for seat in table.seats}
    name = next((name for name in AI_NAMES if name not in taken), f"Bot {len(table.seats) + 1}")
    new = state.edit(last_activity=ctx.now)
    new.table.add_ai(command.level, name=name)
    return _saved(new, Event(kind="ai_added", name=name, other=command.level))


def _remove_ai(state: TableState, command: RemoveAi, ctx: Context) -> Step:
    new = state.edit(last_activity=ctx.now)
    seat = new.table.remove_ai(command.requester)
    return _saved(new, Event(kind="ai_removed", name=seat.name))


def _leave(state: TableState, command: Leave, ctx: Context) -> Step:
    table = state.table
    seat = table.game_seat_of(command.user_id) if table.phase is Phase.PLAYING else None
    if seat is not None:
        game = table.game
        assert game is not None
        if not game.in_play(seat):
            raise TableError("already_out")
        step = _move(state, lambda game: game.leave(seat), actor=None)
        left = Event(kind="left_game", seat=seat, name=table.game_seats[seat].name)
        return replace(step, events=(left, *step.events))
    new = state.edit(last_activity=ctx.now)
    removed = new.table.leave(command.user_id)
    left = Event(kind="left_table", name=removed.name)
    if not new.table.humans:
        return _closed(new, "empty", left)
    return _saved(new, left)


def _transfer_host(state: TableState, command: TransferHost, ctx: Context) -> Step:
    new = state.edit(last_activity=ctx.now)
    new.table.transfer_host(command.requester, command.target)
    index = new.table.seat_of(command.target)
    name = new.table.seats[index].name if index is not None else str(command.target)
    return _saved(new, Event(kind="host_changed", name=name))


def _configure(state: TableState, command: Configure, ctx: Context) -> Step:
    new = state.edit(last_activity=ctx.now)
    new.table.configure(command.requester, rules_name=command.rules_name, bet=command.bet,
                        turn_seconds=command.turn_seconds, min_turn_seconds=ctx.min_turn_seconds)
    return _saved(new, Event(kind="configured"))


def _end(state: TableState, command: End, ctx: Context) -> Step:
    table = state.table
    if command.requester != table.host_id and not command.is_admin:
        raise TableError("host_only")
    game = state.game
    if game is not None and game.finished and state.payout is not None:
        return _end_after_game(state, ctx)
    if table.phase is Phase.PLAYING and table.game_id is not None:
        step = _closed(state, "ended", Event(kind="aborted"))
        return replace(step, records=(AbortGame(game_id=table.game_id, reason="ended by host"), *step.records))
    return _closed(state, "ended")


def _end_after_game(state: TableState, ctx: Context) -> Step:
    """End just after the last move, before the table moved on: the stored game
    is finished and paid, so there is nothing to call off (the database would
    refuse to); the table closes as it would have after the game."""
    game, payout = state.game, state.payout
    assert game is not None and payout is not None
    final = state.edit(last_activity=ctx.now, payout=None)
    final.table.finish_game(payout.chips_by_user())
    over = Event(kind="game_over", name=final.table.game_seats[game.places[0]].name)
    return replace(_closed(final, "ended", over), concluded=True, just_ended=True, final=final)


def _idle_close(state: TableState, command: IdleClose, ctx: Context) -> Step:
    if state.table.phase is Phase.PLAYING or ctx.now - state.last_activity < ctx.idle_seconds:
        raise Stale()
    return _closed(state, "idle")


# ------------------------------------------------------------------- games
def _start(state: TableState, command: Start, ctx: Context) -> Step:
    return _deal(state.edit(last_activity=ctx.now, language=command.language), command.requester, command.seed,
                 command.ranked_only)


def next_game_deals(state: TableState, user_id: int) -> bool:
    """Whether ``user_id`` pressing "Next game" deals it: the host, or the last
    seated human to press it."""
    table = state.table
    if table.phase is Phase.PLAYING or table.seat_of(user_id) is None:
        return False
    return user_id == table.host_id or all(seat.ready or seat.user_id == user_id for seat in table.humans)


def _next_game(state: TableState, command: NextGame, ctx: Context) -> Step:
    table = state.table
    if table.phase is Phase.PLAYING:
        raise TableError("game_running", action="start")
    if table.seat_of(command.user_id) is None:
        raise TableError("not_seated")
    deals = next_game_deals(state, command.user_id)
    new = state.edit(last_activity=ctx.now, language=command.language if deals else state.language)
    new.table.mark_ready(command.user_id)
    if deals:
        return _deal(new, None, command.seed, command.ranked_only)
    name = new.table.seats[new.table.seat_of(command.user_id) or 0].name
    return _saved(new, Event(kind="ready", name=name))


def _deal(new: TableState, requester: int | None, seed: int, ranked_only: bool = False) -> Step:
    """Deal the next game to the seats of ``new`` (a copy the step owns); it moves
    ratings with enough people, at a ranked table when the server asks for that."""
    table = new.table
    table.check_can_start(requester)
    lead = table.next_lead()
    game = Game.deal(table.rules, len(table.seats), seed, first_game=lead.first_game, previous_winner=lead.seat)
    record = game.to_json()
    record.pop("actions")
    created = CreateGame(
        rules=table.rules.name, options=table.rules.options(), bet=table.bet,
        seats=[{"user_id": seat.user_id, "name": seat.name, "ai": seat.ai_level} for seat in table.seats],
        record=record,
        rated=len(table.humans) >= MIN_HUMANS and (table.ranked or not ranked_only),
    )
    table.start_game(game, None)
    turn_name = table.game_seats[game.turn].name if game.turn is not None else ""
    records: tuple[Record, ...] = (created, SaveTable(state=new.stored()))  # linked to the game it creates
    if game.finished:  # an instant win (tới trắng): paid at once
        records += (_settlement(table, None),)
    humans = frozenset(seat for seat, info in enumerate(table.game_seats) if not info.is_ai)
    return Step(state=replace(new, payout=None), records=records, lead=lead, dealt=True, started=True,
                refresh=humans, events=(Event(kind="game_started", seat=game.turn, name=turn_name),))


def _play(state: TableState, command: Play, ctx: Context) -> Step:
    seat = _human_seat(state.table, command.user_id)
    return _move(state, lambda game: game.play(seat, command.cards), actor=seat)


def _pass(state: TableState, command: Pass, ctx: Context) -> Step:
    seat = _human_seat(state.table, command.user_id)
    return _move(state, lambda game: game.pass_turn(seat), actor=seat)


def _time_out(state: TableState, command: TimeOut, ctx: Context) -> Step:
    game = _current(state, command.game_id, command.version)
    seat = game.turn
    assert seat is not None
    step = _move(state, lambda game: game.timeout(seat), actor=None)
    assert step.state is not None
    table = step.state.table
    name = table.game_seats[seat].name
    events = (Event(kind="timeout", seat=seat, name=name), *step.events)
    if table.note_timeout(seat):
        events += (Event(kind="afk", seat=seat, name=name),)
    return replace(step, events=events, records=_with_table(step.records, step.state))


def _ai_move(state: TableState, command: AiMove, ctx: Context) -> Step:
    game = _current(state, command.game_id, command.version)
    seat, mask = command.seat, command.mask
    if not state.table.game_seats[seat].played_by_ai:
        raise Stale()  # its player came back meanwhile
    if mask is None:
        if game.turn != seat:
            raise Stale()  # declined an out-of-turn chop: nothing happens
        return _move(state, lambda game: game.pass_turn(seat), actor=None)
    return _move(state, lambda game: game.play(seat, mask), actor=None)


def abandon(state: TableState, game_id: int) -> Step:
    """Call off game ``game_id``, which could not be rebuilt from storage: no chips move."""
    new = state.edit()
    new.table.abort_game()
    return Step(state=new, records=(AbortGame(game_id=game_id, reason="could not be restored"),
                                    SaveTable(state=new.stored())), events=(Event(kind="aborted"),))


def _settle(state: TableState, command: Settle, ctx: Context) -> Step:
    game = state.game
    if game is None or not game.finished or state.payout is not None:
        raise Stale()
    return Step(state=state, records=(_settlement(state.table, state.table.game_id),))


def _conclude(state: TableState, command: Conclude, ctx: Context) -> Step:
    game, payout = state.game, state.payout
    if game is None or not game.finished or payout is None:
        raise Stale()
    new = state.edit(last_activity=ctx.now, payout=None)
    new.table.finish_game(payout.chips_by_user())
    first = new.table.game_seats[game.places[0]].name
    step = _saved(new, Event(kind="game_over", name=first))
    return replace(step, concluded=True)


# ----------------------------------------------------------------- helpers
def _human_seat(table: Table, user_id: int) -> int:
    if table.phase is not Phase.PLAYING or table.game is None:
        raise TableError("no_game")
    seat = table.game_seat_of(user_id)
    if seat is None:
        raise TableError("not_in_game")
    return seat


def _current(state: TableState, game_id: int, version: int) -> Game:
    """The game in progress, if it is still game ``game_id`` after ``version`` actions."""
    game = state.game
    if game is None or game.finished or state.table.game_id != game_id or len(game.actions) != version:
        raise Stale()
    return game


def _move(state: TableState, action: Callable[[Game], Any], *, actor: int | None) -> Step:
    """One engine action on a copy: the action's record, the table's when a
    seat's time-outs changed, and the settlement when the game ended."""
    table = state.table
    game_id = table.game_id
    assert table.game is not None and game_id is not None
    new = state.edit()
    game = new.table.game
    assert game is not None
    outcome = action(game)  # IllegalPlayError: nothing changed
    events = events_of(new.table.game_seats, outcome)
    records: list[Record] = [AppendAction(game_id=game_id, seq=len(game.actions) - 1,
                                          action=game.actions[-1].to_json())]
    seat_changed = False
    if actor is not None:
        info = new.table.game_seats[actor]
        seat_changed = info.timeouts > 0 or info.afk
        if new.table.note_acted(actor):
            events.insert(0, Event(kind="back", seat=actor, name=info.name))
    if seat_changed:
        records.append(SaveTable(state=new.stored(), game_id=game_id))
    if game.finished:
        records.append(_settlement(new.table, game_id))
    refresh = {outcome.action.seat} | _chop_watchers(new.table)
    if game.turn is not None:
        refresh.add(game.turn)  # their hand now says "your turn" and shows what to beat
    return Step(state=new, records=tuple(records), events=tuple(events), refresh=frozenset(refresh), actor=actor)


def _with_table(records: tuple[Record, ...], state: TableState) -> tuple[Record, ...]:
    """``records`` with the table's state saved (once, as it is now)."""
    kept = tuple(record for record in records if not isinstance(record, SaveTable))
    return kept[:1] + (SaveTable(state=state.stored(), game_id=state.table.game_id),) + kept[1:]


def _chop_watchers(table: Table) -> set[int]:
    """Humans not on turn who may chop out of turn now (their controls must offer it)."""
    game = table.game
    assert game is not None
    if all(info.played_by_ai for info in table.game_seats):
        return set()
    return {seat for seat in game.out_of_turn_seats() if not table.game_seats[seat].played_by_ai}


def _settlement(table: Table, game_id: int | None) -> SettleGame:
    """What paying out the finished game stores."""
    game = table.game
    assert game is not None and game.finished
    net, chops, places = game.settlement(), game.chop_counts(), game.places
    results = {
        seat: SeatOutcome(place=places.index(seat), won=net[seat] > 0, chops_made=chops[seat][0],
                          chops_suffered=chops[seat][1])
        for seat in range(game.players)
    }
    return SettleGame(game_id=game_id, payments=tuple(game.payments()), results=results, bet=table.bet,
                      rake_percent=table.rules.rake_percent, outcome=game_outcome(game), ranks=tuple(ranks(game)))


def _saved(state: TableState, *events: Event) -> Step:
    game_id = state.table.game_id if state.table.phase is Phase.PLAYING else None
    return Step(state=state, records=(SaveTable(state=state.stored(), game_id=game_id),), events=events)


def _closed(state: TableState, reason: str, *events: Event) -> Step:
    return Step(state=None, records=(DeleteTable(),), closed=reason,
                events=(*events, Event(kind="closed", other=reason)))


_STEPS: dict[type, Callable[[TableState, Any, Context], Step]] = {
    SetMessage: _set_message, NoteLocale: _note_locale, Join: _join, Leave: _leave, AddAi: _add_ai,
    RemoveAi: _remove_ai, TransferHost: _transfer_host, Configure: _configure, End: _end, Start: _start,
    NextGame: _next_game, Play: _play, Pass: _pass, TimeOut: _time_out, AiMove: _ai_move, Settle: _settle,
    Conclude: _conclude, IdleClose: _idle_close,
}


# -------------------------------------------------------------- ownership
@dataclass(frozen=True)
class Owner:
    """Who or what must make a table's next change happen, derived from its state.

    ``kind``: "human" (a turn deadline), "ai" (an AI seat's move), "settle",
    "conclude", "idle" (a lobby or finished table closes when idle), or
    "none"."""

    kind: str
    seat: int | None = None
    version: int = 0
    game_id: int | None = None
    chop_watchers: tuple[int, ...] = field(default=())
    """AI seats not on turn that may chop out of turn now."""


def owner_of(state: TableState) -> Owner:
    """What the table waits for next: exactly one owner for a running game."""
    table = state.table
    game = state.game
    if game is None:
        return Owner(kind="idle")
    if game.finished:
        return Owner(kind="conclude" if state.payout is not None else "settle", game_id=table.game_id,
                     version=len(game.actions))
    seat = game.turn
    assert seat is not None
    ai_seats = {other for other, info in enumerate(table.game_seats) if other != seat and info.played_by_ai}
    watchers = tuple(other for other in game.out_of_turn_seats() if other in ai_seats) if ai_seats else ()
    kind = "ai" if table.game_seats[seat].played_by_ai else "human"
    return Owner(kind=kind, seat=seat, version=len(game.actions), game_id=table.game_id, chop_watchers=watchers)
