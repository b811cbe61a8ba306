"""Skill ratings in the database: moved by a settlement, read by boards and profiles.

A rated game's ratings move inside its settlement's transaction
(:func:`rate_in_transaction`, called by :mod:`db.settlement`): the humans'
rating rows are locked, the model (:mod:`tienlen.ratings`) rates the
finishing order with AI seats as fixed references, and each human gets a
history row keyed by (game, player).  A settlement replayed after a crash
finds the game settled before it gets here, so a rating never changes
twice for one game.

The board ranks by the conservative ordinal (mu − 3·sigma), kept as an
indexed column; players with fewer than ``PROVISIONAL_GAMES`` rated games
are listed apart.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import BigInteger, Float, Integer, bindparam, case, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite

from db.coltypes import utcnow
from db.database import Database
from db.hot import HotConnection, HotStatement
from db.models import GameRow, LedgerRow, RatingHistoryRow, RatingRow
from db.records import LeaderRow, PlayerRating, RatedGame, RatingBoard, RatingChange, Reason
from db.validation import require_id
from tienlen.ratings import AI_REFERENCES, MIN_HUMANS, PROVISIONAL_GAMES, Rating, rate

__all__ = ["rate_in_transaction", "game_rating_changes", "counts", "rating_board", "player_rating", "rated_games"]


def counts(rated: bool | None, seats: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a game moves ratings: as decided at its deal, or (a game from
    before ratings) when at least two humans played it."""
    if rated is not None:
        return rated
    return sum(seat.get("user_id") is not None for seat in seats) >= MIN_HUMANS


@functools.cache
def _lock_ratings_statement(count: int) -> HotStatement:
    users = [bindparam(f"p_user_{n}", type_=BigInteger) for n in range(count)]
    return HotStatement(
        select(RatingRow.user_id, RatingRow.mu, RatingRow.sigma)
        .where(RatingRow.guild_id == bindparam("p_guild", type_=BigInteger), RatingRow.user_id.in_(users))
        .order_by(RatingRow.user_id)
        .with_for_update()
    )


@functools.lru_cache(maxsize=4)
def _upsert_rating_statement(dialect: str) -> HotStatement:
    dialect_insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = dialect_insert(RatingRow).values(
        guild_id=bindparam("guild_id", type_=BigInteger), user_id=bindparam("user_id", type_=BigInteger),
        mu=bindparam("mu", type_=Float), sigma=bindparam("sigma", type_=Float),
        ordinal=bindparam("ordinal", type_=Float), games=1, peak=bindparam("peak", type_=Integer),
        updated_at=bindparam("updated_at", type_=RatingRow.updated_at.type))
    excluded = statement.excluded
    table = RatingRow.__table__.c
    return HotStatement(statement.on_conflict_do_update(
        index_elements=["guild_id", "user_id"],
        set_={"mu": excluded.mu, "sigma": excluded.sigma, "ordinal": excluded.ordinal, "games": table.games + 1,
              "peak": case((excluded.peak > table.peak, excluded.peak), else_=table.peak),
              "updated_at": excluded.updated_at}), many=True)


_HISTORY_COLUMNS = ("game_id", "user_id", "guild_id", "rank", "mu_before", "sigma_before", "mu_after",
                    "sigma_after", "created_at")
_INSERT_HISTORY = HotStatement(
    insert(RatingHistoryRow).values(
        {name: bindparam(name, type_=RatingHistoryRow.__table__.c[name].type) for name in _HISTORY_COLUMNS}),
    many=True,
)


