"""Property tests over random games of every preset and table size (seeded
hypothesis): conservation, turn discipline, termination, zero-sum money,
replay, and legal_plays agreeing with play."""

import random
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tienlen import RULESETS, Game, IllegalPlayError
from tienlen.cards import FULL_DECK, cards_of

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
games = st.tuples(
    st.sampled_from(sorted(RULESETS)),
    st.integers(min_value=2, max_value=4),
    st.integers(min_value=0, max_value=2**32),
    st.booleans(),
)


def _new_game(preset, players, seed, first_game):
    rules = RULESETS[preset]
    previous = None if first_game else seed % players
    return Game.deal(rules, players, seed, first_game=first_game, previous_winner=previous)


def _random_action(game, rng):
    """Pick an action the way a careless but legal player might."""
    seat = game.turn
    roll = rng.random()
    if roll < 0.01:
        return ("leave", seat, None)
    if roll < 0.04:
        return ("timeout", seat, None)
    for other in range(game.players):
        if other != seat and rng.random() < 0.5:
            chops = game.legal_plays(other)
            if chops:
                return ("play", other, rng.choice(chops))
    plays = game.legal_plays(seat)
    if game.top is not None and (not plays or rng.random() < 0.3):
        return ("pass", seat, None)
    return ("play", seat, rng.choice(plays))


def _do(game, action):
    kind, seat, combo = action
    if kind == "play":
        return game.play(seat, combo)
    if kind == "pass":
        return game.pass_turn(seat)
    if kind == "timeout":
        return game.timeout(seat)
    return game.leave(seat)


def _play_out(game, rng, check=None):
    for _ in range(3000):
        if game.finished:
            return game
        if check:
            check(game)
        _do(game, _random_action(game, rng))
    raise AssertionError("the game did not end")


def _state(game):
    return (
        [sorted(c.index for c in hand) for hand in game.hands],
        game.turn,
        game.top,
        game.passed,
        game.places,
        game.finished,
        game.cong,
        game.chops,
    )


def _check_invariants(game):
    dealt = 0
    for hand in game.dealt:
        for card in hand:
            dealt |= card.mask
    held = 0
    for seat in range(game.players):
        held |= game.hand_mask(seat)
    assert held | game.cards_played | _left_cards(game) == dealt
    assert not held & game.cards_played
    seat = game.turn
    assert seat is not None and game.in_play(seat) and seat not in game.passed
    assert seat != game.top_owner


def _left_cards(game):
    """Cards that left play with a player who left the table."""
    out = 0
    for seat in game.left:
        out |= game.hand_mask(seat)
    return out


@PROPERTY
@given(spec=games)
def test_random_games_conserve_cards_and_keep_one_seat_on_turn(spec):
    game = _new_game(*spec)
    _play_out(game, random.Random(spec[2]), check=_check_invariants)
    assert game.finished and game.turn is None
    assert sorted(game.places) == list(range(game.players))


@PROPERTY
@given(spec=games)
def test_every_game_ends_with_a_zero_sum_settlement(spec):
    game = _play_out(_new_game(*spec), random.Random(spec[2]))
    settlement = game.settlement()
    assert sum(settlement.values()) == 0
    assert set(settlement) == set(range(game.players))
    assert all(payment.units > 0 and payment.payer != payment.payee for payment in game.payments())


@PROPERTY
@given(spec=games)
def test_replay_from_actions_reproduces_the_state(spec):
    game = _play_out(_new_game(*spec), random.Random(spec[2]))
    replayed = Game.from_json(game.to_json())
    assert _state(replayed) == _state(game)
    assert replayed.settlement() == game.settlement()
    assert replayed.to_json() == game.to_json()


@PROPERTY
@given(spec=games)
def test_replay_mid_game_continues_identically(spec):
    rng = random.Random(spec[2])
    game = _new_game(*spec)
    for _ in range(rng.randrange(1, 40)):
        if game.finished:
            break
        _do(game, _random_action(game, rng))
    restored = Game.from_json(game.to_json())
    assert _state(restored) == _state(game)
    tail_rng = random.Random(7)
    copy_rng = random.Random(7)
    while not game.finished:
        action = _random_action(game, tail_rng)
        twin = _random_action(restored, copy_rng)
        assert action == twin
        _do(game, action)
        _do(restored, twin)
    assert restored.settlement() == game.settlement()


@PROPERTY
@given(spec=games)
def test_locked_out_seats_never_act_in_turn(spec):
    rng = random.Random(spec[2])
    game = _new_game(*spec)
    while not game.finished:
        for seat in game.passed:
            if game.in_play(seat) and not game.legal_plays(seat):
                before = _state(game)
                with pytest.raises(IllegalPlayError) as error:
                    game.pass_turn(seat)
                assert error.value.code == "locked_out"
                assert _state(game) == before
        _do(game, _random_action(game, rng))


@PROPERTY
@given(spec=games)
def test_legal_plays_agree_with_play(spec):
    rng = random.Random(spec[2])
    game = _new_game(*spec)
    while not game.finished:
        for seat in range(game.players):
            if not game.in_play(seat):
                continue
            legal = {combo.mask for combo in game.legal_plays(seat)}
            for mask in legal:
                game.copy().play(seat, mask)  # everything listed is accepted
            hand = cards_of(game.hand_mask(seat))
            for _ in range(6):
                size = rng.randint(1, min(len(hand), 8))
                subset = rng.sample(hand, size)
                mask = sum(card.mask for card in subset)
                if mask in legal:
                    continue
                before = _state(game)
                with pytest.raises(IllegalPlayError):
                    game.play(seat, mask)
                assert _state(game) == before
        _do(game, _random_action(game, rng))


def test_cards_outside_the_hand_are_refused():
    game = Game.deal(RULESETS["mien-nam"], 4, seed=3)
    seat = game.turn
    foreign = cards_of(FULL_DECK & ~game.hand_mask(seat))[:1]
    with pytest.raises(IllegalPlayError) as error:
        game.play(seat, foreign)
    assert error.value.code == "not_in_hand"


def test_small_hands_all_plays_enumerated_match_combinations_count():
    game = Game(RULESETS["mien-nam"], ["3S 3C 3D 4S", "5D 6D 7D"])
    listed = {combo.mask for combo in game.legal_plays(0)}
    assert all(mask & 1 for mask in listed)  # 3♠ must be in the first play
    expected = set()
    hand = game.hand(0)
    for size in range(1, 5):
        for subset in combinations(hand, size):
            cards = " ".join(card.code for card in subset)
            try:
                game.copy().play(0, cards)
                expected.add(sum(card.mask for card in subset))
            except IllegalPlayError:
                pass
    assert listed == expected
