"""Every surface's Components V2 payload passes the fake Discord's validation (Discord's documented rules),
in both languages, with four seats of the longest names (32 characters) and the wordiest states.
"""

from __future__ import annotations

import datetime
from dataclasses import replace

import pytest

import db
from cogs.layouts.admin import reset_layout, settings_layout
from cogs.layouts.hand import HAND_IMAGE, hand_layout
from cogs.layouts.replay import REPLAY_IMAGE, replay_layout
from cogs.layouts.rules import rules_layout
from cogs.layouts.stats import (
    PROFILE_IMAGE, Profile, history_layout, leaderboard_layout, profile_layout, rating_board_layout, stats_layout,
)
from cogs.layouts.style import MAX_COMPONENTS, MAX_TEXT, component_count, text_length
from cogs.layouts.summary import FINAL_IMAGE, summary_layout
from cogs.layouts.table import table_layout
from i18n.rules_text import rules_pages
from runtime import snapshot as snapshots
from runtime.replays import ReplayGame
from db.records import SeatSummary
from runtime.server_settings import ServerSettings
from runtime.settings import Settings
from runtime.snapshot import Event, GameSummary, PaymentLine
from runtime.state import TableState
from tests.fakediscord.components_v2 import validate_v2
from tienlen import RULESETS, Game, classify
from tienlen.ai import lowest
from tienlen.replay import Replay
from tienlen.table import Seat, Table

LANGS = ("en", "vi")
LONGEST = [f"{letter * 28}{index:04d}" for index, letter in enumerate("WMQG")]  # 32 characters each
NOW = datetime.datetime(2026, 12, 7, 20, 0, tzinfo=datetime.timezone.utc)


def valid(layout, *files: str) -> None:
    """What the fake Discord checks of a V2 message, and our own count of the limits."""
    payload = layout.to_components()
    validate_v2(payload, set(files))
    assert component_count(layout) <= MAX_COMPONENTS and text_length(layout) <= MAX_TEXT


def full_table(rules_name: str = "mien-nam") -> Table:
    table = Table.create(channel_id=100, guild_id=200, host=Seat.human(1, LONGEST[0]), rules_name=rules_name,
                         bet=1_000_000)
    for index in range(1, 4):
        table.join(Seat.human(index + 1, LONGEST[index]))
    return table


def playing(rules_name: str = "mien-nam") -> tuple[Table, Game]:
    table = full_table(rules_name)
    game = Game.deal(table.rules, 4, 11)
    table.start_game(game, 1)
    table.tally = {1: 123_456_789, 2: -23_456_789, 3: -50_000_000, 4: -50_000_000}
    table.games_played = 7
    return table, game


def wordy_events() -> tuple[Event, ...]:
    combo = classify("3S 3C 4S 4C 5S 5C", RULESETS["mien-nam"])
    return tuple(Event(kind=kind, name=LONGEST[0], other=LONGEST[1], combo=combo, value=8)
                 for kind in ("played", "chop", "timeout", "afk", "left_game", "round_over", "out"))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("rules_name", sorted(RULESETS))
def test_the_table_in_every_phase(lang, rules_name):
    lobby = full_table(rules_name)
    valid(table_layout(snapshots.snapshot_of(TableState(table=lobby), version=1, events=wordy_events()), lang))
    table, game = playing(rules_name)
    state = TableState(table=table)
    first = snapshots.snapshot_of(state, version=2, deadline=NOW.timestamp(), events=wordy_events())
    valid(table_layout(first, lang))
    game.play(game.turn, next(iter(game.legal_plays(game.turn))))
    on_top = snapshots.snapshot_of(state, version=3, deadline=NOW.timestamp(), events=wordy_events())
    valid(table_layout(on_top, lang, image="play-7-1.jpg"), "play-7-1.jpg")
    valid(table_layout(snapshots.snapshot_of(state, version=4, closed=True), lang))


@pytest.mark.parametrize("lang", LANGS)
def test_a_hand_on_turn_waiting_and_over(lang):
    table, game = playing()
    state = TableState(table=table)
    for seat in range(4):
        hand = snapshots.hand_of(state, seat, selected=tuple(game.hand(seat)[:3]))
        valid(hand_layout(hand, lang, notice="x" * 200), HAND_IMAGE)


