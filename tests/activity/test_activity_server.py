"""The Activity's server against the fake Discord: the token exchange, signing in, the table and hands
pushed to each client, actions through the same path as the buttons, and every bad input refused
with a reason while nothing changes."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp
import pytest

from activity.hub import CLOSE_AUTH, CLOSE_FLOOD, CLOSE_REPLACED
from activity.protocol import MAX_STEP
from activity.server import FLOOD_CLOSE_AFTER
from activity.views import plain
from cogs.layouts.replay import replay_layout
from cogs.layouts.style import block_lines
from cogs.layouts.summary import summary_layout
from cogs.layouts.words import chips
from i18n import t
from tests.e2e.driver import table_message
from tienlen import Card

pytestmark = pytest.mark.timeout(30)


def url(bot, path: str) -> str:
    return f"http://127.0.0.1:{bot.activity_server.port}{path}"


# ------------------------------------------------------------------ token exchange
async def test_a_code_is_exchanged_once_for_an_access_token_of_its_user(fake_discord, activity_bot, http):
    alice = fake_discord.users[0]
    code = fake_discord.activities.authorize(alice)
    async with http.post(url(activity_bot, "/api/token"), json={"code": code}) as answer:
        assert answer.status == 200
        token = (await answer.json())["access_token"]
    assert fake_discord.activities.user_of(token) is alice
    exchange = next(r for r in fake_discord.requests if r.route.endswith("/oauth2/token"))
    assert exchange.json["client_secret"] == "fake-client-secret" and exchange.json["code"] == code
    async with http.post(url(activity_bot, "/api/token"), json={"code": code}) as again:  # a code is good once
        assert again.status == 401 and (await again.json()) == {"error": "code_refused"}
    for body in (b"{", b'{"code": 5}', b'["x"]', b'{"code": ""}'):
        async with http.post(url(activity_bot, "/api/token"), data=body) as bad:
            assert bad.status == 400 and (await bad.json()) == {"error": "bad_code"}


async def test_a_wrong_client_secret_is_refused(fake_discord, activity_bot, http):
    fake_discord.activities.client_secret = "another"
    code = fake_discord.activities.authorize(fake_discord.users[0])
    async with http.post(url(activity_bot, "/api/token"), json={"code": code}) as answer:
        assert answer.status == 401


async def test_the_client_is_served_and_test_hooks_only_when_enabled(activity_bot, http):
    async with http.get(url(activity_bot, "/")) as page:
        html = await page.text()
        assert page.status == 200 and 'data-test-hooks="1"' in html
    activity_bot.activity_server.settings = type(activity_bot.activity_server.settings)(port=0, client_secret="s")
    async with http.get(url(activity_bot, "/")) as page:
        assert "data-test-hooks" not in await page.text()
    async with http.get(url(activity_bot, "/client/app.js")) as script:
        assert script.status == 200 and script.headers["Content-Type"].startswith("text/javascript")
    for path in ("/client/..%2fserver.py", "/client/missing.js", "/client/.hidden.js"):
        async with http.get(url(activity_bot, path)) as missing:
            assert missing.status == 404


# ------------------------------------------------------------------ signing in
async def test_welcome_in_the_users_language_and_no_table_yet(fake_discord, connect):
    fake_discord.users[1].locale = "vi"
    client = await connect(fake_discord.users[1])
    welcome = client.frames[0]
    assert welcome["type"] == "welcome" and welcome["lang"] == "vi"
    assert welcome["user"] == str(fake_discord.users[1].id) and welcome["channel"] == str(fake_discord.channel.id)
    assert welcome["strings"]["play"] == t("vi", "activity.ui.play")
    assert welcome["levels"] == [[level, t("vi", f"level.{level}")] for level in ("easy", "normal", "hard")]
    assert client.latest("table")["phase"] == "none" and client.latest("hand") == {"type": "hand", "hand": None}


@pytest.mark.parametrize("case", ["forged", "expired", "not_in_instance", "unknown_instance", "bad_instance_id",
                                  "not_hello", "binary"])
async def test_a_bad_sign_in_is_closed_with_the_reason(fake_discord, connect, case):
    fake = fake_discord
    alice, bob = fake.users[:2]
    instance = fake.activities.launch(fake.channel, [alice])
    token = fake.activities.token_for(alice)
    hello = {"type": "hello", "access_token": token, "instance_id": instance}
    expected = "auth_failed"
    if case == "forged":
        hello["access_token"] = "forged-token"
    elif case == "expired":
        fake.activities.expire(token)
    elif case == "not_in_instance":  # bob's own valid token, for an Activity he is not in
        hello["access_token"], expected = fake.activities.token_for(bob), "not_in_instance"
    elif case == "unknown_instance":
        hello["instance_id"], expected = "i-0000", "bad_instance"
    elif case == "bad_instance_id":
        hello["instance_id"], expected = "../../users/@me", "bad_instance"
    elif case == "not_hello":
        hello, expected = {"type": "play", "cards": ["3S"]}, "hello_first"
    if case == "binary":
        hello, expected = json.dumps(hello).encode(), "binary"  # the right words, in a binary frame
    client = await connect(None, instance, hello=hello, welcome=False)
    await asyncio.wait_for(client.closed.wait(), 5)
    bye = client.frames[-1]
    assert bye["type"] == "bye" and bye["code"] == expected and bye["text"] == t("en", f"activity.error.{expected}")
    assert client.ws.close_code == CLOSE_AUTH
    assert not any(frame["type"] in ("table", "hand", "welcome") for frame in client.frames)


async def test_a_client_that_does_not_sign_in_in_time_is_closed(fake_discord, activity_bot, connect):
    activity_bot.activity_server.hello_seconds = 0.2
    silent = await activity_bot_silent_client(activity_bot)  # connects, and says nothing
    await asyncio.wait_for(silent.closed.wait(), 5)
    assert silent.frames == [{"type": "bye", "code": "hello_timeout", "text": t("en", "activity.error.hello_timeout")}]
    assert silent.ws.close_code == CLOSE_AUTH
    await silent.close()


async def activity_bot_silent_client(bot):
    from tests.activity.conftest import Client

    session = aiohttp.ClientSession()
    ws = await session.ws_connect(url(bot, "/ws"))
    client = Client(ws, None)
    original = client.close

    async def close() -> None:
        await original()
        await session.close()

    client.close = close
    return client


async def test_a_second_connection_of_the_same_user_wins_and_the_older_is_told(fake_discord, connect, activity_bot):
    alice = fake_discord.users[0]
    instance = fake_discord.activities.launch(fake_discord.channel, [alice])
    older = await connect(alice, instance)
    newer = await connect(alice, instance)
    await asyncio.wait_for(older.closed.wait(), 5)
    assert older.frames[-1]["code"] == "replaced" and older.ws.close_code == CLOSE_REPLACED
    assert (await newer.ask("ping"))["type"] == "pong"
    assert activity_bot.activity_server.hub.by_user[alice.id].user_id == alice.id
    assert len(activity_bot.activity_server.hub.by_channel[fake_discord.channel.id]) == 1


# ------------------------------------------------------------------ a game
async def open_and_deal(fake, bot, connect):
    """alice opens a table in the Activity, bob sits down by the table message's button, alice deals."""
    alice, bob = fake.users[:2]
    instance = fake.activities.launch(fake.channel, [alice, bob, fake.users[2]])
    a, b = await connect(alice, instance), await connect(bob, instance)
    assert (await a.ask("create"))["type"] == "ok"
    await b.wait(lambda frame: frame["type"] == "table" and frame.get("phase") == "lobby")
    await fake.wait_for(lambda: table_message(fake) is not None)
    await fake.click(bob, table_message(fake), f"tl:t:join:{fake.channel.id}")  # a button move...
    await a.wait(lambda frame: frame["type"] == "table" and len(frame.get("seats", ())) == 2)  # ...shows in the Activity
    assert (await a.ask("start"))["type"] == "ok"
    for client in (a, b):
        await client.wait(lambda frame: frame["type"] == "hand" and frame["hand"] is not None)
    table = a.latest("table")
    on_turn = {a.user.id: a, b.user.id: b}[int(table["seats"][table["turn"]]["user"])]
    waiting = b if on_turn is a else a
    return on_turn, waiting


