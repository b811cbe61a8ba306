"""Stored games: creation, the action log written action by action, the end
of a game, and reading games back (to restore after a restart, or for
/history).

A game's ``record`` holds every hand.  It is private: nothing here logs it,
and :class:`~db.records.StoredGame` keeps it out of its repr.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Integer,
    Text,
    bindparam,
    cast,
    insert,
    select,
    tuple_,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from db.coltypes import UtcDateTime, utcnow
from db.database import Database
from db.errors import ActionConflict, DbError, GameClosed, GameNotFound, InvalidGame
from db.hot import HotConnection, HotStatement
from db.models import GameActionRow, GameRow, LedgerRow
from db.records import GameStatus, GameSummary, Reason, SeatSummary, StoredGame
from db.validation import require_amount, require_id


def human_seats(seats: Sequence[Mapping[str, Any]]) -> dict[int, int]:
    """Seat number → user id, for the seats a person occupies (not AI)."""
    return {
        number: seat["user_id"]
        for number, seat in enumerate(seats)
        if seat.get("user_id") is not None
    }


def validated_seats(seats: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(seats, (str, bytes)) or not isinstance(seats, Sequence) or not seats:
        raise InvalidGame("seats must be a non-empty list")
    checked = []
    for number, seat in enumerate(seats):
        if not isinstance(seat, Mapping) or "user_id" not in seat:
            raise InvalidGame(f"seat {number} must be a mapping with a user_id")
        user_id = seat["user_id"]
        if user_id is not None:
            require_id(user_id, what=f"seat {number} user_id")
        checked.append(dict(seat))
    users = [seat["user_id"] for seat in checked if seat["user_id"] is not None]
    if len(users) != len(set(users)):
        raise InvalidGame("a user cannot take two seats in one game")
    return checked


async def create_game(
    db: Database,
    *,
    guild_id: int,
    channel_id: int,
    rules: str,
    options: Mapping[str, Any],
    bet: int,
    seats: Sequence[Mapping[str, Any]],
    record: Mapping[str, Any],
) -> int:
    """Store a new running game and return its id.

    ``seats`` is a list of ``{"user_id": int | None, "name": str, "ai": level
    | None}``; ``record`` is the engine's game JSON without its actions.
    """
    require_id(guild_id, what="guild_id")
    require_id(channel_id, what="channel_id")
    require_amount(bet, what="bet", allow_zero=True)
    if not isinstance(rules, str) or not 0 < len(rules) <= 64:
        raise InvalidGame(f"rules must be a preset name of 1 to 64 characters, got {rules!r}")
    checked_seats = validated_seats(seats)
    async with db.write() as session:
        game_id = await session.scalar(
            insert(GameRow)
            .values(
                guild_id=guild_id,
                channel_id=channel_id,
                rules=rules,
                options=dict(options),
                bet=bet,
                seats=checked_seats,
                record=dict(record),
                status=GameStatus.RUNNING.value,
                started_at=utcnow(),
            )
            .returning(GameRow.id)
        )
    assert game_id is not None
    return int(game_id)


async def append_action(db: Database, game_id: int, seq: int, action: Any) -> None:
    """Store the game's action number ``seq``.

    Storing the same action again at the same seq does nothing (a retry);
    a different action there raises ActionConflict.  New actions are refused
    once the game is no longer running.
    """
    (error,) = await append_actions(db, [(game_id, seq, action)])
    if error is not None:
        raise error


# Rows per INSERT: well under SQLite's 32,766 bound parameters.
_ACTIONS_PER_STATEMENT = 500


async def append_actions(
    db: Database, items: Sequence[tuple[int, int, Any]]
) -> list[DbError | None]:
    """Store many games' actions ``(game_id, seq, action)`` in one transaction.

    The bot batches the moves of all its tables this way (group commit): one
    write lock and one commit serve every table that moved meanwhile.  Each
    item gets its own outcome, in order: None when stored (or already stored
    identically), else the error :func:`append_action` would have raised;
    one item's error does not affect the others.

    Usually one statement, run by :mod:`db.hot`: an INSERT of every item
    whose game is running (the status check is a join in the same
    statement), ON CONFLICT DO NOTHING, RETURNING what it stored.  Only items
    it did not store (a retry, a conflict, a closed or unknown game) cost a
    second look.
    """
    encoded = encode_actions(items)
    if not encoded:
        return []
    return await db.hot_write(actions_in_transaction, encoded)


def encode_actions(items: Sequence[tuple[int, int, Any]]) -> list[tuple[int, int, str]]:
    """The items checked, each action serialized once (as the statement stores it)."""
    for _, seq, _ in items:
        require_id(seq, what="seq")
    return [(game_id, seq, _json_text(action)) for game_id, seq, action in items]


async def actions_in_transaction(
    connection: HotConnection, encoded: Sequence[tuple[int, int, str]]
) -> list[DbError | None]:
    """:func:`append_actions` inside a running hot transaction, actions as JSON text."""
    results: list[DbError | None] = [None] * len(encoded)
    # The first of several items for one (game, seq) is the one inserted;
    # the others are judged against it, as retries of it.
    first_index: dict[tuple[int, int], int] = {}
    for index, (game_id, seq, _) in enumerate(encoded):
        first_index.setdefault((game_id, seq), index)
    firsts = [encoded[index] for index in first_index.values()]
    inserted, stored, statuses = await _store_actions(connection, firsts)
    for index, (game_id, seq, text) in enumerate(encoded):
        key = (game_id, seq)
        first = first_index[key]
        if first != index:
            # Compared as values (as read back from JSON), not as text.
            if results[first] is None and json.loads(encoded[first][2]) != json.loads(text):
                results[index] = ActionConflict(f"game {game_id} already has a different action {seq}")
            else:
                results[index] = results[first]
        elif key in inserted:
            continue
        elif key in stored:
            if stored[key] != json.loads(text):
                results[index] = ActionConflict(f"game {game_id} already has a different action {seq}")
        elif game_id not in statuses:
            results[index] = GameNotFound(game_id)
        else:
            results[index] = GameClosed(f"game {game_id} is {statuses[game_id]}; no new actions")
    return results


async def _store_actions(
    connection: HotConnection, items: Sequence[tuple[int, int, str]]
) -> tuple[set[tuple[int, int]], dict[tuple[int, int], Any], dict[int, str]]:
    """The batch's transaction (in :meth:`Database.hot_write`), actions as
    JSON text: the keys it inserted, and for the others what is stored there
    and their games' statuses."""
    inserted = await _insert_while_running(connection, items)
    left = [(game_id, seq) for game_id, seq, _ in items if (game_id, seq) not in inserted]
    stored, statuses = await _look_at(connection, left) if left else ({}, {})
    return inserted, stored, statuses


