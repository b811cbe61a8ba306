"""Skill ratings: OpenSkill's Plackett–Luce model over a game's finishing order.

Each player has one rating per server, a belief about their skill: ``mu``
(the estimate) and ``sigma`` (how unsure it is).  After a game every
human's rating moves by the order in which the seats finished.  AI seats
take part as fixed references, one rating per level that never moves, so a
game with AI seats still rates its humans fairly.  What a player sees is the
conservative ``ordinal`` (mu − 3·sigma) on a familiar scale, 1,000 + 40 × it;
fewer than :data:`PROVISIONAL_GAMES` rated games make it provisional.

>>> alice, bob, carol = Rating(), Rating(), Rating()
>>> after = rate([(alice, 1, False), (bob, 2, False), (carol, 3, False)])
>>> [rating.shown > Rating().shown for rating in after]
[True, True, False]
>>> rate([(alice, 1, False), (AI_REFERENCES["hard"], 2, True)])[1] == AI_REFERENCES["hard"]
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from openskill.models import PlackettLuce

if TYPE_CHECKING:
    from tienlen.game import Game

__all__ = ["Rating", "AI_REFERENCES", "PROVISIONAL_GAMES", "rate", "ranks", "MIN_HUMANS"]

PROVISIONAL_GAMES = 10
MIN_HUMANS = 2
"""A game moves ratings only with at least this many humans at the table."""
_MODEL = PlackettLuce()


@dataclass(frozen=True)
class Rating:
    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma

    @property
    def ordinal(self) -> float:
        """The conservative estimate: the skill the player has with high confidence."""
        return self.mu - 3 * self.sigma

    @property
    def shown(self) -> int:
        """The rating as players see it (a new player shows 1,000)."""
        return round(1000 + 40 * self.ordinal)


AI_REFERENCES = {
    "easy": Rating(mu=17.0, sigma=1.0),
    "normal": Rating(mu=23.0, sigma=1.0),
    "hard": Rating(mu=26.0, sigma=1.0),
}
"""The fixed ratings AI seats play with, by level (a new human starts unsure around 25)."""


def rate(entrants: Sequence[tuple[Rating, int, bool]]) -> list[Rating]:
    """The ratings after a game of ``entrants``: (rating, rank, fixed) each, rank 1
    first (equal ranks tie); a fixed entrant (an AI reference) keeps its rating."""
    if len(entrants) < 2:
        return [rating for rating, _, _ in entrants]
    teams = [[_MODEL.rating(mu=rating.mu, sigma=rating.sigma)] for rating, _, _ in entrants]
    rated = _MODEL.rate(teams, ranks=[rank for _, rank, _ in entrants])
    return [old if fixed else Rating(mu=team[0].mu, sigma=team[0].sigma)
            for (old, _, fixed), team in zip(entrants, rated)]


def ranks(game: "Game") -> list[int]:
    """Each seat's rank in a finished game (1 first), as the rules' places say.

    The places of the game (a player who left is last); after an instant win
    (tới trắng) the winner is first and everyone else shares second, since each
    pays the winner alike (docs/rules.md §4).
    """
    if game.instant_win is not None:
        return [1 if seat == game.instant_win.seat else 2 for seat in range(game.players)]
    ranked = [0] * game.players
    for place, seat in enumerate(game.places):
        ranked[seat] = place + 1
    return ranked