async def test_a_move_in_the_activity_updates_the_table_message_and_the_other_client(fake_discord, activity_bot,
                                                                                       connect):
    fake = fake_discord
    player, other = await open_and_deal(fake, activity_bot, connect)
    hand = player.latest("hand")["hand"]
    assert hand["turn"] and set(hand["playable"]) <= set(hand["cards"]) and hand["quick"]
    play = hand["quick"][0]["cards"]
    assert (await player.ask("select", cards=play))["legal"] is True
    seen = len(other.frames)
    started = time.perf_counter()
    assert (await player.ask("play", cards=play))["type"] == "ok"
    pushed = await other.wait(lambda frame: frame["type"] == "table" and frame.get("top") is not None, since=seen)
    assert time.perf_counter() - started < 1.0
    assert pushed["top"]["cards"] == play and pushed["top_owner"] == player.latest("welcome")["name"]
    symbols = " ".join(Card.parse(code).symbol for code in play)
    await fake.wait_for(lambda: symbols in table_message(fake).text(), what="the table message to show the play")
    after = await player.wait(lambda frame: frame["type"] == "hand" and frame["hand"] is not None and frame["hand"]["version"] > hand["version"])
    assert after["hand"]["cards"] == [code for code in hand["cards"] if code not in play]
    # Each hand reached its owner only: no frame to the other client names a card still in the player's hand.
    held = set(player.latest("hand")["hand"]["cards"])
    for raw, frame in zip(other.raw, other.frames):
        if frame["type"] == "hand" and frame["hand"] is not None:
            assert frame["hand"]["seat"] != hand["seat"] and not held & set(frame["hand"]["cards"])
        elif frame["type"] == "table":
            assert not any(f'"{code}"' in raw for code in held)


