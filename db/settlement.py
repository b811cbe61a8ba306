"""Settling a finished game's chips: all seats in one transaction, once.

The engine says who pays whom, in bet units, seat to seat.  The money rules
that turn this into chips for the human seats live with the payments, in
:mod:`tienlen.settlement`; this module applies them atomically, with the
balances it locks:

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

Settlements are the data layer's hot path, so a settlement is five SQL
statements, each built once with SQLAlchemy Core and run by :mod:`db.hot`
(compiled once, on the pooled DBAPI connection, the whole transaction in one
greenlet): lock the game row, lock the accounts (in user-id order on
PostgreSQL, so overlapping settlements cannot deadlock), apply every seat in
ONE ``UPDATE ... RETURNING``, insert the ledger rows (one executemany), mark
the game settled.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import (
    BigInteger,
    Float,
    Integer,
    String,
    bindparam,
    case,
    cast,
    insert,
    select,
    update,
)

import tienlen.settlement as money
from db import ledger
from db.coltypes import utcnow
from db.database import Database
from db.errors import GameClosed, GameNotFound, InvalidAmount, InvalidGame, UnknownAccount
from db.games import human_seats
from db.hot import HotConnection, HotStatement
from db.models import AccountRow, GameRow, LedgerRow
from db.ratings import counts, game_rating_changes, rate_in_transaction
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
# The money rules themselves live with the game's payments, in
# tienlen.settlement; this module applies them inside the transaction.


def owed_by_seat(
    payments: Sequence[SeatPayment], seats: Mapping[int, int], bet: int
) -> dict[int, int]:
    """Net chips each human seat is owed (+) or owes (−), AI payments dropped;
    InvalidAmount beyond what an account can hold."""
    owed = money.owed_by_seat(payments, seats, bet)
    for seat, amount in owed.items():
        if abs(amount) > MAX_AMOUNT:
            raise InvalidAmount(f"seat {seat} would move {amount} chips, over 2**53")
    return owed


# ---------------------------------------------------------------- validation


def check_settlement_inputs(
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
    ranks: Mapping[int, int] | None = None,
) -> Settlement:
    """Pay out a finished game once; see the module docstring for the rules.

    A replay returns the first settlement's lines (whatever the arguments)
    with ``replayed=True``.  Raises GameNotFound, GameClosed (aborted game),
    UnknownAccount (a human seat without an account), InvalidAmount or
    InvalidGame (malformed input); on any error nothing is written.
    """
    check_settlement_inputs(payments, results, bet, rake_percent)
    return await db.hot_write(settle_in_transaction, game_id, payments, results, bet, rake_percent, ranks)


async def settle_in_transaction(
    connection: HotConnection,
    game_id: int,
    payments: Sequence[SeatPayment],
    results: Mapping[int, SeatResult],
    bet: int,
    rake_percent: int,
    ranks: Mapping[int, int] | None = None,
) -> Settlement:
    """The settlement, inside a running hot transaction (:meth:`Database.hot_write`);
    with ``ranks`` (seat → rank, 1 first) a rated game also moves its players' ratings."""
    game = await _lock_game(connection, game_id)
    if game.settled_at is not None:
        return await _replayed(connection, game)
    if game.status == GameStatus.ABORTED.value:
        raise GameClosed(f"game {game_id} was aborted; it cannot be settled")
    humans = human_seats(game.seats)
    _check_against_game(payments, results, len(game.seats), humans)
    balances = await _lock_balances(connection, game.guild_id, humans.values())
    chips = _chips_by_seat(payments, humans, balances, bet, rake_percent)
    lines = await _apply_lines(connection, game, humans, chips, results)
    await _mark_settled(connection, game, lines, results, bet, rake_percent)
    ratings = {}
    if ranks is not None and counts(game.rated, game.seats):
        ratings = await rate_in_transaction(connection, game_id=game.id, guild_id=game.guild_id, seats=game.seats,
                                            ranks=ranks)
    return Settlement(game_id, lines, replayed=False, ratings=ratings)


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
    gross = money.cap_to_balances(owed, {seat: balances[user] for seat, user in humans.items()})
    rake = money.rake_of(gross, rake_percent)
    return {seat: _SeatChips(owed[seat], gross[seat], rake[seat]) for seat in humans}


