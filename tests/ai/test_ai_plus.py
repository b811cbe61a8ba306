"""The learned move scorer (``normal+``): its labels, its trainer, and the shipped weights."""

import random

import numpy as np
import pytest
from tienlen import RULESETS, Game
from tienlen.ai import make_player, play_game
from tienlen.ai.arena import apply_move
from tienlen.ai.features import CONTEXT_NAMES, FEATURES, OPTION_NAMES, Decision, describe
from tienlen.ai.labels import LabelSet, finish, label_deal, label_deals, parse_mixture, policy_of, seat_policies
from tienlen.ai.model import load, mlp_forward
from tienlen.ai.normal import normal_move
from tienlen.ai.plus import (RULES_WEIGHTS, SHIPPED_WEIGHTS, SPECIALIST_WEIGHTS, NormalPlusPlayer, for_table,
                             plays_at, plus_move, ranked_options, rules_models, shipped_model, specialist_model)
from tienlen.ai.situation import Situation
from tienlen.ai.train import (_gradients, _initial, fit_ensemble, fit_linear, fit_mlp, group_mean, load_labels,
                              main as train_main, merge_mlps, regret, split)

from tests.ai.ai_helpers import trained_only, without_rules_scorers


def _midgame(seed: int, actions: int = 10) -> Game:
    game = Game.deal(RULESETS["mien-nam"], 4, seed)
    for _ in range(actions):
        apply_move(game, game.turn, normal_move(Situation.from_game(game, game.turn)))
    return game


def test_a_decision_offers_every_distinct_play_and_normals_own_choice():
    for seed in range(20):
        game = _midgame(seed)
        situation = Situation.from_game(game, game.turn)
        decision = Decision(situation)
        masks = [None if move is None else move.mask for move in decision.moves]
        assert len(set(masks)) == len(masks)
        assert all(move is None or move in situation.legal for move in decision.moves)
        assert (None in decision.moves) == (situation.top is not None)
        assert decision.moves[decision.heuristic_choice] == normal_move(situation)
        rows = decision.compute_rows()
        assert len(rows) == len(decision.moves) and all(len(row) == FEATURES for row in rows)
        assert describe(rows[decision.heuristic_choice])["heuristic_best"] == 1.0


def test_labels_are_paired_settlements_of_every_option_in_the_true_deal():
    labels = LabelSet()
    label_deal("mien-nam", 7, None, labels, per_game=8)
    arrays = labels.arrays()
    assert labels.decisions > 0
    groups = arrays["groups"]
    assert np.bincount(groups, weights=arrays["normal_choice"]).tolist() == [1.0] * labels.decisions
    # every value is a real settlement: an integer number of bet units
    assert np.all(arrays["values"] == np.round(arrays["values"]))


def test_labels_record_which_options_ended_with_the_seat_first():
    labels = LabelSet()
    for deal in range(40, 46):
        label_deal("mien-nam", deal, None, labels, per_game=8)
    arrays = labels.arrays()
    firsts, values = arrays["firsts"], arrays["values"]
    assert firsts.dtype == bool and len(firsts) == len(values)
    assert 0 < firsts.sum() < len(firsts)
    # first place collects 2 units from fourth: first-place options are worth more on average
    assert values[firsts].mean() > values[~firsts].mean() + 1


def test_a_first_place_bonus_is_added_to_the_values_and_needs_labels_that_record_it(tmp_path):
    labels = LabelSet()
    label_deal("mien-nam", 47, None, labels, per_game=8)
    arrays = labels.arrays()
    np.savez(tmp_path / "new.npz", **arrays)
    plain = load_labels([str(tmp_path / "new.npz")])
    bonus = load_labels([str(tmp_path / "new.npz")], first_bonus=1.5)
    assert np.array_equal(bonus["values"], plain["values"] + 1.5 * arrays["firsts"])
    np.savez(tmp_path / "old.npz", **{name: value for name, value in arrays.items() if name != "firsts"})
    assert np.array_equal(load_labels([str(tmp_path / "old.npz")])["values"], plain["values"])
    with pytest.raises(ValueError, match="first places"):
        load_labels([str(tmp_path / "old.npz")], first_bonus=1.0)


