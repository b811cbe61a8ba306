"""The opponent model (player types per seat) and the independent-worlds
options of ``hard``: several chains, batch-means standard errors."""

import math
import random

import pytest

from tests.ai.ai_helpers import trained_only, without_rules_scorers
from tienlen import RULESETS, Game
from tienlen.ai import EasyPlayer, GreedyPlayer, HardPlayer, NormalPlayer
from tienlen.ai.arena import apply_move, offer_out_of_turn
from tienlen.ai.easy import EASY, GREEDY, lowest_key
from tienlen.ai.hard import MIN_BATCHES, _clearly_better, _paired, _survivors
from tienlen.ai.inference import FLOOR, Decision
from tienlen.ai.opponents import LowestModel, parse_prior, policy_for
from tienlen.ai.situation import Situation
from tienlen.cards import as_mask
from tienlen.combos import classify
from tienlen.game import legal_plays_on_turn


def test_the_prior_is_normalised_and_names_are_checked():
    assert parse_prior("heuristic:3,greedy:1") == {"heuristic": 0.75, "greedy": 0.25}
    assert parse_prior("easy") == {"easy": 1.0}
    with pytest.raises(ValueError):
        parse_prior("heuristic:1,normal:1")  # "normal" is the learned scorer, not a type here


def _decision(hand: str, top: str | None, action: str | None) -> tuple[Decision, int]:
    rules = RULESETS["mien-nam"]
    mask = as_mask(hand)
    top_combo = classify(top, rules) if top else None
    action_mask = classify(action, rules).mask if action else 0
    decision = Decision(seat=1, action_mask=action_mask, counts=(13, 13, 13, 13), top=top_combo, top_owner=0,
                        passed=frozenset(), in_play=(True,) * 4, has_played=(True,) * 4, played=0, required=0,
                        played_later=action_mask)
    return decision, mask


def _lowest_model(chances):
    game = Game.deal(RULESETS["mien-nam"], 4, 1)
    return LowestModel(game.view(0), [], chances)


def test_greedy_explains_the_lowest_play_and_hardly_anything_else():
    model = _lowest_model(GREEDY)
    decision, hand = _decision("4S 4H 9C KD 2S", "3C", "4S")
    assert model._decision_log_likelihood(decision, hand) == 0.0
    decision, hand = _decision("4S 4H 9C KD 2S", "3C", "KD")
    assert model._decision_log_likelihood(decision, hand) == pytest.approx(math.log(FLOOR))
    decision, hand = _decision("4S 4H 9C KD 2S", "3C", None)  # passing with a play in hand
    assert model._decision_log_likelihood(decision, hand) == pytest.approx(math.log(FLOOR))


def test_easy_likelihood_is_easys_own_probabilities():
    model = _lowest_model(EASY)
    wander, lazy, _ = EASY
    rules = RULESETS["mien-nam"]
    decision, hand = _decision("4S 4H 9C KD 2S", "3C", "KD")
    legal = legal_plays_on_turn(rules, hand, decision.top, 0)
    assert min(legal, key=lowest_key).mask != decision.action_mask
    expected = (1 - lazy) * wander / len(legal)
    assert model._decision_log_likelihood(decision, hand) == pytest.approx(math.log(expected))
    decision, hand = _decision("4S 4H 9C KD 2S", "3C", None)
    assert model._decision_log_likelihood(decision, hand) == pytest.approx(math.log(lazy))
    # ... and it matches how often EasyPlayer really does it
    game = Game(rules, ["3C 5D", "4S 4H 9C KD 2S", "6S 7S", "8S 8C"], first_game=False, previous_winner=0)
    game.play(0, "3C")
    view = game.view(1)
    passes = sum(EasyPlayer().choose(view, random.Random(seed)) is None for seed in range(4000))
    assert abs(passes / 4000 - lazy) < 0.02


