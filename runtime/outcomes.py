"""What a finished action or game means in public: events, the summary, the stored outcome.

Pure functions over the engine's results and the table's seats; the manager
calls them inside the table lock, after the change is stored.
"""

from __future__ import annotations

from typing import Any

from runtime.snapshot import Event, GameSummary, PaymentLine
from tienlen import Game, Outcome
from tienlen.table import Table

__all__ = ["events_of", "summary_of", "outcome_json"]


def events_of(table: Table, outcome: Outcome) -> list[Event]:
    """Public events for one engine outcome."""
    seats = table.game_seats
    seat = outcome.action.seat
    name = seats[seat].name
    events: list[Event] = []
    if outcome.action.kind != "leave":  # leaving is announced by the table itself
        if outcome.combo is not None:
            events.append(Event("played", seat=seat, name=name, combo=outcome.combo))
        else:
            events.append(Event("passed", seat=seat, name=name))
    if outcome.chop is not None:
        chop = outcome.chop
        events.append(Event("chop", seat=chop.chopper, name=seats[chop.chopper].name,
                            other=seats[chop.chopped].name, combo=chop.target, value=chop.chain_value))
    if outcome.went_out is not None:
        events.append(Event("out", seat=seat, name=name, value=outcome.went_out))
    if outcome.finish_penalty:
        events.append(Event("finish_penalty", seat=seat, name=name))
    for frozen in outcome.frozen:
        events.append(Event("frozen", seat=frozen, name=seats[frozen].name))
    for stuck in outcome.stuck:
        events.append(Event("stuck", seat=stuck, name=seats[stuck].name))
    if outcome.round_over and outcome.leader is not None:
        events.append(Event("round_over", seat=outcome.leader, name=seats[outcome.leader].name))
    return events


def summary_of(table: Table, game: Game, settlement: Any) -> GameSummary:
    """The public end-of-game summary: places, payments, chips and balances
    (``settlement`` is the database's result), and everyone's last cards."""
    seats = table.game_seats
    lines = settlement.lines
    chips = tuple(
        (seats[seat].name, line.net, line.balance_after) for seat, line in sorted(lines.items())
    )
    instant = game.instant_win
    return GameSummary(
        game_id=table.game_id,
        places=tuple(seats[seat].name for seat in game.places),
        payments=tuple(
            PaymentLine(seats[p.payer].name, seats[p.payee].name, p.units, p.reason.value,
                        settled=not (seats[p.payer].is_ai or seats[p.payee].is_ai))
            for p in game.payments()
        ),
        chips=chips,
        instant_win=(seats[instant.seat].name, instant.kind.value) if instant else None,
        frozen=tuple(seats[seat].name for seat in game.cong),
        final_hands=tuple((seats[seat].name, tuple(game.hand(seat))) for seat in range(game.players)),
        bet=table.bet,
        rake_percent=table.rules.rake_percent,
    )


def outcome_json(game: Game, settlement: Any) -> dict[str, Any]:
    """The outcome stored with the game record (seat numbers, bet units, chips)."""
    return {
        "places": game.places,
        "settlement": {str(seat): units for seat, units in game.settlement().items()},
        "payments": [[p.payer, p.payee, p.units, p.reason.value] for p in game.payments()],
        "chips": {str(seat): line.net for seat, line in settlement.lines.items()},
        "instant_win": [game.instant_win.seat, game.instant_win.kind.value] if game.instant_win else None,
        "cong": list(game.cong),
        "chops": {str(seat): list(counts) for seat, counts in game.chop_counts().items()},
    }