async def _apply_lines(
    connection: HotConnection,
    game: _Game,
    humans: Mapping[int, int],
    chips: Mapping[int, _SeatChips],
    results: Mapping[int, SeatResult],
) -> dict[int, SettlementLine]:
    """Move every human seat's chips and write their ledger entries."""
    nets = {seat: chips[seat].gross - chips[seat].rake for seat in humans}
    after = await _apply_seats(connection, game.guild_id, humans, nets, results)
    lines = {
        seat: SettlementLine(
            humans[seat],
            chips[seat].gross,
            chips[seat].rake,
            nets[seat],
            after[humans[seat]],
            chips[seat].owed,
        )
        for seat in sorted(humans)
    }
    now = utcnow()
    await connection.execute_many(
        _INSERT_LEDGER, [_ledger_entry(game, seat, line, now) for seat, line in lines.items()]
    )
    return lines


class _Game(NamedTuple):
    """The game columns a settlement needs: reading the whole row (with its
    large record JSON) would only slow the hot path down."""

    id: int
    guild_id: int
    seats: list[dict[str, Any]]
    status: str
    ended_at: datetime.datetime | None
    settled_at: datetime.datetime | None
    settlement: dict[str, Any] | None
    rated: bool | None


# Statements are built once (per seat count): settlements are the hot path,
# and building a statement costs about as much as executing it.

# NO KEY UPDATE: still lets action inserts (FK share locks) through.
_LOCK_GAME = HotStatement(
    select(*(getattr(GameRow, name) for name in _Game._fields))
    .where(GameRow.id == bindparam("p_game", type_=BigInteger))
    .with_for_update(key_share=True)
)

# Every column named, so that the statement compiles the same for every
# executemany; the ledger's id comes from its sequence.
_LEDGER_COLUMNS = (
    "guild_id",
    "user_id",
    "amount",
    "balance_after",
    "reason",
    "game_id",
    "idempotency_key",
    "created_at",
    "details",
)
_INSERT_LEDGER = HotStatement(
    insert(LedgerRow).values(
        {name: bindparam(name, type_=LedgerRow.__table__.c[name].type) for name in _LEDGER_COLUMNS}
    ),
    many=True,
)


async def _lock_game(connection: HotConnection, game_id: int) -> _Game:
    row = await connection.first(_LOCK_GAME, {"p_game": game_id})
    if row is None:
        raise GameNotFound(game_id)
    return _Game(*row)


@functools.cache
def _lock_balances_statement(count: int) -> HotStatement:
    users = [bindparam(f"p_user_{n}", type_=BigInteger) for n in range(count)]
    return HotStatement(
        select(AccountRow.user_id, AccountRow.balance)
        .where(
            AccountRow.guild_id == bindparam("p_guild", type_=BigInteger),
            AccountRow.user_id.in_(users),
        )
        .order_by(AccountRow.user_id)
        .with_for_update(key_share=True)
    )


async def _lock_balances(connection: HotConnection, guild_id: int, user_ids: Any) -> dict[int, int]:
    """Lock the accounts' rows (user-id order) and return their balances, as
    :func:`db.ledger.lock_balances` does; raises UnknownAccount."""
    wanted = sorted(set(user_ids))
    parameters: dict[str, int] = {"p_guild": guild_id}
    parameters.update({f"p_user_{n}": user_id for n, user_id in enumerate(wanted)})
    rows = await connection.rows(_lock_balances_statement(len(wanted)), parameters)
    balances = {user_id: balance for user_id, balance in rows}
    for user_id in wanted:
        if user_id not in balances:
            raise UnknownAccount(guild_id, user_id)
    return balances


# Per seat: the account column and the delta's parameter prefix and type.
_SEAT_DELTAS = (
    ("balance", "net", BigInteger),
    ("firsts", "first", Integer),
    ("wins", "won", Integer),
    ("chips_won", "gain", BigInteger),
    ("chips_lost", "loss", BigInteger),
    ("chops_made", "chops_made", Integer),
    ("chops_suffered", "chops_suffered", Integer),
)


@functools.cache
def _apply_seats_statement(count: int) -> HotStatement:
    """One UPDATE for ``count`` accounts: each column gets its seat's delta
    through ``CASE user_id WHEN ... THEN ...``, RETURNING the new balances.

    (Portable: PostgreSQL and SQLite >= 3.35 both run it; the rows are
    already locked, in user-id order, by the balance SELECT.)
    """
    users = [bindparam(f"p_user_{n}", type_=BigInteger) for n in range(count)]

    def delta(prefix: str, type_: Any) -> Any:
        whens = [(users[n], bindparam(f"p_{prefix}_{n}", type_=type_)) for n in range(count)]
        return case(*whens, value=AccountRow.user_id)

    table = AccountRow.__table__.c
    changes: dict[str, Any] = {
        column: table[column] + delta(prefix, type_) for column, prefix, type_ in _SEAT_DELTAS
    }
    changes["games_played"] = table.games_played + 1
    changes["win_rate"] = cast(table.wins + delta("won", Integer), Float) / (table.games_played + 1)
    return HotStatement(
        update(AccountRow)
        .where(
            AccountRow.guild_id == bindparam("p_guild", type_=BigInteger),
            AccountRow.user_id.in_(users),
        )
        .values(changes)
        .returning(AccountRow.user_id, AccountRow.balance)
    )


