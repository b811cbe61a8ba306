"""A client whose WebSocket lands on a cluster process that does not own its table is carried to the owner.

The owner is the real bot (in-process, with its Activity server); the process the
client lands on is a second :class:`ActivityServer` that owns no guild and relays to
the owner's address, as a process of another cluster slot does (tests/e2e has the
same with real processes, PostgreSQL and a takeover).
"""

from __future__ import annotations

import asyncio

import discord
import pytest_asyncio

from activity.discord_api import DiscordApi
from activity.relay import CLOSE_RESTART
from activity.server import ActivityServer
from i18n import t
from tests.activity.conftest import Client, connector
from tests.fakediscord.activities import CLIENT_SECRET


class OwnsNothing:
    """The service of a process whose cluster slot runs other guilds."""

    def owns_guild(self, guild_id: int) -> bool:
        return False


def front_server(bot, activity_settings, owner_of) -> ActivityServer:
    api = DiscordApi(lambda: discord.http.Route.BASE, bot_token=bot.settings.discord_token or "",
                     application_id=lambda: bot.application_id, client_secret=CLIENT_SECRET)
    return ActivityServer(OwnsNothing(), activity_settings, api=api, owner_of=owner_of)  # type: ignore[arg-type]


@pytest_asyncio.fixture
async def front(activity_bot, activity_settings):
    owner = f"http://127.0.0.1:{activity_bot.activity_server.port}"
    looked_up: list[int] = []

    async def owner_of(guild_id: int) -> str | None:
        looked_up.append(guild_id)
        return front.owner

    server = front_server(activity_bot, activity_settings, owner_of)
    server.owner = owner  # the address the owner published (a test may take it away)
    server.looked_up = looked_up
    front = server
    await server.start()
    yield server
    await server.close()


@pytest_asyncio.fixture
async def connect_front(fake_discord, front, http):
    """Clients that land on the process that does not own the table."""
    clients: list[Client] = []
    yield connector(fake_discord, http, lambda: front.port, clients)
    for client in clients:
        await client.close()


async def test_a_client_on_another_process_plays_at_the_owner(fake_discord, activity_bot, front, connect_front,
                                                               connect):
    fake = fake_discord
    alice, bob = fake.users[:2]
    instance = fake.activities.launch(fake.channel, [alice, bob])
    carried = await connect_front(alice, instance)  # lands on the process that does not own the table
    direct = await connect(bob, instance)  # lands on the owner
    assert carried.latest("welcome")["user"] == str(alice.id)
    assert front.looked_up == [fake.guild.id] and front.relay.carried == 1
    owner_hub = activity_bot.activity_server.hub
    assert owner_hub.by_user[alice.id].channel_id == fake.channel.id  # the owner signed alice in itself
    assert not front.hub.by_user  # nobody is served by the front process itself

    assert (await carried.ask("create"))["type"] == "ok"
    assert (await direct.ask("join"))["type"] == "ok"
    assert (await carried.ask("start"))["type"] == "ok"
    for client in (carried, direct):
        await client.wait(lambda frame: frame["type"] == "hand" and frame["hand"] is not None)
    table = carried.latest("table")
    on_turn = carried if table["seats"][table["turn"]]["user"] == str(alice.id) else direct
    other = direct if on_turn is carried else carried
    play = on_turn.latest("hand")["hand"]["quick"][0]["cards"]
    seen = len(other.frames)
    assert (await on_turn.ask("play", cards=play))["type"] == "ok"
    pushed = await other.wait(lambda frame: frame["type"] == "table" and frame.get("top") is not None, since=seen)
    assert pushed["top"]["cards"] == play
    # Alice's cards went to alice only, through the relay; bob's frames never carried them.
    alices = set(carried.latest("hand")["hand"]["cards"])
    assert not any(frame["type"] == "hand" and frame["hand"] and alices & set(frame["hand"]["cards"])
                   for frame in direct.frames)


async def test_the_owner_going_away_tells_the_carried_client_to_reconnect(fake_discord, activity_bot, front,
                                                                          connect_front):
    fake = fake_discord
    fake.users[0].locale = "vi"
    instance = fake.activities.launch(fake.channel, [fake.users[0]])
    client = await connect_front(fake.users[0], instance)
    await activity_bot.activity_server.close()  # the owner stops (a restart, or its slot is taken over)
    await asyncio.wait_for(client.closed.wait(), 5)
    assert client.frames[-1] == {"type": "bye", "code": "restarting", "text": t("vi", "activity.error.restarting")}
    assert client.ws.close_code == 1001  # the owner's own words and code, carried as they were