@pytest.mark.parametrize("lang", LANGS)
def test_the_summary_of_a_wordy_game(lang):
    lines = tuple(PaymentLine(LONGEST[i % 4], LONGEST[(i + 1) % 4], 12, reason)
                  for i, reason in enumerate(("place", "chop", "thoi", "cong", "leave", "instant") * 3))
    summary = GameSummary(game_id=987_654, places=tuple(LONGEST), payments=lines,
                          chips=tuple((name, -12_000_000, 88_000_000) for name in LONGEST),
                          instant_win=(LONGEST[0], "dragon"), frozen=tuple(LONGEST[2:]), final_hands=(),
                          bet=1_000_000, rake_percent=5, ratings=tuple((name, 1000, 1043) for name in LONGEST))
    valid(summary_layout(summary, lang), FINAL_IMAGE)


def replay_game() -> ReplayGame:
    table, game = playing()
    while not game.finished:
        seat = game.turn
        choice = lowest(game, seat)
        game.play(seat, choice) if choice is not None else game.pass_turn(seat)
    return ReplayGame(game_id=42, guild_id=200, channel_id=100, rules="mien-nam", bet=10, names=tuple(LONGEST),
                      ai=(False,) * 4, started_at=NOW, replay=Replay.of(game))


@pytest.mark.parametrize("lang", LANGS)
def test_replay_steps_and_the_shared_copy(lang):
    game = replay_game()
    for step in (0, 1, game.replay.steps):
        valid(replay_layout(game, step, lang), REPLAY_IMAGE)
    valid(replay_layout(game, game.replay.steps, lang, shared_by=f"{LONGEST[0]} shared step 3 of game #42"),
          REPLAY_IMAGE)


@pytest.mark.parametrize("lang", LANGS)
def test_rules_pages_of_every_preset(lang):
    for name, rules in RULESETS.items():
        for page in range(len(rules_pages(rules, lang))):
            valid(rules_layout(rules, name, page, lang))


@pytest.mark.parametrize("lang", LANGS)
def test_stats_history_profile_and_boards(lang):
    stats = db.PlayerStats(guild_id=200, user_id=1, balance=99_999_999, chips_rank=12, games_played=9999, wins=5000,
                           firsts=3000, win_rate=0.5, chips_won=99_999_999, chips_lost=88_888_888, chops_made=77,
                           chops_suffered=66)
    rating = db.PlayerRating(guild_id=200, user_id=1, mu=30.0, sigma=2.0, games=7, peak=1200, rank=3)
    valid(stats_layout(stats, LONGEST[0], lang, rating))
    valid(stats_layout(None, LONGEST[0], lang))
    seats = tuple(SeatSummary(seat=i, user_id=i, name=name, ai=None, place=i, chips=-1_000_000)
                  for i, name in enumerate(LONGEST))
    games = [db.GameSummary(game_id=n, rules="mien-bac", bet=1_000_000, status="finished", started_at=NOW,
                            ended_at=NOW, seats=seats) for n in range(10)]
    valid(history_layout(games, lang))
    rows = [db.LeaderRow(rank=n + 1, user_id=10**18 + n, value=99_999_999, games_played=999) for n in range(10)]
    caller = replace(rows[0], rank=99, user_id=7, games_played=3)
    valid(leaderboard_layout(db.Leaderboard(rows=rows, caller=caller), "chips", lang, 7))
    board = db.RatingBoard(rows=rows, provisional=rows, caller=caller)
    valid(rating_board_layout(board, lang, 7))
    profile = Profile(name=LONGEST[1], stats=stats, rating=rating, ratings=[1000] * 50, balances=[1000] * 50,
                      best=(123, 4_000_000))
    valid(profile_layout(profile, lang), PROFILE_IMAGE)


@pytest.mark.parametrize("lang", LANGS)
def test_admin_settings_and_the_reset(lang):
    server = ServerSettings.defaults(200, Settings.from_env({"DISCORD_TOKEN": "x"}, load_dotenv_file=False))
    changes = [db.SettingChange(user_id=10**18, name="default_bet", value=5, created_at=NOW)] * 5
    valid(settings_layout(server, changes, lang, saved=True))
    valid(reset_layout(lang, "Reset every balance to 1,000 chips?", request_id=10**18))
    valid(reset_layout(lang, "Done."))
