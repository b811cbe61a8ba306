"""A real client that signs in and then never reads its socket: the bot drops it, and the table goes on.

The client is a bare TCP connection (a WebSocket handshake and one masked
``hello`` frame written by hand, a tiny receive buffer, nothing ever read), so
what fills up is the kernel's buffers and then the connection's bounded queue,
as with a phone that froze.  The other client of the table keeps getting every
frame and answering at once.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import struct

from activity.hub import CLOSE_TOO_SLOW


def masked_text_frame(text: str) -> bytes:
    """One client-to-server WebSocket text frame (RFC 6455, section 5.2: clients mask what they send)."""
    payload = text.encode()
    mask = os.urandom(4)
    header = bytes([0x81])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    else:
        header += bytes([0x80 | 126]) + struct.pack("!H", len(payload))
    return header + mask + bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))


async def frozen_client(port: int, hello: dict) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Sign in, then never read again (the answer to the handshake is the last thing read)."""
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window fills quickly
    raw.setblocking(False)
    await asyncio.get_running_loop().sock_connect(raw, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=raw, limit=2**16)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 101")
    writer.write(masked_text_frame(json.dumps(hello)))
    await writer.drain()
    writer.transport.pause_reading()  # from now on, nothing is read: the kernel's buffers fill, then ours
    return reader, writer


async def test_a_client_that_never_reads_is_dropped_and_the_others_play_on(fake_discord, activity_bot, connect):
    fake = fake_discord
    server = activity_bot.activity_server
    server.queue_size = 16
    alice, bob = fake.users[:2]
    instance = fake.activities.launch(fake.channel, [alice, bob])
    fast = await connect(alice, instance)
    assert (await fast.ask("create"))["type"] == "ok"
    reader, writer = await frozen_client(server.port, {"type": "hello", "access_token": fake.activities.token_for(bob),
                                                         "instance_id": instance})
    await fake.wait_for(lambda: bob.id in server.hub.by_user, what="the frozen client to be signed in")
    frozen = server.hub.by_user[bob.id]
    # As on a phone's mobile link: little in flight (and no autotuning up to megabytes on loopback).
    frozen.transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8192)

    snapshot = activity_bot.tables.snapshot(fake.channel.id)
    pushes = 0
    while not frozen.closed and pushes < 20_000:  # the table keeps changing; the frozen client reads nothing
        server.hub.table_changed(snapshot)
        pushes += 1
        await asyncio.sleep(0.001)  # the writers run (as between two commits): the kernel's buffers fill
    assert frozen.closed and frozen.close_code == CLOSE_TOO_SLOW, f"still connected after {pushes} pushes"
    assert pushes * 2 > server.queue_size * 4, pushes  # the kernel's buffers were full before the queue was
    await fake.wait_for(lambda: bob.id not in server.hub.by_user, what="the frozen client to be let go")
    assert frozen.queue.qsize() <= server.queue_size  # what it held was bounded all along
    writer.transport.resume_reading()  # what is left: the frames the kernel held, then the end
    await asyncio.wait_for(read_to_the_end(reader), 5)

    # The other client got every push and still answers at once; the table still acts.
    assert sum(frame["type"] == "table" for frame in fast.frames) >= pushes
    assert (await fast.ask("ping"))["type"] == "pong"
    assert (await fast.ask("addbot", level="easy"))["type"] == "ok"
    writer.close()



async def read_to_the_end(reader: asyncio.StreamReader) -> None:
    """Read until the connection ends (the bot aborted it) — for ever if it did not."""
    try:
        while await reader.read(65536):
            pass
    except ConnectionError:
        pass
