"""What a finished action or game means in public: events, the stored outcome, the summary.

Pure functions over the engine's results and the seats' names.  The summary
is made from stored facts only (the game, its seats, what it paid), so a
summary that never reached Discord can be made again after a restart.
"""

from __future__ import annotations

from typing import Any, Sequence

from runtime.records import Payout
from runtime.snapshot import Event, GameSummary, PaymentLine
from tienlen import Game, Outcome
from tienlen.settlement import moves_chips
from tienlen.table import Seat

__all__ = ["events_of", "game_outcome", "summary_of"]


def events_of(seats: Sequence[Seat], outcome: Outcome) -> list[Event]:
    """Public events for one engine outcome (``seats``: the game's seats)."""
    seat = outcome.action.seat
    name = seats[seat].name
    events: list[Event] = []
    if outcome.action.kind != "leave":  # leaving is announced by the step itself
        if outcome.combo is not None:
            events.append(Event(kind="played", seat=seat, name=name, combo=outcome.combo))
        else:
            events.append(Event(kind="passed", seat=seat, name=name))
    if outcome.chop is not None:
        chop = outcome.chop
        events.append(Event(kind="chop", seat=chop.chopper, name=seats[chop.chopper].name,
                            other=seats[chop.chopped].name, combo=chop.target, value=chop.chain_value))
    if outcome.went_out is not None:
        events.append(Event(kind="out", seat=seat, name=name, value=outcome.went_out))
    if outcome.finish_penalty:
        events.append(Event(kind="finish_penalty", seat=seat, name=name))
    for frozen in outcome.frozen:
        events.append(Event(kind="frozen", seat=frozen, name=seats[frozen].name))
    for stuck in outcome.stuck:
        events.append(Event(kind="stuck", seat=stuck, name=seats[stuck].name))
    if outcome.round_over and outcome.leader is not None:
        events.append(Event(kind="round_over", seat=outcome.leader, name=seats[outcome.leader].name))
    return events


def game_outcome(game: Game) -> dict[str, Any]:
    """The outcome stored with a finished game (seat numbers, bet units; the
    chips are in its settlement)."""
    return {
        "places": game.places,
        "settlement": {str(seat): units for seat, units in game.settlement().items()},
        "payments": [[p.payer, p.payee, p.units, p.reason.value] for p in game.payments()],
        "instant_win": [game.instant_win.seat, game.instant_win.kind.value] if game.instant_win else None,
        "cong": list(game.cong),
        "chops": {str(seat): list(counts) for seat, counts in game.chop_counts().items()},
    }


def summary_of(*, game_id: int, game: Game, seats: Sequence[Seat], payout: Payout, bet: int,
               rake_percent: int, language: str | None = None) -> GameSummary:
    """The public end-of-game summary: places, payments, chips and balances,
    and everyone's last cards."""
    humans = {seat for seat, info in enumerate(seats) if not info.is_ai}
    chips = tuple((seats[seat].name, line.net, line.balance_after) for seat, line in sorted(payout.lines.items()))
    instant = game.instant_win
    return GameSummary(
        game_id=game_id,
        places=tuple(seats[seat].name for seat in game.places),
        payments=tuple(
            PaymentLine(payer=seats[p.payer].name, payee=seats[p.payee].name, units=p.units, reason=p.reason.value,
                        settled=moves_chips(p, humans))
            for p in game.payments()
        ),
        chips=chips,
        instant_win=(seats[instant.seat].name, instant.kind.value) if instant else None,
        frozen=tuple(seats[seat].name for seat in game.cong),
        final_hands=tuple((seats[seat].name, tuple(game.hand(seat))) for seat in range(game.players)),
        bet=bet,
        rake_percent=rake_percent,
        language=language,
        ratings=tuple((seats[seat].name, move.before, move.after) for seat, move in sorted(payout.ratings.items())),
    )
