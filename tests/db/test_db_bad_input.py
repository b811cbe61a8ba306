"""Bad input is refused with a specific error before anything is written."""

from __future__ import annotations

from collections.abc import Awaitable
from decimal import Decimal

import pytest

import db as dblayer
from db import MAX_AMOUNT, Database, InvalidAmount, Reason, UnknownAccount
from tests.db.dbtest_support import GUILD, START, human

BAD_AMOUNTS = [
    0,
    -1,
    -(2**60),
    MAX_AMOUNT + 1,
    2**63,
    10**30,
    1.5,
    10.0,
    "10",
    True,
    None,
    Decimal(5),
]


def money_call(name: str, db: Database, game_id: int, amount: object) -> Awaitable[object]:
    """Call one of the entry points that take a positive chip amount."""
    if name == "grant":
        return dblayer.grant(db, GUILD, 1, amount, reason=Reason.ADMIN_GRANT, key="k")
    if name == "transfer":
        return dblayer.transfer(db, GUILD, 1, 2, amount, reason=Reason.TRANSFER, key="k")
    if name == "leave_penalty":
        return dblayer.record_leave_penalty(db, game_id, 1, amount)
    return dblayer.claim_daily(db, GUILD, 1, amount=amount, starting_chips=START)


@pytest.mark.parametrize("call", ["grant", "transfer", "leave_penalty", "daily"])
async def test_bad_amounts_are_refused(db: Database, make_accounts, make_game, call: str) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)])
    before = await dblayer.account_ledger(db, GUILD, 1)
    for amount in BAD_AMOUNTS:
        with pytest.raises(InvalidAmount):
            await money_call(call, db, game_id, amount)
    assert await dblayer.account_ledger(db, GUILD, 1) == before
    assert (await dblayer.get_account(db, GUILD, 1)).balance == START


async def test_the_largest_allowed_amount_works(db: Database, make_accounts) -> None:
    await make_accounts(1)
    change = await dblayer.grant(db, GUILD, 1, MAX_AMOUNT, reason=Reason.ADMIN_GRANT, key="max")
    assert change.balance == START + MAX_AMOUNT


@pytest.mark.parametrize("chips", [-1, MAX_AMOUNT + 1, 0.5, "1000"])
async def test_bad_starting_chips(db: Database, chips: object) -> None:
    with pytest.raises(InvalidAmount):
        await dblayer.get_or_create_account(db, GUILD, 1, starting_chips=chips)  # type: ignore[arg-type]
    with pytest.raises(InvalidAmount):
        await dblayer.claim_daily(db, GUILD, 1, amount=10, starting_chips=chips)  # type: ignore[arg-type]
    assert await dblayer.get_account(db, GUILD, 1) is None


async def test_zero_starting_chips_is_allowed(db: Database) -> None:
    account = await dblayer.get_or_create_account(db, GUILD, 1, starting_chips=0)
    assert account.balance == 0


async def test_ids_must_be_ints(db: Database) -> None:
    for bad in ("123", 1.0, -5, 2**63):
        with pytest.raises((TypeError, ValueError)):
            await dblayer.get_or_create_account(db, GUILD, bad, starting_chips=START)  # type: ignore[arg-type]
        with pytest.raises((TypeError, ValueError)):
            await dblayer.get_account(db, bad, 1)  # type: ignore[arg-type]


async def test_unknown_accounts(db: Database, make_accounts) -> None:
    await make_accounts(1)
    with pytest.raises(UnknownAccount):
        await dblayer.grant(db, GUILD, 2, 5, reason=Reason.REFUND, key="a")
    with pytest.raises(UnknownAccount):
        await dblayer.transfer(db, GUILD, 1, 2, 5, reason=Reason.TRANSFER, key="b")
    with pytest.raises(UnknownAccount):
        await dblayer.transfer(db, GUILD + 1, 1, 2, 5, reason=Reason.TRANSFER, key="c")
    assert (await dblayer.get_account(db, GUILD, 1)).balance == START


async def test_bad_idempotency_keys(db: Database, make_accounts) -> None:
    await make_accounts(1, 2)
    for key in ("", "k" * 201, None, 42):
        with pytest.raises(ValueError):
            await dblayer.grant(db, GUILD, 1, 5, reason=Reason.REFUND, key=key)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        await dblayer.transfer(db, GUILD, 1, 2, 5, reason=Reason.TRANSFER, key="k" * 195)
    change = await dblayer.grant(db, GUILD, 1, 5, reason=Reason.REFUND, key="k" * 200)
    assert change.balance == START + 5
