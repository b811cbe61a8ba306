"""docs/rules.md §3 — flow of a game: first lead, later leads, turns, passing,
round end, going out, game end, mien-bac thối on going out, timeouts, leaving."""

import pytest

from tienlen import Card, ComboKind, FinishOnTwo, Game, RULESETS, classify
from tests.engine.spec_helpers import ALL, PASS, SOUTH, TIMEOUT, net, new_game, payments, refused, run


def _cards(text):
    return classify(text, RULESETS["mien-nam"]).cards


# ------------------------------------------------------------ first lead
@pytest.mark.parametrize("preset", ALL)
def test_first_game_holder_of_3s_leads(preset):
    game = new_game(preset, ["4S 5S", "4C 5C", "3S 6S", "4D 5D"])
    assert game.turn == 2


@pytest.mark.parametrize("preset", SOUTH)
def test_first_game_lead_must_contain_3s(preset):
    game = new_game(preset, ["4S 9S", "4C 9C", "3S 4H 5C 8S 8C", "4D 9D"])
    assert game.required_card == Card.parse("3S")
    assert refused(game, 2, "8S 8C") == "must_include"
    assert refused(game, 2, "4H") == "must_include"
    assert all(Card.parse("3S") in play.cards for play in game.legal_plays(2))


@pytest.mark.parametrize("preset", SOUTH)
@pytest.mark.parametrize("lead", ["3S", "3S 4H 5C"])
def test_first_game_lead_containing_3s_is_accepted(preset, lead):
    game = new_game(preset, ["4S 9S", "4C 9C", "3S 4H 5C 8S 8C", "4D 9D"])
    game.play(2, lead)
    assert game.top_owner == 2 and game.turn == 3


@pytest.mark.parametrize("preset", SOUTH)
def test_three_players_3s_undealt_lowest_card_holder_leads_and_must_include_it(preset):
    game = new_game(preset, ["4S 9S", "3C 9C 10C", "3D 9D"])
    assert game.turn == 1
    assert game.required_card == Card.parse("3C")
    assert refused(game, 1, "9C") == "must_include"
    game.play(1, "3C")
    assert game.turn == 2


@pytest.mark.parametrize("preset", SOUTH)
def test_two_players_3s_undealt_lowest_card_holder_leads_and_must_include_it(preset):
    game = new_game(preset, ["5S 9S", "4D 9D 10D"])
    assert game.turn == 1
    assert game.required_card == Card.parse("4D")
    assert refused(game, 1, "10D") == "must_include"


def test_north_lowest_card_holder_leads_but_need_not_include_it():
    game = new_game("mien-bac", ["4S 9S", "4C 9C", "3S 6S 8S", "4D 9D"])
    assert game.turn == 2
    assert game.required_card is None
    game.play(2, "8S")
    assert game.top_owner == 2


def test_north_three_players_3s_undealt_lowest_card_holder_leads():
    game = new_game("mien-bac", ["4S 9S", "5C 9C", "3D 9D"])
    assert game.turn == 2
    game.play(2, "9D")


def test_north_option_must_include_lowest_card():
    game = new_game("mien-bac", ["4S 9S", "4C 9C", "3S 6S 8S", "4D 9D"],
                    options={"first_lead_must_include_lowest": True})
    assert refused(game, 2, "8S") == "must_include"
    game.play(2, "3S")


# ------------------------------------------------------------ later games
@pytest.mark.parametrize("preset", ALL)
def test_later_game_previous_winner_leads_anything(preset):
    game = new_game(preset, ["4S 9S", "9C 10C JC", "3S 6S", "4D 9D"], first_game=False, previous_winner=1)
    assert game.turn == 1
    assert game.required_card is None
    game.play(1, "10C")
    assert game.top_owner == 1 and game.turn == 2


@pytest.mark.parametrize("preset, lead", [("mien-nam", "three-spades"), ("iwin", "three-spades"),
                                          ("mien-bac", "second-place")])
def test_previous_winner_left_lead_rule_per_preset(preset, lead):
    # mien-nam / iwin: a first game (3S holder); mien-bac: the previous second place.
    assert RULESETS[preset].winner_left_lead == lead


# ------------------------------------------------------------ turns and passing
def _later(preset, hands, winner=0, **kw):
    return new_game(preset, hands, first_game=False, previous_winner=winner, **kw)


