"""Settling a finished game's chips: all seats in one transaction, once.

The engine says who pays whom, in bet units, seat to seat.  This module turns
that into chips for the human seats and applies it atomically:

1. Payments involving an AI seat are dropped (AI seats hold no chips).
2. Each human seat's *owed* figure is the sum of its payments × bet.
3. Cap (the rule "no one receives more than the loser still has"): a loser
   pays min(owed loss, balance).  If the losers together cannot cover what the
   winners are owed, the winners share what was collected in proportion to
   what they were owed (largest remainder, so the chips add up exactly).
4. Rake: each winner gives floor(gain × rake_percent / 100) to the house.

Each human seat gets one ledger entry, key ``game:{game_id}:seat:{n}``, and
the game row is marked settled in the same transaction; a second call (even
a concurrent one) finds the game settled and returns the stored result with
``replayed=True``.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, Float, Integer, Row, bindparam, cast, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from db import ledger
from db._sql import core
from db.coltypes import utcnow
from db.database import Database
from db.errors import GameClosed, GameNotFound, InvalidAmount, InvalidGame
from db.games import human_seats
from db.models import AccountRow, GameRow, LedgerRow
from db.records import (
    GameStatus,
    Reason,
    SeatPayment,
    SeatResult,
    Settlement,
    SettlementLine,
)
from db.validation import MAX_AMOUNT, require_amount, require_percent


def settlement_key(game_id: int, seat: int) -> str:
    return f"game:{game_id}:seat:{seat}"


# ---------------------------------------------------------------- arithmetic


def owed_by_seat(
    payments: Sequence[SeatPayment], seats: Mapping[int, int], bet: int
) -> dict[int, int]:
    """Net chips each human seat is owed (+) or owes (−), AI payments dropped."""
    owed = dict.fromkeys(seats, 0)
    for payment in payments:
        if payment.payer in seats and payment.payee in seats:
            chips = payment.units * bet
            owed[payment.payer] -= chips
            owed[payment.payee] += chips
    for seat, amount in owed.items():
        if abs(amount) > MAX_AMOUNT:
            raise InvalidAmount(f"seat {seat} would move {amount} chips, over 2**53")
    return owed


def cap_to_balances(owed: Mapping[int, int], balances: Mapping[int, int]) -> dict[int, int]:
    """What each seat actually receives (+) or pays (−) once losers' balances
    limit what can be collected."""
    paid = {seat: min(-amount, balances[seat]) for seat, amount in owed.items() if amount < 0}
    gains = {seat: amount for seat, amount in owed.items() if amount > 0}
    collected = sum(paid.values())
    if collected < sum(gains.values()):
        gains = proportional_shares(collected, gains)
    gross = dict.fromkeys(owed, 0)
    gross.update({seat: -amount for seat, amount in paid.items()})
    gross.update(gains)
    return gross


def proportional_shares(total: int, weights: Mapping[int, int]) -> dict[int, int]:
    """Split ``total`` in proportion to positive ``weights``, in whole chips.

    Largest-remainder method: floors first, then one more chip each to the
    largest remainders (ties to the lower seat), so the parts sum to total.
    """
    weight_sum = sum(weights.values())
    shares = {key: total * weight // weight_sum for key, weight in weights.items()}
    left_over = total - sum(shares.values())
    by_remainder = sorted(weights, key=lambda key: (-(total * weights[key] % weight_sum), key))
    for key in by_remainder[:left_over]:
        shares[key] += 1
    return shares


def rake_of(gross: Mapping[int, int], rake_percent: int) -> dict[int, int]:
    return {seat: max(amount, 0) * rake_percent // 100 for seat, amount in gross.items()}


# ---------------------------------------------------------------- validation


def _check_inputs(
    payments: Sequence[SeatPayment],
    results: Mapping[int, SeatResult],
    bet: int,
    rake_percent: int,
) -> None:
    require_amount(bet, what="bet", allow_zero=True)
    require_percent(rake_percent, what="rake_percent")
    for payment in payments:
        _require_seat(payment.payer)
        _require_seat(payment.payee)
        require_amount(payment.units, what="payment units", allow_zero=True)
        if payment.payer == payment.payee:
            raise InvalidGame(f"seat {payment.payer} cannot pay itself")
    for seat, result in results.items():
        _require_seat(seat)
        _check_result(seat, result)


def _require_seat(seat: object) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or seat < 0:
        raise InvalidGame(f"not a seat number: {seat!r}")


def _check_result(seat: int, result: SeatResult) -> None:
    if not isinstance(result.won, bool):
        raise InvalidGame(f"seat {seat}: won must be a bool")
    for name in ("place", "chops_made", "chops_suffered"):
        value = getattr(result, name)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**31:
            raise InvalidGame(f"seat {seat}: {name} must be a small non-negative int")


def _check_against_game(
    payments: Sequence[SeatPayment],
    results: Mapping[int, SeatResult],
    seat_count: int,
    humans: Mapping[int, int],
) -> None:
    seats_named = {p.payer for p in payments} | {p.payee for p in payments} | set(results)
    outside = sorted(seat for seat in seats_named if seat >= seat_count)
    if outside:
        raise InvalidGame(f"the game has {seat_count} seats; got seat {outside[0]}")
    missing = sorted(set(humans) - set(results))
    if missing:
        raise InvalidGame(f"no result for human seat {missing[0]}")


# ---------------------------------------------------------------- settlement


async def settle_game(
    db: Database,
    game_id: int,
    *,
    payments: Sequence[SeatPayment],
    results: Mapping[int, SeatResult],
    bet: int,
    rake_percent: int = 0,
) -> Settlement:
    """Pay out a finished game once; see the module docstring for the rules.

    A replay returns the first settlement's lines (whatever the arguments)
    with ``replayed=True``.  Raises GameNotFound, GameClosed (aborted game),
    UnknownAccount (a human seat without an account), InvalidAmount or
    InvalidGame (malformed input); on any error nothing is written.
    """
    _check_inputs(payments, results, bet, rake_percent)
    async with db.write() as session:
        game = await _lock_game(session, game_id)
        if game.settled_at is not None:
            return await _replayed(session, game)
        if game.status == GameStatus.ABORTED.value:
            raise GameClosed(f"game {game_id} was aborted; it cannot be settled")
        humans = human_seats(game.seats)
        _check_against_game(payments, results, len(game.seats), humans)
        balances = await ledger.lock_balances(session, game.guild_id, humans.values())
        chips = _chips_by_seat(payments, humans, balances, bet, rake_percent)
        lines = await _apply_lines(session, game, humans, chips, results)
        await _mark_settled(session, game, lines, results, bet, rake_percent)
    return Settlement(game_id, lines, replayed=False)


@dataclass(frozen=True)
class _SeatChips:
    owed: int
    gross: int
    rake: int


def _chips_by_seat(
    payments: Sequence[SeatPayment],
    humans: Mapping[int, int],
    balances: Mapping[int, int],
    bet: int,
    rake_percent: int,
) -> dict[int, _SeatChips]:
    owed = owed_by_seat(payments, humans, bet)
    gross = cap_to_balances(owed, {seat: balances[user] for seat, user in humans.items()})
    rake = rake_of(gross, rake_percent)
    return {seat: _SeatChips(owed[seat], gross[seat], rake[seat]) for seat in humans}


async def _apply_lines(
    session: AsyncSession,
    game: Row[Any],
    humans: Mapping[int, int],
    chips: Mapping[int, _SeatChips],
    results: Mapping[int, SeatResult],
) -> dict[int, SettlementLine]:
    """Move every human seat's chips and write their ledger entries."""
    now = utcnow()
    lines: dict[int, SettlementLine] = {}
    for seat in sorted(humans):
        figures = chips[seat]
        net = figures.gross - figures.rake
        balance_after = await _apply_line(session, game.guild_id, humans[seat], net, results[seat])
        lines[seat] = SettlementLine(
            humans[seat], figures.gross, figures.rake, net, balance_after, figures.owed
        )
    await ledger.append_many(
        session, [_ledger_entry(game, seat, line, now) for seat, line in lines.items()]
    )
    return lines