def _posteriors(seed: int, actions: int = 24) -> dict[int, float] | None:
    """Seat 0's posterior weight of the heuristic type for seats 1 (heuristic)
    and 3 (greedy), after a stretch of play."""
    game = Game.deal(RULESETS["mien-nam"], 4, 700 + seed)
    players = [NormalPlayer(), NormalPlayer(), EasyPlayer(), GreedyPlayer()]
    rngs = [random.Random(seed * 10 + seat) for seat in range(4)]
    for step in range(200):  # to seat 0's first real choice after ``actions`` moves
        if game.finished:
            return None
        if step >= actions and game.turn == 0 and len(game.legal_plays(0)) > 1:
            break
        if offer_out_of_turn(game, players, rngs):
            continue
        apply_move(game, game.turn, players[game.turn].choose(game.view(game.turn), rngs[game.turn]))
    view = game.view(0)
    player = HardPlayer(samples=4, burn_in_steps=100, thinning=5, types="heuristic:1,easy:1,greedy:1")
    candidates = list(view.legal_plays[:2]) + ([None] if view.top is not None else [])
    player._search(view, candidates, random.Random(seed), 0.0, 0.0, (player.types, {}))
    weights = player.last_types
    return {seat: weights[seat]["heuristic"] / sum(weights[seat].values()) for seat in (1, 3)}


def test_the_type_posterior_tells_the_heuristic_from_a_greedy_player():
    found = [weights for seed in range(10) if (weights := _posteriors(seed)) is not None]
    assert len(found) >= 6
    assert sum(weights[1] > weights[3] for weights in found) >= 0.8 * len(found)
    assert sum(weights[1] - weights[3] for weights in found) / len(found) > 0.5


def test_each_world_plays_the_other_seats_by_their_drawn_type():
    game = Game.deal(RULESETS["mien-nam"], 4, 5)
    for _ in range(3):
        apply_move(game, game.turn, NormalPlayer().choose(game.view(game.turn), random.Random(0)))
    seat = game.turn
    player = HardPlayer(samples=2, types="greedy:1")
    others = {other: "greedy" for other in range(4) if other != seat}
    policies = player._policies(game, seat, (others, 7))
    for other in others:
        situation = Situation.from_game(game, other)
        situation.on_turn, situation.top = True, None
        situation.legal = legal_plays_on_turn(game.rules, situation.hand, None, 0)
        assert policies[other](situation) == min(situation.legal, key=lowest_key)
    # random types meet the same luck for every candidate of a world
    first = policy_for("easy", 11)
    second = policy_for("easy", 11)
    situation = Situation.from_game(game, seat)
    assert [first(situation) for _ in range(20)] == [second(situation) for _ in range(20)]


