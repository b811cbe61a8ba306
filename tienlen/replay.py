"""A finished game, step by step: what every seat held after each action.

A game is its deal and its list of accepted actions, so a replay is the deal
replayed one action at a time.  :class:`Replay` keeps one :class:`Frame` per
step: step 0 is the deal, step *k* the table after the *k*-th action.  Only
**finished** games replay: by then every card a seat held has been seen by
the table (played, or shown in the final hands).  A frame never holds what
the table did not see: the cards left undealt in a 2- or 3-player game are in
no hand, and the deck's seed is not kept.

>>> from tienlen import Game, RULESETS
>>> game = Game.deal(RULESETS["mien-nam"], 3, seed=11)
>>> while not game.finished:
...     seat = game.turn
...     _ = game.play(seat, game.legal_plays(seat)[0]) if game.legal_plays(seat) else game.pass_turn(seat)
>>> replay = Replay.of(game)
>>> replay.frames[0].hands == tuple(tuple(hand) for hand in game.dealt)
True
>>> replay.last.hands == tuple(tuple(hand) for hand in game.hands)
True
>>> sum(len(hand) for hand in replay.frames[0].hands)  # 39 dealt; the other 13 never appear
39
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tienlen.cards import Card, cards_of
from tienlen.errors import TienLenError
from tienlen.game import Game
from tienlen.records import Action, Outcome, Payment
from tienlen.values import Combo

__all__ = ["Frame", "Replay", "NotFinishedError"]


class NotFinishedError(TienLenError):
    """Only a finished game may be replayed (its hands are still secret)."""

    code = "replay_running"


@dataclass(frozen=True, slots=True)
class Frame:
    """The table after ``step`` actions (0: the deal)."""

    step: int
    hands: tuple[tuple[Card, ...], ...]
    """Every seat's remaining cards, lowest first."""
    top: Combo | None
    """The play on top of the round (None: a new round is being led)."""
    top_owner: int | None
    passed: frozenset[int]
    """Seats out of the current round."""
    turn: int | None
    """Who acts next (None: the game is over)."""
    left: frozenset[int]
    """Seats that left the game."""
    places: tuple[int | None, ...]
    """Each seat's place (0 = first) once taken, else None."""
    outcome: Outcome | None
    """The action of this step and what it changed (None for the deal)."""

    @property
    def actor(self) -> int | None:
        """The seat that made this step's action."""
        return self.outcome.action.seat if self.outcome is not None else None

    @property
    def chop(self) -> bool:
        return self.outcome is not None and self.outcome.chop is not None


@dataclass(frozen=True, slots=True)
class Replay:
    """Every step of a finished game, with its payments."""

    players: int
    frames: tuple[Frame, ...]
    payments: tuple[Payment, ...]
    places: tuple[int, ...]
    """Seats in finishing order."""
    instant_winner: int | None

    @classmethod
    def of(cls, game: Game) -> "Replay":
        """The replay of ``game``, which must be finished (:class:`NotFinishedError`)."""
        if not game.finished:
            raise NotFinishedError("the game is still being played")
        return cls.of_record(game.to_json())

    @classmethod
    def of_record(cls, record: dict[str, Any]) -> "Replay":
        """The replay of a stored game record (:meth:`Game.to_json`, actions included)."""
        actions = list(record.get("actions", ()))
        game = Game.from_json({**record, "actions": []})
        frames = [_frame(game, 0, None)]
        for step, item in enumerate(actions, start=1):
            frames.append(_frame(game, step, game.apply(Action.from_json(item))))
        if not game.finished:
            raise NotFinishedError("the game is still being played")
        instant = game.instant_win.seat if game.instant_win is not None else None
        return cls(players=game.players, frames=tuple(frames), payments=tuple(game.payments()),
                   places=tuple(game.places), instant_winner=instant)

    @property
    def steps(self) -> int:
        """The number of actions (the last frame's step)."""
        return len(self.frames) - 1

    @property
    def last(self) -> Frame:
        return self.frames[-1]

    def frame(self, step: int) -> Frame:
        """The frame at ``step``, clamped to the game (0 … :attr:`steps`)."""
        return self.frames[max(0, min(step, self.steps))]

    def next_chop(self, step: int) -> int | None:
        """The first step after ``step`` with a chop (chặt), or None."""
        return next((frame.step for frame in self.frames[step + 1:] if frame.chop), None)

    def cards_shown(self) -> frozenset[Card]:
        """Every card any frame holds or plays: exactly the dealt cards."""
        return frozenset(card for hand in self.frames[0].hands for card in hand)


def _frame(game: Game, step: int, outcome: Outcome | None) -> Frame:
    return Frame(
        step=step,
        hands=tuple(tuple(cards_of(game.hand_mask(seat))) for seat in range(game.players)),
        top=game.top,
        top_owner=game.top_owner,
        passed=game.passed,
        turn=game.turn,
        left=frozenset(game.left),
        places=tuple(game.place_of(seat) for seat in range(game.players)),
        outcome=outcome,
    )