@pytest.mark.parametrize("preset", ALL)
def test_turn_order_is_seat_order_wrapping_around(preset):
    game = _later(preset, ["4S 9S", "5S 10S", "6S JS", "3S 7S QS"], winner=3)
    seen = [game.turn]
    run(game, [(3, "3S")])
    seen.append(game.turn)
    run(game, [(0, "4S")])
    seen.append(game.turn)
    assert seen == [3, 0, 1]


@pytest.mark.parametrize("preset", ALL)
def test_not_your_turn_is_refused(preset):
    game = _later(preset, ["4S 9S", "5S 10S", "6S JS", "7S QS"])
    assert refused(game, 2, "6S") == "not_your_turn"
    assert refused(game, 2, PASS) == "not_your_turn"


@pytest.mark.parametrize("preset", ALL)
def test_play_that_does_not_beat_the_top_is_refused(preset):
    game = _later(preset, ["8S 9S", "5S 10S", "6S JS", "7S QS"])
    game.play(0, "8S")
    assert refused(game, 1, "5S") == "cannot_beat"


@pytest.mark.parametrize("preset", ALL)
def test_leader_may_not_pass(preset):
    game = _later(preset, ["4S 9S", "5S 10S", "6S JS", "7S QS"])
    assert refused(game, 0, PASS) == "lead_cannot_pass"


@pytest.mark.parametrize("preset", ALL)
def test_pass_locks_player_out_until_the_round_ends(preset):
    game = _later(preset, ["4S 8S 9C", "5S 9S 10C", "6S 10S JC", "7S JS QC"])
    run(game, [(0, "4S"), (1, PASS), (2, "6S"), (3, "7S"), (0, "8S")])
    assert game.turn == 2  # seat 1 is skipped
    assert 1 in game.passed
    assert refused(game, 1, "9S") == "locked_out"
    out = run(game, [(2, PASS), (3, PASS)])
    assert out[-1].round_over and out[-1].leader == 0
    assert game.passed == frozenset()


@pytest.mark.parametrize("preset", ALL)
def test_round_ends_when_all_others_pass_and_owner_leads_anything(preset):
    game = _later(preset, ["4S 8S 9C", "5S 9S 10C", "6S 10S JC", "7S JS QC"])
    out = run(game, [(0, "4S"), (1, "5S"), (2, PASS), (3, PASS)])
    assert not out[-1].round_over
    assert game.turn == 0 and game.top_owner == 1  # seat 0 has not passed on 5S yet
    out = run(game, [(0, PASS)])
    assert out[-1].round_over and out[-1].leader == 1
    assert game.top is None and game.turn == 1 and game.passed == frozenset()
    game.play(1, "10C")  # anything
    assert game.top_owner == 1


@pytest.mark.parametrize("preset", ALL)
def test_two_players_one_pass_ends_the_round(preset):
    game = _later(preset, ["4S 8S", "5S 9S"])
    out = run(game, [(0, "4S"), (1, PASS)])
    assert out[-1].round_over and out[-1].leader == 0
    assert game.top is None


# ------------------------------------------------------------ going out
def _warmed_up(preset):
    """Later game; round 1: everyone plays a card (no cóng), seat 3 wins it and leads."""
    game = _later(preset, ["3C 6S 9S", "4C 10C", "5C 7S JC", "6C 5S 8S QS QC"])
    run(game, [(0, "3C"), (1, "4C"), (2, "5C"), (3, "6C"), (0, PASS), (1, PASS), (2, PASS)])
    assert game.turn == 3 and game.top is None
    return game


@pytest.mark.parametrize("preset", ALL)
def test_going_out_takes_first_place_and_last_play_stays_on_top(preset):
    game = _warmed_up(preset)
    out = run(game, [(3, "5S"), (0, "6S"), (1, PASS), (2, "7S"), (3, "8S"), (0, "9S")])
    assert out[-1].went_out == 0
    assert game.places[:1] == [0]
    assert game.top_owner == 0 and game.top.cards == _cards("9S")
    assert not game.in_play(0)
    assert game.turn == 2  # seat 1 passed


@pytest.mark.parametrize("preset", ALL)
def test_others_may_beat_the_last_play_of_a_player_who_went_out(preset):
    game = _warmed_up(preset)
    run(game, [(3, "5S"), (0, "6S"), (1, PASS), (2, "7S"), (3, "8S"), (0, "9S")])
    game.pass_turn(2)
    out = game.play(3, "QS")
    assert out.round_over and out.leader == 3  # seats 1 and 2 had passed


