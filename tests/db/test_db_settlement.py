"""Settlement: engine payments × bet, AI seats dropped, the cap, rake, one
transaction, idempotent replays, and nothing half-done after a crash."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

import db as dblayer
import db.settlement as settlement_module
from db import (
    Database,
    GameClosed,
    GameNotFound,
    GameStatus,
    InvalidAmount,
    InvalidGame,
    Reason,
    SeatPayment,
    SeatResult,
    UnknownAccount,
)
from db.models import LedgerRow
from db.settlement import owed_by_seat
from tienlen.settlement import cap_to_balances, proportional_shares, rake_of
from tests.db.dbtest_support import GUILD, START, human, robot

FOUR_RESULTS = {
    0: SeatResult(place=0, won=True, chops_made=1),
    1: SeatResult(place=1, won=True),
    2: SeatResult(place=2, won=False),
    3: SeatResult(place=3, won=False, chops_suffered=1),
}


def pay(payer: int, payee: int, units: int, reason: str = "place") -> SeatPayment:
    return SeatPayment(payer=payer, payee=payee, units=units, reason=reason)


async def balances(db: Database, *user_ids: int) -> list[int]:
    return [(await dblayer.get_account(db, GUILD, user_id)).balance for user_id in user_ids]


async def game_entries(db: Database, game_id: int) -> list[LedgerRow]:
    async with db.read() as session:
        rows = await session.scalars(
            select(LedgerRow).where(LedgerRow.game_id == game_id).order_by(LedgerRow.id)
        )
        return list(rows)


async def test_four_humans_settle_in_one_go(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, 3, 4)
    game_id = await make_game([human(1), human(2), human(3), human(4)], bet=10)
    payments = [pay(3, 0, 2), pay(2, 1, 1), pay(3, 0, 3, "chopped")]
    result = await dblayer.settle_game(db, game_id, payments=payments, results=FOUR_RESULTS, bet=10)
    assert result.replayed is False
    assert {seat: line.net for seat, line in result.lines.items()} == {
        0: 50,
        1: 10,
        2: -10,
        3: -50,
    }
    assert await balances(db, 1, 2, 3, 4) == [1050, 1010, 990, 950]
    assert [line.balance_after for line in result.lines.values()] == [1050, 1010, 990, 950]
    entries = await game_entries(db, game_id)
    assert [entry.idempotency_key for entry in entries] == [
        f"game:{game_id}:seat:{seat}" for seat in range(4)
    ]
    assert {entry.reason for entry in entries} == {Reason.SETTLEMENT.value}
    winner = await dblayer.get_account(db, GUILD, 1)
    assert (winner.games_played, winner.firsts, winner.wins) == (1, 1, 1)
    assert (winner.chips_won, winner.chips_lost, winner.chops_made) == (50, 0, 1)
    loser = await dblayer.get_account(db, GUILD, 4)
    assert (loser.games_played, loser.firsts, loser.wins) == (1, 0, 0)
    assert (loser.chips_won, loser.chips_lost, loser.chops_suffered) == (0, 50, 1)
    game = await dblayer.load_game(db, game_id)
    assert game.status is GameStatus.FINISHED and game.settled_at is not None


async def test_replay_pays_nothing_twice(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, 3, 4)
    game_id = await make_game([human(1), human(2), human(3), human(4)], bet=10)
    first = await dblayer.settle_game(
        db, game_id, payments=[pay(3, 0, 2)], results=FOUR_RESULTS, bet=10, rake_percent=5
    )
    again = await dblayer.settle_game(
        db, game_id, payments=[pay(3, 0, 99)], results=FOUR_RESULTS, bet=10, rake_percent=5
    )
    assert again.replayed is True
    assert again.lines == first.lines
    assert await balances(db, 1, 2, 3, 4) == [1019, 1000, 1000, 980]
    assert len(await game_entries(db, game_id)) == 4
    assert (await dblayer.get_account(db, GUILD, 1)).games_played == 1


async def test_ai_seats_neither_pay_nor_receive(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), robot(), human(2), robot("hard")], bet=100)
    payments = [pay(1, 0, 5), pay(2, 3, 4), pay(2, 0, 1), pay(3, 1, 2)]
    result = await dblayer.settle_game(
        db, game_id, payments=payments, results=FOUR_RESULTS, bet=100
    )
    assert set(result.lines) == {0, 2}
    assert (result.lines[0].net, result.lines[2].net) == (100, -100)
    assert await balances(db, 1, 2) == [1100, 900]


async def test_a_zero_line_is_still_recorded(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, 3)
    game_id = await make_game([human(1), human(2), human(3)], bet=10)
    payments = [pay(1, 0, 1), pay(2, 1, 1)]
    results = {0: SeatResult(0, True), 1: SeatResult(1, False), 2: SeatResult(2, False)}
    result = await dblayer.settle_game(db, game_id, payments=payments, results=results, bet=10)
    assert result.lines[1].net == 0
    assert [entry.amount for entry in await game_entries(db, game_id)] == [10, 0, -10]
    assert (await dblayer.get_account(db, GUILD, 2)).games_played == 1


async def test_loser_pays_at_most_their_balance(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    await make_accounts(3, chips=101)
    game_id = await make_game([human(1), human(2), human(3)], bet=100)
    payments = [pay(2, 0, 3), pay(2, 1, 1)]
    results = {0: SeatResult(0, True), 1: SeatResult(1, False), 2: SeatResult(2, False)}
    result = await dblayer.settle_game(db, game_id, payments=payments, results=results, bet=100)
    # Owed 300 and 100 from a loser with 101: shares 75.75 and 25.25 -> 76 and 25.
    assert [(line.owed, line.gross) for line in result.lines.values()] == [
        (300, 76),
        (100, 25),
        (-400, -101),
    ]
    assert await balances(db, 1, 2, 3) == [1076, 1025, 0]


async def test_rake_comes_off_each_gain(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2, 3, 4)
    game_id = await make_game([human(1), human(2), human(3), human(4)], bet=33)
    payments = [pay(3, 0, 2), pay(2, 1, 1)]
    result = await dblayer.settle_game(
        db, game_id, payments=payments, results=FOUR_RESULTS, bet=33, rake_percent=5
    )
    assert [(line.gross, line.rake, line.net) for line in result.lines.values()] == [
        (66, 3, 63),
        (33, 1, 32),
        (-33, 0, -33),
        (-66, 0, -66),
    ]
    entries = await game_entries(db, game_id)
    assert sum(entry.amount for entry in entries) == -4


async def test_interrupted_settlement_leaves_no_trace(
    db: Database, make_accounts, make_game, monkeypatch: pytest.MonkeyPatch
) -> None:
    await make_accounts(1, 2, 3, 4)
    game_id = await make_game([human(1), human(2), human(3), human(4)], bet=10)
    real_apply_seats = settlement_module._apply_seats
    calls = 0

    async def crash_once_the_accounts_moved(*args, **kwargs):
        # Every seat's balance and stats have changed inside the transaction
        # (one UPDATE for all seats); the ledger lines are not written yet.
        nonlocal calls
        calls += 1
        after = await real_apply_seats(*args, **kwargs)
        assert sorted(after.values()) == [980, 1000, 1000, 1020]
        raise RuntimeError("power cut")

    monkeypatch.setattr(settlement_module, "_apply_seats", crash_once_the_accounts_moved)
    with pytest.raises(RuntimeError, match="power cut"):
        await dblayer.settle_game(
            db, game_id, payments=[pay(3, 0, 2)], results=FOUR_RESULTS, bet=10
        )
    assert calls == 1
    assert await balances(db, 1, 2, 3, 4) == [START] * 4
    assert await game_entries(db, game_id) == []
    assert (await dblayer.get_account(db, GUILD, 1)).games_played == 0
    game = await dblayer.load_game(db, game_id)
    assert game.settled_at is None and game.status is GameStatus.RUNNING

    monkeypatch.setattr(settlement_module, "_apply_seats", real_apply_seats)
    result = await dblayer.settle_game(
        db, game_id, payments=[pay(3, 0, 2)], results=FOUR_RESULTS, bet=10
    )
    assert result.replayed is False
    assert await balances(db, 1, 2, 3, 4) == [1020, 1000, 1000, 980]


async def test_crash_while_marking_the_game_settled(
    db: Database, make_accounts, make_game, monkeypatch: pytest.MonkeyPatch
) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)], bet=10)

    async def crash(*args, **kwargs):
        raise ConnectionResetError("connection lost")

    monkeypatch.setattr(settlement_module, "_mark_settled", crash)
    results = {0: SeatResult(0, True), 1: SeatResult(1, False)}
    with pytest.raises(ConnectionResetError):
        await dblayer.settle_game(db, game_id, payments=[pay(1, 0, 1)], results=results, bet=10)
    assert await balances(db, 1, 2) == [START, START]
    assert await game_entries(db, game_id) == []


async def test_settlement_refuses_bad_input_and_writes_nothing(
    db: Database, make_accounts, make_game
) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)], bet=10)
    results = {0: SeatResult(0, True), 1: SeatResult(1, False)}
    bad_calls = [
        (GameNotFound, dict(game_id=424242)),
        (InvalidGame, dict(payments=[pay(1, 5, 1)])),
        (InvalidGame, dict(payments=[pay(1, 1, 1)])),
        (InvalidGame, dict(payments=[pay(-1, 0, 1)])),
        (InvalidGame, dict(results={0: SeatResult(0, True)})),
        (InvalidGame, dict(results={**results, 0: SeatResult(-1, True)})),
        (InvalidAmount, dict(payments=[pay(1, 0, -2)])),
        (InvalidAmount, dict(bet=-10)),
        (InvalidAmount, dict(bet=2**53 + 1)),
        (InvalidAmount, dict(bet=2**40, payments=[pay(1, 0, 2**14)])),
        (InvalidAmount, dict(bet=10.5)),
        (InvalidAmount, dict(rake_percent=101)),
        (InvalidAmount, dict(rake_percent=-1)),
    ]
    for error, override in bad_calls:
        arguments = dict(game_id=game_id, payments=[pay(1, 0, 1)], results=results, bet=10)
        arguments.update(override)
        with pytest.raises(error):
            await dblayer.settle_game(
                db,
                arguments.pop("game_id"),
                **arguments,
            )
    assert await balances(db, 1, 2) == [START, START]
    assert await game_entries(db, game_id) == []


async def test_settlement_needs_every_human_account(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1)
    game_id = await make_game([human(1), human(2)], bet=10)
    results = {0: SeatResult(0, True), 1: SeatResult(1, False)}
    with pytest.raises(UnknownAccount):
        await dblayer.settle_game(db, game_id, payments=[pay(1, 0, 1)], results=results, bet=10)
    assert await balances(db, 1) == [START]


async def test_aborted_game_cannot_be_settled(db: Database, make_accounts, make_game) -> None:
    await make_accounts(1, 2)
    game_id = await make_game([human(1), human(2)], bet=10)
    await dblayer.abort_game(db, game_id, "everyone left")
    with pytest.raises(GameClosed):
        await dblayer.settle_game(
            db,
            game_id,
            payments=[],
            results={0: SeatResult(0, True), 1: SeatResult(1, False)},
            bet=10,
        )


# ------------------------------------------------------ the arithmetic alone


def test_largest_remainder_shares() -> None:
    assert proportional_shares(101, {0: 300, 1: 100}) == {0: 76, 1: 25}
    assert proportional_shares(2, {0: 1, 1: 1, 2: 1}) == {0: 1, 1: 1, 2: 0}
    assert proportional_shares(0, {3: 5}) == {3: 0}


seat_numbers = st.integers(min_value=0, max_value=3)
payment_lists = st.lists(
    st.builds(
        SeatPayment,
        payer=seat_numbers,
        payee=seat_numbers,
        units=st.integers(min_value=0, max_value=40),
        reason=st.just("x"),
    ).filter(lambda payment: payment.payer != payment.payee),
    max_size=8,
)


@given(
    payments=payment_lists,
    bet=st.integers(min_value=0, max_value=10_000),
    balance_list=st.lists(st.integers(min_value=0, max_value=500_000), min_size=4, max_size=4),
    rake_percent=st.integers(min_value=0, max_value=100),
    ai_seats=st.sets(seat_numbers, max_size=2),
)
def test_settlement_arithmetic_properties(
    payments: list[SeatPayment],
    bet: int,
    balance_list: list[int],
    rake_percent: int,
    ai_seats: set[int],
) -> None:
    seats = {seat: 1000 + seat for seat in range(4) if seat not in ai_seats}
    balance_of = {seat: balance_list[seat] for seat in seats}
    owed = owed_by_seat(payments, seats, bet)
    gross = cap_to_balances(owed, balance_of)
    rake = rake_of(gross, rake_percent)

    assert sum(owed.values()) == 0
    assert sum(gross.values()) == 0  # chips are only moved, never made
    for seat in seats:
        if owed[seat] < 0:
            assert gross[seat] == -min(-owed[seat], balance_of[seat])
        else:
            assert 0 <= gross[seat] <= owed[seat]
        assert balance_of[seat] + gross[seat] - rake[seat] >= 0
        assert 0 <= rake[seat] <= max(gross[seat], 0)
    if all(balance_of[s] >= -owed[s] for s in seats if owed[s] < 0):
        assert gross == owed