async def test_a_button_move_is_pushed_to_the_activity(fake_discord, activity_bot, connect):
    fake = fake_discord
    player, other = await open_and_deal(fake, activity_bot, connect)
    seen = len(player.frames)
    await fake.slash(player.user, "tienlen play", cards=" ".join(player.latest("hand")["hand"]["quick"][0]["cards"]))
    frame = await other.wait(lambda frame: frame["type"] == "table" and frame.get("top") is not None)
    assert frame["turn"] != player.latest("hand")["hand"]["seat"]
    await player.wait(lambda frame: frame["type"] == "hand" and not frame["hand"]["turn"], since=seen)


async def test_refusals_of_the_rules_change_nothing(fake_discord, activity_bot, connect):
    fake = fake_discord
    player, other = await open_and_deal(fake, activity_bot, connect)
    service = activity_bot.tables

    def game_now():
        game = service.table(fake.channel.id).game
        return len(game.actions), game.turn, tuple(tuple(game.hand(seat)) for seat in range(2))

    before = game_now()
    mine, theirs = other.latest("hand")["hand"]["cards"], player.latest("hand")["hand"]["cards"]
    out_of_turn = await other.ask("play", cards=[mine[-1]])
    assert out_of_turn["type"] == "error" and out_of_turn["text"] == t("en", "error.not_your_turn")
    not_held = await player.ask("play", cards=[mine[0]])
    assert not_held["type"] == "error" and not_held["code"] == "not_in_hand"
    illegal = await player.ask("select", cards=[theirs[0], theirs[-1]])
    assert illegal["legal"] is False and illegal["text"]
    assert (await other.ask("pass"))["type"] == "error"
    assert (await other.ask("chop"))["code"] == "no_chop"
    assert (await other.ask("start"))["text"] == t("en", "error.game_running")
    assert game_now() == before