@pytest.mark.parametrize("preset", ALL)
def test_all_pass_on_last_play_next_seat_after_the_one_out_leads_even_if_it_passed(preset):
    game = _warmed_up(preset)
    run(game, [(3, "5S"), (0, "6S"), (1, PASS), (2, "7S"), (3, "8S"), (0, "9S")])
    out = run(game, [(2, PASS), (3, PASS)])
    assert out[-1].round_over
    assert out[-1].leader == 1 and game.turn == 1
    assert game.top is None


@pytest.mark.parametrize("preset", ALL)
def test_all_pass_on_last_play_next_seat_skips_seats_already_out(preset):
    game = _later(preset, ["4S 8S KS", "5S 9S", "6S 10S JC", "7S JS QC"])
    out = run(game, [(0, "4S"), (1, "5S"), (2, "6S"), (3, "7S"), (0, "8S"), (1, "9S")])
    assert out[-1].went_out == 0  # seat 1 first
    out = run(game, [(2, "10S"), (3, "JS"), (0, "KS")])
    assert out[-1].went_out == 1  # seat 0 second, KS on top
    out = run(game, [(2, PASS), (3, PASS)])
    assert out[-1].round_over
    assert out[-1].leader == 2  # after seat 0 comes seat 1, already out


@pytest.mark.parametrize("preset", ALL)
def test_game_ends_when_one_player_is_left_holding_cards(preset):
    game = _warmed_up(preset)
    run(game, [(3, "5S"), (0, "6S"), (1, PASS), (2, "7S"), (3, "8S"), (0, "9S")])  # 0 out
    run(game, [(2, PASS), (3, PASS)])  # 1 leads
    out = run(game, [(1, "10C"), (2, "JC")])  # 1 out, then 2 out
    assert out[0].went_out == 1 and out[1].went_out == 2
    assert out[1].finished and game.finished and game.turn is None
    assert game.places == [0, 1, 2, 3]
    assert refused(game, 3, "QC") == "game_over"


@pytest.mark.parametrize("preset", ALL)
def test_two_player_game_ends_when_first_player_goes_out(preset):
    game = _later(preset, ["4S 8S", "5S 9S"])
    out = run(game, [(0, "4S"), (1, "5S"), (0, "8S")])
    assert out[-1].went_out == 0 and out[-1].finished
    assert game.places == [0, 1]


# ------------------------------------------------------------ mien-bac: going out on a 2 / TQ
@pytest.mark.parametrize("last", ["2H", "2S", "2S 2C", "2S 2C 2D"])
def test_north_going_out_leading_a_play_with_a_two_is_thoi_ranked_last(last):
    game = _later("mien-bac", [last, "4S 9S", "5S 10S", "6S JS"])
    out = game.play(0, last)
    assert out.finish_penalty is True and out.went_out is None
    assert game.penalised == (0,)
    assert game.place_of(0) == 3
    assert not game.finished  # the others play on
    assert game.top_owner == 0 and game.turn == 1


def test_north_going_out_beating_with_a_two_is_thoi_ranked_last():
    game = _later("mien-bac", ["3S 2H", "4S 9S", "5S 10S", "6S JS"])
    out = run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, "2H")])
    assert out[-1].finish_penalty is True
    assert game.penalised == (0,) and game.place_of(0) == 3


def test_north_going_out_with_four_of_a_kind_is_thoi_ranked_last():
    game = _later("mien-bac", ["7S 7C 7D 7H", "4S 9S", "5S 10S", "6S JS"])
    out = game.play(0, "7S 7C 7D 7H")
    assert out.finish_penalty is True
    assert game.penalised == (0,) and game.place_of(0) == 3