async def rate_in_transaction(
    connection: HotConnection,
    *,
    game_id: int,
    guild_id: int,
    seats: Sequence[Mapping[str, Any]],
    ranks: Mapping[int, int],
) -> dict[int, RatingChange]:
    """Move the ratings of the game's humans by its finishing order (``ranks``:
    seat → rank, 1 first); each human seat's change."""
    humans = {seat: info["user_id"] for seat, info in enumerate(seats) if info.get("user_id") is not None}
    users = sorted(humans.values())
    parameters: dict[str, int] = {"p_guild": guild_id}
    parameters.update({f"p_user_{n}": user for n, user in enumerate(users)})
    stored = {user: Rating(mu=mu, sigma=sigma)
              for user, mu, sigma in await connection.rows(_lock_ratings_statement(len(users)), parameters)}
    order = list(range(len(seats)))
    entrants = []
    for seat in order:
        if seat in humans:
            entrants.append((stored.get(humans[seat], Rating()), ranks[seat], False))
        else:
            entrants.append((AI_REFERENCES.get(seats[seat].get("ai") or "normal", AI_REFERENCES["normal"]),
                             ranks[seat], True))
    after = rate(entrants)
    now = utcnow()
    changes = {seat: RatingChange(user_id=humans[seat], mu_before=entrants[seat][0].mu,
                                  sigma_before=entrants[seat][0].sigma, mu_after=after[seat].mu,
                                  sigma_after=after[seat].sigma)
               for seat in sorted(humans)}
    await connection.execute_many(_upsert_rating_statement(connection.dialect.name), [
        {"guild_id": guild_id, "user_id": change.user_id, "mu": change.mu_after, "sigma": change.sigma_after,
         "ordinal": after[seat].ordinal, "peak": after[seat].shown, "updated_at": now}
        for seat, change in changes.items()])
    await connection.execute_many(_INSERT_HISTORY, [
        {"game_id": game_id, "user_id": change.user_id, "guild_id": guild_id, "rank": ranks[seat],
         "mu_before": change.mu_before, "sigma_before": change.sigma_before, "mu_after": change.mu_after,
         "sigma_after": change.sigma_after, "created_at": now}
        for seat, change in changes.items()])
    return changes


_GAME_HISTORY = HotStatement(
    select(RatingHistoryRow.user_id, RatingHistoryRow.mu_before, RatingHistoryRow.sigma_before,
           RatingHistoryRow.mu_after, RatingHistoryRow.sigma_after)
    .where(RatingHistoryRow.game_id == bindparam("p_game", type_=BigInteger))
)


async def game_rating_changes(
    connection: HotConnection, game_id: int, humans: Mapping[int, int]
) -> dict[int, RatingChange]:
    """The rating changes a settled game made (a replayed settlement shows them again)."""
    seat_of = {user: seat for seat, user in humans.items()}
    rows = await connection.rows(_GAME_HISTORY, {"p_game": game_id})
    return {seat_of[user]: RatingChange(user_id=user, mu_before=mu_b, sigma_before=sigma_b, mu_after=mu_a,
                                        sigma_after=sigma_a)
            for user, mu_b, sigma_b, mu_a, sigma_a in rows if user in seat_of}


# ---------------------------------------------------------------- reading
def _leader(rank: int, row: Any) -> LeaderRow:
    return LeaderRow(rank=rank, user_id=row.user_id, value=round(1000 + 40 * row.ordinal), games_played=row.games)


async def rating_board(db: Database, guild_id: int, *, caller_id: int | None, limit: int = 10) -> RatingBoard:
    """The guild's best rated players (established ones, then provisional ones
    apart), and the caller's own row."""
    require_id(guild_id, what="guild_id")
    established = RatingRow.games >= PROVISIONAL_GAMES
    base = select(RatingRow.user_id, RatingRow.ordinal, RatingRow.games).where(RatingRow.guild_id == guild_id)
    order = (RatingRow.ordinal.desc(), RatingRow.user_id)
    async with db.read() as session:
        top = (await session.execute(base.where(established).order_by(*order).limit(limit))).all()
        provisional = (await session.execute(base.where(~established).order_by(*order).limit(limit))).all()
        caller = await _caller(session, guild_id, caller_id) if caller_id is not None else None
    return RatingBoard(rows=_ranked(top), provisional=_ranked(provisional), caller=caller)