async def _apply_seats(
    connection: HotConnection,
    guild_id: int,
    humans: Mapping[int, int],
    nets: Mapping[int, int],
    results: Mapping[int, SeatResult],
) -> dict[int, int]:
    """Apply every human seat's chips and stats in one statement; the balance
    after, by user id."""
    parameters: dict[str, int] = {"p_guild": guild_id}
    for n, seat in enumerate(sorted(humans)):
        net, result = nets[seat], results[seat]
        parameters.update(
            {
                f"p_user_{n}": humans[seat],
                f"p_net_{n}": net,
                f"p_first_{n}": int(result.place == 0),
                f"p_won_{n}": int(result.won),
                f"p_gain_{n}": max(net, 0),
                f"p_loss_{n}": max(-net, 0),
                f"p_chops_made_{n}": result.chops_made,
                f"p_chops_suffered_{n}": result.chops_suffered,
            }
        )
    updated = await connection.rows(_apply_seats_statement(len(humans)), parameters)
    after = {user_id: balance for user_id, balance in updated}
    assert len(after) == len(humans), "every account row is locked"
    return after


def _ledger_entry(
    game: _Game, seat: int, line: SettlementLine, now: datetime.datetime
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


_MARK_SETTLED = HotStatement(
    update(GameRow)
    .where(GameRow.id == bindparam("p_game", type_=BigInteger))
    .values(
        settled_at=bindparam("p_now", type_=GameRow.settled_at.type),
        status=GameStatus.FINISHED.value,
        ended_at=bindparam("p_ended_at", type_=GameRow.ended_at.type),
        settlement=bindparam("p_settlement", type_=GameRow.settlement.type),
    )
)


def settlement_summary(
    lines: Mapping[int, SettlementLine],
    results: Mapping[int, SeatResult],
    bet: int,
    rake_percent: int,
) -> dict[str, Any]:
    """What the game row keeps of a settlement (for /history and replays)."""
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
    return {"bet": bet, "rake_percent": rake_percent, "seats": seats}


async def _mark_settled(
    connection: HotConnection,
    game: _Game,
    lines: Mapping[int, SettlementLine],
    results: Mapping[int, SeatResult],
    bet: int,
    rake_percent: int,
) -> None:
    now = utcnow()
    await connection.rows(
        _MARK_SETTLED,
        {
            "p_game": game.id,
            "p_now": now,
            "p_ended_at": game.ended_at or now,
            "p_settlement": settlement_summary(lines, results, bet, rake_percent),
        },
    )


@functools.cache
def _ledger_of_keys_statement(count: int) -> HotStatement:
    keys = [bindparam(f"p_key_{n}", type_=String) for n in range(count)]
    return HotStatement(
        select(LedgerRow.idempotency_key, LedgerRow.user_id, LedgerRow.amount, LedgerRow.balance_after)
        .where(LedgerRow.idempotency_key.in_(keys))
    )


async def _replayed(connection: HotConnection, game: _Game) -> Settlement:
    humans = human_seats(game.seats)
    keys = {settlement_key(game.id, seat): seat for seat in humans}
    entries = (
        await connection.rows(
            _ledger_of_keys_statement(len(keys)),
            {f"p_key_{n}": key for n, key in enumerate(keys)},
        )
        if keys
        else []
    )
    per_seat = (game.settlement or {}).get("seats", {})
    lines = {}
    for key, user_id, amount, balance_after in entries:
        seat = keys[key]
        figures = per_seat.get(str(seat), {})
        lines[seat] = SettlementLine(
            user_id=user_id,
            gross=figures.get("gross", amount),
            rake=figures.get("rake", 0),
            net=amount,
            balance_after=balance_after,
            owed=figures.get("owed", amount),
        )
    ratings = await game_rating_changes(connection, game.id, humans)
    return Settlement(game.id, dict(sorted(lines.items())), replayed=True, ratings=ratings)


async def settlement_of(db: Database, game_id: int) -> Settlement | None:
    """What the game's settlement paid (``replayed=True``), or None before it is settled."""
    return await db.hot_write(_stored_settlement, game_id)


async def _stored_settlement(connection: HotConnection, game_id: int) -> Settlement | None:
    game = await _lock_game(connection, game_id)
    return await _replayed(connection, game) if game.settled_at is not None else None
