"""What the bot shows, built from real tables and games: counts read as
numbers should (1 bet, 2 bets), the table says what the rules ask of the next
play, and a player's hand says whose turn it is, what to beat and what they may do."""

from __future__ import annotations

import re

import discord
import pytest

from cogs.layouts.hand import hand_layout as hand_view, hand_lines
from cogs.layouts.style import block_lines, texts as text_displays, walk
from cogs.layouts.summary import summary_layout as summary_embed
from cogs.layouts.table import table_layout as table_embed
from cogs.layouts.words import event_line
from i18n import t
from runtime import snapshot
from runtime.snapshot import TAKEN_OVER, Event, GameSummary, PaymentLine
from runtime.state import TableState
from tienlen import RULESETS, Game, classify
from tienlen.table import NextLead, Seat, Table

LANGS = ("en", "vi")
NAMES = ("An", "Bao", "Chi", "Dung")


def table_with(players: int, rules_name: str = "mien-nam", *, bet: int = 10) -> Table:
    host = Seat.human(1, NAMES[0])
    table = Table.create(channel_id=100, guild_id=200, host=host, rules_name=rules_name, bet=bet)
    for index in range(1, players):
        table.join(Seat.human(index + 1, NAMES[index]))
    return table


def start(table: Table, hands: list[str] | None = None, *, seed: int = 7, **deal) -> Game:
    if hands is not None:
        game = Game(table.rules, hands, **deal)
    else:
        game = Game.deal(table.rules, len(table.seats), seed, **deal)
    table.start_game(game, 1)
    return game


def snapshot_of(table: Table, **shown):
    return snapshot.snapshot_of(TableState(table=table), **shown)


def hand_of(table: Table, seat: int):
    return snapshot.hand_of(TableState(table=table), seat)


def texts(layout) -> str:
    """Every text of a layout (its text displays), one after the other."""
    return "\n".join(item.content for item in text_displays(layout))


def field(layout, name: str) -> str | None:
    """The lines of the layout's block titled ``name``, as one text."""
    lines = block_lines(layout, name)
    return None if lines is None else "\n".join(lines)


def footer_text(layout) -> str:
    return next(item.content[3:] for item in text_displays(layout) if item.content.startswith("-# "))


def hand_description(hand, lang: str) -> str:
    return "\n".join(hand_lines(hand, lang))


def hand_title(hand, lang: str) -> str:
    return text_displays(hand_view(hand, lang))[0].content.splitlines()[0].removeprefix("## ")


def buttons(view) -> dict[str, bool]:
    """action → disabled, for the hand buttons (tl:h:{action}:…)."""
    return {item.custom_id.split(":")[2]: item.disabled for item in walk(view)
            if isinstance(item, discord.ui.Button) and item.custom_id.startswith("tl:h:")}


# ------------------------------------------------------------------ plurals
@pytest.mark.parametrize("lang", LANGS)
def test_summary_counts_bets_and_chips_in_the_right_number(lang):
    summary = GameSummary(
        game_id=1, places=("An", "Bao", "Chi"),
        payments=(PaymentLine("Chi", "An", 2, "place"), PaymentLine("Bao", "An", 1, "place")),
        chips=(("An", 30, 1030), ("Bao", -10, 990), ("Chi", -20, 980)), instant_win=None, frozen=(),
        final_hands=(), bet=10, rake_percent=0,
    )
    text = texts(summary_embed(summary, lang))
    if lang == "en":
        assert "Payments (1 bet = 10 chips)" in text
        assert "Bao → An: 1 bet = 10 chips (place money)" in text
        assert "Chi → An: 2 bets = 20 chips (place money)" in text
        assert "1 bets" not in text
    else:
        assert "Thanh toán (1 cược = 10 chip)" in text
        assert "Bao → An: 1 cược = 10 chip (thứ hạng)" in text


def test_a_bet_of_one_chip_is_one_chip():
    summary = GameSummary(game_id=1, places=("An", "Bao"), payments=(PaymentLine("Bao", "An", 1, "place"),),
                          chips=(("An", 1, 1001), ("Bao", -1, 999)), instant_win=None, frozen=(),
                          final_hands=(), bet=1, rake_percent=0)
    text = texts(summary_embed(summary, "en"))
    assert "(1 bet = 1 chip)" in text and "Bao → An: 1 bet = 1 chip" in text
    table = table_with(2, bet=1)
    assert "Bet **1** chip\n" in texts(table_embed(snapshot_of(table, version=1), "en")) + "\n"


