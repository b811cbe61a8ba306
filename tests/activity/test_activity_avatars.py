"""Seat avatars through the Activity's own server (activity/avatars.py, ``GET /api/avatar/{user_id}``): the bot
looks the user up and fetches the picture from Discord's CDN (the fake's here), keeps it, and serves it with
cache headers, only for users at a table a client watches, so it is no open proxy."""

from __future__ import annotations

import pytest

from activity.discord_api import Profile
from tests.e2e.driver import table_message
from tests.fakediscord.activities import png

pytestmark = pytest.mark.timeout(30)


def url(bot, path: str) -> str:
    return f"http://127.0.0.1:{bot.activity_server.port}{path}"


async def test_the_fakes_cdn_serves_a_users_avatar_and_the_default_ones(fake_discord, http):
    fake = fake_discord
    alice = fake.users[0]
    avatar = fake.activities.set_avatar(alice, png(1, 2, 3))
    async with http.get(f"{fake.api_base}/users/{alice.id}", headers={"Authorization": f"Bot {fake.token or 'x'}"}) as answer:
        assert answer.status == 200 and (await answer.json())["avatar"] == avatar
    async with http.get(f"{fake.api_base}/users/{fake.users[1].id}", headers={"Authorization": f"Bot {fake.token or 'x'}"}) as answer:
        assert (await answer.json())["avatar"] is None
    async with http.get(f"{fake.activities.cdn_base}/avatars/{alice.id}/{avatar}.png?size=64") as picture:
        assert picture.status == 200 and picture.content_type == "image/png" and await picture.read() == png(1, 2, 3)
    async with http.get(f"{fake.activities.cdn_base}/embed/avatars/5.png") as default:
        assert default.status == 200 and (await default.read()).startswith(b"\x89PNG")
    for path in (f"/avatars/{alice.id}/0000.png", "/embed/avatars/6.png", "/avatars/x/y.png"):
        async with http.get(fake.activities.cdn_base + path) as missing:
            assert missing.status == 404


def test_the_default_avatar_is_the_one_discord_gives():
    assert Profile(id=80351110224678912, avatar="abc").avatar_path() == "/avatars/80351110224678912/abc.png?size=64"
    assert Profile(id=80351110224678912, avatar=None).avatar_path() == f"/embed/avatars/{(80351110224678912 >> 22) % 6}.png"
    assert Profile(id=1, avatar=None, discriminator="1337").avatar_path() == "/embed/avatars/2.png"  # 1337 % 5


async def test_a_seated_players_avatar_is_served_cached_and_no_one_elses(fake_discord, activity_bot, connect, http):
    fake = fake_discord
    alice, bob, carol = fake.users[:3]
    picture = png(200, 10, 10)
    fake.activities.set_avatar(alice, picture)
    client = await connect(alice, fake.activities.launch(fake.channel, [alice]))
    assert (await client.ask("create"))["type"] == "ok"
    await fake.wait_for(lambda: table_message(fake) is not None)
    await fake.click(bob, table_message(fake), f"tl:t:join:{fake.channel.id}")  # bob sits down, not connected
    await client.wait(lambda frame: frame["type"] == "table" and len(frame.get("seats", ())) == 2)

    async with http.get(url(activity_bot, f"/api/avatar/{alice.id}")) as answer:
        assert answer.status == 200 and answer.content_type == "image/png" and await answer.read() == picture
        assert "max-age" in answer.headers["Cache-Control"]
        etag = answer.headers["ETag"]
    async with http.get(url(activity_bot, f"/api/avatar/{bob.id}")) as answer:  # no avatar: Discord's default
        assert answer.status == 200 and (await answer.read()).startswith(b"\x89PNG")
    assert fake.activities.cdn_hits[-1] == f"/cdn/embed/avatars/{(bob.id >> 22) % 6}.png"
    hits, fetched = len(fake.activities.cdn_hits), activity_bot.activity_server.avatars.fetched
    for _ in range(3):
        async with http.get(url(activity_bot, f"/api/avatar/{alice.id}")) as again:
            assert again.status == 200 and await again.read() == picture
    async with http.get(url(activity_bot, f"/api/avatar/{alice.id}"), headers={"If-None-Match": etag}) as same:
        assert same.status == 304
    assert len(fake.activities.cdn_hits) == hits and activity_bot.activity_server.avatars.fetched == fetched  # kept
    # Not an open proxy: a user at no table watched here, or no user at all, is 404 and Discord is not asked.
    for wanted in (str(carol.id), "123", "abc", "1" * 25, "-5", "0x10"):
        async with http.get(url(activity_bot, f"/api/avatar/{wanted}")) as refused:
            assert refused.status == 404 and (await refused.json()) == {"error": "unknown_user"}
    assert len(fake.activities.cdn_hits) == hits and activity_bot.activity_server.avatars.fetched == fetched


async def test_a_cdn_that_does_not_answer_is_a_502_and_the_next_request_tries_again(fake_discord, activity_bot,
                                                                                     connect, http, monkeypatch):
    alice = fake_discord.users[0]
    await connect(alice)
    monkeypatch.setenv("DISCORD_CDN_BASE", "http://127.0.0.1:9")  # nothing listens there
    async with http.get(url(activity_bot, f"/api/avatar/{alice.id}")) as down:
        assert down.status == 502 and (await down.json()) == {"error": "discord_down"}
    monkeypatch.setenv("DISCORD_CDN_BASE", fake_discord.activities.cdn_base)
    async with http.get(url(activity_bot, f"/api/avatar/{alice.id}")) as back:
        assert back.status == 200


class SlowApi:
    """Stands in for DiscordApi: counts trips, answers after a pause (or never knows the user)."""

    def __init__(self) -> None:
        self.trips = 0

    async def profile(self, user_id: int) -> Profile:
        import asyncio

        from activity.discord_api import DiscordRefused

        self.trips += 1
        await asyncio.sleep(0.01)
        if user_id == 404:
            raise DiscordRefused(404)
        return Profile(id=user_id, avatar=None)

    async def picture(self, path: str) -> bytes:
        return png(1, 1, 1)


async def test_the_cache_makes_one_trip_per_burst_forgets_the_oldest_and_expires():
    import asyncio

    from activity.avatars import Avatars

    now = [0.0]
    api = SlowApi()
    avatars = Avatars(api, entries=2, keep_seconds=60, clock=lambda: now[0])  # type: ignore[arg-type]
    pictures = await asyncio.gather(*(avatars.picture(7) for _ in range(20)))
    assert api.trips == 1 and all(picture is pictures[0] for picture in pictures) and pictures[0].data == png(1, 1, 1)
    assert await avatars.picture(404) is None and await avatars.picture(404) is None and api.trips == 2  # kept too
    await avatars.picture(8)  # a third user: the oldest (7) is forgotten
    await avatars.picture(7)
    assert api.trips == 4
    now[0] += 61  # an hour later (here a minute): asked again
    await avatars.picture(7)
    assert api.trips == 5
    waiting = asyncio.ensure_future(avatars.picture(9))
    other = asyncio.ensure_future(avatars.picture(9))
    await asyncio.sleep(0)
    waiting.cancel()  # a client that goes away does not cancel the trip for the other
    assert (await other).data == png(1, 1, 1) and api.trips == 6
