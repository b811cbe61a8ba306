"""Every money rule in one place: a finished game's payments in bet units
(docs/rules.md §5), and how they become chips between players' accounts.

Kept apart from :mod:`tienlen.game` so the flow of play and the money can be
read separately.  The payments read a finished :class:`~tienlen.game.Game`;
nothing changes it.  The chips part is plain arithmetic over payments and
balances (AI seats hold no chips; no one receives more than the losers still
have; the house's rake), which the database layer applies inside the
settlement's transaction, where the balances are locked.

>>> owed = owed_by_seat([Payment(1, 0, 2, PaymentReason.PLACE), Payment(2, 0, 1, PaymentReason.PLACE)],
...                     {0: 100, 1: 101}, bet=10)
>>> owed
{0: 20, 1: -20}
>>> cap_to_balances(owed, {0: 500, 1: 15})  # seat 1 has only 15 chips left
{0: 15, 1: -15}
>>> rake_of({0: 15, 1: -15}, 10)
{0: 1, 1: 0}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import groupby
from typing import TYPE_CHECKING, Protocol

from tienlen.holdings import held_value
from tienlen.records import Payment, PaymentReason
from tienlen.rules import CongRule, LeftoverRule

if TYPE_CHECKING:
    from tienlen.game import Game

__all__ = ["game_payments", "cong_culprit", "moves_chips", "owed_by_seat", "cap_to_balances",
           "proportional_shares", "rake_of"]


def game_payments(game: "Game") -> list[Payment]:
    """Every payment of ``game``: instant win, or places + chops + cóng + thối + leaving."""
    rules = game.rules
    if game.instant_win is not None:
        winner = game.instant_win.seat
        return [
            Payment(seat, winner, rules.instant_win_payment, PaymentReason.INSTANT_WIN)
            for seat in range(game.players)
            if seat != winner
        ]
    payments: list[Payment] = []
    payments += _place_payments(game)
    payments += _cong_payments(game)
    payments += _chop_payments(game)
    payments += _leftover_payments(game)
    payments += _penalty_payments(game, game.penalised, rules.finish_on_two_penalty, PaymentReason.FINISH_PENALTY)
    payments += _penalty_payments(game, game.left, rules.leave_penalty, PaymentReason.LEAVE_PENALTY)
    return [payment for payment in payments if payment.units > 0]


def _place_payments(game: "Game") -> list[Payment]:
    """Place money; a frozen or thối player's line is replaced by what they pay instead."""
    places = game.places
    replaced = set(game.cong) | set(game.penalised)
    out = []
    for payer_place, payee_place, units in game.rules.place_lines(game.players):
        payer, payee = places[payer_place], places[payee_place]
        if payer in replaced or payee in replaced:
            continue
        out.append(Payment(payer, payee, units, PaymentReason.PLACE))
    return out


def _cong_payments(game: "Game") -> list[Payment]:
    frozen = game.cong
    if not frozen:
        return []
    rules = game.rules
    winner = game.places[0]
    owed = {seat: rules.cong_base + held_value(rules, game.hand_mask(seat)) for seat in frozen}
    culprit = cong_culprit(game)
    if culprit is not None:
        out = [Payment(culprit, winner, sum(owed.values()), PaymentReason.CONG)]
    else:
        out = [Payment(seat, winner, owed[seat], PaymentReason.CONG) for seat in frozen]
    if rules.cong is CongRule.IWIN and len(frozen) == 2:
        # iwin: with two frozen the game ends and the one left pays a "ván nhì".
        for seat in range(game.players):
            if seat != winner and seat not in frozen and seat not in game.left:
                out.append(Payment(seat, winner, 1, PaymentReason.PLACE))
    return out


def cong_culprit(game: "Game") -> int | None:
    """iwin "đền bài": with three frozen, the first (in seat order after the
    winner) who passed on a play they could have beaten pays for all three."""
    frozen = game.cong
    if game.rules.cong is not CongRule.IWIN or len(frozen) != 3:
        return None
    culprits = [seat for seat in frozen if seat in game.passed_with_play]
    return culprits[0] if culprits else None


def _chop_payments(game: "Game") -> list[Payment]:
    """Each chain of chops: the last chopped player pays the whole chain to the last chopper."""
    if not game.rules.chop_money:
        return []
    out = []
    for _, events in groupby(game.chops, key=lambda event: event.round):
        last = list(events)[-1]
        if last.chopped_went_out or last.chopper in game.left:
            continue
        out.append(Payment(last.chopped, last.chopper, last.chain_value, PaymentReason.CHOP))
    return out


def _leftover_payments(game: "Game") -> list[Payment]:
    """Thối / úng: the player left holding cards pays for their 2s and bombs
    to the player placed just above them (iwin: 3rd collects from 4th)."""
    rules = game.rules
    holder = game.last_holder
    if rules.leftover is LeftoverRule.NONE or holder is None or game.cong:
        return []
    if rules.leftover is LeftoverRule.NORTH:
        value = held_value(rules, game.hand_mask(holder), four_of_a_kind=rules.north_leftover_four_of_a_kind)
    else:
        value = held_value(rules, game.hand_mask(holder))
    places = game.places
    position = places.index(holder)
    if position == 0 or value == 0:
        return []
    return [Payment(holder, places[position - 1], value, PaymentReason.LEFTOVER)]


def _penalty_payments(game: "Game", payers, units: int, reason) -> list[Payment]:
    """Each of ``payers`` pays ``units`` to every other seat still at the table."""
    if units <= 0:
        return []
    left = set(game.left)
    return [
        Payment(payer, seat, units, reason)
        for payer in payers
        for seat in range(game.players)
        if seat != payer and seat not in left
    ]


# ----------------------------------------------------------------- chips
class _Payment(Protocol):
    payer: int
    payee: int
    units: int


def moves_chips(payment: _Payment, humans: "Mapping[int, object] | set[int]") -> bool:
    """Whether chips move for ``payment``: both seats are people (AI seats
    hold no chips, so a payment to or from one is shown but not paid)."""
    return payment.payer in humans and payment.payee in humans


def owed_by_seat(payments: Sequence[_Payment], humans: Mapping[int, int], bet: int) -> dict[int, int]:
    """Net chips each human seat (seat → user id) is owed (+) or owes (−)."""
    owed = dict.fromkeys(humans, 0)
    for payment in payments:
        if moves_chips(payment, humans):
            chips = payment.units * bet
            owed[payment.payer] -= chips
            owed[payment.payee] += chips
    return owed


def cap_to_balances(owed: Mapping[int, int], balances: Mapping[int, int]) -> dict[int, int]:
    """What each seat actually receives (+) or pays (−): a loser pays at most
    their balance, and when the losers cannot cover the winners, the winners
    share what was collected in proportion to what they were owed."""
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

    >>> proportional_shares(101, {0: 300, 1: 100})
    {0: 76, 1: 25}
    """
    weight_sum = sum(weights.values())
    shares = {key: total * weight // weight_sum for key, weight in weights.items()}
    left_over = total - sum(shares.values())
    by_remainder = sorted(weights, key=lambda key: (-(total * weights[key] % weight_sum), key))
    for key in by_remainder[:left_over]:
        shares[key] += 1
    return shares


def rake_of(gross: Mapping[int, int], rake_percent: int) -> dict[int, int]:
    """The house's share of each winner's gain (whole chips, rounded down)."""
    return {seat: max(amount, 0) * rake_percent // 100 for seat, amount in gross.items()}