@pytest.mark.parametrize("frame, code", [
    ("{not json", "malformed"),
    ('"a string"', "malformed"),
    ('{"type": "teleport", "id": 3}', "unknown_action"),
    ('{"type": "play", "cards": ["ZZ"], "id": 4}', "bad_card"),
    ('{"type": "play", "cards": ["3S", "3S"]}', "card_twice"),
    ('{"type": "pass", "pad": "' + "x" * 5000 + '"}', "too_big"),
    (b"\x00\x01binary", "binary"),
    ('{"type": "hello", "access_token": "t", "instance_id": "i"}', "already_hello"),
])
async def test_bad_frames_get_a_precise_error_and_nothing_changes(fake_discord, activity_bot, connect, frame, code):
    fake = fake_discord
    fake.users[0].locale = "vi"
    client = await connect(fake.users[0])
    assert (await client.ask("create"))["type"] == "ok"
    await fake.wait_for(lambda: activity_bot.tables.state(fake.channel.id).message_id is not None)
    await activity_bot.tables.flush()
    version = activity_bot.tables.snapshot(fake.channel.id).version
    seen = len(client.frames)
    await client.send(frame)
    error = await client.wait(lambda item: item["type"] == "error", since=seen)
    assert error["code"] == code and error["text"] == t("vi", f"activity.error.{code}", limit=4096, action="teleport",
                                                        card="ZZ" if code == "bad_card" else "3S")
    assert (await client.ask("ping"))["type"] == "pong"  # still served
    assert activity_bot.tables.snapshot(fake.channel.id).version == version


async def test_host_controls_are_the_hosts(fake_discord, activity_bot, connect):
    fake = fake_discord
    alice, bob = fake.users[:2]
    instance = fake.activities.launch(fake.channel, [alice, bob])
    a, b = await connect(alice, instance), await connect(bob, instance)
    await a.ask("create")
    assert (await b.ask("join"))["type"] == "ok"
    for action in ("start", "end"):  # adding and removing AI seats is any seated player's (as the buttons)
        answer = await b.ask(action)
        assert answer["type"] == "error" and answer["text"] == t("en", "error.host_only"), action
    assert (await a.ask("addbot", level="easy"))["type"] == "ok"
    table = await b.wait(lambda frame: frame["type"] == "table" and len(frame.get("seats", ())) == 3)
    assert table["seats"][2]["ai"] == "easy"
    assert (await a.ask("end"))["type"] == "ok"
    await b.wait(lambda frame: frame["type"] == "table" and frame.get("phase") == "closed")
    assert activity_bot.tables.table(fake.channel.id) is None


async def test_a_frame_beyond_the_transport_limit_closes_with_a_reason(fake_discord, connect):
    client = await connect(fake_discord.users[0])
    await client.send('{"type": "pass", "pad": "' + "x" * 70000 + '"}')
    await asyncio.wait_for(client.closed.wait(), 5)
    assert client.ws.close_code == aiohttp.WSCloseCode.MESSAGE_TOO_BIG


async def test_a_burst_beyond_the_budget_is_served_late_not_refused(fake_discord, activity_bot, connect):
    client = await connect(fake_discord.users[0])
    burst = activity_bot.activity_server.frame_burst
    for number in range(burst + 10):
        await client.send(json.dumps({"type": "ping", "id": number}))
    await client.wait(lambda frame: frame.get("id") == burst + 9, timeout=10)
    pongs = [frame["id"] for frame in client.frames if frame["type"] == "pong"]
    assert pongs == list(range(burst + 10))
    assert not [frame for frame in client.frames if frame["type"] in ("error", "bye")]


async def test_a_client_that_keeps_flooding_is_closed(fake_discord, activity_bot, connect):
    server = activity_bot.activity_server
    server.frame_rate = 100.0  # the same budget in frames, spent ten times faster, so the test is quick
    client = await connect(fake_discord.users[0])
    sent = server.frame_burst + FLOOD_CLOSE_AFTER + 40
    for _ in range(sent):
        await client.send('{"type": "ping"}')
    await asyncio.wait_for(client.closed.wait(), 20)
    assert client.frames[-1] == {"type": "bye", "code": "flood", "text": t("en", "activity.error.flood")}
    pongs = sum(frame["type"] == "pong" for frame in client.frames)
    # The burst, then paced ones until a hundred in a row had to wait (a frame that came after a refill was
    # served at once, and starts the count again); the rest was never served.
    assert server.frame_burst + FLOOD_CLOSE_AFTER - 1 <= pongs < sent
    assert client.ws.close_code == CLOSE_FLOOD


async def test_a_spectator_sees_the_table_and_no_hand(fake_discord, activity_bot, connect):
    fake = fake_discord
    player, other = await open_and_deal(fake, activity_bot, connect)
    instance = fake.activities.launch(fake.channel, [fake.users[2]])
    carol = await connect(fake.users[2], instance)
    assert carol.latest("table")["phase"] == "playing" and carol.latest("hand")["hand"] is None
    await player.ask("play", cards=player.latest("hand")["hand"]["quick"][0]["cards"])
    await carol.wait(lambda frame: frame["type"] == "table" and frame.get("top") is not None)
    assert all(frame["hand"] is None for frame in carol.frames if frame["type"] == "hand")


