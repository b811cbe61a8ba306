"""Many writers at once on the same accounts: no lost update, no double
payout, no negative balance, and the ledger always explains every balance.

Calls go through several Database handles (separate engines and connection
pools, as several bot processes would have) and asyncio.gather.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import random
from collections.abc import Awaitable

import pytest
from sqlalchemy import func, select

import db as dblayer
from db import (
    DailyAlreadyClaimed,
    Database,
    InsufficientFunds,
    Reason,
    SeatPayment,
    SeatResult,
    Settlement,
)
from db.models import AccountRow, LedgerRow
from tests.db.dbtest_support import GUILD, START, Backend, human

USERS = list(range(1, 7))
HANDLES = 3


@pytest.fixture
async def handles(db: Database, backend: Backend):
    opened = [backend.open() for _ in range(HANDLES)]
    try:
        yield opened
    finally:
        await asyncio.gather(*(handle.dispose() for handle in opened))


async def books(db: Database) -> tuple[dict[int, int], dict[int, int]]:
    """(balance per user, ledger total per user) for the test guild."""
    async with db.read() as session:
        balances = dict(
            (
                await session.execute(
                    select(AccountRow.user_id, AccountRow.balance).where(
                        AccountRow.guild_id == GUILD
                    )
                )
            ).all()
        )
        totals = dict(
            (
                await session.execute(
                    select(LedgerRow.user_id, func.sum(LedgerRow.amount))
                    .where(LedgerRow.guild_id == GUILD)
                    .group_by(LedgerRow.user_id)
                )
            ).all()
        )
    return balances, {user: int(total) for user, total in totals.items()}


def random_settlement(
    rng: random.Random,
) -> tuple[list[int], list[SeatPayment], dict[int, SeatResult]]:
    players = rng.sample(USERS, 4)
    order = rng.sample(range(4), 4)
    payments = [
        SeatPayment(payer=order[3], payee=order[0], units=rng.randint(1, 6), reason="last"),
        SeatPayment(payer=order[2], payee=order[1], units=rng.randint(1, 3), reason="third"),
    ]
    if rng.random() < 0.3:
        payments.append(SeatPayment(payer=order[2], payee=order[0], units=4, reason="chop"))
    results = {
        seat: SeatResult(place=order.index(seat), won=order.index(seat) < 2) for seat in range(4)
    }
    return players, payments, results


async def test_fifty_concurrent_settlements_and_claims(
    db: Database, handles: list[Database], make_accounts, make_game
) -> None:
    await make_accounts(*USERS, chips=START)
    rng = random.Random(20260301)
    bet = 60  # big enough that some losers run dry and the cap kicks in
    games = []
    for _ in range(50):
        players, payments, results = random_settlement(rng)
        game_id = await make_game([human(user) for user in players], bet=bet)
        games.append((game_id, payments, results))
    duplicated = {game_id for game_id, _, _ in games[::5]}

    calls: list[Awaitable[object]] = []
    for index, (game_id, payments, results) in enumerate(games):
        for copy in range(2 if game_id in duplicated else 1):
            handle = handles[(index + copy) % HANDLES]
            calls.append(
                dblayer.settle_game(handle, game_id, payments=payments, results=results, bet=bet)
            )
    now = dt.datetime(2026, 3, 1, 3, 0, tzinfo=dt.UTC)
    for index, user in enumerate(USERS * 2):
        calls.append(
            dblayer.claim_daily(
                handles[index % HANDLES], GUILD, user, amount=25, starting_chips=START, now=now
            )
        )
    rng.shuffle(calls)
    outcomes = await asyncio.gather(*calls, return_exceptions=True)

    settlements = [o for o in outcomes if isinstance(o, Settlement)]
    claims = [o for o in outcomes if isinstance(o, dblayer.DailyClaim)]
    refused = [o for o in outcomes if isinstance(o, DailyAlreadyClaimed)]
    unexpected = [o for o in outcomes if isinstance(o, BaseException) and o not in refused]
    assert unexpected == []
    assert (len(claims), len(refused)) == (len(USERS), len(USERS))
    assert len(settlements) == len(games) + len(duplicated)
    assert sum(s.replayed for s in settlements) == len(duplicated)
    by_game: dict[int, list[Settlement]] = {}
    for result in settlements:
        by_game.setdefault(result.game_id, []).append(result)
    for pair in by_game.values():
        assert all(result.lines == pair[0].lines for result in pair)

    balances, ledger_totals = await books(db)
    assert balances == ledger_totals  # every balance is exactly its ledger
    assert min(balances.values()) >= 0
    async with db.read() as session:
        settlement_lines = await session.scalar(
            select(func.count())
            .select_from(LedgerRow)
            .where(LedgerRow.reason == Reason.SETTLEMENT.value)
        )
        played = await session.scalar(select(func.sum(AccountRow.games_played)))
    assert settlement_lines == played == 4 * len(games)
    # Without rake, settlements only move chips: the total is grants + dailies.
    assert sum(balances.values()) == START * len(USERS) + 25 * len(USERS)


async def test_same_settlement_twice_at_once_pays_once(
    db: Database, handles: list[Database], make_accounts, make_game
) -> None:
    await make_accounts(1, 2, 3, 4)
    game_id = await make_game([human(1), human(2), human(3), human(4)], bet=10)
    payments = [SeatPayment(3, 0, 2, "last"), SeatPayment(2, 1, 1, "third")]
    results = {seat: SeatResult(seat, seat < 2) for seat in range(4)}
    first, second = await asyncio.gather(
        *(
            dblayer.settle_game(handle, game_id, payments=payments, results=results, bet=10)
            for handle in handles[:2]
        )
    )
    assert sorted([first.replayed, second.replayed]) == [False, True]
    assert first.lines == second.lines
    balances, ledger_totals = await books(db)
    assert balances == ledger_totals == {1: 1020, 2: 1010, 3: 990, 4: 980}


async def test_fifty_concurrent_claims_of_one_day(db: Database, handles: list[Database]) -> None:
    now = dt.datetime(2026, 3, 1, 3, 0, tzinfo=dt.UTC)
    outcomes = await asyncio.gather(
        *(
            dblayer.claim_daily(
                handles[i % HANDLES], GUILD, 1, amount=50, starting_chips=START, now=now
            )
            for i in range(50)
        ),
        return_exceptions=True,
    )
    assert sum(isinstance(o, dblayer.DailyClaim) for o in outcomes) == 1
    assert sum(isinstance(o, DailyAlreadyClaimed) for o in outcomes) == 49
    balances, ledger_totals = await books(db)
    assert balances == ledger_totals == {1: START + 50}


async def test_concurrent_debits_never_overdraw(
    db: Database, handles: list[Database], make_accounts
) -> None:
    await make_accounts(1, 2, 3)
    outcomes = await asyncio.gather(
        *(
            dblayer.transfer(
                handles[i % HANDLES], GUILD, 1, 2 + i % 2, 30, reason=Reason.TRANSFER, key=f"t{i}"
            )
            for i in range(50)
        ),
        return_exceptions=True,
    )
    succeeded = [o for o in outcomes if isinstance(o, dblayer.TransferResult)]
    assert len(succeeded) == START // 30
    assert all(isinstance(o, InsufficientFunds) for o in outcomes if o not in succeeded)
    balances, ledger_totals = await books(db)
    assert balances == ledger_totals
    assert balances[1] == START % 30
    assert sum(balances.values()) == 3 * START
