"""What a policy looks at when it decides: one seat's knowledge, in a light form.

:class:`Situation` carries the same information as a
:class:`~tienlen.game.SeatView` (own hand, public counts, the top play, passes,
the pool of unseen cards, the legal plays, the public action log).  It is
built from a view for real decisions, and straight from a
:class:`~tienlen.game.Game` inside search playouts, where building a full
view for every simulated move would cost more than the move itself.
Either way a seat only ever sees its own hand: other hands appear as counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, AbstractSet, Sequence

from tienlen.cards import FULL_DECK

if TYPE_CHECKING:
    from tienlen.combos import Combo
    from tienlen.game import Game, SeatView
    from tienlen.records import Action
    from tienlen.rules import RuleSet

__all__ = ["Situation"]


@dataclass(slots=True)
class Situation:
    rules: "RuleSet"
    seat: int
    players: int
    hand: int
    counts: Sequence[int]
    top: "Combo | None"
    top_owner: int | None
    on_turn: bool
    passed: AbstractSet[int]
    in_play: Sequence[bool]
    has_played: Sequence[bool]
    unseen: int
    """Cards this seat has not seen (other hands and cards set aside)."""
    legal: Sequence["Combo"]
    chain_value: int = 0
    """Chop money already riding on the top play's chain (public)."""
    actions: Sequence["Action"] = ()
    """The public action log so far (how the other seats have played)."""

    @classmethod
    def from_view(cls, view: "SeatView") -> "Situation":
        return cls(
            rules=view.rules,
            seat=view.seat,
            players=view.players,
            hand=view.hand,
            counts=view.counts,
            top=view.top,
            top_owner=view.top_owner,
            on_turn=view.turn == view.seat,
            passed=view.passed,
            in_play=view.in_play,
            has_played=view.has_played,
            unseen=view.unseen,
            legal=view.legal_plays,
            actions=view.actions,
        )

    @classmethod
    def from_game(cls, game: "Game", seat: int) -> "Situation":
        """The seat's own knowledge, read from a (simulated) game."""
        hand = game.hand_mask(seat)
        players = game.players
        return cls(
            rules=game.rules,
            seat=seat,
            players=players,
            hand=hand,
            counts=game.card_counts(),
            top=game.top,
            top_owner=game.top_owner,
            on_turn=game.turn == seat,
            passed=game.passed,
            in_play=[game.in_play(other) for other in range(players)],
            has_played=[game.has_played(other) for other in range(players)],
            unseen=FULL_DECK & ~hand & ~game.cards_played,
            legal=game.legal_plays(seat),
            actions=game.action_log,
        )

    # ------------------------------------------------------------ derived
    def opponents(self) -> list[int]:
        """Other seats still holding cards, in turn order after this seat."""
        players = self.players
        return [
            (self.seat + step) % players
            for step in range(1, players)
            if self.in_play[(self.seat + step) % players]
        ]

    def opponent_counts(self) -> list[int]:
        return [self.counts[other] for other in self.opponents()]
