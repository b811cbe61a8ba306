"""The table model: seats, host, options and who leads each game of a series."""

import pytest

from tienlen import RULESETS, Game
from tienlen.table import Phase, Seat, SeriesResult, Table, TableError


def table(rules="mien-nam", humans=3, ai=0):
    t = Table.create(channel_id=1, guild_id=2, host=Seat.human(10, "h0"), rules_name=rules, bet=5)
    for index in range(1, humans):
        t.join(Seat.human(10 + index, f"h{index}"))
    for index in range(ai):
        t.add_ai("normal", name=f"bot{index}")
    return t


def test_first_game_uses_the_lowest_card_rule():
    assert table().next_lead().first_game


def test_previous_winner_leads_the_next_game():
    t = table()
    t.last_result = SeriesResult(winner=12, winner_seat_name="h2", second=10, second_seat_name="h0")
    lead = t.next_lead()
    assert (lead.first_game, lead.seat, lead.reason) == (False, 2, "previous-winner")


@pytest.mark.parametrize("rules, reason", [("mien-nam", "winner-left"), ("iwin", "winner-left"), ("mien-bac", "second-place")])
def test_when_the_winner_left(rules, reason):
    t = table(rules)
    t.last_result = SeriesResult(winner=99, winner_seat_name="gone", second=11, second_seat_name="h1")
    lead = t.next_lead()
    assert lead.reason == reason
    assert lead.first_game == (reason == "winner-left")
    if reason == "second-place":
        assert lead.seat == 1


def test_mien_bac_falls_back_to_the_lowest_card_when_both_left():
    t = table("mien-bac")
    t.last_result = SeriesResult(winner=98, winner_seat_name="a", second=99, second_seat_name="b")
    assert t.next_lead().reason == "winner-left"


def test_iwin_den_bai_player_leads_the_next_game():
    t = table("iwin")
    t.last_result = SeriesResult(winner=10, winner_seat_name="h0", second=11, second_seat_name="h1", penalty_leader=12)
    lead = t.next_lead()
    assert (lead.seat, lead.reason) == (2, "penalty")


def test_an_ai_winner_is_found_by_its_seat_name():
    t = table(humans=2, ai=1)
    t.last_result = SeriesResult(winner=None, winner_seat_name="bot0", second=10, second_seat_name="h0",
                                 winner_was_ai=True)
    assert t.next_lead().seat == 2


def test_finish_game_records_the_series_and_frees_departed_seats():
    t = table("iwin", humans=4)
    game = Game.deal(t.rules, 4, seed=11)
    t.start_game(game, 1)
    game.leave(3)
    while not game.finished:
        seat = game.turn
        plays = game.legal_plays(seat)
        game.play(seat, min(plays, key=lambda c: (c.top, c.size))) if plays else game.pass_turn(seat)
    result = t.finish_game({10: 20, 11: -20})
    assert t.phase is Phase.BETWEEN and t.games_played == 1
    assert t.seat_of(13) is None  # the leaver's seat is free now
    assert result.winner == t.game_seats[game.places[0]].user_id
    assert t.tally == {10: 20, 11: -20}


def test_host_hand_over_and_the_next_human_when_the_host_leaves():
    t = table()
    with pytest.raises(TableError) as error:
        t.transfer_host(11, 12)
    assert error.value.code == "host_only"
    t.transfer_host(10, 12)
    assert t.host_id == 12
    t.leave(12)
    assert t.host_id == 10


def test_changing_the_rule_set_starts_a_new_series():
    t = table()
    t.last_result = SeriesResult(winner=10, winner_seat_name="h0", second=11, second_seat_name="h1")
    t.configure(10, rules_name="mien-bac", bet=7, turn_seconds=15)
    assert t.rules is RULESETS["mien-bac"] and t.bet == 7 and t.turn_seconds == 15
    assert t.next_lead().first_game