async def test_no_published_owner_means_moving_and_the_client_retries(fake_discord, front, connect_front):
    front.owner = None  # a takeover under way: the new holder has not published its address yet
    instance = fake_discord.activities.launch(fake_discord.channel, [fake_discord.users[0]])
    client = await connect_front(fake_discord.users[0], instance, welcome=False)
    await asyncio.wait_for(client.closed.wait(), 5)
    assert client.frames == [{"type": "bye", "code": "moving", "text": t("en", "activity.error.moving")}]
    assert client.ws.close_code == CLOSE_RESTART


async def test_an_owner_that_does_not_answer_means_moving(fake_discord, front, connect_front):
    front.owner = "http://127.0.0.1:9"  # the published address of a process that died
    instance = fake_discord.activities.launch(fake_discord.channel, [fake_discord.users[0]])
    client = await connect_front(fake_discord.users[0], instance, welcome=False)
    await asyncio.wait_for(client.closed.wait(), 5)
    assert client.frames[-1]["code"] == "moving" and client.ws.close_code == CLOSE_RESTART


async def test_a_carried_client_is_never_carried_again(fake_discord, activity_bot, front, connect_front):
    """Two processes that each think the other owns the table (a takeover in progress) do not pass a client
    round: the second one refuses it, and the client reconnects later."""
    activity_bot.tables.owns_guild = lambda guild_id: False
    instance = fake_discord.activities.launch(fake_discord.channel, [fake_discord.users[0]])
    client = await connect_front(fake_discord.users[0], instance, welcome=False)
    await asyncio.wait_for(client.closed.wait(), 5)
    assert client.frames[-1] == {"type": "bye", "code": "moving", "text": t("en", "activity.error.moving")}
    assert front.relay.carried == 1 and not activity_bot.activity_server.hub.by_user


async def test_bad_input_through_the_relay_is_answered_by_the_owner(fake_discord, activity_bot, front, connect_front):
    instance = fake_discord.activities.launch(fake_discord.channel, [fake_discord.users[0]])
    client = await connect_front(fake_discord.users[0], instance)
    await client.send(b"\x00\x01")
    await client.send("{not json")
    await client.wait(lambda frame: frame["type"] == "error" and frame["code"] == "malformed")
    assert [frame["code"] for frame in client.frames if frame["type"] == "error"] == ["binary", "malformed"]
    assert (await client.ask("ping"))["type"] == "pong"  # still connected, nothing changed


async def test_the_page_of_a_carried_client_gets_its_tables_avatars_from_the_owner(fake_discord, activity_bot, front,
                                                                                    connect_front, connect, http):
    """The page loads from the process its socket landed on, so its avatars are asked there; that process asks
    the owners it carries clients to, and each owner keeps its own rule (no open proxy on either side)."""
    from activity.relay import RELAYED_HEADER
    from tests.fakediscord.activities import png

    fake = fake_discord
    alice, bob, carol = fake.users[:3]
    fake.activities.set_avatar(bob, png(9, 90, 200))
    instance = fake.activities.launch(fake.channel, [alice, bob])
    carried = await connect_front(alice, instance)
    direct = await connect(bob, instance)
    assert (await carried.ask("create"))["type"] == "ok"
    assert (await direct.ask("join"))["type"] == "ok"
    at_front = f"http://127.0.0.1:{front.port}/api/avatar"

    async with http.get(f"{at_front}/{bob.id}") as answer:
        assert answer.status == 200 and answer.content_type == "image/png" and await answer.read() == png(9, 90, 200)
        etag = answer.headers["ETag"]
    async with http.get(f"{at_front}/{bob.id}", headers={"If-None-Match": etag}) as same:
        assert same.status == 304
    async with http.get(f"{at_front}/{carol.id}") as nobody:  # at no table: the owner says 404, and so does the front
        assert nobody.status == 404 and (await nobody.json()) == {"error": "unknown_user"}
    async with http.get(f"{at_front}/{bob.id}", headers={RELAYED_HEADER: "1"}) as relayed:  # never asked on again
        assert relayed.status == 404
    await carried.close()
    await until_no_owner(front)
    async with http.get(f"{at_front}/{bob.id}") as after:  # no client carried any more: nobody to ask
        assert after.status == 404


async def until_no_owner(front) -> None:
    for _ in range(250):
        if not front.relay.owners:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the relay still carries clients to {dict(front.relay.owners)}")
