"""A connection's bounded send queue: a client that never reads is dropped, the table never waits for it."""

from __future__ import annotations

import asyncio

from activity.hub import CLOSE_TOO_SLOW, Connection, FrameBudget


class StuckSocket:
    """A WebSocket whose client never reads: every send waits for ever once the first went out."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed = False
        self.close_code = None
        self.stuck = asyncio.Event()

    async def send_str(self, text: str) -> None:
        if self.sent:
            await asyncio.Event().wait()
        self.sent.append(text)

    async def close(self, code: int, message: bytes) -> None:
        self.closed, self.close_code = True, code


class Transport:
    aborted = False

    def abort(self) -> None:
        self.aborted = True


def connection(ws, *, queue_size: int = 8, send_timeout: float = 30.0) -> Connection:
    return Connection(ws, user_id=1, name="An", locale="en-US", channel_id=2, guild_id=3, queue_size=queue_size,
                      send_timeout=send_timeout, transport=Transport())


async def test_a_client_that_never_reads_fills_its_queue_and_is_dropped():
    ws = StuckSocket()
    client = connection(ws, queue_size=8)
    accepted = [client.send({"type": "table", "n": n}) for n in range(20)]
    assert accepted == [True] * 8 + [False] * 12  # queued up to the bound, then dropped at once
    assert client.closed and client.close_code == CLOSE_TOO_SLOW
    await client.finished()
    assert ws.closed and ws.close_code == CLOSE_TOO_SLOW and client.transport.aborted
    assert client.writer.cancelled() or client.writer.done()
    assert client.send({"type": "table"}) is False  # a dropped client takes nothing more


async def test_a_send_that_hangs_past_the_timeout_drops_the_client():
    ws = StuckSocket()
    client = connection(ws, queue_size=100, send_timeout=0.05)
    client.send({"type": "a"})
    client.send({"type": "b"})  # this one never goes out
    await asyncio.sleep(0.2)
    assert client.closed and client.close_code == CLOSE_TOO_SLOW and len(ws.sent) == 1
    await client.finished()


def test_the_frame_budget_refills_at_its_rate_and_paces_what_is_beyond_it():
    now = [0.0]
    budget = FrameBudget(rate=10, burst=3, clock=lambda: now[0])
    assert [budget.take() for _ in range(5)] == [0.0, 0.0, 0.0, 0.1, 0.2]
    now[0] += 0.2  # the paced frames were served after their wait: the budget is empty again, not in debt
    assert budget.take() == 0.1
    now[0] += 10
    assert [budget.take() for _ in range(3)] == [0.0, 0.0, 0.0]  # never more than the burst
