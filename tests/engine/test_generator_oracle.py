"""The engine's legal-play generator against today's generator, frozen in
``legacy_generator.py`` as an oracle: both must return the same plays, in the
same order, over many random positions of all three presets.

Positions come from random games (every seat asked, so out-of-turn chops are
covered), from deals rich in bombs (where 4 đôi thông chop out of turn), and
from arbitrary hands against arbitrary tops.
"""

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tienlen import RULESETS, Game
from tienlen.combos import all_combos, beating_combos, bombs_beating
from tienlen.game import legal_plays_on_turn
from tienlen.rules import Bomb, FinishOnTwo

from tests.engine import legacy_generator as legacy

PRESETS = sorted(RULESETS)
# A variant with going out on a 2 forbidden, so that filter is exercised too.
VARIANTS = {**RULESETS, "mien-bac-forbidden": dataclasses.replace(RULESETS["mien-bac"], finish_on_two=FinishOnTwo.FORBIDDEN)}
ORACLE = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def _cards(rng: random.Random, pool: int, size: int) -> int:
    """``size`` random cards of ``pool`` (a mask), as a mask."""
    cards = [card for card in range(52) if pool >> card & 1]
    out = 0
    for card in rng.sample(cards, min(size, len(cards))):
        out |= 1 << card
    return out


def _same(game: Game, seat: int) -> None:
    new = game.legal_plays(seat)
    old = legacy.legal_plays(game, seat)
    assert new == old, (game.rules.name, seat, game.top, game.hand(seat))
    assert all(type(combo) is type(expected) for combo, expected in zip(new, old))


def _pick(plays, rng: random.Random, keep: int):
    """A random play, preferring 2s and avoiding the cards in ``keep`` (a mask)."""
    if keep and rng.random() < 0.9:
        plays = [combo for combo in plays if not combo[1] & keep] or plays
    twos = [combo for combo in plays if combo[1] >> 48]
    return rng.choice(twos if twos and rng.random() < 0.5 else plays)


def _random_walk(game: Game, rng: random.Random, pass_rate: float = 0.3, keep=None) -> int:
    """Play ``game`` out at random, checking every seat's legal plays before each
    action; ``keep[seat]`` are cards a seat avoids breaking up.  Returns how many
    out-of-turn chops were on offer."""
    keep = keep or [0] * game.players
    offered = 0
    for _ in range(2000):
        if game.finished:
            return offered
        for seat in range(game.players):
            _same(game, seat)
        chopper = next((s for s in range(game.players) if s != game.turn and game.legal_plays(s)), None)
        offered += chopper is not None
        if chopper is not None and rng.random() < 0.5:
            game.play(chopper, rng.choice(game.legal_plays(chopper)))
            continue
        seat = game.turn
        plays = game.legal_plays(seat)
        if game.top is not None and (not plays or rng.random() < pass_rate):
            game.pass_turn(seat)
        else:
            game.play(seat, _pick(plays, rng, keep[seat]))
    if not game.finished:
        raise AssertionError("the game did not end")
    return offered


@pytest.mark.parametrize("preset", sorted(VARIANTS))
@ORACLE
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32), first_game=st.booleans(), pass_rate=st.sampled_from([0.0, 0.3, 0.7]))
def test_same_legal_plays_in_random_games(preset, players, seed, first_game, pass_rate):
    rules = VARIANTS[preset]
    game = Game.deal(rules, players, seed, first_game=first_game, previous_winner=None if first_game else seed % players)
    _random_walk(game, random.Random(seed), pass_rate)


def _bomb_rich_hands(rng: random.Random, players: int) -> tuple[list[int], list[int]]:
    """Deals where runs of pairs and fours of a kind are common: (hands, bombs)."""
    hands = [0] * players
    free = (1 << 52) - 1
    for seat in range(players):
        shape = rng.random()
        if shape < 0.7:  # a run of 4 pairs (sometimes 3)
            length = 4 if rng.random() < 0.7 else 3
            start = rng.randint(0, 12 - length)
            for rank in range(start, start + length):
                suits = [suit for suit in range(4) if free >> (4 * rank + suit) & 1]
                for suit in rng.sample(suits, min(2, len(suits))):
                    hands[seat] |= 1 << (4 * rank + suit)
        elif shape < 0.85:  # a four of a kind
            hands[seat] |= (0xF << (4 * rng.randrange(13))) & free
        free &= ~hands[seat]
    bombs = list(hands)
    deck = [card for card in range(52) if free >> card & 1]
    rng.shuffle(deck)
    for seat in range(players):
        while hands[seat].bit_count() < 13:
            hands[seat] |= 1 << deck.pop()
    return hands, bombs


@pytest.mark.parametrize("preset", sorted(VARIANTS))
@ORACLE
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32), first_game=st.booleans())
def test_same_legal_plays_in_bomb_rich_games_with_out_of_turn_chops(preset, players, seed, first_game):
    rng = random.Random(seed)
    hands, bombs = _bomb_rich_hands(rng, players)
    rules = dataclasses.replace(VARIANTS[preset], instant_wins=frozenset())  # keep the bomb-rich deals in play
    game = Game(rules, hands, first_game=first_game, previous_winner=None if first_game else seed % players)
    _random_walk(game, rng, pass_rate=0.2, keep=bombs)


def test_bomb_rich_games_do_reach_out_of_turn_chops():
    """The strategy above really produces out-of-turn positions with a chop to play."""
    offered = 0
    for seed in range(40):
        rng = random.Random(seed)
        hands, bombs = _bomb_rich_hands(rng, 4)
        rules = dataclasses.replace(RULESETS["mien-nam"], instant_wins=frozenset())
        offered += _random_walk(Game(rules, hands), rng, pass_rate=0.2, keep=bombs)
    assert offered >= 20


@pytest.mark.parametrize("preset", sorted(VARIANTS))
@ORACLE
@given(seed=st.integers(0, 2**32), size=st.integers(1, 13), top_size=st.integers(1, 13), low=st.integers(0, 40))
def test_same_plays_for_any_hand_against_any_top(preset, seed, size, top_size, low):
    rules = VARIANTS[preset]
    rng = random.Random(seed)
    full = (1 << 52) - 1
    hand = _cards(rng, full & ~((1 << low) - 1) if rng.random() < 0.5 else full, size)
    candidates = legacy.all_combos(_cards(rng, full & ~hand, top_size), rules)
    top = rng.choice(candidates) if candidates else None
    assert all_combos(hand, rules) == legacy.all_combos(hand, rules)
    # The card a lead must hold: none, the hand's lowest (a first game's opening, the
    # engine's shortcut) or any other of its cards (the general case).
    need = rng.choice([0, hand & -hand, _cards(rng, hand, 1)])
    assert legal_plays_on_turn(rules, hand, None, need) == legacy.legal_plays_on_turn(rules, hand, None, need)
    if top is None:
        return
    assert beating_combos(hand, top, rules) == legacy.beating_combos(hand, top, rules)
    assert legal_plays_on_turn(rules, hand, top) == legacy.legal_plays_on_turn(rules, hand, top)
    for only in (None, Bomb.THREE_PAIRS, Bomb.FOUR_OF_A_KIND, Bomb.FOUR_PAIRS):
        for same_kind in (True, False):
            assert bombs_beating(hand, top, rules, only=only, same_kind=same_kind) == legacy.bombs_beating(
                hand, top, rules, only=only, same_kind=same_kind
            )
