"""One table change in one transaction: what the runtime stores for each step.

A step of a table (a join, a deal, a move, the end of a game...) may touch
several rows: the table's state, a new game, the game's actions, its
settlement, an aborted game.  :class:`TableChange` names all of them, and
:func:`commit_changes` stores a batch of changes, from different tables, in
ONE transaction (group commit: a busy bot commits a few times a second, not
once per move).  Each change is all or nothing:

* infrastructure failures (the database unreachable, a lost cluster slot)
  raise, and nothing of the batch is stored;
* a change the data refuses (an action already stored differently, a game
  that is no longer running, an unknown account) gets its error in the
  result list, and nothing of *that* change is stored; the others are.

Inside the transaction, every change's actions go first, as one INSERT of
the batch's rows; a change whose actions were not all stored is skipped;
then, change by change: the new game (refused while the table's row still
points at a running game: a deal whose answer was lost), the settlement, the
abort, the table.
A change that raises there (rare: it means a bug or a race the runtime did
not expect) rolls the batch back, and the changes are then stored one by one
so that only the faulty one fails.

>>> TableChange(channel_id=1, guild_id=2, state={"phase": "lobby"}).kinds
('table',)
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import BigInteger, bindparam, delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from db.coltypes import utcnow
from db.database import Database
from db.errors import CommitOutcomeUnknown, DbError, GameClosed, GameNotFound, InvalidGame, StaleEpoch, TablePlaying
from db.games import actions_in_transaction, encode_actions, validated_seats
from db.hot import HotConnection, HotStatement
from db.models import GameRow, TableRow
from db.records import GameStatus, SeatPayment, SeatResult, Settlement
from db.settlement import check_settlement_inputs, settle_in_transaction
from db.validation import require_amount, require_id

__all__ = ["NewGame", "GameSettlement", "TableChange", "ChangeReceipt", "commit_changes"]


@dataclass(frozen=True)
class NewGame:
    """A game to create (its id comes back in the receipt).

    ``seats``: ``{"user_id": int | None, "name": str, "ai": level | None}``
    each; ``record``: the engine's game JSON without actions (every hand: private)."""

    rules: str
    options: Mapping[str, Any]
    bet: int
    seats: Sequence[Mapping[str, Any]]
    record: Mapping[str, Any] = field(repr=False)
    rated: bool = False
    """Whether the game moves skill ratings."""


@dataclass(frozen=True)
class GameSettlement:
    """Settle the game and mark it finished with ``outcome`` (see :func:`db.settle_game`)."""

    payments: Sequence[SeatPayment]
    results: Mapping[int, SeatResult]
    bet: int
    rake_percent: int
    outcome: Mapping[str, Any]
    ranks: Mapping[int, int] | None = None
    """Seat → rank (1 first), for a rated game's ratings."""


@dataclass(frozen=True)
class TableChange:
    """Everything one step of one table stores.

    ``game_id`` is the game that ``actions``, ``settle`` and ``abort`` apply
    to; with ``new_game`` it is None and the new game's id is used.  ``state``
    replaces the table's stored state; the row then points at the change's
    game when ``playing``, else at none.  ``delete`` forgets the table.
    """

    channel_id: int
    guild_id: int
    game_id: int | None = None
    new_game: NewGame | None = None
    actions: Sequence[tuple[int, Any]] = ()
    """(seq, action JSON) of the game's new actions, in order."""
    settle: GameSettlement | None = None
    abort: str | None = None
    """Abort the game, for this reason."""
    state: Mapping[str, Any] | None = None
    playing: bool = False
    delete: bool = False

    @property
    def kinds(self) -> tuple[str, ...]:
        """What the change writes, by kind (for metrics and tests)."""
        parts = (("game", self.new_game is not None), ("action", bool(self.actions)),
                 ("settlement", self.settle is not None), ("abort", self.abort is not None),
                 ("table", self.state is not None), ("delete", self.delete))
        return tuple(name for name, present in parts if present)


@dataclass(frozen=True)
class ChangeReceipt:
    """What storing a change made known: the new game's id, the settlement."""

    game_id: int | None = None
    settlement: Settlement | None = None