@pytest.mark.parametrize("lang", LANGS)
def test_payments_to_an_ai_seat_say_that_no_chips_move(lang):
    summary = GameSummary(game_id=1, places=("Bot Lan", "An"),
                          payments=(PaymentLine("An", "Bot Lan", 2, "place", settled=False),),
                          chips=(("An", 0, 1000),), instant_win=None, frozen=(), final_hands=(), bet=10,
                          rake_percent=0)
    text = texts(summary_embed(summary, lang))
    expected = t(lang, "summary.payment_ai", payer="An", payee="Bot Lan", bets=t(lang, "count.bets", count=2),
                 reason=t(lang, "reason.place"))
    assert expected in text
    assert "20" not in text.split(expected)[0].splitlines()[-1]  # no "= 20 chips" that never moved


@pytest.mark.parametrize("lang", LANGS)
def test_card_counts_places_and_games_on_the_table(lang):
    table = table_with(2)
    game = start(table, ["3S 4S 9H", "5D"], first_game=False, previous_winner=1)
    game.play(1, classify("5D", table.rules))  # Bao goes out first, An is left with 3 cards
    text = texts(table_embed(snapshot_of(table, version=1), lang))
    if lang == "en":
        assert "An — 3 cards" in text
        assert "Bao — 1st place" in text
    else:
        assert "An — còn 3 lá" in text
        assert "Bao — về nhất" in text
    table2 = table_with(2)
    start(table2, ["3S 4S 9H", "6D"], first_game=False, previous_winner=1)
    one_card = texts(table_embed(snapshot_of(table2, version=1), "en"))
    assert "**Bao** — 1 card\n" in one_card and "1 cards" not in one_card


def test_the_session_tally_counts_finished_games():
    table = table_with(2)
    table.games_played, table.tally = 1, {1: 10, 2: -10}
    between = table_embed(snapshot_of(table, version=1), "en")
    assert field(between, "This session (1 game)") is not None
    start(table)
    playing = table_embed(snapshot_of(table, version=2), "en")  # game 2 under way, 1 finished
    assert field(playing, "This session (1 game)") is not None


@pytest.mark.parametrize("lang", LANGS)
def test_events_count_bets_and_name_places(lang):
    table = table_with(4)
    snapshot = snapshot_of(table, version=1)
    chop = Event("chop", name="Bao", other="An", combo=classify("2S", RULESETS["mien-nam"]), value=1)
    out = Event("out", name="Chi", value=1)
    added = Event("ai_added", name="Bot Lan", other="hard")
    if lang == "en":
        assert event_line(chop, lang) == "💥 Chặt heo! Bao chopped An (1 bet)"
        assert event_line(out, lang) == "🏁 Chi is out — 2nd place!"
        assert event_line(added, lang) == "🤖 Bot Lan (hard) sat down."
    else:
        assert event_line(chop, lang) == "💥 Chặt heo! Bao chặt An (1 cược)"
        assert event_line(out, lang) == "🏁 Chi hết bài — về nhì!"
        assert event_line(added, lang) == "🤖 Bot Lan (khó) đã ngồi vào bàn."


@pytest.mark.parametrize("lang", LANGS)
def test_a_table_taken_over_in_a_cluster_does_not_only_say_restarted(lang):
    snapshot = snapshot_of(table_with(4), version=1)
    restarted = event_line(Event("restored"), lang)
    taken_over = event_line(Event("restored", other=TAKEN_OVER), lang)
    assert taken_over != restarted
    assert ("another server" if lang == "en" else "chuyển máy chủ") in taken_over


