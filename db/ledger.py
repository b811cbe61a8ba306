"""The chip ledger: every balance change, append-only, with an idempotency key.

The helpers here run inside a caller's write transaction.  Balances only ever
move through a single relative UPDATE (never a value read, computed in Python
and written back), and a debit is conditional on the balance covering it, so
even without the row lock a concurrent writer cannot make a balance wrong or
negative.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db._sql import core
from db.database import Database
from db.errors import IdempotencyConflict, UnknownAccount
from db.models import AccountRow, LedgerRow
from db.records import BalanceChange, LedgerEntry, Reason
from db.validation import require_id


def _is_account(guild_id: int, user_id: int) -> Any:
    return (AccountRow.guild_id == guild_id) & (AccountRow.user_id == user_id)


async def lock_balances(
    session: AsyncSession, guild_id: int, user_ids: Iterable[int]
) -> dict[int, int]:
    """Lock the accounts' rows and return their balances.

    PostgreSQL takes row locks in user-id order so that two transactions
    locking overlapping sets cannot deadlock; SQLite already holds the whole
    database from BEGIN IMMEDIATE.  Raises UnknownAccount for a missing one.
    """
    wanted = sorted(set(user_ids))
    rows = await session.execute(
        select(AccountRow.user_id, AccountRow.balance)
        .where(AccountRow.guild_id == guild_id, AccountRow.user_id.in_(wanted))
        .order_by(AccountRow.user_id)
        .with_for_update(key_share=True)
    )
    balances = {user_id: balance for user_id, balance in rows}
    for user_id in wanted:
        if user_id not in balances:
            raise UnknownAccount(guild_id, user_id)
    return balances


async def credit(session: AsyncSession, guild_id: int, user_id: int, amount: int) -> int:
    """Add ``amount`` (>= 0) and return the new balance."""
    result = await core(
        session,
        update(AccountRow)
        .where(_is_account(guild_id, user_id))
        .values(balance=AccountRow.balance + amount)
        .returning(AccountRow.balance),
    )
    balance: int | None = result.scalar()
    if balance is None:
        raise UnknownAccount(guild_id, user_id)
    return balance


async def debit(session: AsyncSession, guild_id: int, user_id: int, amount: int) -> int | None:
    """Take ``amount`` (>= 0) if the balance covers it; the new balance, or None."""
    result = await core(
        session,
        update(AccountRow)
        .where(_is_account(guild_id, user_id), AccountRow.balance >= amount)
        .values(balance=AccountRow.balance - amount)
        .returning(AccountRow.balance),
    )
    balance: int | None = result.scalar()
    return balance


async def find_entry(session: AsyncSession, key: str) -> LedgerRow | None:
    return await session.scalar(select(LedgerRow).where(LedgerRow.idempotency_key == key))


def new_entry(
    *,
    guild_id: int,
    user_id: int,
    amount: int,
    balance_after: int,
    reason: Reason,
    key: str,
    now: datetime.datetime,
    game_id: int | None = None,
    details: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One ledger row, ready for :func:`append_many`."""
    return {
        "guild_id": guild_id,
        "user_id": user_id,
        "amount": amount,
        "balance_after": balance_after,
        "reason": reason.value,
        "game_id": game_id,
        "idempotency_key": key,
        "created_at": now,
        "details": dict(details) if details is not None else None,
    }


async def append_many(session: AsyncSession, entries: Sequence[dict[str, Any]]) -> None:
    """Insert ledger rows in one statement."""
    await core(session, insert(LedgerRow), list(entries))


async def append(session: AsyncSession, **fields: Any) -> None:
    """Insert one ledger row; see :func:`new_entry` for the fields."""
    await append_many(session, [new_entry(**fields)])


def replayed_change(
    entry: LedgerRow, *, guild_id: int, user_id: int, amount: int | None, reason: Reason
) -> BalanceChange:
    """The original result of a keyed change, or IdempotencyConflict if the key
    was used for something else."""
    same = (
        entry.guild_id == guild_id
        and entry.user_id == user_id
        and entry.reason == reason.value
        and (amount is None or entry.amount == amount)
    )
    if not same:
        raise IdempotencyConflict(
            f"idempotency key {entry.idempotency_key!r} was used for another change"
        )
    return BalanceChange(
        guild_id=guild_id,
        user_id=user_id,
        amount=entry.amount,
        balance=entry.balance_after,
        replayed=True,
    )


def to_entry(row: LedgerRow) -> LedgerEntry:
    return LedgerEntry(
        id=row.id,
        guild_id=row.guild_id,
        user_id=row.user_id,
        amount=row.amount,
        balance_after=row.balance_after,
        reason=Reason(row.reason),
        game_id=row.game_id,
        idempotency_key=row.idempotency_key,
        created_at=row.created_at,
        details=row.details,
    )


async def account_ledger(
    db: Database, guild_id: int, user_id: int, *, limit: int = 20
) -> list[LedgerEntry]:
    """The account's latest ledger entries, newest first."""
    require_id(guild_id, what="guild_id")
    require_id(user_id, what="user_id")
    async with db.read() as session:
        rows = await session.scalars(
            select(LedgerRow)
            .where(LedgerRow.guild_id == guild_id, LedgerRow.user_id == user_id)
            .order_by(LedgerRow.id.desc())
            .limit(limit)
        )
        return [to_entry(row) for row in rows]