async def test_three_players_and_an_ai_seat_play_a_whole_game_in_the_activity(fake_discord, activity_bot, connect):
    """Every human move is made in the Activity (the lowest quick play, else pass); the AI seat plays by itself.
    The game ends with its results in every client, the summary in the channel, and no client ever got a
    card of another player's hand while the game ran."""
    fake = fake_discord
    users = fake.users[:3]
    instance = fake.activities.launch(fake.channel, users)
    clients = [await connect(user, instance) for user in users]
    assert (await clients[0].ask("create"))["type"] == "ok"
    for client in clients[1:]:
        assert (await client.ask("join"))["type"] == "ok"
    assert (await clients[0].ask("addbot", level="easy"))["type"] == "ok"
    assert (await clients[0].ask("start"))["type"] == "ok"
    moved: dict[int, tuple] = {}

    async def play_while_the_game_runs(client) -> None:
        seen = 0
        while True:
            try:
                frame = await client.wait(lambda item: item["type"] in ("hand", "table"), timeout=20, since=seen)
            except asyncio.TimeoutError:
                raise AssertionError(f"{client.user.name} got nothing for 20 s after {client.raw[-3:]}") from None
            seen = client.frames.index(frame, seen) + 1
            if frame["type"] == "table" and frame.get("phase") == "between":
                return
            hand = frame.get("hand") if frame["type"] == "hand" else None
            if hand and hand["turn"] and moved.get(client.user.id) != (hand["game"], hand["version"]):
                moved[client.user.id] = (hand["game"], hand["version"])
                if hand["quick"]:
                    await client.send({"type": "play", "cards": hand["quick"][0]["cards"]})
                else:
                    await client.send({"type": "pass"})

    await asyncio.wait_for(asyncio.gather(*(play_while_the_game_runs(client) for client in clients)), 60)
    for client in clients:
        result = await client.wait(lambda frame: frame["type"] == "table" and frame.get("summary") is not None)
        sections = {section["title"]: section["lines"] for section in result["summary"]["sections"]}
        assert len(sections[t("en", "summary.places")]) == 4
        assert {line.split(":")[0] for line in sections[t("en", "summary.chips")]} == {user.name for user in users}
        assert len(result["summary"]["hands"]) == 4
    # The end of the game in the Activity is the summary message's own words, payments included.
    summary = activity_bot.tables.snapshot(fake.channel.id).summary
    shown = {section["title"]: section["lines"] for section in clients[0].latest("table")["summary"]["sections"]}
    layout = summary_layout(summary, "en", image=None)
    payments = t("en", "summary.payments", chips=chips(summary.bet, "en"))
    assert shown[payments] == [plain(line) for line in block_lines(layout, payments)]
    assert len(shown[payments]) == len(summary.payments) or summary.payments == ()
    # The Replay of that game, step by step, as the bot's replay shows it: the deal, then every move.
    game = await activity_bot.tables.replays.game(fake.guild.id, summary.game_id)
    first = await clients[1].ask("replay", game=summary.game_id, step=0)
    assert first["type"] == "replay" and first["step"] == 0 and first["steps"] == game.replay.steps > 0
    assert [seat["cards"] for seat in first["seats"]] == [[card.code for card in hand]
                                                          for hand in game.replay.frames[0].hands]
    assert first["lines"] == [plain(t("en", "replay.deal"))] + first["lines"][1:] and first["result"] == []
    second = await clients[1].ask("replay", game=summary.game_id, step=1)
    assert second["step"] == 1 and second["caption"].startswith(f"1/{game.replay.steps}")
    last = await clients[2].ask("replay", game=summary.game_id, step=MAX_STEP)  # past the end: the last step
    assert last["step"] == game.replay.steps and last["seats"][0]["cards"] == shown_hands(result, 0)
    layout = replay_layout(game, game.replay.steps, "en")
    places = t("en", "summary.places")
    assert {block["title"]: block["lines"] for block in last["result"]}[places] == [
        plain(line) for line in block_lines(layout, places)]
    assert max(len(raw.encode()) for raw in clients[2].raw if '"type":"replay"' in raw) < 2048
    await fake.wait_for(lambda: any(t("en", "summary.title") in message.text()
                                    for message in fake.messages(fake.channel)), what="the summary message")
    # While the game ran, a client's frames named only its own cards (and the public plays on the table).
    for client in clients:
        own: set[str] = set()
        for frame in client.frames:
            if frame["type"] == "hand" and frame["hand"] is not None:
                own |= set(frame["hand"]["cards"])
        for frame in client.frames:
            if frame["type"] == "hand" and frame["hand"] is not None:
                assert set(frame["hand"]["cards"]) <= own
        others = [other for other in clients if other is not client]
        for other in others:
            their = set()
            for frame in other.frames:
                if frame["type"] == "hand" and frame["hand"] is not None:
                    their |= set(frame["hand"]["cards"])
            assert not own & their  # a hand frame never carried a card dealt to someone else