# ------------------------------------------------------------------ the table
@pytest.mark.parametrize("lang", LANGS)
def test_a_new_table_is_a_lobby_not_game_zero(lang):
    table = table_with(1)
    embed = table_embed(snapshot_of(table, version=1), lang)
    assert footer_text(embed) == t(lang, "table.footer_lobby")
    assert not re.search(r"\b0\b", footer_text(embed))
    table.games_played = 2
    assert footer_text(table_embed(snapshot_of(table, version=2), lang)) == t(lang, "table.footer_between", number=2)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_first_game_table_line_says_what_the_rule_says(lang, players):
    table = table_with(players)
    game = start(table)
    lead = NextLead(first_game=True, seat=None, reason="first-game")
    embed = table_embed(snapshot_of(table, version=1, lead=lead), lang)
    leader = table.game_seats[game.turn].name
    on_table = field(embed, t(lang, "table.on_table"))
    assert on_table == t(lang, "table.opening_lowest", name=leader)  # must play the lowest card: never "anything"
    assert field(embed, t(lang, "table.lead")) == t(lang, "lead.first-game", name=leader)
    assert game.required_card is not None
    # Before the first play the line stays, even on a snapshot without the lead (e.g. after a restart).
    assert field(table_embed(snapshot_of(table, version=2), lang), t(lang, "table.on_table")) == on_table


@pytest.mark.parametrize("lang", LANGS)
def test_northern_first_game_and_later_games_lead_with_anything(lang):
    table = table_with(4, "mien-bac")
    game = start(table)
    assert game.required_card is None
    lead = NextLead(first_game=True, seat=None, reason="first-game")
    leader = table.game_seats[game.turn].name
    on_table = field(table_embed(snapshot_of(table, version=1, lead=lead), lang), t(lang, "table.on_table"))
    assert on_table == t(lang, "table.opening_free", name=leader)

    later = table_with(4)
    game = start(later, first_game=False, previous_winner=2)
    lead = NextLead(first_game=False, seat=2, reason="previous-winner")
    embed = table_embed(snapshot_of(later, version=1, lead=lead), lang)
    assert field(embed, t(lang, "table.on_table")) == t(lang, "table.opening_free", name=NAMES[2])
    assert field(embed, t(lang, "table.lead")) == t(lang, "lead.previous-winner", name=NAMES[2])


@pytest.mark.parametrize("lang", LANGS)
def test_after_a_restart_the_opening_line_still_follows_the_lowest_card_rule(lang):
    """A later game whose winner left goes back to the 3♠ rule (mien-nam); a
    restored table has no lead on its snapshot, and must still say so."""
    table = table_with(3)
    table.games_played = 2
    game = start(table)  # dealt with the lowest-card rule
    assert game.required_card is not None
    snapshot = snapshot_of(table, version=1)
    assert snapshot.lead is None and snapshot.opening_requires_lowest
    leader = table.game_seats[game.turn].name
    assert field(table_embed(snapshot, lang), t(lang, "table.on_table")) == t(lang, "table.opening_lowest", name=leader)


def test_ready_marks_are_cleared_when_the_next_game_starts():
    table = table_with(2)
    start(table)
    for seat in table.seats:
        table.mark_ready(seat.user_id)  # everyone pressed "Next game" between games
    assert all(seat.ready for seat in table.seats)
    start(table, seed=8)
    assert not any(seat.ready for seat in table.seats)


@pytest.mark.parametrize("lang", LANGS)
def test_a_new_round_mid_game_is_led_with_anything(lang):
    table = table_with(2)
    game = start(table, ["3S 9H 10H", "4D 5D"])
    rules = table.rules
    game.play(0, classify("3S", rules))
    game.play(1, classify("4D", rules))
    game.pass_turn(0)  # Bao leads a new round
    text = field(table_embed(snapshot_of(table, version=1), lang), t(lang, "table.on_table"))
    assert text == t(lang, "table.leading", name="Bao")


# ------------------------------------------------------------------ the hand
def hand_text(table: Table, seat: int, lang: str) -> str:
    return hand_description(hand_of(table, seat), lang)


@pytest.mark.parametrize("lang", LANGS)
def test_the_leader_is_not_offered_pass_and_is_told_why(lang):
    table = table_with(2)
    game = start(table, ["3S 9H 10H", "4D 5D"])
    hand = hand_of(table, 0)
    assert hand.is_turn and not hand.can_pass
    assert "pass" not in buttons(hand_view(hand, lang))
    text = hand_description(hand, lang)
    assert t(lang, "hand.must_include", card="3♠") in text

    rules = table.rules
    game.play(0, classify("3S", rules))
    game.play(1, classify("4D", rules))
    game.pass_turn(0)  # Bao now leads a new round with anything
    leader = hand_of(table, 1)
    assert "pass" not in buttons(hand_view(leader, lang))
    assert t(lang, "hand.lead") in hand_description(leader, lang)