# The game columns a settlement needs: reading the whole row (with its large
# record JSON) would only slow the hot path down.
_GAME_COLUMNS = (
    GameRow.id,
    GameRow.guild_id,
    GameRow.seats,
    GameRow.status,
    GameRow.ended_at,
    GameRow.settled_at,
    GameRow.settlement,
)


async def _lock_game(session: AsyncSession, game_id: int) -> Row[Any]:
    # NO KEY UPDATE: still lets action inserts (FK share locks) through.
    found = await core(
        session,
        select(*_GAME_COLUMNS).where(GameRow.id == game_id).with_for_update(key_share=True),
    )
    game = found.first()
    if game is None:
        raise GameNotFound(game_id)
    return game


# Built once: settlements are the hot path, and rebuilding this statement
# costs more than executing it.
_APPLY_LINE = (
    update(AccountRow)
    .where(
        AccountRow.guild_id == bindparam("p_guild", type_=BigInteger),
        AccountRow.user_id == bindparam("p_user", type_=BigInteger),
    )
    .values(
        balance=AccountRow.balance + bindparam("p_net", type_=BigInteger),
        games_played=AccountRow.games_played + 1,
        firsts=AccountRow.firsts + bindparam("p_first", type_=Integer),
        wins=AccountRow.wins + bindparam("p_won", type_=Integer),
        win_rate=cast(AccountRow.wins + bindparam("p_won", type_=Integer), Float)
        / (AccountRow.games_played + 1),
        chips_won=AccountRow.chips_won + bindparam("p_gain", type_=BigInteger),
        chips_lost=AccountRow.chips_lost + bindparam("p_loss", type_=BigInteger),
        chops_made=AccountRow.chops_made + bindparam("p_chops_made", type_=Integer),
        chops_suffered=AccountRow.chops_suffered + bindparam("p_chops_suffered", type_=Integer),
    )
    .returning(AccountRow.balance)
)


