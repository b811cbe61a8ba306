"""Determinization: deal the unseen cards to the other seats, consistently with
everything a seat knows, and rebuild a full :class:`~tienlen.game.Game`.

A sampled world must agree with the view on what is certain:

* each seat's card count, and every card each seat has played (its dealt hand
  is its sampled hand plus what it played);
* who led the first game: the lowest dealt card was its holder's (4 players:
  3♠ belongs to the first leader; 2–3 players with the lowest card required in
  the first lead: every unseen card below that card was never dealt);
* no dealt hand was an instant win (the game would not have been played);
* replaying the public action log on the sampled hands is legal and ends in
  the same public state (turn, seats in play, top play) — this also rejects
  worlds where a northern "stuck" seat would have been ranked differently.

Behaviour (passing, what was played) is not a certainty; it is weighed by
:mod:`tienlen.ai.inference`.  A lead time-out is replayed as the plain play it
recorded, a pass time-out as a pass.

>>> from tienlen import Game, RULESETS
>>> import random
>>> game = Game.deal(RULESETS["mien-nam"], 4, seed=1)
>>> world = sample_world(game.view(game.turn), random.Random(2))
>>> world.hand_mask(game.turn) == game.hand_mask(game.turn), world.card_counts()
(True, [13, 13, 13, 13])
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from tienlen.cards import iter_indices
from tienlen.errors import IllegalPlayError
from tienlen.game import Action, Game

if TYPE_CHECKING:
    from tienlen.game import SeatView

__all__ = ["WorldBuilder", "sample_world", "hidden_counts", "plain_action", "apply_plain", "DEALT", "SET_ASIDE"]

DEALT = 13
"""Cards dealt to each seat (a seat that left keeps 13 minus what it played)."""
SET_ASIDE = -1
"""Owner of the unseen cards that were never dealt (2–3 players)."""


def hidden_counts(view: "SeatView") -> dict[int, int]:
    """How many unseen cards each other seat holds (seats that left included)."""
    counts: dict[int, int] = {}
    for seat in range(view.players):
        if seat == view.seat:
            continue
        if seat in view.left:
            counts[seat] = max(0, DEALT - view.played[seat].bit_count())
        else:
            counts[seat] = view.counts[seat]
    return counts


def plain_action(action: Action) -> Action:
    """A lead time-out is replayed as the play it made; a pass time-out as a pass."""
    if action.kind == "timeout":
        return Action("play", action.seat, action.mask) if action.mask else Action("pass", action.seat)
    return action


def apply_plain(game: Game, action: Action) -> None:
    """Replay one logged action on a sampled world (see :func:`plain_action`)."""
    game.apply(plain_action(action))


class WorldBuilder:
    """Deals and rebuilds worlds for one view.

    ``hands`` handled here map each other seat (and :data:`SET_ASIDE`) to the
    mask of unseen cards it holds in the sampled world.
    """

    def __init__(self, view: "SeatView") -> None:
        self.view = view
        pool = view.unseen
        self.needed = hidden_counts(view)
        self.pins, undealt = _pins(view, pool)
        self.forced_aside = undealt
        self.free_cards = [card for card in iter_indices(pool & ~undealt) if card not in self.pins]

    def random_hands(self, rng: random.Random) -> dict[int, int] | None:
        """Pinned cards where they belong, the free cards shuffled among the
        other seats, the rest set aside; None if the counts cannot be met."""
        hands = {seat: 0 for seat in self.needed}
        remaining = dict(self.needed)
        for card, seat in self.pins.items():
            if remaining.get(seat, 0) <= 0:
                return None
            hands[seat] |= 1 << card
            remaining[seat] -= 1
        if sum(remaining.values()) > len(self.free_cards):
            return None
        cards = self.free_cards[:]
        rng.shuffle(cards)
        position = 0
        for seat in sorted(remaining):
            for card in cards[position:position + remaining[seat]]:
                hands[seat] |= 1 << card
            position += remaining[seat]
        aside = self.forced_aside
        for card in cards[position:]:
            aside |= 1 << card
        hands[SET_ASIDE] = aside
        return hands

    def dealt(self, hands: dict[int, int]) -> list[int]:
        view = self.view
        current = [hands.get(seat, 0) for seat in range(view.players)]
        current[view.seat] = view.hand
        return [hand | played for hand, played in zip(current, view.played)]

    def build(self, hands: dict[int, int], on_action=None) -> Game | None:
        """The world with these hidden hands, replayed to now; None if it
        contradicts the view.  ``on_action(game, action)`` replaces the plain
        replay of each action when given (used to record decisions)."""
        view = self.view
        try:
            game = Game(view.rules, self.dealt(hands), first_game=view.first_game,
                        previous_winner=view.previous_winner)
        except ValueError:
            return None
        if game.instant_win is not None:
            return None
        try:
            if on_action is None:
                for action in view.actions:
                    apply_plain(game, action)
            else:
                on_action(game)
        except IllegalPlayError:
            return None
        if not _same_public_state(game, view):
            return None
        return game

    def random_world(self, rng: random.Random, tries: int = 20) -> tuple[dict[int, int], Game] | None:
        """A uniformly dealt consistent world (and its hands), or None."""
        for _ in range(tries):
            hands = self.random_hands(rng)
            if hands is None:
                return None
            game = self.build(hands)
            if game is not None:
                return hands, game
        return None


def _same_public_state(game: Game, view: "SeatView") -> bool:
    counts = game.card_counts()
    return (
        game.turn == view.turn
        and tuple(game.in_play(seat) for seat in range(view.players)) == view.in_play
        and game.top == view.top
        and all(counts[seat] == view.counts[seat] for seat in range(view.players) if seat not in view.left)
    )


def _pins(view: "SeatView", pool: int) -> tuple[dict[int, int], int]:
    """Exact facts from the first lead: (card → seat that must hold it, cards never dealt)."""
    pins: dict[int, int] = {}
    undealt = 0
    if not view.first_game:
        return pins, undealt
    if view.required:
        undealt = pool & (view.required - 1)  # the required card is the lowest dealt
    first = next((action for action in view.actions if action.kind != "leave"), None)
    if first is None or not first.mask:
        return pins, undealt
    leader = first.seat
    if view.players == 4:
        if pool & 1:
            pins[0] = leader  # 3♠ is always dealt with four players, to the first leader
        return pins, undealt
    if view.rules.first_lead_must_include_lowest:
        lowest = first.mask & -first.mask  # the lowest dealt card was in the first lead
        undealt = pool & (lowest - 1)
    return pins, undealt


def sample_world(view: "SeatView", rng: random.Random, *, tries: int = 20) -> Game | None:
    """A full game in the view's current state with the unseen cards dealt
    uniformly at random among the other seats (consistent with the view), or
    None when no consistent deal was found in ``tries`` attempts."""
    found = WorldBuilder(view).random_world(rng, tries)
    return None if found is None else found[1]
