"""Chip accounts: creation with a starting grant, grants, transfers, penalties.

Each public function is one transaction.  Every change writes a ledger entry
under an idempotency key, so a retried call (after a timeout, a restart, a
double click) returns the first call's result instead of paying again.
"""

from __future__ import annotations

import datetime
from functools import partial

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from db import ledger
from db._sql import insert_for
from db.coltypes import utcnow
from db.database import Database
from db.errors import GameNotFound, InsufficientFunds, InvalidAmount
from db.models import AccountRow, GameRow, LedgerRow
from db.records import Account, BalanceChange, Reason, TransferResult
from db.validation import require_amount, require_id, require_key

GRANT_REASONS = frozenset({Reason.ADMIN_GRANT, Reason.REFUND})
TRANSFER_REASONS = frozenset({Reason.TRANSFER, Reason.SETTLEMENT, Reason.REFUND})


def start_grant_key(guild_id: int, user_id: int) -> str:
    return f"start:{guild_id}:{user_id}"


def leave_penalty_key(game_id: int, user_id: int) -> str:
    return f"game:{game_id}:leave:{user_id}"


def to_account(row: AccountRow) -> Account:
    return Account(
        guild_id=row.guild_id,
        user_id=row.user_id,
        balance=row.balance,
        created_at=row.created_at,
        last_daily_at=row.last_daily_at,
        games_played=row.games_played,
        firsts=row.firsts,
        wins=row.wins,
        chips_won=row.chips_won,
        chips_lost=row.chips_lost,
        chops_made=row.chops_made,
        chops_suffered=row.chops_suffered,
    )


async def select_account(session: AsyncSession, guild_id: int, user_id: int) -> AccountRow | None:
    return await session.scalar(
        select(AccountRow).where(AccountRow.guild_id == guild_id, AccountRow.user_id == user_id)
    )


async def create_account_if_missing(
    session: AsyncSession,
    guild_id: int,
    user_id: int,
    *,
    starting_chips: int,
    now: datetime.datetime,
) -> bool:
    """Create the account with its start grant unless it exists; True if created.

    ON CONFLICT DO NOTHING makes a concurrent creator wait for ours and then
    skip, so there is one account and one grant whatever the interleaving.
    """
    created = await session.scalar(
        insert_for(session, AccountRow)
        .values(guild_id=guild_id, user_id=user_id, balance=starting_chips, created_at=now)
        .on_conflict_do_nothing(index_elements=["guild_id", "user_id"])
        .returning(AccountRow.user_id)
    )
    if created is None:
        return False
    await ledger.append(
        session,
        guild_id=guild_id,
        user_id=user_id,
        amount=starting_chips,
        balance_after=starting_chips,
        reason=Reason.START_GRANT,
        key=start_grant_key(guild_id, user_id),
        now=now,
    )
    return True


async def get_account(db: Database, guild_id: int, user_id: int) -> Account | None:
    require_id(guild_id, what="guild_id")
    require_id(user_id, what="user_id")
    async with db.read() as session:
        row = await select_account(session, guild_id, user_id)
        return to_account(row) if row is not None else None


async def get_or_create_account(
    db: Database, guild_id: int, user_id: int, *, starting_chips: int
) -> Account:
    """The account, created with ``starting_chips`` (reason start_grant) if new."""
    require_amount(starting_chips, what="starting_chips", allow_zero=True)
    existing = await get_account(db, guild_id, user_id)
    if existing is not None:
        return existing
    async with db.write() as session:
        await create_account_if_missing(
            session, guild_id, user_id, starting_chips=starting_chips, now=utcnow()
        )
        row = await select_account(session, guild_id, user_id)
        assert row is not None
        return to_account(row)


async def grant(
    db: Database,
    guild_id: int,
    user_id: int,
    amount: int,
    *,
    reason: Reason | str,
    key: str,
) -> BalanceChange:
    """Credit chips (an admin grant or a refund), once per ``key``."""
    reason = _reason_among(reason, GRANT_REASONS)
    require_key(key)
    require_amount(amount)
    require_id(guild_id, what="guild_id")
    require_id(user_id, what="user_id")
    async with db.write() as session:
        await ledger.lock_balances(session, guild_id, [user_id])
        previous = await ledger.find_entry(session, key)
        if previous is not None:
            return ledger.replayed_change(
                previous, guild_id=guild_id, user_id=user_id, amount=amount, reason=reason
            )
        balance = await ledger.credit(session, guild_id, user_id, amount)
        await ledger.append(
            session,
            guild_id=guild_id,
            user_id=user_id,
            amount=amount,
            balance_after=balance,
            reason=reason,
            key=key,
            now=utcnow(),
        )
    return BalanceChange(guild_id, user_id, amount, balance, replayed=False)