def shown_hands(table: dict, seat: int) -> list[str]:
    return table["summary"]["hands"][seat][1].split()


async def test_a_replay_of_a_running_game_is_refused_and_shows_no_card(fake_discord, activity_bot, connect):
    fake = fake_discord
    player, other = await open_and_deal(fake, activity_bot, connect)
    service = activity_bot.tables
    game = service.table(fake.channel.id).game
    game_id, before = service.table(fake.channel.id).game_id, (len(game.actions), game.turn, game.to_json())
    secret = {card.code for seat in range(2) for card in game.hand(seat)}
    for client in (player, other):
        seen = len(client.raw)
        for step in (0, 1, MAX_STEP):
            answer = await client.ask("replay", game=game_id, step=step)
            assert answer["type"] == "error" and answer["code"] == "replay_running"
            assert answer["text"] == t("en", "error.replay_running", game=game_id)
        for raw in client.raw[seen:]:
            if '"type":"hand"' not in raw:  # its own hand frames aside, no card of the running game
                assert not any(f'"{code}"' in raw for code in secret), raw
    assert (await player.ask("replay", game=game_id + 1000))["code"] == "replay_not_found"
    game = service.table(fake.channel.id).game
    assert (len(game.actions), game.turn, game.to_json()) == before


@pytest.mark.parametrize("fields, code", [
    ({}, "bad_game"), ({"game": "7"}, "bad_game"), ({"game": 0}, "bad_game"), ({"game": True}, "bad_game"),
    ({"game": 2**60}, "bad_game"), ({"game": 7, "step": -1}, "bad_step"), ({"game": 7, "step": 1.5}, "bad_step"),
    ({"game": 7, "step": MAX_STEP + 1}, "bad_step"), ({"game": 7, "step": "1"}, "bad_step"),
])
async def test_a_bad_replay_frame_gets_a_precise_error(fake_discord, connect, fields, code):
    fake_discord.users[0].locale = "vi"
    client = await connect(fake_discord.users[0])
    answer = await client.ask("replay", **fields)
    assert answer["type"] == "error" and answer["code"] == code
    assert answer["text"] == t("vi", f"activity.error.{code}", game=str(fields.get("game"))[:16], max=MAX_STEP)


async def test_a_stopping_bot_tells_its_clients_to_reconnect(fake_discord, activity_bot, connect):
    fake = fake_discord
    fake.users[0].locale = "vi"
    client = await connect(fake.users[0])
    await activity_bot.activity_server.close()
    await asyncio.wait_for(client.closed.wait(), 5)
    assert client.frames[-1] == {"type": "bye", "code": "restarting", "text": t("vi", "activity.error.restarting")}
    assert client.ws.close_code == 1001


async def test_a_channel_run_by_another_cluster_process_is_refused(fake_discord, activity_bot, connect):
    activity_bot.tables.owns_guild = lambda guild_id: False  # as for a guild of another slot
    client = await connect(fake_discord.users[0], welcome=False)
    await asyncio.wait_for(client.closed.wait(), 5)
    assert client.frames == [{"type": "bye", "code": "elsewhere", "text": t("en", "activity.error.elsewhere")}]