async def _apply_line(
    session: AsyncSession, guild_id: int, user_id: int, net: int, result: SeatResult
) -> int:
    """Apply one seat's chips and stats; returns its balance after."""
    updated = await core(
        session,
        _APPLY_LINE,
        {
            "p_guild": guild_id,
            "p_user": user_id,
            "p_net": net,
            "p_first": int(result.place == 0),
            "p_won": int(result.won),
            "p_gain": max(net, 0),
            "p_loss": max(-net, 0),
            "p_chops_made": result.chops_made,
            "p_chops_suffered": result.chops_suffered,
        },
    )
    balance_after: int | None = updated.scalar()
    assert balance_after is not None, "the account row is locked"
    return balance_after


def _ledger_entry(
    game: Row[Any], seat: int, line: SettlementLine, now: datetime.datetime
) -> dict[str, Any]:
    return ledger.new_entry(
        guild_id=game.guild_id,
        user_id=line.user_id,
        amount=line.net,
        balance_after=line.balance_after,
        reason=Reason.SETTLEMENT,
        key=settlement_key(game.id, seat),
        now=now,
        game_id=game.id,
        details={"seat": seat},
    )


async def _mark_settled(
    session: AsyncSession,
    game: Row[Any],
    lines: Mapping[int, SettlementLine],
    results: Mapping[int, SeatResult],
    bet: int,
    rake_percent: int,
) -> None:
    now = utcnow()
    seats: dict[str, dict[str, Any]] = {}
    for seat, result in results.items():
        summary: dict[str, Any] = {
            "place": result.place,
            "won": result.won,
            "chops_made": result.chops_made,
            "chops_suffered": result.chops_suffered,
        }
        line = lines.get(seat)
        if line is not None:
            summary |= {"owed": line.owed, "gross": line.gross, "rake": line.rake, "net": line.net}
        seats[str(seat)] = summary
    await core(
        session,
        update(GameRow)
        .where(GameRow.id == game.id)
        .values(
            settled_at=now,
            status=GameStatus.FINISHED.value,
            ended_at=game.ended_at or now,
            settlement={"bet": bet, "rake_percent": rake_percent, "seats": seats},
        ),
    )


async def _replayed(session: AsyncSession, game: Row[Any]) -> Settlement:
    humans = human_seats(game.seats)
    keys = {settlement_key(game.id, seat): seat for seat in humans}
    entries = await session.scalars(
        select(LedgerRow).where(LedgerRow.idempotency_key.in_(list(keys)))
    )
    per_seat = (game.settlement or {}).get("seats", {})
    lines = {}
    for entry in entries:
        seat = keys[entry.idempotency_key]
        figures = per_seat.get(str(seat), {})
        lines[seat] = SettlementLine(
            user_id=entry.user_id,
            gross=figures.get("gross", entry.amount),
            rake=figures.get("rake", 0),
            net=entry.amount,
            balance_after=entry.balance_after,
            owed=figures.get("owed", entry.amount),
        )
    return Settlement(game.id, dict(sorted(lines.items())), replayed=True)