async def commit_changes(db: Database, changes: Sequence[TableChange]) -> list[ChangeReceipt | DbError]:
    """Store ``changes`` in one transaction; one receipt or error per change, in order.

    Raises (nothing stored) when the database fails or the cluster fence
    refuses this process; see the module docstring for refused changes.
    Raises :class:`CommitOutcomeUnknown` when some or all of the changes may
    be stored (the connection lost during COMMIT, or a failure once the
    changes are stored one by one and some of them are): read them back.
    """
    results: list[ChangeReceipt | DbError] = [NOTHING_NEW] * len(changes)
    batch: list[_Item] = []
    for index, change in enumerate(changes):
        try:
            batch.append((index, change, _checked(change)))
        except DbError as error:
            results[index] = error
    stored: list[tuple[int, ChangeReceipt | DbError]] | None = None
    if len(batch) > 1:
        try:
            stored = await db.hot_write(_commit_batch, batch)
        except StaleEpoch:
            raise
        except DbError:
            stored = None  # one change raised: store them one by one, so that only it fails
    if stored is None:
        stored = []
        for item in batch:
            try:
                stored += await db.hot_write(_commit_batch, [item])
            except StaleEpoch:
                raise
            except DbError as error:
                stored.append((item[0], error))
            except CommitOutcomeUnknown:
                raise
            except Exception as error:
                if any(not isinstance(outcome, DbError) for _, outcome in stored):
                    # Changes before it are committed: "nothing stored" would be false.
                    raise CommitOutcomeUnknown(error) from error
                raise
    for index, outcome in stored:
        results[index] = outcome
    return results


NOTHING_NEW = ChangeReceipt()
"""The receipt of a change that created no game and settled none (most of them: moves)."""

_Item = tuple[int, TableChange, list[tuple[int, int, str]]]
"""A change of the batch: its place in the call, the change, its actions as (game_id, seq, JSON text)."""


def _checked(change: TableChange) -> list[tuple[int, int, str]]:
    """Check the change (InvalidGame and friends before any SQL); its actions encoded."""
    if change.state is None and change.new_game is None and change.settle is None and change.abort is None \
            and not change.delete:  # a move: its actions are all there is to check
        if change.game_id is None:
            raise InvalidGame("actions need a game")
        return encode_actions([(change.game_id, seq, action) for seq, action in change.actions])
    require_id(change.channel_id, what="channel_id")
    require_id(change.guild_id, what="guild_id")
    if change.new_game is not None and (change.game_id is not None or change.actions):
        raise InvalidGame("a change creating a game cannot name another game nor add actions")
    needs_game = bool(change.actions) or change.settle is not None or change.abort is not None
    if needs_game and change.game_id is None and change.new_game is None:
        raise InvalidGame("actions, a settlement or an abort need a game")
    if change.game_id is not None:
        require_id(change.game_id, what="game_id")
    if change.new_game is not None:
        _check_new_game(change.new_game)
    if change.settle is not None:
        check_settlement_inputs(change.settle.payments, change.settle.results, change.settle.bet,
                                change.settle.rake_percent)
    if change.state is not None and change.delete:
        raise InvalidGame("a change cannot both save and delete its table")
    return encode_actions([(change.game_id, seq, action) for seq, action in change.actions])


def _check_new_game(game: NewGame) -> None:
    require_amount(game.bet, what="bet", allow_zero=True)
    if not isinstance(game.rules, str) or not 0 < len(game.rules) <= 64:
        raise InvalidGame(f"rules must be a preset name of 1 to 64 characters, got {game.rules!r}")
    validated_seats(game.seats)


async def _commit_batch(connection: HotConnection, batch: Sequence[_Item]) -> list[tuple[int, ChangeReceipt | DbError]]:
    """The batch's transaction (in :meth:`Database.hot_write`)."""
    refused = await _store_actions(connection, batch)
    outcomes: list[tuple[int, ChangeReceipt | DbError]] = []
    now = None
    for index, change, _ in batch:
        if index in refused:
            outcomes.append((index, refused[index]))
        elif change.state is None and change.new_game is None and change.settle is None and change.abort is None \
                and not change.delete:
            outcomes.append((index, NOTHING_NEW))  # a move: its action is all of it
        else:
            now = now or utcnow()
            outcomes.append((index, await _store_rest(connection, change, now)))
    return outcomes


async def _store_actions(connection: HotConnection, batch: Sequence[_Item]) -> dict[int, DbError]:
    """Every change's actions in one go; the changes not all of whose actions were stored."""
    items = [(index, item) for index, _, encoded in batch for item in encoded]
    if not items:
        return {}
    errors = await actions_in_transaction(connection, [item for _, item in items])
    refused: dict[int, DbError] = {}
    for (index, _), error in zip(items, errors):
        if error is not None:
            refused.setdefault(index, error)
    return refused


async def _store_rest(connection: HotConnection, change: TableChange, now: Any) -> ChangeReceipt:
    game_id = change.game_id
    if change.new_game is not None:
        await _check_not_playing(connection, change.channel_id)
        game_id = await _create_game(connection, change, now)
    settlement = None
    if change.settle is not None:
        assert game_id is not None
        end = change.settle
        settlement = await settle_in_transaction(connection, game_id, end.payments, end.results, end.bet,
                                                 end.rake_percent, end.ranks)
        await connection.rows(_SET_OUTCOME, {"p_game": game_id, "p_outcome": dict(end.outcome)})
    if change.abort is not None:
        assert game_id is not None
        await _abort(connection, game_id, change.abort, now)
    if change.state is not None:
        table_game = game_id if change.playing else None
        await connection.rows(_upsert_table_statement(connection.dialect.name), {
            "p_channel": change.channel_id, "p_guild": change.guild_id, "p_state": dict(change.state),
            "p_game": table_game, "p_now": now})
    if change.delete:
        await connection.rows(_DELETE_TABLE, {"p_channel": change.channel_id})
    if change.new_game is None and settlement is None:
        return NOTHING_NEW
    return ChangeReceipt(game_id=game_id if change.new_game is not None else None, settlement=settlement)