WARM_UP = [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S")]
NEW_ROUND = [(1, "4S"), (2, "5S"), (3, "6S")]


@pytest.mark.parametrize(
    "hand, last, before, after",
    [("3S 2H", "2H", WARM_UP, []), ("7S 7C 7D 7H", "7S 7C 7D 7H", [], NEW_ROUND)],
)
def test_north_thoi_on_going_out_pays_2b_to_each_other_player_in_place_of_last_place_money(hand, last, before, after):
    game = _later("mien-bac", [hand, "4S 9S", "5S 10S", "6S JS"])
    run(game, before + [(0, last), (1, PASS), (2, PASS), (3, PASS)])
    assert game.turn == 1  # the next seat after the one who went out leads
    run(game, after + [(1, "9S"), (2, "10S")])
    assert game.finished
    assert game.places == [1, 2, 3, 0]
    assert payments(game) == [
        (0, 1, 2, "finish-penalty"),
        (0, 2, 2, "finish-penalty"),
        (0, 3, 2, "finish-penalty"),
        (2, 1, 1, "place"),
        (3, 1, 2, "place"),
    ]
    assert net(game) == {0: -6, 1: 5, 2: 1, 3: 0}


def test_north_going_out_on_a_non_two_is_a_normal_finish():
    game = _later("mien-bac", ["3S KS", "4S 9S", "5S 10S", "6S JS"])
    out = run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, "KS")])
    assert out[-1].went_out == 0 and out[-1].finish_penalty is False


FORBIDDEN = {"finish_on_two": FinishOnTwo.FORBIDDEN}


@pytest.mark.parametrize("last", ["2H", "2S 2C", "7S 7C 7D 7H"])
def test_north_option_forbidden_refuses_leading_out_on_a_two_or_tq(last):
    game = _later("mien-bac", [last, "4S 9S", "5S 10S", "6S JS"], options=FORBIDDEN)
    assert refused(game, 0, last) == "finish_on_two"


def test_north_option_forbidden_refuses_beating_out_with_a_two():
    game = _later("mien-bac", ["3S 2H", "4S 9S", "5S 10S", "6S JS"], options=FORBIDDEN)
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S")])
    assert refused(game, 0, "2H") == "finish_on_two"
    assert game.legal_plays(0) == []
    game.pass_turn(0)


def test_north_option_forbidden_allows_a_two_that_is_not_the_last_card():
    game = _later("mien-bac", ["2H 3S", "4S 9S", "5S 10S", "6S JS"], options=FORBIDDEN)
    out = game.play(0, "2H")
    assert out.finish_penalty is False and game.penalised == ()


@pytest.mark.parametrize("preset", SOUTH)
def test_south_going_out_on_a_two_is_allowed(preset):
    game = _later(preset, ["3S 2H", "4S 9S", "5S 10S", "6S JS"])
    out = run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, "2H")])
    assert out[-1].went_out == 0 and not out[-1].finish_penalty
    assert game.penalised == ()


# ------------------------------------------------------------ timeouts
@pytest.mark.parametrize("preset", ALL)
def test_timeout_on_a_play_is_a_pass(preset):
    game = _later(preset, ["4S 8S", "5S 9S", "6S 10S", "7S JS"])
    game.play(0, "4S")
    out = game.timeout(1)
    assert out.timed_out_pass is True and out.combo is None
    assert 1 in game.passed and game.turn == 2
    assert refused(game, 1, "9S") == "locked_out"


@pytest.mark.parametrize("preset", ALL)
def test_timeout_of_round_leader_plays_lowest_single(preset):
    game = _later(preset, ["9S 9C 4D KH", "5S 10S", "6S JS", "7S QS"])
    out = game.timeout(0)
    assert out.combo.kind is ComboKind.SINGLE
    assert out.combo.cards == _cards("4D")
    assert game.top_owner == 0 and game.turn == 1


@pytest.mark.parametrize("preset", SOUTH)
def test_timeout_of_first_game_leader_plays_3s(preset):
    game = new_game(preset, ["4S 9S", "4C 9C", "3S 3C 4H 5D", "4D 9D"])
    out = game.timeout(2)
    assert out.combo.cards == _cards("3S")


@pytest.mark.parametrize("preset", ALL)
def test_timeout_pass_counts_for_round_end(preset):
    game = _later(preset, ["4S 8S", "5S 9S"])
    game.play(0, "4S")
    out = game.timeout(1)
    assert out.round_over and out.leader == 0


def test_iwin_turn_timer_is_20_seconds():
    assert RULESETS["iwin"].turn_seconds == 20


# ------------------------------------------------------------ leaving mid-game
def _four(preset):
    return _later(preset, ["3S 4S 9S", "3C 4C 9C", "3D 4D 9D", "3H 4H 9H"])


@pytest.mark.parametrize("preset", ALL)
def test_leaver_takes_last_place_and_seat_is_skipped(preset):
    game = _four(preset)
    out = game.leave(1)
    assert not out.finished
    assert game.left == (1,)
    assert game.place_of(1) == 3
    assert not game.in_play(1)
    game.play(0, "3S")
    assert game.turn == 2


