"""Per-guild leaderboards (by chips, wins or win rate) and player statistics.

Ranking: standard competition ranking ("1224"): players with equal values
share a rank, and the next rank skips accordingly; within a tie, rows are
listed by ascending user id.  A rank is therefore 1 + the number of players
with a strictly better value, which is one index range count.

Each order has an index that matches its ``ORDER BY`` exactly, so the top
rows are an index walk of ``limit`` entries even with 100,000 accounts.  The
win-rate index is partial (games_played >= WINRATE_INDEX_MIN_GAMES); the
query repeats that condition as a literal so both SQLite and PostgreSQL can
prove the index applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from sqlalchemy import ColumnElement, Select, TextClause, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from db.database import Database
from db.models import WINRATE_INDEX_MIN_GAMES, AccountRow, LedgerRow
from db.records import Leaderboard, LeaderRow, PlayerStats, Reason
from db.validation import require_id

LeaderboardOrder = Literal["chips", "wins", "winrate"]


Condition = ColumnElement[bool] | TextClause


def _order(by: LeaderboardOrder, guild_id: int, min_games: int) -> tuple[Any, list[Condition]]:
    """The ranked column and the conditions an account must meet to appear."""
    conditions: list[Condition] = [AccountRow.guild_id == guild_id]
    if by == "chips":
        return AccountRow.balance, conditions
    if by == "wins":
        return AccountRow.wins, conditions
    if by == "winrate":
        if min_games >= WINRATE_INDEX_MIN_GAMES:
            # Spelled exactly as the partial index's WHERE clause.
            conditions.append(text(f"games_played >= {WINRATE_INDEX_MIN_GAMES}"))
        if min_games != WINRATE_INDEX_MIN_GAMES:
            conditions.append(AccountRow.games_played >= min_games)
        return AccountRow.win_rate, conditions
    raise ValueError(f"unknown leaderboard order {by!r}")


def _competition_ranks(rows: Sequence[tuple[int, Any, int]]) -> list[LeaderRow]:
    ranked: list[LeaderRow] = []
    for position, (user_id, value, games) in enumerate(rows, start=1):
        tied = bool(ranked) and ranked[-1].value == value
        rank = ranked[-1].rank if tied else position
        ranked.append(LeaderRow(rank=rank, user_id=user_id, value=value, games_played=games))
    return ranked


def top_query(by: LeaderboardOrder, guild_id: int, *, limit: int, min_games: int) -> Select[Any]:
    """The board's first ``limit`` rows: (user_id, value, games_played)."""
    value_column, conditions = _order(by, guild_id, min_games)
    return (
        select(AccountRow.user_id, value_column, AccountRow.games_played)
        .where(*conditions)
        .order_by(value_column.desc(), AccountRow.user_id)
        .limit(limit)
    )


def better_count_query(
    by: LeaderboardOrder, guild_id: int, *, min_games: int, value: float
) -> Select[Any]:
    """How many players on the board have a strictly better value."""
    value_column, conditions = _order(by, guild_id, min_games)
    return select(func.count()).select_from(AccountRow).where(*conditions, value_column > value)


async def leaderboard(
    db: Database,
    guild_id: int,
    *,
    by: LeaderboardOrder,
    caller_id: int | None,
    limit: int = 10,
    min_games: int = 10,
) -> Leaderboard:
    """The guild's top ``limit`` players, and the caller's own row.

    ``by="winrate"`` ranks wins / games_played among accounts with at least
    ``min_games`` games.  ``caller`` is None when the caller has no account
    (or too few games for the win-rate board).
    """
    require_id(guild_id, what="guild_id")
    if not 0 < limit <= 1000:
        raise ValueError(f"limit must be 1..1000, got {limit}")
    if min_games < 0:
        raise ValueError(f"min_games must be >= 0, got {min_games}")
    async with db.read() as session:
        top = await session.execute(top_query(by, guild_id, limit=limit, min_games=min_games))
        rows = _competition_ranks([tuple(row) for row in top])
        caller = await _caller_row(session, rows, by, guild_id, min_games, caller_id)
    return Leaderboard(rows=rows, caller=caller)


async def _caller_row(
    session: AsyncSession,
    rows: list[LeaderRow],
    by: LeaderboardOrder,
    guild_id: int,
    min_games: int,
    caller_id: int | None,
) -> LeaderRow | None:
    if caller_id is None:
        return None
    for row in rows:
        if row.user_id == caller_id:
            return row
    value_column, conditions = _order(by, guild_id, min_games)
    found = (
        await session.execute(
            select(value_column, AccountRow.games_played).where(
                *conditions, AccountRow.user_id == caller_id
            )
        )
    ).first()
    if found is None:
        return None
    value, games = found
    better = await session.scalar(
        better_count_query(by, guild_id, min_games=min_games, value=value)
    )
    return LeaderRow(rank=1 + (better or 0), user_id=caller_id, value=value, games_played=games)


async def player_stats(db: Database, guild_id: int, user_id: int) -> PlayerStats | None:
    """A player's totals and chip rank in the guild, or None without an account."""
    require_id(guild_id, what="guild_id")
    require_id(user_id, what="user_id")
    async with db.read() as session:
        row = await session.get(AccountRow, (guild_id, user_id))
        if row is None:
            return None
        better = await session.scalar(
            better_count_query("chips", guild_id, min_games=0, value=row.balance)
        )
        return PlayerStats(
            guild_id=guild_id,
            user_id=user_id,
            balance=row.balance,
            games_played=row.games_played,
            firsts=row.firsts,
            wins=row.wins,
            win_rate=row.wins / row.games_played if row.games_played else 0.0,
            chips_won=row.chips_won,
            chips_lost=row.chips_lost,
            chops_made=row.chops_made,
            chops_suffered=row.chops_suffered,
            chips_rank=1 + (better or 0),
        )


async def best_game(db: Database, guild_id: int, user_id: int) -> tuple[int, int] | None:
    """The player's best game in the guild: (game id, chips won), the most chips a
    settlement paid them (the earliest such game); None before any game paid them."""
    require_id(guild_id, what="guild_id")
    require_id(user_id, what="user_id")
    async with db.read() as session:
        found = (await session.execute(
            select(LedgerRow.game_id, LedgerRow.amount)
            .where(LedgerRow.guild_id == guild_id, LedgerRow.user_id == user_id,
                   LedgerRow.reason == Reason.SETTLEMENT.value, LedgerRow.amount > 0)
            .order_by(LedgerRow.amount.desc(), LedgerRow.id)
            .limit(1)
        )).first()
    return (int(found[0]), int(found[1])) if found is not None else None