@pytest.mark.parametrize("lang", LANGS)
def test_pass_is_shown_to_beat_and_disabled_while_waiting(lang):
    table = table_with(2)
    game = start(table, ["3S 9H 10H", "4D 5D"])
    game.play(0, classify("3S", table.rules))
    on_turn, waiting = hand_of(table, 1), hand_of(table, 0)
    assert buttons(hand_view(on_turn, lang))["pass"] is False
    assert buttons(hand_view(waiting, lang))["pass"] is True
    text = hand_description(on_turn, lang)
    assert t(lang, "hand.top", play="3♠ (" + t(lang, "combo.single") + ")") in text
    assert t(lang, "hand.beat_or_pass") in text
    # The one waiting sees what is on the table (their own 3♠), not "to beat".
    waiting_text = hand_description(waiting, lang)
    assert t(lang, "hand.wait_for", name="Bao") in waiting_text  # whom they wait for
    assert t(lang, "hand.on_table", play="3♠ (" + t(lang, "combo.single") + ")") in waiting_text
    assert t(lang, "hand.top", play="3♠ (" + t(lang, "combo.single") + ")") not in waiting_text


@pytest.mark.parametrize("lang", LANGS)
def test_nothing_beats_it_says_press_pass(lang):
    table = table_with(2)
    game = start(table, ["3S 2H 10H", "4D 5D"])
    game.play(0, classify("3S", table.rules))
    game.play(1, classify("5D", table.rules))
    game.play(0, classify("2H", table.rules))
    text = hand_text(table, 1, lang)
    assert t(lang, "hand.cannot_beat") in text
    assert buttons(hand_view(hand_of(table, 1), lang))["pass"] is False


@pytest.mark.parametrize("lang", LANGS)
def test_a_player_who_is_out_is_not_asked_to_beat_anything(lang):
    table = table_with(3)
    game = start(table, ["3S 9H", "4D 8D", "5C 6C"])
    for seat, card in ((0, "3S"), (1, "4D"), (2, "5C"), (0, "9H")):  # An goes out on 9♥
        game.play(seat, classify(card, table.rules))
    assert not game.finished
    text = hand_text(table, 0, lang)
    assert t(lang, "hand.out") in text
    assert "9♥" not in text
    assert hand_title(hand_of(table, 0), lang) == t(lang, "hand.title", count=0)


def test_hand_titles_and_quick_play_count_in_english():
    table = table_with(2)
    game = start(table, ["3S 9H 10H", "4D"])
    game.play(0, classify("3S", table.rules))
    hand = hand_of(table, 1)
    assert hand_title(hand, "en") == "Your hand (1 card)"
    items = list(walk(hand_view(hand, "en")))
    quick = next(item for item in items if getattr(item, "custom_id", "").startswith("tl:h:quick"))
    assert quick.placeholder == "Quick play (1 legal play)…"
    assert hand_title(hand, "vi") == "Bài của bạn (1 lá)"


@pytest.mark.parametrize("lang", LANGS)
def test_a_finished_game_points_to_the_results(lang):
    table = table_with(2)
    game = start(table, ["3S", "4D 5D"])
    game.play(0, classify("3S", table.rules))  # An goes out: with two players the game is over
    assert game.finished
    text = hand_text(table, 1, lang)
    assert text.startswith(t(lang, "hand.game_over"))
    assert "3♠" not in text and not buttons(hand_view(hand_of(table, 1), lang))


def test_vietnamese_groups_thousands_with_dots():
    summary = GameSummary(game_id=1, places=("An", "Bao"), payments=(PaymentLine("Bao", "An", 150, "place"),),
                          chips=(("An", 1500, 12030), ("Bao", -1500, 990)), instant_win=None, frozen=(),
                          final_hands=(), bet=10, rake_percent=0)
    vietnamese, english = texts(summary_embed(summary, "vi")), texts(summary_embed(summary, "en"))
    assert "+1.500" in vietnamese and "12.030" in vietnamese and "1.500 chip" in vietnamese
    assert "+1,500" in english and "12,030" in english and "1,500 chips" in english
