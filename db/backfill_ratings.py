"""Rate the finished games that were settled before ratings existed, in game order.

    python -m db.backfill_ratings [DATABASE_URL]

Each settled game without rating rows that counts (a rated game, or one from
before ratings with at least two humans) moves its players' ratings exactly
as a live settlement would have, in one transaction per game; running it
again rates nothing twice.  The default URL is the bot's (``DATABASE_URL``).
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from db.connect import DEFAULT_URL
from db.database import Database
from db.hot import HotConnection
from db.ratings import counts, rate_in_transaction, unrated_finished_games

__all__ = ["backfill", "ranks_of_outcome"]


def ranks_of_outcome(outcome: dict[str, Any], players: int) -> dict[int, int] | None:
    """Seat → rank (1 first) from a finished game's stored outcome, as the live settlement rates it:
    its places, and after an instant win the winner first and everyone else second."""
    instant = outcome.get("instant_win")
    if instant:
        return {seat: 1 if seat == instant[0] else 2 for seat in range(players)}
    places = outcome.get("places")
    if not places or len(places) != players:
        return None
    return {seat: place + 1 for place, seat in enumerate(places)}


async def _rate(connection: HotConnection, game_id: int, guild_id: int, seats: list[dict[str, Any]],
                ranks: dict[int, int]) -> None:
    await rate_in_transaction(connection, game_id=game_id, guild_id=guild_id, seats=seats, ranks=ranks)


async def backfill(database: Database) -> int:
    """Rate every settled game still without ratings that counts; how many were rated."""
    rated = 0
    for game_id, guild_id, seats, outcome, decided in await unrated_finished_games(database):
        ranks = ranks_of_outcome(outcome or {}, len(seats))
        if ranks is None or not counts(decided, seats):
            continue
        await database.hot_write(_rate, game_id, guild_id, seats, ranks)
        rated += 1
    return rated


async def _main(url: str | None) -> None:
    from dotenv import load_dotenv

    load_dotenv()
    database = Database.from_url(url or os.environ.get("DATABASE_URL") or DEFAULT_URL)
    try:
        await database.upgrade()
        print(f"rated {await backfill(database)} games")
    finally:
        await database.dispose()


if __name__ == "__main__":
    asyncio.run(_main(sys.argv[1] if len(sys.argv) > 1 else None))
