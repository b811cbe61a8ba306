"""The Activity's frames, checked before anything acts on them (activity/protocol.py), and its views."""

from __future__ import annotations

import json

import pytest

from activity.protocol import MAX_FRAME, ProtocolError, parse_action, parse_hello
from activity.settings import MISSING_SECRET, ActivitySettings
from i18n import catalogue


def refused(text) -> str:
    with pytest.raises(ProtocolError) as caught:
        parse_action(text)
    return caught.value.code


def test_actions_parse_with_their_cards_and_id():
    action = parse_action(json.dumps({"type": "play", "cards": ["3S", "10h", "2D"], "id": 7}))
    assert action.type == "play" and action.request_id == 7
    assert [card.code for card in action.cards] == ["3S", "10H", "2D"]
    assert parse_action('{"type": "addbot", "level": "hard"}').level == "hard"


@pytest.mark.parametrize("text, code", [
    (b'{"type": "pass"}', "binary"),
    ("not json", "malformed"),
    ("[1, 2]", "malformed"),
    ('{"cards": []}', "malformed"),
    ('{"type": "pass", "id": {"x": 1}}', "malformed"),
    ('{"type": "fly"}', "unknown_action"),
    ('{"type": "hello", "access_token": "x", "instance_id": "y"}', "already_hello"),
    ('{"type": "play"}', "malformed"),
    ('{"type": "play", "cards": []}', "no_cards"),
    ('{"type": "play", "cards": ["3S", "3S"]}', "card_twice"),
    ('{"type": "play", "cards": ["1Z"]}', "bad_card"),
    ('{"type": "play", "cards": ' + json.dumps(["3S"] * 14) + "}", "too_many_cards"),
    ('{"type": "addbot", "level": "god"}', "bad_level"),
    ('{"type": "pass", "pad": "' + "x" * MAX_FRAME + '"}', "too_big"),
])
def test_bad_frames_are_refused_with_a_reason(text, code):
    assert refused(text) == code


def test_hello_needs_a_token_and_a_plain_instance_id():
    hello = parse_hello('{"type": "hello", "access_token": "abc", "instance_id": "i-123_x"}')
    assert hello.access_token == "abc" and hello.instance_id == "i-123_x"
    for text, code in [('{"type": "pass"}', "hello_first"),
                       ('{"type": "hello", "instance_id": "i"}', "auth_failed"),
                       ('{"type": "hello", "access_token": "t", "instance_id": "../../users/@me"}', "bad_instance")]:
        with pytest.raises(ProtocolError) as caught:
            parse_hello(text)
        assert caught.value.code == code


def test_every_refusal_code_has_words_in_both_languages():
    codes = {"binary", "malformed", "unknown_action", "already_hello", "no_cards", "card_twice", "bad_card",
             "too_many_cards", "bad_level", "too_big", "hello_first", "auth_failed", "bad_instance", "flood",
             "replaced", "not_in_instance", "hello_timeout", "discord_down", "guild_only", "no_chop", "restarting",
             "bad_game", "bad_step"}
    for lang in ("en", "vi"):
        assert {f"activity.error.{code}" for code in codes} <= set(catalogue(lang))


def test_the_client_has_every_word_in_both_languages():
    import re

    from activity.server import CLIENT_DIR, client_strings

    english, vietnamese = client_strings("en"), client_strings("vi")
    assert set(english) == set(vietnamese)
    used = set(re.findall(r'say\("(\w+)"', (CLIENT_DIR / "app.js").read_text(encoding="utf-8")))
    used |= {"replay_first", "replay_prev", "replay_next", "replay_last", "replay_chop"}  # say(action → key)
    assert used <= set(english), used - set(english)
    assert all(english[key] and vietnamese[key] for key in used)


def test_settings_are_off_by_default_and_need_the_secret():
    assert not ActivitySettings.from_env({}).enabled
    on = ActivitySettings.from_env({"ACTIVITY_PORT": "8080"})
    assert on.enabled and on.host == "127.0.0.1" and on.problem() == MISSING_SECRET
    assert ActivitySettings.from_env({"ACTIVITY_PORT": "8080", "DISCORD_CLIENT_SECRET": "s"}).problem() is None
    assert "port number" in ActivitySettings.from_env({"ACTIVITY_PORT": "web", "DISCORD_CLIENT_SECRET": "s"}).problem()


def test_the_bot_refuses_to_start_an_activity_without_the_secret_in_one_line(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {key: value for key, value in os.environ.items() if key != "DISCORD_CLIENT_SECRET"}
    env.update(DISCORD_TOKEN="x", ACTIVITY_PORT="8123", DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    done = subprocess.run([sys.executable, str(root / "bot.py")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 78
    assert done.stderr.strip() == MISSING_SECRET


def test_the_end_of_a_game_is_worded_as_the_summary_message_in_both_languages():
    from activity.views import plain, summary_view
    from cogs.layouts.style import block_lines
    from cogs.layouts.summary import summary_layout
    from cogs.layouts.words import chips
    from i18n import t
    from runtime.snapshot import GameSummary, PaymentLine
    from tienlen import Card

    summary = GameSummary(
        game_id=12, places=("alice", "bob", "AI 1", "carol"),
        payments=(PaymentLine("carol", "alice", 2, "place"), PaymentLine("AI 1", "bob", 1, "place", settled=False),
                  PaymentLine("carol", "alice", 3, "cong")),
        chips=(("alice", 500, 10500), ("bob", 0, 1000), ("carol", -500, 9500)), instant_win=("alice", "dragon"),
        frozen=("carol",), final_hands=(("alice", ()), ("bob", (Card.parse("3S"),)), ("AI 1", ()),
                                        ("carol", (Card.parse("4S"), Card.parse("2H")))),
        bet=100, rake_percent=5, ratings=(("alice", 1500, 1516),))
    for lang in ("en", "vi"):
        view = summary_view(summary, lang)
        layout = summary_layout(summary, lang, image=None)
        assert view["game"] == 12 and view["headline"] == [
            plain(t(lang, "summary.instant_win", name="alice", kind=t(lang, "instant.dragon")))]
        sections = {section["title"]: section["lines"] for section in view["sections"]}
        payments = t(lang, "summary.payments", chips=chips(100, lang))
        assert list(sections) == [t(lang, "summary.places"), t(lang, "summary.frozen"), payments,
                                  t(lang, "summary.chips") + " " + t(lang, "summary.rake", percent=5),
                                  t(lang, "summary.ratings")]
        for title, lines in sections.items():
            assert lines == [plain(line) for line in block_lines(layout, title)]
        assert sections[t(lang, "summary.frozen")] == ["carol"]
        assert sections[payments][1] == plain(t(lang, "summary.payment_ai", payer="AI 1", payee="bob",
                                                    bets=t(lang, "count.bets", count=1),
                                                    reason=t(lang, "reason.place")))
        assert view["hands"] == [["alice", ""], ["bob", "3S"], ["AI 1", ""], ["carol", "4S 2H"]]