async def transfer(
    db: Database,
    guild_id: int,
    payer_id: int,
    payee_id: int,
    amount: int,
    *,
    reason: Reason | str,
    key: str,
    game_id: int | None = None,
) -> TransferResult:
    """Move chips between two accounts of a guild, once per ``key``.

    Writes two ledger entries, ``{key}:debit`` and ``{key}:credit``.  Raises
    InsufficientFunds (and changes nothing) if the payer cannot cover it.
    """
    reason = _reason_among(reason, TRANSFER_REASONS)
    require_key(key, suffix_room=len(":credit"))
    require_amount(amount)
    require_id(guild_id, what="guild_id")
    require_id(payer_id, what="payer_id")
    require_id(payee_id, what="payee_id")
    if payer_id == payee_id:
        raise InvalidAmount("a transfer needs two different accounts")
    debit_key, credit_key = f"{key}:debit", f"{key}:credit"
    async with db.write() as session:
        await ledger.lock_balances(session, guild_id, [payer_id, payee_id])
        previous = await ledger.find_entry(session, debit_key)
        if previous is not None:
            return await _replayed_transfer(
                session, previous, credit_key, guild_id, payer_id, amount, reason
            )
        payer_balance = await ledger.debit(session, guild_id, payer_id, amount)
        if payer_balance is None:
            raise InsufficientFunds(guild_id, payer_id, amount)
        payee_balance = await ledger.credit(session, guild_id, payee_id, amount)
        entry = partial(
            ledger.new_entry, guild_id=guild_id, reason=reason, now=utcnow(), game_id=game_id
        )
        await ledger.append_many(
            session,
            [
                entry(user_id=payer_id, amount=-amount, balance_after=payer_balance, key=debit_key),
                entry(user_id=payee_id, amount=amount, balance_after=payee_balance, key=credit_key),
            ],
        )
    return TransferResult(payer_balance, payee_balance, replayed=False)


async def _replayed_transfer(
    session: AsyncSession,
    debit_entry: LedgerRow,
    credit_key: str,
    guild_id: int,
    payer_id: int,
    amount: int,
    reason: Reason,
) -> TransferResult:
    ledger.replayed_change(
        debit_entry, guild_id=guild_id, user_id=payer_id, amount=-amount, reason=reason
    )
    credit_entry = await ledger.find_entry(session, credit_key)
    assert credit_entry is not None, "a transfer's two entries are written together"
    return TransferResult(debit_entry.balance_after, credit_entry.balance_after, replayed=True)


async def record_leave_penalty(
    db: Database,
    game_id: int,
    user_id: int,
    amount: int,
    *,
    key: str | None = None,
) -> BalanceChange:
    """Charge a player who left a game, never below zero: min(amount, balance).

    The chips go to the house.  The ledger amount is the (negative) charge;
    it may be 0 for a player who had nothing left.
    """
    require_amount(amount)
    require_id(user_id, what="user_id")
    key = require_key(key or leave_penalty_key(game_id, user_id))
    async with db.write() as session:
        guild_id = await session.scalar(select(GameRow.guild_id).where(GameRow.id == game_id))
        if guild_id is None:
            raise GameNotFound(game_id)
        balances = await ledger.lock_balances(session, guild_id, [user_id])
        previous = await ledger.find_entry(session, key)
        if previous is not None:
            return ledger.replayed_change(
                previous,
                guild_id=guild_id,
                user_id=user_id,
                amount=None,
                reason=Reason.LEAVE_PENALTY,
            )
        charge = min(amount, balances[user_id])
        balance = await ledger.debit(session, guild_id, user_id, charge)
        assert balance is not None, "the row is locked and covers the charge"
        await ledger.append(
            session,
            guild_id=guild_id,
            user_id=user_id,
            amount=-charge,
            balance_after=balance,
            reason=Reason.LEAVE_PENALTY,
            key=key,
            now=utcnow(),
            game_id=game_id,
            details={"asked": amount},
        )
    return BalanceChange(guild_id, user_id, -charge, balance, replayed=False)


def _reason_among(reason: Reason | str, allowed: frozenset[Reason]) -> Reason:
    try:
        parsed = Reason(reason)
    except ValueError:
        parsed = None
    if parsed not in allowed:
        names = ", ".join(sorted(r.value for r in allowed))
        raise ValueError(f"reason must be one of {names}, got {reason!r}")
    return parsed


async def reset_balances(db: Database, guild_id: int, *, amount: int, key: str) -> int:
    """Set every balance of the guild to ``amount`` (a server's fresh start); how
    many accounts changed.

    Each account gets a ledger entry (reason reset) for the difference, so a
    balance stays the sum of its ledger; ``key`` names the reset, and doing
    it again under the same key changes nothing (a double click, a retry).
    """
    require_id(guild_id, what="guild_id")
    require_amount(amount, what="amount", allow_zero=True)
    require_key(key)
    async with db.write() as session:
        if await ledger.find_entry(session, f"{key}:done") is not None:
            return 0
        rows = list(await session.scalars(
            select(AccountRow).where(AccountRow.guild_id == guild_id).order_by(AccountRow.user_id).with_for_update()))
        now = utcnow()
        entries = []
        for row in rows:
            if row.balance == amount:
                continue
            entries.append(ledger.new_entry(guild_id=guild_id, user_id=row.user_id, amount=amount - row.balance,
                                            balance_after=amount, reason=Reason.RESET, key=f"{key}:{row.user_id}",
                                            now=now))
            row.balance = amount
        await session.flush()
        # The reset's own mark (a zero entry on the first account, or none when the guild has no account yet).
        if rows:
            entries.append(ledger.new_entry(guild_id=guild_id, user_id=rows[0].user_id, amount=0,
                                            balance_after=amount, reason=Reason.RESET, key=f"{key}:done", now=now))
        if entries:
            await ledger.append_many(session, entries)
        return len(entries) - (1 if rows else 0)