@pytest.mark.parametrize("preset", ALL)
def test_leaver_on_turn_passes_the_turn_on_and_top_stays(preset):
    game = _four(preset)
    game.play(0, "3S")
    game.leave(1)
    assert game.turn == 2 and game.top_owner == 0


@pytest.mark.parametrize("preset", ALL)
def test_round_leader_leaving_hands_the_lead_to_the_next_seat(preset):
    game = _four(preset)
    out = game.leave(0)
    assert out.round_over and out.leader == 1
    assert game.turn == 1 and game.top is None


@pytest.mark.parametrize("preset", ALL)
def test_second_leaver_takes_the_last_place_not_yet_taken(preset):
    game = _four(preset)
    game.leave(1)
    game.leave(2)
    assert game.place_of(1) == 3 and game.place_of(2) == 2


@pytest.mark.parametrize("preset", ALL)
def test_leaver_after_someone_went_out_ranks_below_everyone_still_playing(preset):
    game = _later(preset, ["3S 9S", "4S 4C 9C", "5S 4D 9D", "6S 5C 9H"])
    run(game, [(0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, "9S")])  # 0 out first
    game.leave(2)
    assert game.place_of(0) == 0 and game.place_of(2) == 3
    run(game, [(1, PASS), (3, PASS)])  # seat 1 leads (next after seat 0 still holding cards)
    run(game, [(1, "4C"), (3, "5C"), (1, "9C")])  # 1 goes out second
    assert game.finished
    assert game.places == [0, 1, 3, 2]


@pytest.mark.parametrize("preset", ALL)
def test_game_ends_when_leaving_leaves_one_player_holding_cards(preset):
    game = _later(preset, ["3S 9S", "3C 9C"])
    out = game.leave(1)
    assert out.finished and game.finished
    assert game.places == [0, 1]


@pytest.mark.parametrize("preset", ALL)
def test_game_ends_when_two_leave_in_a_three_player_game(preset):
    game = _later(preset, ["3S 9S", "3C 9C", "3D 9D"])
    game.leave(0)
    out = game.leave(2)
    assert out.finished
    assert game.places == [1, 2, 0]


# ------------------------------------------------------------ table sizes and replay
@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_preset_supports_2_3_and_4_players_13_cards_each(preset, players):
    game = Game.deal(RULESETS[preset], players, seed=99)
    assert [len(hand) for hand in game.dealt] == [13] * players


@pytest.mark.parametrize("preset", ALL)
@pytest.mark.parametrize("players", [1, 5])
def test_one_or_five_players_are_refused(preset, players):
    hands = ["3S", "4S", "5S", "6S", "7S"][:players]
    with pytest.raises(ValueError):
        new_game(preset, hands)


@pytest.mark.parametrize("preset, expected", [
    ("mien-nam", [(0, 2, 1, "chop"), (0, 3, 1, "place"), (1, 0, 1, "leave-penalty"), (1, 2, 1, "leave-penalty"),
                  (1, 2, 2, "place"), (1, 3, 1, "leave-penalty")]),
    ("iwin", [(0, 2, 1, "chop"), (0, 3, 1, "place"), (1, 2, 2, "place")]),
])
def test_game_with_out_of_turn_chop_timeout_and_leave_settles_and_replays_from_json(preset, expected):
    game = _later(preset, ["2S 9C 3C", "QS KS 3D", "8D 8H 9D 9H 10D 10H JD JH 5C 6C", "QC KC 4D"])
    run(game, [(0, "3C"), (1, "3D"), (2, "5C"), (3, "QC"), (0, PASS), (1, PASS), (2, PASS)])
    run(game, [(3, "4D"), (0, "2S")])
    assert game.turn == 1
    assert game.play(2, "8D 8H 9D 9H 10D 10H JD JH").out_of_turn
    assert game.turn == 3
    run(game, [(3, TIMEOUT), (0, PASS)])
    out = game.leave(1)
    assert out.round_over and out.leader == 2
    run(game, [(2, "6C"), (3, "KC")])
    assert game.finished and game.places == [2, 3, 0, 1]
    assert payments(game) == expected
    again = Game.from_json(game.to_json())
    assert again.places == game.places and again.settlement() == game.settlement()
    assert payments(again) == expected