def test_batch_means_widen_the_standard_error_of_correlated_worlds():
    mine = [1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0]
    theirs = [0.0] * 12
    _, plain = _paired(mine, theirs)
    _, batched = _paired(mine, theirs, [index // 3 for index in range(12)])
    assert batched > 1.5 * plain  # runs of three equal worlds: about sqrt(3) wider
    _, singles = _paired(mine, theirs, list(range(12)))
    assert singles == pytest.approx(plain)
    assert _paired([1.0, 2.0], [0.0, 0.0], [0, 0])[1] == math.inf  # one batch: no evidence
    assert not _clearly_better([2.0, 3.0, 2.0, 3.0], [0.0] * 4, 1.0, [0, 0, 0, 0])


def test_no_candidate_is_dropped_before_enough_batches():
    results = [[1.0] * 6, [-5.0, -4.0, -5.0, -4.0, -5.0, -4.0]]
    assert _survivors([0, 1], results) == [0]
    few = [index // 3 for index in range(6)]
    assert len(set(few)) < MIN_BATCHES
    assert _survivors([0, 1], results, few) == [0, 1]
    assert _survivors([0, 1], results, list(range(6))) == [0]


def test_several_chains_give_the_asked_worlds_and_are_deterministic():
    options = dict(samples=6, burn_in_steps=20, thinning=2, chains=3, batch=2, types="heuristic:2,easy:1,greedy:1")
    searched = 0
    for seed in range(6):
        game = Game.deal(RULESETS["mien-nam"], 4, seed)
        player = NormalPlayer()
        for _ in range(12):
            apply_move(game, game.turn, player.choose(game.view(game.turn), random.Random(0)))
        view = game.view(game.turn)
        first = HardPlayer(**options)
        move = first.choose(view, random.Random(3))
        again = HardPlayer(**options).choose(view, random.Random(3))
        assert move == again and (move is None or move in view.legal_plays)
        if first.last_chain is not None:
            searched += 1
            assert first.last_worlds == 6
    assert searched >= 2


def _searched_view(rules_name: str, seed: int, players: int = 4):
    """A view after a dozen moves, where the other seats have decided enough to learn from."""
    game = Game.deal(RULESETS[rules_name], players, seed)
    player = NormalPlayer()
    for _ in range(12):
        apply_move(game, game.turn, player.choose(game.view(game.turn), random.Random(0)))
    return game.view(game.turn)


def test_by_default_hard_models_opponent_types_only_where_its_scorer_plays(monkeypatch):
    # mien-bac with 3 players and no rules scorer: the general scorer was neither trained there
    # nor measured to transfer
    without_rules_scorers(monkeypatch)
    modelled = {("mien-nam", 4): 0, ("mien-bac", 3): 0}
    for rules_name, players in modelled:
        for seed in range(6):
            player = HardPlayer(samples=4, burn_in_steps=20, thinning=2)
            player.choose(_searched_view(rules_name, seed, players), random.Random(1))
            if player.last_types:
                assert set(next(iter(player.last_types.values()))) == {"heuristic", "easy", "greedy"}
                modelled[rules_name, players] += 1
    assert modelled["mien-nam", 4] >= 2
    assert modelled["mien-bac", 3] == 0  # there every other seat is the heuristic, as before the model


def test_hard_models_opponent_types_under_northern_rules_at_three_players_with_their_scorer():
    modelled = 0
    for seed in range(6):
        player = HardPlayer(samples=4, burn_in_steps=20, thinning=2)
        player.choose(_searched_view("mien-bac", seed, 3), random.Random(1))
        if player.last_types:
            assert set(next(iter(player.last_types.values()))) == {"heuristic", "easy", "greedy"}
            modelled += 1
    assert modelled >= 2


def test_an_explicit_prior_applies_everywhere_and_none_turns_the_model_off():
    seen = []
    for types in ("greedy:1", None):
        for seed in range(6):
            player = HardPlayer(samples=4, burn_in_steps=20, thinning=2, types=types)
            player.choose(_searched_view("mien-bac", seed), random.Random(1))
            seen.append((types, bool(player.last_types)))
    assert any(found for types, found in seen if types == "greedy:1")
    assert not any(found for types, found in seen if types is None)


def test_the_scorer_type_plays_the_learned_scorer_in_play_outs():
    from tienlen.ai.plus import plus_move, shipped_model

    assert parse_prior("scorer:1,heuristic:1") == {"scorer": 0.5, "heuristic": 0.5}
    policy = policy_for("scorer", 7)
    for seed in range(6):
        game = Game.deal(RULESETS["mien-nam"], 4, seed)
        for _ in range(8):
            situation = Situation.from_game(game, game.turn)
            assert policy(situation) == plus_move(situation, shipped_model())
            apply_move(game, game.turn, policy(situation))


class _LastMoveScorer:
    """A stand-in model that values each option by its position: the last one wins."""

    def covers(self, rules_name: str, players: int) -> bool:
        return True

    def predict(self, rows):
        return list(range(len(rows)))


def test_the_scorer_type_plays_the_model_it_is_given():
    from tienlen.ai.plus import plus_move, shipped_model

    stand_in = _LastMoveScorer()
    policy = policy_for("scorer", 7, scorer=stand_in)
    differs = 0
    for seed in range(6):
        game = Game.deal(RULESETS["mien-nam"], 4, seed)
        for _ in range(8):
            situation = Situation.from_game(game, game.turn)
            move = policy(situation)
            assert move == plus_move(situation, stand_in)
            differs += move != plus_move(situation, shipped_model())
            apply_move(game, game.turn, move)
    assert differs


def _table_played_by(kind: str, seed: int, actions: int):
    """A mien-nam deal whose four seats played ``actions`` actions as ``kind``
    (the learned scorer or the heuristic), with seat 0's view and the other
    seats' recorded decisions; None if the game ended first."""
    from tienlen.ai.inference import record_decisions
    from tienlen.ai.normal import normal_move
    from tienlen.ai.plus import plus_move, shipped_model
    from tienlen.ai.sampling import apply_plain

    rules = RULESETS["mien-nam"]
    game = Game.deal(rules, 4, seed)
    while not game.finished and len(game.actions) < actions:
        situation = Situation.from_game(game, game.turn)
        move = plus_move(situation, shipped_model()) if kind == "scorer" else normal_move(situation)
        apply_move(game, game.turn, move)
    if game.finished:
        return None
    view = game.view(0)
    return game, view, record_decisions(Game.deal(rules, 4, seed), view.actions, 0, apply_plain)


@pytest.mark.parametrize("kind", ["scorer", "heuristic"])
def test_the_scorers_own_likelihood_tells_its_seats_from_the_heuristics(kind):
    from tienlen.ai.inference import OpponentModel
    from tienlen.ai.opponents import ScorerModel, TypedModel
    from tienlen.ai.plus import shipped_model

    shifts, scorer_weight, heuristic_weight = [], 0.0, 0.0
    for seed in range(5000, 5025):
        table = _table_played_by(kind, seed, 40)
        if table is None:
            continue
        game, view, decisions = table
        own = ScorerModel(view, decisions, shipped_model())
        lent = OpponentModel(view, decisions, 0.5)
        typed = TypedModel(view, decisions, parse_prior("heuristic:1,scorer:1"), 0.5, scorer=shipped_model())
        for seat in (1, 2, 3):
            hand = game.hand_mask(seat)  # the true hand: a test may look
            shifts.append(own.seat_log_likelihood(seat, hand) - lent.seat_log_likelihood(seat, hand))
            posterior = typed.posterior(seat, hand)
            scorer_weight += posterior["scorer"]
            heuristic_weight += posterior["heuristic"]
    assert len(shifts) >= 30
    right = sum((shift > 0) == (kind == "scorer") for shift in shifts)
    assert right >= 0.75 * len(shifts)
    assert (scorer_weight > heuristic_weight) == (kind == "scorer")


def test_without_tell_scorer_the_scorer_type_borrows_the_heuristics_likelihood():
    from tienlen.ai.opponents import TypedModel
    from tienlen.ai.plus import shipped_model

    game, view, decisions = _table_played_by("scorer", 5001, 40)
    prior = parse_prior("heuristic:1,scorer:1")
    blind = TypedModel(view, decisions, prior, 0.5)
    assert blind.scorer_model is None
    assert blind.posterior(1, game.hand_mask(1)) == pytest.approx(prior)
    assert TypedModel(view, decisions, prior, 0.5, scorer=shipped_model()).scorer_model is not None


def test_hard_tells_scorer_seats_apart_only_when_asked():
    told = blind = 0
    for seed in range(6):
        view = _searched_view("mien-nam", seed)
        for tell in (False, True):
            player = HardPlayer(samples=4, burn_in_steps=20, thinning=2, types="heuristic:1,scorer:1",
                                tell_scorer=tell)
            player.choose(view, random.Random(1))
            apart = sum(seat["scorer"] != pytest.approx(seat["heuristic"]) for seat in player.last_types.values())
            told, blind = (told + apart, blind) if tell else (told, blind + apart)
    assert told and not blind


def test_public_levels_name_the_ai_seats_types_and_leave_people_to_the_prior():
    from tienlen.ai.opponents import known_types

    assert known_types(["hard", "easy", None, "normal"], seat=0) == {1: "easy", 3: "scorer"}
    assert known_types(None, seat=0) == {} and known_types(("mystery", None), seat=1) == {}


def test_a_seat_of_known_type_is_that_type_alone_in_the_likelihood_and_the_posterior():
    from tienlen.ai.inference import OpponentModel
    from tienlen.ai.opponents import TypedModel

    game, view, decisions = _table_played_by("heuristic", 5001, 40)
    typed = TypedModel(view, decisions, parse_prior("heuristic:1,easy:1"), 0.5, known={2: "scorer", 3: "greedy"})
    hands = {seat: game.hand_mask(seat) for seat in (1, 2, 3)}
    assert typed.posterior(2, hands[2]) == {"scorer": 1.0}
    assert typed.posterior(3, hands[3]) == {"greedy": 1.0}
    assert set(typed.posterior(1, hands[1])) == {"heuristic", "easy"}
    # the scorer type borrows the heuristic's likelihood; greedy has its own
    heuristic = OpponentModel(view, decisions, 0.5)
    assert typed.seat_log_likelihood(2, hands[2]) == pytest.approx(heuristic.seat_log_likelihood(2, hands[2]))
    greedy = LowestModel(view, decisions, GREEDY)
    assert typed.seat_log_likelihood(3, hands[3]) == pytest.approx(greedy.seat_log_likelihood(3, hands[3]))


@pytest.mark.parametrize("given", ["choose", "constructor"])
def test_hard_plays_ai_seats_as_their_public_level_where_its_model_applies(given):
    from tienlen.ai.plus import shipped_model

    searched = {"mien-nam": 0, "mien-bac": 0}
    for rules_name in searched:
        for seed in range(6):
            view = _searched_view(rules_name, seed)
            easy_seat, normal_seat, person = [other for other in range(4) if other != view.seat]
            levels = [None] * 4
            levels[easy_seat], levels[normal_seat], levels[view.seat] = "easy", "normal", "hard"
            # mien-bac with a scorer that does not cover it (the shipped one transfers to 4 players)
            scorer = "shipped" if rules_name == "mien-nam" else trained_only(shipped_model())
            if given == "choose":
                player = HardPlayer(samples=4, burn_in_steps=20, thinning=2, scorer=scorer)
                player.choose(view, random.Random(1), levels)
            else:
                player = HardPlayer(samples=4, burn_in_steps=20, thinning=2, levels=levels, scorer=scorer)
                player.choose(view, random.Random(1))
            if player.last_types:
                searched[rules_name] += 1
                assert set(player.last_types[easy_seat]) == {"easy"}
                assert set(player.last_types[normal_seat]) == {"scorer"}
                assert set(player.last_types[person]) == {"heuristic", "easy", "greedy"}
    assert searched["mien-nam"] >= 2
    assert searched["mien-bac"] == 0  # where the scorer does not play, every other seat stays the heuristic


def test_decide_tells_hard_the_public_levels():
    from tienlen import ai

    told = 0
    for seed in range(6):
        view = _searched_view("mien-nam", seed)
        levels = tuple("easy" if seat != view.seat else "hard" for seat in range(4))
        mask = ai.decide(view, "hard", seed=3, budget_ms=60, levels=levels)
        assert mask is None or mask in {combo.mask for combo in view.legal_plays}
        weights = ai._PLAYERS[("hard", 60.0)].last_types
        assert all(set(seat_weights) == {"easy"} for seat_weights in weights.values())
        told += bool(weights)
    assert told


def test_the_known_correction_is_the_scorers_own_likelihood_over_the_lent_one():
    from tienlen.ai.inference import OpponentModel
    from tienlen.ai.opponents import ScorerModel, TypedModel
    from tienlen.ai.plus import shipped_model

    game, view, decisions = _table_played_by("scorer", 5001, 40)
    hands = {seat: game.hand_mask(seat) for seat in (1, 2, 3)}
    typed = TypedModel(view, decisions, parse_prior("heuristic:1"), 0.5, known={2: "scorer", 3: "easy"},
                       exact=shipped_model())
    own = ScorerModel(view, decisions, shipped_model()).seat_log_likelihood(2, hands[2])
    lent = OpponentModel(view, decisions, 0.5).seat_log_likelihood(2, hands[2])
    assert typed.known_correction(hands) == pytest.approx(own - lent)  # seats 1 and 3 are not known scorers
    assert TypedModel(view, decisions, parse_prior("heuristic:1"), 0.5, known={2: "scorer"}).known_correction(hands) == 0


def test_resampling_draws_each_world_from_several_chain_deals_only_for_known_scorer_seats():
    steps = {}
    for resample, levels in ((1, "normal"), (3, "normal"), (3, "easy")):
        for seed in range(4):
            view = _searched_view("mien-nam", seed)
            player = HardPlayer(samples=4, burn_in_steps=20, thinning=2, resample=resample,
                                levels=[levels] * 4)
            move = player.choose(view, random.Random(1))
            assert move is None or move in view.legal_plays
            if player.last_chain is not None:
                steps[(resample, levels, seed)] = player.last_chain.steps
    searched = [seed for seed in range(4) if (1, "normal", seed) in steps]
    assert searched
    for seed in searched:
        # 20 burn-in steps, then 2 per world; with resampling, 2 per option
        assert steps[(3, "normal", seed)] > steps[(1, "normal", seed)]
        assert steps[(3, "easy", seed)] == steps[(1, "normal", seed)]  # nobody to reweigh: no resampling


def test_with_specialists_hard_plays_its_own_moves_by_the_scorer_for_the_tables_one_level():
    from tienlen.ai.plus import shipped_model, specialist_model

    views = (_searched_view("mien-nam", seed) for seed in range(20))
    view = next(view for view in views if view.legal_plays)  # its own choice, not a forced pass
    easy_table = tuple("easy" if seat != view.seat else "hard" for seat in range(4))
    mixed_table = tuple(None if seat == (view.seat + 1) % 4 else level for seat, level in enumerate(easy_table))
    player = HardPlayer(samples=2, burn_in_steps=20, thinning=2, specialists=True)
    player.choose(view, random.Random(1), easy_table)
    assert player.hero_scorer is specialist_model("easy")
    player.choose(view, random.Random(1), mixed_table)  # a person at the table: the general scorer
    assert player.hero_scorer is shipped_model()
    player.choose(view, random.Random(1), ("normal",) * 4)  # no specialist for normal seats
    assert player.hero_scorer is shipped_model()
    by_default = HardPlayer(samples=2, burn_in_steps=20, thinning=2)
    by_default.choose(view, random.Random(1), easy_table)
    assert by_default.hero_scorer is shipped_model()


def test_an_exact_chain_weighs_known_scorer_seats_by_the_scorers_own_likelihood():
    from tienlen.ai.opponents import ScorerModel, TypedModel
    from tienlen.ai.plus import shipped_model

    game, view, decisions = _table_played_by("scorer", 5001, 40)
    hands = {seat: game.hand_mask(seat) for seat in (1, 2, 3)}
    typed = TypedModel(view, decisions, parse_prior("heuristic:1"), 0.5, known={2: "scorer", 3: "easy"},
                       exact=shipped_model(), exact_chain=True)
    own = ScorerModel(view, decisions, shipped_model()).seat_log_likelihood(2, hands[2])
    assert typed.seat_log_likelihood(2, hands[2]) == pytest.approx(own)
    assert typed.known_correction(hands) == 0  # nothing left to correct
    lent = TypedModel(view, decisions, parse_prior("heuristic:1"), 0.5, known={2: "scorer"}, exact=shipped_model())
    assert lent.seat_log_likelihood(2, hands[2]) != pytest.approx(own)
    chained = 0
    for seed in range(4):
        view = _searched_view("mien-nam", seed)
        player = HardPlayer(samples=2, burn_in_steps=10, thinning=2, exact_chain=True, levels=["normal"] * 4)
        move = player.choose(view, random.Random(1))
        assert move is None or move in view.legal_plays
        if player.last_chain is not None:
            assert isinstance(player.last_chain.model.models["scorer"], ScorerModel)
            chained += 1
    assert chained


def test_a_colder_exact_likelihood_tells_the_true_hand_of_a_scorer_seat_more_sharply():
    from tienlen.ai.opponents import ScorerModel
    from tienlen.ai.plus import shipped_model

    game, view, decisions = _table_played_by("scorer", 5001, 40)
    true_hand = game.hand_mask(2)
    swapped = true_hand ^ (true_hand & -true_hand) ^ (game.hand_mask(3) & -game.hand_mask(3))  # one card traded
    margins = []
    for temperature in (0.2, 0.02):
        model = ScorerModel(view, decisions, shipped_model(), temperature)
        margins.append(model.seat_log_likelihood(2, true_hand) - model.seat_log_likelihood(2, swapped))
    assert 0 < margins[0] < margins[1]  # the true hand explains the decisions better, and more so when colder
    hard = HardPlayer(samples=2, burn_in_steps=10, thinning=2, exact_chain=True, exact_temperature=0.02,
                      levels=["normal"] * 4)
    for seed in range(6):
        hard.choose(_searched_view("mien-nam", seed), random.Random(1))
        if hard.last_chain is not None:
            assert hard.last_chain.model.models["scorer"].temperature == 0.02
            break
    else:
        pytest.fail("no decision was searched")


def test_scorer_table_depth_searches_own_later_turns_only_at_a_table_of_known_scorer_seats(monkeypatch):
    views = (_searched_view("mien-nam", seed) for seed in range(20))
    view = next(view for view in views if len(view.legal_plays) > 1)  # a choice that is searched
    others = [seat for seat in range(4) if seat != view.seat]
    scorer_table = tuple("hard" if seat == view.seat else ("normal", "hard", "normal")[others.index(seat)]
                         if seat in others else None for seat in range(4))
    with_person = tuple(None if seat == others[0] else level for seat, level in enumerate(scorer_table))
    easy_table = tuple("easy" if seat != view.seat else "hard" for seat in range(4))
    nested = []
    original = HardPlayer._nested

    def counting(self, *args):
        nested.append(self.depth)
        return original(self, *args)

    monkeypatch.setattr(HardPlayer, "_nested", counting)
    player = HardPlayer(samples=2, burn_in_steps=20, thinning=2, scorer_table_depth=1)
    player.choose(view, random.Random(1), scorer_table)
    assert player.depth == 1 and nested and set(nested) == {1}  # every play-out searched its next own turn
    for table in (with_person, easy_table, None):  # a person, or seats the play-outs model only roughly
        nested.clear()
        player.choose(view, random.Random(1), table)
        assert player.depth == 0 and not nested
    plain = HardPlayer(samples=2, burn_in_steps=20, thinning=2)  # off by default
    plain.choose(view, random.Random(1), scorer_table)
    assert plain.depth == 0
    for table in (with_person, easy_table):  # elsewhere the option changes nothing
        moves = [HardPlayer(samples=3, burn_in_steps=20, thinning=2, scorer_table_depth=depth).choose(
            view, random.Random(7), table) for depth in (0, 1)]
        assert moves[0] == moves[1]