@functools.lru_cache(maxsize=128)
def _insert_while_running_statement(dialect: str, count: int) -> HotStatement:
    """INSERT ``count`` actions whose games are running; RETURNING their keys."""
    # The new rows as a UNION ALL of one-row SELECTs of typed parameters
    # (one statement per batch size, compiled once by db.hot).
    def action(n: int) -> Any:
        # Given as JSON text (append_actions serializes each action once):
        # SQLite stores that text as its JSON; PostgreSQL casts it.
        text = bindparam(f"p_action_{n}", type_=Text)
        return cast(text, JSON) if dialect == "postgresql" else text

    rows = [
        select(
            bindparam(f"p_game_{n}", type_=BigInteger).label("game_id"),
            bindparam(f"p_seq_{n}", type_=Integer).label("seq"),
            action(n).label("action"),
            bindparam("p_now", type_=UtcDateTime()).label("created_at"),
        )
        for n in range(count)
    ]
    new = (union_all(*rows) if count > 1 else rows[0]).subquery("new_actions")
    running = (
        select(new.c.game_id, new.c.seq, new.c.action, new.c.created_at)
        .join(GameRow, GameRow.id == new.c.game_id)
        .where(GameRow.status == GameStatus.RUNNING.value)
    )
    dialect_insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return HotStatement(
        dialect_insert(GameActionRow)
        .from_select(["game_id", "seq", "action", "created_at"], running)
        .on_conflict_do_nothing(index_elements=["game_id", "seq"])
        .returning(GameActionRow.game_id, GameActionRow.seq)
    )


async def _insert_while_running(
    connection: HotConnection, items: Sequence[tuple[int, int, str]]
) -> set[tuple[int, int]]:
    """Insert the items (actions as JSON text) whose games are running; their keys."""
    dialect = connection.dialect.name
    now = utcnow()
    inserted: set[tuple[int, int]] = set()
    for start in range(0, len(items), _ACTIONS_PER_STATEMENT):
        chunk = items[start : start + _ACTIONS_PER_STATEMENT]
        parameters: dict[str, Any] = {"p_now": now}
        for n, (game_id, seq, action) in enumerate(chunk):
            parameters[f"p_game_{n}"] = game_id
            parameters[f"p_seq_{n}"] = seq
            parameters[f"p_action_{n}"] = action
        returned = await connection.rows(_insert_while_running_statement(dialect, len(chunk)), parameters)
        inserted.update((game_id, seq) for game_id, seq in returned)
    return inserted