@pytest.mark.parametrize("change, code", [({"bet": 0}, "bad_bet"), ({"turn_seconds": 5}, "bad_turn_seconds"),
                                          ({"rules_name": "poker"}, "unknown_rules")])
def test_bad_options_are_refused(change, code):
    with pytest.raises(TableError) as error:
        table().configure(10, **change)
    assert error.value.code == code


def test_nothing_changes_seats_while_playing():
    t = table(humans=2)
    t.start_game(Game.deal(t.rules, 2, seed=1), 1)
    for action in (lambda: t.join(Seat.human(50, "x")), lambda: t.leave(11), lambda: t.configure(10, bet=3)):
        with pytest.raises(TableError) as error:
            action()
        assert error.value.code == "game_running"


def test_ready_marks_and_full_table():
    t = table(humans=4)
    assert not t.mark_ready(10)
    assert [t.mark_ready(user) for user in (11, 12)] == [False, False]
    assert t.mark_ready(13)
    with pytest.raises(TableError) as error:
        t.join(Seat.human(60, "late"))
    assert error.value.code == "table_full"


def test_json_round_trip_keeps_the_series():
    t = table("iwin", humans=2, ai=1)
    t.last_result = SeriesResult(winner=11, winner_seat_name="h1", second=None, second_seat_name="bot0",
                                 second_was_ai=True)
    t.tally = {10: -5, 11: 5}
    t.games_played = 2
    again = Table.from_json(t.to_json())
    assert again.to_json() == t.to_json()
    assert again.next_lead() == t.next_lead()


def test_three_time_outs_in_a_row_make_a_seat_afk_until_its_player_acts():
    """docs/rules.md §3.6: AFK after three time-outs in a row; the player takes the seat back by acting."""
    t = table(humans=2, ai=1)
    t.start_game(Game.deal(t.rules, 3, seed=1), 1)
    assert [t.note_timeout(0) for _ in range(2)] == [False, False]
    assert t.note_acted(0) is False  # acting in time resets the count
    assert [t.note_timeout(0) for _ in range(3)] == [False, False, True]
    assert t.game_seats[0].afk and t.game_seats[0].played_by_ai
    assert t.note_timeout(0) is False  # already AFK
    assert t.note_acted(0) is True and not t.game_seats[0].afk and t.game_seats[0].timeouts == 0
    assert [t.note_timeout(2) for _ in range(3)] == [False, False, False]  # an AI seat never turns AFK


def test_a_copy_changes_nothing_of_the_original():
    t = table(humans=2)
    t.start_game(Game.deal(t.rules, 2, seed=3), 7)
    before = t.to_json()
    twin = t.copy()
    twin.note_timeout(0)
    twin.game.play(twin.game.turn, twin.game.legal_plays(twin.game.turn)[0])
    twin.tally[10] = 5
    assert t.to_json() == before and not t.game.actions and t.game_seats[0].timeouts == 0


def test_a_stored_seat_from_before_languages_moved_to_the_runtime_still_loads():
    stored = table().to_json()
    stored["seats"][0]["locale"] = "vi"
    assert Table.from_json(stored).seats[0] == table().seats[0]


def test_a_ranked_table_seats_people_only_with_the_presets_turn_time():
    t = Table.create(channel_id=1, guild_id=2, host=Seat.human(10, "h0"), rules_name="iwin", bet=5,
                     turn_seconds=90, ranked=True)
    assert t.ranked and t.turn_seconds == RULESETS["iwin"].turn_seconds
    with pytest.raises(TableError) as error:
        t.add_ai("normal", name="bot")
    assert error.value.code == "ranked_no_ai"
    with pytest.raises(TableError) as error:
        t.configure(10, turn_seconds=60)
    assert error.value.code == "ranked_turn_fixed"
    t.join(Seat.human(11, "h1"))
    with pytest.raises(TableError) as error:
        t.check_can_start(10)
    assert error.value.code == "ranked_needs_people"
    t.join(Seat.human(12, "h2"))
    t.check_can_start(10)
    assert Table.from_json(t.to_json()).ranked