_CREATE_GAME = HotStatement(
    insert(GameRow)
    .values(
        guild_id=bindparam("p_guild", type_=BigInteger),
        channel_id=bindparam("p_channel", type_=BigInteger),
        rules=bindparam("p_rules", type_=GameRow.rules.type),
        options=bindparam("p_options", type_=GameRow.options.type),
        bet=bindparam("p_bet", type_=BigInteger),
        seats=bindparam("p_seats", type_=GameRow.seats.type),
        record=bindparam("p_record", type_=GameRow.record.type),
        rated=bindparam("p_rated", type_=GameRow.rated.type),
        status=GameStatus.RUNNING.value,
        started_at=bindparam("p_now", type_=GameRow.started_at.type),
    )
    .returning(GameRow.id)
)


_PLAYING = HotStatement(
    select(GameRow.id)
    .join(TableRow, TableRow.game_id == GameRow.id)
    .where(TableRow.channel_id == bindparam("p_channel", type_=BigInteger),
           GameRow.status == GameStatus.RUNNING.value)
)


async def _check_not_playing(connection: HotConnection, channel_id: int) -> None:
    """A deal only at a table that plays no running game: one that does was dealt
    by a step whose answer was lost, and the caller must read the table again."""
    row = await connection.first(_PLAYING, {"p_channel": channel_id})
    if row is not None:
        raise TablePlaying(channel_id, int(row[0]))


async def _create_game(connection: HotConnection, change: TableChange, now: Any) -> int:
    game = change.new_game
    assert game is not None
    row = await connection.first(_CREATE_GAME, {
        "p_guild": change.guild_id, "p_channel": change.channel_id, "p_rules": game.rules,
        "p_options": dict(game.options), "p_bet": game.bet, "p_seats": validated_seats(game.seats),
        "p_record": dict(game.record), "p_rated": game.rated, "p_now": now})
    assert row is not None
    return int(row[0])


_SET_OUTCOME = HotStatement(
    update(GameRow)
    .where(GameRow.id == bindparam("p_game", type_=BigInteger), GameRow.outcome.is_(None))
    .values(outcome=bindparam("p_outcome", type_=GameRow.outcome.type))
)

_ABORT = HotStatement(
    update(GameRow)
    .where(GameRow.id == bindparam("p_game", type_=BigInteger), GameRow.status == GameStatus.RUNNING.value)
    .values(status=GameStatus.ABORTED.value, ended_at=bindparam("p_now", type_=GameRow.ended_at.type),
            outcome=bindparam("p_outcome", type_=GameRow.outcome.type))
    .returning(GameRow.id)
)
_GAME_STATUS = HotStatement(select(GameRow.status).where(GameRow.id == bindparam("p_game", type_=BigInteger)))


async def _abort(connection: HotConnection, game_id: int, reason: str, now: Any) -> None:
    """Abort a running game; an aborted one stays so, a finished one is refused."""
    if await connection.rows(_ABORT, {"p_game": game_id, "p_now": now, "p_outcome": {"aborted": reason}}):
        return
    row = await connection.first(_GAME_STATUS, {"p_game": game_id})
    if row is None:
        raise GameNotFound(game_id)
    if row[0] != GameStatus.ABORTED.value:
        raise GameClosed(f"game {game_id} is already {row[0]}")


@functools.lru_cache(maxsize=4)
def _upsert_table_statement(dialect: str) -> HotStatement:
    dialect_insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = dialect_insert(TableRow).values(
        channel_id=bindparam("p_channel", type_=BigInteger),
        guild_id=bindparam("p_guild", type_=BigInteger),
        state=bindparam("p_state", type_=TableRow.state.type),
        game_id=bindparam("p_game", type_=BigInteger),
        updated_at=bindparam("p_now", type_=TableRow.updated_at.type),
    )
    excluded = statement.excluded
    return HotStatement(statement.on_conflict_do_update(
        index_elements=["channel_id"],
        set_={"guild_id": excluded.guild_id, "state": excluded.state, "game_id": excluded.game_id,
              "updated_at": excluded.updated_at},
    ))


_DELETE_TABLE = HotStatement(delete(TableRow).where(TableRow.channel_id == bindparam("p_channel", type_=BigInteger)))