@functools.lru_cache(maxsize=64)
def _statuses_statement(count: int) -> HotStatement:
    games = [bindparam(f"p_game_{n}", type_=BigInteger) for n in range(count)]
    return HotStatement(select(GameRow.id, GameRow.status).where(GameRow.id.in_(games)))


@functools.lru_cache(maxsize=64)
def _stored_actions_statement(count: int) -> HotStatement:
    keys = [
        tuple_(bindparam(f"p_game_{n}", type_=BigInteger), bindparam(f"p_seq_{n}", type_=Integer))
        for n in range(count)
    ]
    return HotStatement(
        select(GameActionRow.game_id, GameActionRow.seq, GameActionRow.action).where(
            tuple_(GameActionRow.game_id, GameActionRow.seq).in_(keys)
        )
    )


async def _look_at(
    connection: HotConnection, keys: Sequence[tuple[int, int]]
) -> tuple[dict[tuple[int, int], Any], dict[int, str]]:
    """The stored actions at ``keys`` (those that exist) and their games' statuses."""
    stored: dict[tuple[int, int], Any] = {}
    statuses: dict[int, str] = {}
    for start in range(0, len(keys), _ACTIONS_PER_STATEMENT):
        chunk = keys[start : start + _ACTIONS_PER_STATEMENT]
        game_ids = sorted({game_id for game_id, _ in chunk} - set(statuses))
        if game_ids:
            rows = await connection.rows(
                _statuses_statement(len(game_ids)),
                {f"p_game_{n}": game_id for n, game_id in enumerate(game_ids)},
            )
            statuses.update((game_id, status) for game_id, status in rows)
        parameters: dict[str, int] = {}
        for n, (game_id, seq) in enumerate(chunk):
            parameters[f"p_game_{n}"] = game_id
            parameters[f"p_seq_{n}"] = seq
        found = await connection.rows(_stored_actions_statement(len(chunk)), parameters)
        stored.update(((game_id, seq), action) for game_id, seq, action in found)
    return stored, statuses


async def finish_game(db: Database, game_id: int, outcome: Mapping[str, Any]) -> None:
    """Mark the game finished with the engine's outcome (no-op if already)."""
    await _close(db, game_id, GameStatus.FINISHED, dict(outcome))


async def abort_game(db: Database, game_id: int, reason: str) -> None:
    """Mark the game aborted (no-op if already); it will not be restored."""
    await _close(db, game_id, GameStatus.ABORTED, {"aborted": reason})


async def _close(db: Database, game_id: int, status: GameStatus, outcome: dict[str, Any]) -> None:
    async with db.write() as session:
        row = await session.get(GameRow, game_id)
        if row is None:
            raise GameNotFound(game_id)
        current = GameStatus(row.status)
        if current == status:
            # settle_game may have marked it finished before the outcome came.
            if row.outcome is None:
                row.outcome = outcome
            return
        if current != GameStatus.RUNNING:
            raise GameClosed(f"game {game_id} is already {current.value}")
        await session.execute(
            update(GameRow)
            .where(GameRow.id == game_id)
            .values(status=status.value, ended_at=utcnow(), outcome=outcome)
        )


async def load_game(db: Database, game_id: int) -> StoredGame:
    """The game with its actions; raises GameNotFound."""
    async with db.read() as session:
        row = await session.get(GameRow, game_id)
        if row is None:
            raise GameNotFound(game_id)
        actions = await _actions_by_game(session, [game_id])
        return _to_stored(row, actions.get(game_id, ()))


async def unfinished_games(db: Database) -> list[StoredGame]:
    """Every running game, oldest first, with its actions, for restoring."""
    async with db.read() as session:
        rows = list(
            await session.scalars(
                select(GameRow)
                .where(GameRow.status == GameStatus.RUNNING.value)
                .order_by(GameRow.id)
            )
        )
        actions = await _actions_by_game(session, [row.id for row in rows])
        return [_to_stored(row, actions.get(row.id, ())) for row in rows]


async def recent_games(
    db: Database, guild_id: int, channel_id: int, limit: int = 10
) -> list[GameSummary]:
    """The channel's last ended games, newest first, for /history."""
    async with db.read() as session:
        rows = await session.scalars(
            select(GameRow)
            .where(
                GameRow.channel_id == channel_id,
                GameRow.guild_id == guild_id,
                GameRow.status != GameStatus.RUNNING.value,
            )
            .order_by(GameRow.id.desc())
            .limit(limit)
        )
        return [_to_summary(row) for row in rows]


