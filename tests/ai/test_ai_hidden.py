"""The AI cannot see hidden cards: swapping the hidden hands of two opponents
with the same card count (same public history) leaves every level's decision
unchanged under the same seed."""

import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.ai.ai_helpers import PRESETS, fast_players
from tienlen import Game, IllegalPlayError
from tienlen.ai import NormalPlayer
from tienlen.ai.arena import apply_move, offer_out_of_turn


def _advance(game: Game, actions: int, seed: int) -> None:
    """Play ``actions`` moves with normal players (out-of-turn chops included)."""
    players = [NormalPlayer() for _ in range(game.players)]
    rngs = [random.Random(seed + seat) for seat in range(game.players)]
    for _ in range(actions):
        if game.finished:
            return
        if offer_out_of_turn(game, players, rngs):
            continue
        seat = game.turn
        apply_move(game, seat, players[seat].choose(game.view(seat), rngs[seat]))


def _swap_hidden(game: Game, first: int, second: int) -> Game | None:
    """The same game, but ``first`` and ``second`` hold each other's current cards."""
    hands = [game.hand_mask(seat) for seat in range(game.players)]
    played = [dealt_mask & ~hand for dealt_mask, hand in zip(_dealt(game), hands)]
    hands[first], hands[second] = hands[second], hands[first]
    dealt = [hand | cards for hand, cards in zip(hands, played)]
    try:
        other = Game(game.rules, dealt, first_game=game.first_game, previous_winner=game.previous_winner)
        if other.instant_win is not None:
            return None
        for action in game.actions:
            other.apply(action)
    except IllegalPlayError:
        return None
    return other


def _dealt(game: Game) -> list[int]:
    out = []
    for hand in game.dealt:
        mask = 0
        for card in hand:
            mask |= card.mask
        out.append(mask)
    return out


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(PRESETS),
    seed=st.integers(min_value=0, max_value=2**32),
    actions=st.integers(min_value=0, max_value=40),
)
def test_swapping_opponents_hidden_hands_changes_no_decision(preset, seed, actions):
    from tienlen import RULESETS

    game = Game.deal(RULESETS[preset], 4, seed)
    _advance(game, actions, seed)
    assume(not game.finished)
    seat = game.turn
    counts = game.card_counts()
    pairs = [(a, b) for a in range(4) for b in range(a + 1, 4)
             if seat not in (a, b) and counts[a] == counts[b] and counts[a] > 0
             and game.hand_mask(a) != game.hand_mask(b)]
    assume(pairs)
    swapped = _swap_hidden(game, *pairs[0])
    assume(swapped is not None)
    assert swapped.hand_mask(pairs[0][0]) == game.hand_mask(pairs[0][1])
    view, other_view = game.view(seat), swapped.view(seat)
    assert view == other_view  # nothing hidden leaks into a seat's view
    for level in fast_players():
        player = fast_players()[level]
        mine = player.choose(view, random.Random(seed))
        theirs = fast_players()[level].choose(other_view, random.Random(seed))
        assert mine == theirs, level
