"""The Activity in a cluster: real ``python bot.py`` processes, PostgreSQL, and a takeover.

Two slots and a standby (as in test_e2e_cluster.py), each process with its
Activity server.  Both players' clients connect to slot 0's holder while their
table is slot 1's: they are carried to slot 1's holder and play there.  Then
slot 1's holder is killed mid-game; the clients are told to reconnect, land on
slot 0's holder again, are carried to the standby that took the slot over, see
the table exactly as stored, and play the game to its end with no move lost.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

import aiohttp
import pytest

from tests.activity.conftest import Client
from tests.e2e.cluster_support import free_port, fresh_database
from tests.e2e.test_e2e_cluster import (SHARDS, TAKEOVER_TIMEOUT, cluster_process, guild_on_shard, open_table,
                                        stored_game, wait_for_slots)
from tests.fakediscord.activities import CLIENT_SECRET

PG_URL = os.environ.get("TEST_DATABASE_URL")
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not PG_URL, reason="a cluster needs PostgreSQL (set TEST_DATABASE_URL)"),
]


def activity_process(fake: Any, url: str) -> Any:
    process = cluster_process(fake, url)
    process.activity_port = free_port()
    process.env.update(ACTIVITY_PORT=str(process.activity_port), ACTIVITY_HOST="127.0.0.1",
                       DISCORD_CLIENT_SECRET=CLIENT_SECRET)
    return process


async def sign_in(session: aiohttp.ClientSession, port: int, fake: Any, user: Any, instance: str,
                  timeout: float) -> Client:
    """Connect until the owner (through the relay) sends this user's table and hand; a ``moving`` or
    ``restarting`` goodbye while a takeover is under way means: try again, as the client does."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws")
        client = Client(ws, user)
        await client.send({"type": "hello", "access_token": fake.activities.token_for(user), "instance_id": instance})
        try:
            await client.wait(lambda frame: frame["type"] == "hand" or frame["type"] == "bye", timeout=10)
        except AssertionError:
            pass  # closed without a word: the owner died as we connected
        if client.latest("hand") is not None and client.latest("hand")["hand"] is not None:
            return client
        assert client.latest("bye") is None or client.latest("bye")["code"] in ("moving", "restarting"), client.frames
        await client.close()
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"could not sign in through the relay: {client.frames}")
        await asyncio.sleep(0.5)


def public_state(table: dict) -> tuple:
    """What a takeover must keep of the public table: whose turn, the play on top, each seat's cards."""
    return table["turn"], table["top"], [(seat["user"], seat["cards"]) for seat in table["seats"]]


def last_table(client: Client) -> int:
    return max(index for index, frame in enumerate(client.frames) if frame["type"] == "table")


async def play_moves(clients: dict[int, Client], moves: int | None, made: list[dict]) -> None:
    """Whoever is on turn plays their first quick play (or passes), ``moves`` times or to the game's end."""
    while moves is None or moves > 0:
        client = next(iter(clients.values()))
        table = client.latest("table")
        if table["phase"] != "playing":
            return
        if table["turn"] is None:  # the last play is being settled: the next frame says how it ended
            await client.wait(lambda frame: frame["type"] == "table" and frame is not table,
                              since=last_table(client))
            continue
        mover = clients[int(table["seats"][table["turn"]]["user"])]
        if not mover.latest("hand")["hand"]["turn"]:  # its hand frame follows the table's
            await mover.wait(lambda frame: frame["type"] == "hand" and frame["hand"] is not None
                             and frame["hand"]["turn"], since=len(mover.frames) - 1)
        hand = mover.latest("hand")["hand"]
        action = {"type": "play", "cards": hand["quick"][0]["cards"]} if hand["quick"] else {"type": "pass"}
        seen = {user: len(other.frames) for user, other in clients.items()}
        answer = await mover.ask(action["type"], **({"cards": action["cards"]} if "cards" in action else {}))
        assert answer["type"] == "ok", answer
        made.append(action)
        for user, other in clients.items():  # every client sees the move before the next one
            await other.wait(lambda frame: frame["type"] == "table" and frame["version"] > table["version"],
                             since=seen[user])
        if moves is not None:
            moves -= 1


async def test_activity_clients_on_another_process_play_through_a_takeover(fake_discord):
    assert PG_URL is not None
    fake = fake_discord
    fake.recommended_shards = SHARDS
    async with fresh_database(PG_URL) as url, aiohttp.ClientSession() as session:
        guilds = {shard: guild_on_shard(fake, shard, f"Guild on shard {shard}") for shard in range(SHARDS)}
        processes = [await activity_process(fake, url).launch() for _ in range(3)]
        clients: dict[int, Client] = {}
        try:
            holders = await wait_for_slots(fake, url, processes)
            standby = next(process for process in processes if process not in holders.values())
            front = holders[0]  # where the clients land; the table is slot 1's
            players = fake.users[:2]
            channel = guilds[1].test_channel
            driver = await open_table(fake, channel, players)
            instance = fake.activities.launch(channel, players)
            for user in players:
                clients[user.id] = await sign_in(session, front.activity_port, fake, user, instance, timeout=30)
            made: list[dict] = []
            mark = fake.mark()
            await play_moves(clients, 4, made)
            assert driver.phase() == "playing"
            await fake.wait_for(lambda: any(request.key.startswith("PATCH /channels/")
                                            for request in fake.requests_since(mark)),
                                what="the owner to edit the table message for the Activity's moves")

            for client in clients.values():  # each table frame is followed by the client's own hand
                await client.wait(lambda frame: frame["type"] == "hand", since=last_table(client))
            before = {user: client.latest("hand")["hand"]["cards"] for user, client in clients.items()}
            public = public_state(next(iter(clients.values())).latest("table"))
            await holders[1].kill()
            for client in clients.values():
                await asyncio.wait_for(client.closed.wait(), 15)
                assert client.latest("bye")["code"] == "restarting" and client.ws.close_code == 1012
            for user in players:
                clients[user.id] = await sign_in(session, front.activity_port, fake, user, instance,
                                                 timeout=TAKEOVER_TIMEOUT)
            new_holders = await wait_for_slots(fake, url, processes)
            assert new_holders[1] is standby
            # The table as stored: the same cards in each hand, nothing lost or replayed.
            for user, client in clients.items():
                assert client.latest("hand")["hand"]["cards"] == before[user]
                assert public_state(client.latest("table")) == public  # (versions count afresh in a new process)
            await play_moves(clients, None, made)
            await fake.wait_for(lambda: driver.phase() == "between", timeout=20, what="the game to end")
        finally:
            for client in clients.values():
                await client.close()
            for process in processes:
                await process.stop()

        stored, replay = await stored_game(url, guilds[1], channel)
        assert replay.finished and stored.settled_at is not None
        stored_moves = [(action.kind, sorted(card.code for card in action.cards)) for action in replay.actions]
        assert stored_moves == [(action["type"], sorted(action.get("cards", ()))) for action in made]  # once each