def _ranked(rows: Sequence[Any]) -> list[LeaderRow]:
    """Competition ranking (equal ordinals share a rank), as :func:`_rank_of` counts."""
    ranked: list[LeaderRow] = []
    previous = None
    for position, row in enumerate(rows, start=1):
        rank = ranked[-1].rank if ranked and row.ordinal == previous else position
        ranked.append(_leader(rank, row))
        previous = row.ordinal
    return ranked


async def _rank_of(session: Any, row: RatingRow) -> int:
    """1 + the players of the same list (established or provisional) rated strictly higher."""
    same_list = (RatingRow.games >= PROVISIONAL_GAMES if row.games >= PROVISIONAL_GAMES
                 else RatingRow.games < PROVISIONAL_GAMES)
    better = await session.scalar(select(func.count()).select_from(RatingRow).where(
        RatingRow.guild_id == row.guild_id, same_list, RatingRow.ordinal > row.ordinal))
    return 1 + (better or 0)


async def _caller(session: Any, guild_id: int, user_id: int) -> LeaderRow | None:
    row = await session.get(RatingRow, (guild_id, user_id))
    if row is None:
        return None
    return _leader(await _rank_of(session, row), row)


async def player_rating(db: Database, guild_id: int, user_id: int) -> PlayerRating | None:
    """A player's rating, peak and rank in its list (established or provisional; None: never rated)."""
    require_id(guild_id, what="guild_id")
    require_id(user_id, what="user_id")
    async with db.read() as session:
        row = await session.get(RatingRow, (guild_id, user_id))
        if row is None:
            return None
        return PlayerRating(guild_id=guild_id, user_id=user_id, mu=row.mu, sigma=row.sigma, games=row.games,
                            peak=row.peak, rank=await _rank_of(session, row))


async def rated_games(db: Database, guild_id: int, user_id: int, *, limit: int = 50) -> list[RatedGame]:
    """The player's last rated games, oldest first, with the balance after each (for a profile)."""
    require_id(guild_id, what="guild_id")
    require_id(user_id, what="user_id")
    balance = (
        select(LedgerRow.balance_after)
        .where(LedgerRow.game_id == RatingHistoryRow.game_id, LedgerRow.user_id == RatingHistoryRow.user_id,
               LedgerRow.reason == Reason.SETTLEMENT.value)
        .limit(1)
        .scalar_subquery()
    )
    async with db.read() as session:
        rows = (await session.execute(
            select(RatingHistoryRow.game_id, RatingHistoryRow.mu_after, RatingHistoryRow.sigma_after,
                   RatingHistoryRow.rank, balance, RatingHistoryRow.created_at)
            .where(RatingHistoryRow.guild_id == guild_id, RatingHistoryRow.user_id == user_id)
            .order_by(RatingHistoryRow.game_id.desc())
            .limit(limit)
        )).all()
    return [RatedGame(game_id=game_id, mu_after=mu, sigma_after=sigma, rank=rank, balance_after=after,
                      created_at=created)
            for game_id, mu, sigma, rank, after, created in reversed(rows)]


async def unrated_finished_games(db: Database) -> list[tuple[int, int, list[dict[str, Any]], dict[str, Any],
                                                               bool | None]]:
    """Settled games without rating rows, in game order: (id, guild, seats, outcome, rated)."""
    async with db.read() as session:
        rated = select(RatingHistoryRow.game_id).distinct()
        rows = (await session.execute(
            select(GameRow.id, GameRow.guild_id, GameRow.seats, GameRow.outcome, GameRow.rated)
            .where(GameRow.settled_at.is_not(None), GameRow.id.not_in(rated))
            .order_by(GameRow.id)
        )).all()
    return [tuple(row) for row in rows]  # type: ignore[misc]
