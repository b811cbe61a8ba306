"""Accounts: creation with a starting grant, grants, transfers, leave penalties."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import func, select

import db as dblayer
from db import (
    Database,
    GameNotFound,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    Reason,
    UnknownAccount,
)
from db.models import AccountRow, LedgerRow
from tests.db.dbtest_support import GUILD, OTHER_GUILD, START, Backend, human


async def ledger_sum(db: Database, guild_id: int, user_id: int) -> int:
    async with db.read() as session:
        total = await session.scalar(
            select(func.coalesce(func.sum(LedgerRow.amount), 0)).where(
                LedgerRow.guild_id == guild_id, LedgerRow.user_id == user_id
            )
        )
    return int(total)


async def test_new_account_gets_the_starting_grant(db: Database) -> None:
    account = await dblayer.get_or_create_account(db, GUILD, 1, starting_chips=START)
    assert (account.guild_id, account.user_id, account.balance) == (GUILD, 1, START)
    assert account.games_played == account.wins == account.firsts == 0
    assert account.last_daily_at is None
    assert account.created_at.tzinfo is not None
    [entry] = await dblayer.account_ledger(db, GUILD, 1)
    assert entry.reason is Reason.START_GRANT
    assert entry.idempotency_key == f"start:{GUILD}:1"
    assert (entry.amount, entry.balance_after) == (START, START)


async def test_existing_account_is_returned_unchanged(db: Database) -> None:
    await dblayer.get_or_create_account(db, GUILD, 1, starting_chips=START)
    again = await dblayer.get_or_create_account(db, GUILD, 1, starting_chips=5 * START)
    assert again.balance == START
    assert len(await dblayer.account_ledger(db, GUILD, 1)) == 1


async def test_accounts_are_per_guild(db: Database) -> None:
    await dblayer.get_or_create_account(db, GUILD, 1, starting_chips=START)
    assert await dblayer.get_account(db, OTHER_GUILD, 1) is None
    other = await dblayer.get_or_create_account(db, OTHER_GUILD, 1, starting_chips=7)
    assert other.balance == 7
    assert (await dblayer.get_account(db, GUILD, 1)).balance == START


async def test_get_account_of_a_stranger_is_none(db: Database) -> None:
    assert await dblayer.get_account(db, GUILD, 404) is None


async def test_concurrent_creation_makes_one_account_and_one_grant(
    db: Database, backend: Backend
) -> None:
    """Separate Database handles: separate connections, as from two processes."""
    handles = [backend.open() for _ in range(4)]
    try:
        accounts = await asyncio.gather(
            *(
                dblayer.get_or_create_account(handle, GUILD, 9, starting_chips=START)
                for handle in handles * 5
            )
        )
    finally:
        await asyncio.gather(*(handle.dispose() for handle in handles))
    assert {account.balance for account in accounts} == {START}
    async with db.read() as session:
        assert await session.scalar(select(func.count()).select_from(AccountRow)) == 1
        assert await session.scalar(select(func.count()).select_from(LedgerRow)) == 1


async def test_grant_credits_once_per_key(db: Database, make_accounts) -> None:
    await make_accounts(1)
    first = await dblayer.grant(db, GUILD, 1, 250, reason=Reason.ADMIN_GRANT, key="gift-1")
    again = await dblayer.grant(db, GUILD, 1, 250, reason="admin_grant", key="gift-1")
    assert (first.balance, first.replayed) == (START + 250, False)
    assert (again.balance, again.amount, again.replayed) == (START + 250, 250, True)
    assert (await dblayer.get_account(db, GUILD, 1)).balance == START + 250
    refund = await dblayer.grant(db, GUILD, 1, 5, reason=Reason.REFUND, key="refund-1")
    assert refund.balance == START + 255
    assert await ledger_sum(db, GUILD, 1) == START + 255


async def test_grant_key_reused_for_something_else_is_refused(db: Database, make_accounts) -> None:
    await make_accounts(1, 2)
    await dblayer.grant(db, GUILD, 1, 250, reason=Reason.ADMIN_GRANT, key="gift-1")
    with pytest.raises(IdempotencyConflict):
        await dblayer.grant(db, GUILD, 1, 999, reason=Reason.ADMIN_GRANT, key="gift-1")
    with pytest.raises(IdempotencyConflict):
        await dblayer.grant(db, GUILD, 2, 250, reason=Reason.ADMIN_GRANT, key="gift-1")
    assert (await dblayer.get_account(db, GUILD, 2)).balance == START


async def test_grant_to_unknown_account(db: Database) -> None:
    with pytest.raises(UnknownAccount) as raised:
        await dblayer.grant(db, GUILD, 77, 10, reason=Reason.ADMIN_GRANT, key="k")
    assert (raised.value.guild_id, raised.value.user_id) == (GUILD, 77)


async def test_grant_refuses_other_reasons(db: Database, make_accounts) -> None:
    await make_accounts(1)
    for reason in (Reason.SETTLEMENT, Reason.DAILY, "free money"):
        with pytest.raises(ValueError):
            await dblayer.grant(db, GUILD, 1, 10, reason=reason, key=f"k-{reason}")
    assert (await dblayer.get_account(db, GUILD, 1)).balance == START


async def test_transfer_moves_chips_once(db: Database, make_accounts) -> None:
    await make_accounts(1, 2)
    result = await dblayer.transfer(db, GUILD, 1, 2, 300, reason=Reason.TRANSFER, key="t1")
    again = await dblayer.transfer(db, GUILD, 1, 2, 300, reason=Reason.TRANSFER, key="t1")
    assert (result.payer_balance, result.payee_balance, result.replayed) == (700, 1300, False)
    assert (again.payer_balance, again.payee_balance, again.replayed) == (700, 1300, True)
    assert (await dblayer.get_account(db, GUILD, 1)).balance == 700
    assert (await dblayer.get_account(db, GUILD, 2)).balance == 1300
    keys = {entry.idempotency_key for entry in await dblayer.account_ledger(db, GUILD, 1)}
    assert "t1:debit" in keys


async def test_transfer_with_a_game_reference(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)])
    await dblayer.transfer(db, GUILD, 1, 2, 10, reason=Reason.SETTLEMENT, key="x", game_id=game_id)
    [latest, _start] = await dblayer.account_ledger(db, GUILD, 2)
    assert (latest.game_id, latest.amount, latest.reason) == (game_id, 10, Reason.SETTLEMENT)


async def test_transfer_beyond_balance_changes_nothing(db: Database, make_accounts) -> None:
    await make_accounts(1, 2)
    with pytest.raises(InsufficientFunds) as raised:
        await dblayer.transfer(db, GUILD, 1, 2, START + 1, reason=Reason.TRANSFER, key="t1")
    assert raised.value.needed == START + 1
    assert (await dblayer.get_account(db, GUILD, 1)).balance == START
    assert (await dblayer.get_account(db, GUILD, 2)).balance == START
    assert len(await dblayer.account_ledger(db, GUILD, 1)) == 1
    # The whole balance is fine; the key was not burnt by the failure.
    result = await dblayer.transfer(db, GUILD, 1, 2, START, reason=Reason.TRANSFER, key="t1")
    assert (result.payer_balance, result.payee_balance) == (0, 2 * START)


async def test_transfer_needs_two_known_accounts(db: Database, make_accounts) -> None:
    await make_accounts(1)
    with pytest.raises(UnknownAccount):
        await dblayer.transfer(db, GUILD, 1, 99, 5, reason=Reason.TRANSFER, key="a")
    with pytest.raises(UnknownAccount):
        await dblayer.transfer(db, GUILD, 99, 1, 5, reason=Reason.TRANSFER, key="b")
    with pytest.raises(InvalidAmount):
        await dblayer.transfer(db, GUILD, 1, 1, 5, reason=Reason.TRANSFER, key="c")
    assert (await dblayer.get_account(db, GUILD, 1)).balance == START


async def test_leave_penalty_is_charged_once(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)])
    charged = await dblayer.record_leave_penalty(db, game_id, 1, 300)
    again = await dblayer.record_leave_penalty(db, game_id, 1, 300)
    assert (charged.amount, charged.balance, charged.replayed) == (-300, 700, False)
    assert (again.amount, again.balance, again.replayed) == (-300, 700, True)
    [entry, _start] = await dblayer.account_ledger(db, GUILD, 1)
    assert entry.idempotency_key == f"game:{game_id}:leave:1"
    assert (entry.reason, entry.game_id) == (Reason.LEAVE_PENALTY, game_id)


async def test_leave_penalty_never_goes_below_zero(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, chips=120)
    game_id = await make_game([human(1), human(2)])
    charged = await dblayer.record_leave_penalty(db, game_id, 1, 500, key="custom")
    assert (charged.amount, charged.balance) == (-120, 0)
    broke = await dblayer.record_leave_penalty(db, game_id, 1, 500, key="custom-2")
    assert (broke.amount, broke.balance) == (0, 0)
    assert await ledger_sum(db, GUILD, 1) == 0


async def test_leave_penalty_needs_a_game_and_an_account(
    db: Database, make_accounts, make_game
) -> None:
    await make_accounts(1)
    with pytest.raises(GameNotFound):
        await dblayer.record_leave_penalty(db, 424242, 1, 10)
    game_id = await make_game([human(1), human(5)])
    with pytest.raises(UnknownAccount):
        await dblayer.record_leave_penalty(db, game_id, 5, 10)