def test_labels_against_a_mixture_of_opponents_are_reproducible():
    mixture = parse_mixture("normal:1,easy:1,greedy:1")
    first, second = LabelSet(), LabelSet()
    for labels in (first, second):
        for deal in range(30, 36):
            label_deal("mien-nam", deal, None, labels, opponents=mixture)
    assert first.decisions > 0 and first.values == second.values
    assert first.groups == second.groups


def test_random_opponents_meet_the_same_luck_in_every_option_of_a_decision():
    game = _midgame(4)
    types = ["policy", "easy", "easy", "greedy"]
    ends = {finish(game.copy(), seat_policies(types, None, "same")).actions for _ in range(2)}
    assert len(ends) == 1
    other = finish(game.copy(), seat_policies(types, None, "other")).actions
    assert other != next(iter(ends))  # easy seats do use their luck


def test_finish_plays_a_copy_to_the_end_and_the_original_is_untouched():
    game = _midgame(3)
    actions = len(game.actions)
    world = finish(game.copy(), [policy_of(None)] * 4)
    assert world.finished and sum(world.settlement().values()) == 0
    assert len(game.actions) == actions


def _synthetic(decisions: int, seed: int) -> dict:
    """Decisions whose best option is the one with the highest 'survival'
    feature: a model that reads its features must find it."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 6, decisions)
    rows = rng.random((sizes.sum(), FEATURES)).astype(np.float32)
    column = OPTION_NAMES.index("survival")
    values = 3.0 * rows[:, column]
    groups = np.repeat(np.arange(decisions), sizes)
    normal_choice = np.zeros(len(values), dtype=bool)
    normal_choice[np.cumsum(sizes) - sizes] = True  # "normal" takes the first option
    return {"rows": rows, "values": values.astype(np.float32), "groups": groups, "normal_choice": normal_choice}


def test_the_linear_fit_finds_the_feature_that_decides():
    training, validation = split(_synthetic(600, 1))
    model = fit_linear(training, ridge=0.01)
    report = regret(model.predict(validation["rows"]), validation)
    assert report["model_regret"] < 0.01 < report["normal_regret"]


def test_the_mlp_fit_learns_and_keeps_its_best_epoch():
    training, validation = split(_synthetic(600, 2))
    model = fit_mlp(training, validation, hidden=8, epochs=10, batch=32, rate=1e-2)
    report = regret(model.predict(validation["rows"]), validation)
    assert report["model_regret"] < 0.25 * report["normal_regret"]
    assert 1 <= model.info["best_epoch"] <= 10


def test_a_deeper_mlp_learns_too_and_its_gradients_are_exact():
    training, validation = split(_synthetic(600, 3))
    model = fit_mlp(training, validation, hidden=(8, 4), epochs=10, batch=32, rate=1e-2)
    assert sorted(model.weights) == ["b1", "b2", "w1", "w2", "w3"]
    report = regret(model.predict(validation["rows"]), validation)
    assert report["model_regret"] < 0.25 * report["normal_regret"]
    # the back-propagation agrees with finite differences on every weight
    rng = np.random.default_rng(4)
    weights = {name: value + rng.normal(0.0, 0.3, value.shape) for name, value in model.weights.items()}
    x, targets, groups = rng.normal(size=(12, FEATURES)), rng.normal(size=12), np.repeat(np.arange(4), 3)

    def loss() -> float:
        output = mlp_forward(weights, x)[-1]
        return float(((output - group_mean(output, groups) - targets) ** 2).mean())

    gradients = _gradients(weights, x, targets, groups, 0.0)
    for name, value in weights.items():
        index = tuple(rng.integers(0, size) for size in value.shape)
        value[index] += 1e-6
        above = loss()
        value[index] -= 2e-6
        below = loss()
        value[index] += 1e-6
        assert gradients[name][index] == pytest.approx((above - below) / 2e-6, rel=1e-4, abs=1e-8)


@pytest.mark.parametrize("widths", [(5,), (5, 3)])
def test_an_ensemble_is_one_wider_mlp_that_predicts_its_members_mean(widths):
    rng = np.random.default_rng(5)
    members = [_initial(FEATURES, widths, rng) for _ in range(3)]
    for weights in members:
        for name in weights:
            if name.startswith("b"):
                weights[name] = rng.normal(0.0, 0.5, weights[name].shape)
    x = rng.normal(size=(20, FEATURES))
    mean = np.mean([mlp_forward(weights, x)[-1] for weights in members], axis=0)
    assert np.allclose(mlp_forward(merge_mlps(members), x)[-1], mean)


def test_an_ensemble_fit_keeps_every_members_epoch():
    training, validation = split(_synthetic(300, 6))
    model = fit_ensemble(training, validation, members=3, hidden=4, epochs=3, batch=32, rate=1e-2)
    assert model.weights["w1"].shape == (FEATURES, 12) and len(model.info["best_epoch"]) == 3
    report = regret(model.predict(validation["rows"]), validation)
    assert report["model_regret"] < report["normal_regret"]


def test_the_trainer_runs_end_to_end_on_a_tiny_set(tmp_path):
    weights = tmp_path / "tiny.npz"
    assert train_main(["all", "--seeds", "100:106", "--model", "mlp", "--hidden", "4,3", "--epochs", "2", "--members", "2",
                       "--first-bonus", "1", "--out", str(weights)]) == 0
    model = load(weights)
    assert model.info["first_bonus"] == 1.0
    assert model.kind == "mlp" and model.info["data"][0]["seeds"] == "100:106" and model.info["hidden"] == [4, 3]
    assert model.info["members"] == 2 and model.weights["w2"].shape == (8, 6)
    assert model.covers("mien-nam", 4) and not model.covers("mien-bac", 4) and not model.covers("mien-nam", 3)
    game = _midgame(5)
    move = plus_move(Situation.from_game(game, game.turn), model)
    assert move is None or move in game.legal_plays(game.turn)
    assert train_main(["bank", "--data", str(tmp_path / "tiny-labels.npz"), "--weights", str(weights)]) == 0


def test_labels_and_fits_at_other_table_sizes_record_the_size_and_cover_only_it(tmp_path):
    labels = LabelSet()
    for deal in range(20, 24):
        label_deal("mien-bac", deal, None, labels, per_game=8, opponents=parse_mixture("normal:1,easy:1"), players=3)
    assert labels.decisions > 0 and labels.arrays()["rows"].shape[1] == FEATURES
    data = tmp_path / "three.npz"
    weights = tmp_path / "three-weights.npz"
    assert train_main(["label", "--preset", "mien-bac", "--players", "3", "--seeds", "20:24", "--opponents",
                       "normal:1,easy:1", "--per-game", "8", "--out", str(data)]) == 0
    assert np.array_equal(np.load(data)["values"], labels.arrays()["values"])  # the CLI labels the same deals
    assert train_main(["fit", "--data", str(data), "--hidden", "4", "--epochs", "1", "--out", str(weights)]) == 0
    model = load(weights)
    assert model.info["players"] == [3] and model.info["data"][0]["players"] == 3
    assert model.covers("mien-bac", 3) and not model.covers("mien-bac", 4) and not model.covers("mien-nam", 3)


def test_labelling_can_stop_early_and_says_how_far_it_got():
    calls = iter(range(100))
    labels, done = label_deals("mien-nam", range(200, 300), None, stop=lambda: next(calls) >= 2)
    assert done == 2


# ------------------------------------------------------------ shipped weights
def test_the_shipped_weights_are_small_and_load():
    assert SHIPPED_WEIGHTS.stat().st_size < 2_000_000
    model = shipped_model()
    assert model.covers("mien-nam", 4)
    decisions = (Decision(Situation.from_game(game, game.turn)) for game in map(_midgame, range(40)))
    decision = next(decision for decision in decisions if len(decision.moves) >= 3)
    values = model.predict(decision.compute_rows())
    assert values.shape == (len(decision.moves),) and np.all(np.isfinite(values))
    assert len(set(np.round(values, 6).tolist())) > 1  # it tells options apart


def test_normal_plus_plays_whole_legal_games_deterministically():
    for seed in range(4):
        table = [make_player("normal+"), make_player("normal"), make_player("normal+"), make_player("easy")]
        first = play_game(Game.deal(RULESETS["mien-nam"], 4, seed), table, seed=seed)
        table = [make_player("normal+"), make_player("normal"), make_player("normal+"), make_player("easy")]
        second = play_game(Game.deal(RULESETS["mien-nam"], 4, seed), table, seed=seed)
        assert first.actions == second.actions


def test_normal_plus_goes_out_when_it_can():
    game = Game(RULESETS["mien-nam"], ["3S 4S 5S", "6D 7D 8D", "9H 9D 10S", "JS QS KS"])
    view = game.view(0)
    assert len(view.legal_plays) > 1
    assert NormalPlusPlayer().choose(view, random.Random(0)).mask == view.hand


def test_ranked_options_put_going_out_first_and_rank_every_option():
    game = _midgame(2)
    situation = Situation.from_game(game, game.turn)
    ranked = ranked_options(situation, shipped_model())
    assert [move for _, move in ranked].count(None) == (1 if situation.top is not None else 0)
    assert [value for value, _ in ranked] == sorted((value for value, _ in ranked), reverse=True)


def _scorer_decides(rules_name: str, players: int, model=None) -> bool:
    """Whether normal+ ever plays otherwise than the heuristic in some positions of ``rules_name``."""
    for seed in range(30):
        game = Game.deal(RULESETS[rules_name], players, seed)
        for _ in range(8):
            situation = Situation.from_game(game, game.turn)
            move = plus_move(situation, model or shipped_model())
            if move != normal_move(situation):
                return True
            apply_move(game, game.turn, move)
    return False


@pytest.mark.parametrize("rules_name, players, plays", [
    ("mien-nam", 4, True), ("mien-nam", 3, True), ("mien-nam", 2, True), ("iwin", 4, True), ("iwin", 3, True),
    ("iwin", 2, True), ("mien-bac", 4, True), ("mien-bac", 3, False), ("mien-bac", 2, False)])
def test_the_shipped_scorer_plays_where_it_was_trained_or_measured_to_transfer(rules_name, players, plays,
                                                                             monkeypatch):
    without_rules_scorers(monkeypatch)
    assert shipped_model().covers(rules_name, players) is plays
    assert _scorer_decides(rules_name, players) is plays  # elsewhere normal+ is exactly the heuristic


@pytest.mark.parametrize("players", [2, 3])
def test_a_scorer_trained_for_northern_rules_plays_where_the_general_one_does_not(players):
    general = shipped_model()
    northern = for_table(general, "mien-bac", players)
    assert northern is not general and northern in rules_models()
    assert northern.covers("mien-bac", players) and not general.covers("mien-bac", players)
    assert northern.info["presets"] == ["mien-bac"] and players in northern.info["players"]
    assert plays_at(general, "mien-bac", players) and _scorer_decides("mien-bac", players)
    # the general scorer still plays wherever it covers the table, and a model that covers
    # neither rules nor size falls back to the heuristic
    assert for_table(general, "mien-bac", 4) is general and for_table(general, "iwin", players) is general
    assert not plays_at(trained_only(general), "iwin", players)


def test_the_ranking_hard_searches_is_the_northern_scorers_there():
    game = Game.deal(RULESETS["mien-bac"], 3, 5)
    for _ in range(6):
        apply_move(game, game.turn, normal_move(Situation.from_game(game, game.turn)))
    situation = Situation.from_game(game, game.turn)
    northern = for_table(shipped_model(), "mien-bac", 3)
    assert ranked_options(situation, shipped_model()) == ranked_options(situation, northern)
    assert plus_move(situation, shipped_model()) == plus_move(situation, northern)


def test_transfer_lets_weights_play_elsewhere_and_records_the_measurement(tmp_path):
    moved = tmp_path / "moved.npz"
    assert train_main(["transfer", "--weights", str(SHIPPED_WEIGHTS), "--to", "mien-bac:3", "iwin:4",
                       "--measured", "a note", "--out", str(moved)]) == 0
    model = load(moved)
    assert model.info["transfers"] == [["iwin", 4], ["mien-bac", 3]] and model.info["transfer_measured"] == "a note"
    assert model.covers("mien-bac", 3) and model.covers("mien-nam", 4) and not model.covers("mien-bac", 2)
    assert all(np.array_equal(model.weights[name], shipped_model().weights[name]) for name in model.weights)
    with pytest.raises(SystemExit):
        train_main(["transfer", "--weights", str(SHIPPED_WEIGHTS), "--to", "mien-bac", "--measured", "x",
                    "--out", str(moved)])


# ------------------------------------------------------- told the table's levels
def test_the_specialist_weights_load_and_every_shipped_weight_is_under_2_mb_together():
    assert set(SPECIALIST_WEIGHTS) == {"easy"}
    for level in SPECIALIST_WEIGHTS:
        assert specialist_model(level).covers("mien-nam", 4)
        assert specialist_model(level) is not shipped_model()
    sizes = [path.stat().st_size for path in [SHIPPED_WEIGHTS, *SPECIALIST_WEIGHTS.values(), *RULES_WEIGHTS]]
    assert sum(sizes) < 2_000_000


def test_every_model_can_be_loaded_ahead_of_the_first_move():
    from tienlen.ai.plus import load_models

    shipped_model.cache_clear()
    specialist_model.cache_clear()
    rules_models.cache_clear()
    load_models()
    assert shipped_model.cache_info().currsize == 1
    assert specialist_model.cache_info().currsize == len(SPECIALIST_WEIGHTS)
    assert rules_models.cache_info().currsize == 1 and len(rules_models()) == len(RULES_WEIGHTS)


def test_normal_plays_the_specialist_only_when_every_other_seat_is_an_ai_of_its_level():
    player = NormalPlusPlayer()
    easy = specialist_model("easy")
    assert player.model_for(("easy",) * 4, 2) is easy
    assert player.model_for((None, "easy", "easy", "easy"), 0) is easy  # a person (or AFK) among easy seats
    assert player.model_for((None, "easy", "easy", "easy"), 1) is player.model  # a person at the table
    assert player.model_for(("normal", "easy", "easy", "easy"), 1) is player.model
    assert player.model_for(("normal",) * 4, 1) is player.model  # no specialist for normal seats
    assert player.model_for(None, 1) is player.model
    assert NormalPlusPlayer(levels=("easy",) * 4).model_for(None, 3) is easy  # told once, at construction

    # the specialist was trained and measured at 4-player mien-nam only; elsewhere the general scorer plays
    iwin = Situation.from_game(Game.deal(RULESETS["iwin"], 4, 1), 0)
    assert not easy.covers("iwin", 4) and player.model_for(("easy",) * 4, 2, iwin) is player.model
    southern = Situation.from_game(Game.deal(RULESETS["mien-nam"], 4, 1), 0)
    assert player.model_for(("easy",) * 4, 2, southern) is easy


def test_decide_tells_normal_the_public_levels():
    from tienlen import ai

    def mask(move):
        return None if move is None else move.mask

    for seed in range(300):
        game = Game.deal(RULESETS["mien-nam"], 4, seed)
        for _ in range(seed % 25):
            if game.finished:
                break
            apply_move(game, game.turn, normal_move(Situation.from_game(game, game.turn)))
        if game.finished:
            continue
        view = game.view(game.turn)
        situation = Situation.from_view(view)
        general, special = plus_move(situation, shipped_model()), plus_move(situation, specialist_model("easy"))
        if mask(general) != mask(special):
            break
    else:
        pytest.fail("no position tells the two scorers apart")
    levels = tuple("easy" if seat != view.seat else "normal" for seat in range(4))
    assert ai.decide(view, "normal", seed=1, levels=levels) == mask(special)
    assert ai.decide(view, "normal", seed=1) == mask(general)
    assert ai.decide(view, "normal", seed=1, levels=(None,) * 4) == mask(general)


def test_feature_names_are_unique():
    names = OPTION_NAMES + CONTEXT_NAMES
    assert len(set(names)) == len(names) == FEATURES


def test_every_shipped_weights_file_loads_records_where_it_came_from_and_stays_under_five_megabytes():
    files = sorted(SHIPPED_WEIGHTS.parent.glob("*.npz"))
    assert {SHIPPED_WEIGHTS, *SPECIALIST_WEIGHTS.values(), *RULES_WEIGHTS} == set(files)
    for path in files:
        assert path.stat().st_size <= 5 * 1024 * 1024
        model = load(path)
        assert model.info.get("data") or model.info.get("combined")  # its labels, or the models it averages
        assert model.info["presets"] and model.info["players"]