async def latest_finished_game(db: Database, guild_id: int, channel_id: int) -> int | None:
    """The id of the last game that finished in the channel (None: none yet)."""
    require_id(guild_id, what="guild_id")
    require_id(channel_id, what="channel_id")
    async with db.read() as session:
        return await session.scalar(
            select(GameRow.id)
            .where(GameRow.channel_id == channel_id, GameRow.guild_id == guild_id,
                   GameRow.status == GameStatus.FINISHED.value)
            .order_by(GameRow.id.desc())
            .limit(1)
        )


async def player_games(db: Database, guild_id: int, user_id: int, limit: int = 25) -> list[GameSummary]:
    """The player's last finished games in the guild, newest first: those whose
    settlement paid them (every human seat of a finished game has that entry)."""
    require_id(guild_id, what="guild_id")
    require_id(user_id, what="user_id")
    async with db.read() as session:
        ids = (
            select(LedgerRow.game_id)
            .where(LedgerRow.guild_id == guild_id, LedgerRow.user_id == user_id,
                   LedgerRow.reason == Reason.SETTLEMENT.value)
            .order_by(LedgerRow.id.desc())
            .limit(limit)
        )
        rows = await session.scalars(
            select(GameRow).where(GameRow.id.in_(ids), GameRow.status == GameStatus.FINISHED.value)
            .order_by(GameRow.id.desc())
        )
        return [_to_summary(row) for row in rows]


async def _actions_by_game(
    session: AsyncSession, game_ids: Sequence[int]
) -> dict[int, tuple[Any, ...]]:
    if not game_ids:
        return {}
    rows = await session.execute(
        select(GameActionRow.game_id, GameActionRow.action)
        .where(GameActionRow.game_id.in_(game_ids))
        .order_by(GameActionRow.game_id, GameActionRow.seq)
    )
    grouped: dict[int, list[Any]] = {}
    for game_id, action in rows:
        grouped.setdefault(game_id, []).append(action)
    return {game_id: tuple(actions) for game_id, actions in grouped.items()}


def _to_stored(row: GameRow, actions: tuple[Any, ...]) -> StoredGame:
    return StoredGame(
        id=row.id,
        guild_id=row.guild_id,
        channel_id=row.channel_id,
        rules=row.rules,
        options=row.options,
        bet=row.bet,
        seats=row.seats,
        record=row.record,
        status=GameStatus(row.status),
        started_at=row.started_at,
        ended_at=row.ended_at,
        outcome=row.outcome,
        settled_at=row.settled_at,
        actions=actions,
    )


def _to_summary(row: GameRow) -> GameSummary:
    per_seat = (row.settlement or {}).get("seats", {})
    seats = []
    for number, seat in enumerate(row.seats):
        settled = per_seat.get(str(number), {})
        seats.append(
            SeatSummary(
                seat=number,
                user_id=seat.get("user_id"),
                name=str(seat.get("name", "")),
                ai=seat.get("ai"),
                place=settled.get("place"),
                chips=settled.get("net"),
            )
        )
    return GameSummary(
        game_id=row.id,
        rules=row.rules,
        bet=row.bet,
        status=GameStatus(row.status),
        started_at=row.started_at,
        ended_at=row.ended_at,
        seats=tuple(seats),
    )


def _json_text(value: Any) -> str:
    """The action as the JSON text stored for it (as SQLAlchemy's JSON type
    would serialize it); raises InvalidGame if it is not JSON."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError) as error:
        raise InvalidGame(f"action is not JSON-serializable: {error}") from error


async def unposted_summaries(db: Database) -> list[StoredGame]:
    """Finished games whose summary has not reached Discord yet, oldest first, with their actions."""
    async with db.read() as session:
        rows = list(
            await session.scalars(
                select(GameRow)
                .where(GameRow.status == GameStatus.FINISHED.value, GameRow.summary_posted_at.is_(None))
                .order_by(GameRow.id)
            )
        )
        actions = await _actions_by_game(session, [row.id for row in rows])
        return [_to_stored(row, actions.get(row.id, ())) for row in rows]


async def mark_summary_posted(db: Database, game_id: int) -> None:
    """The game's summary reached Discord (not posted again after a restart)."""
    async with db.write() as session:
        await session.execute(
            update(GameRow).where(GameRow.id == game_id, GameRow.summary_posted_at.is_(None))
            .values(summary_posted_at=utcnow())
        )
