"""What the cluster tests and ``bench/bench_cluster.py`` share: a fresh
PostgreSQL database per run, free ports for /metrics, reading Prometheus
text, and who holds which slot."""

from __future__ import annotations

import re
import socket
import uuid
from contextlib import asynccontextmanager
from typing import AsyncIterator

import asyncpg
from sqlalchemy.engine import make_url


def dsn(url: str) -> str:
    """An asyncpg DSN for a SQLAlchemy URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@asynccontextmanager
async def fresh_database(server_url: str, prefix: str = "tl_cluster") -> AsyncIterator[str]:
    """A new database on the server of ``server_url``, dropped afterwards
    (advisory locks and NOTIFY channels are per database)."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(dsn(server_url))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def metric(text: str, name: str) -> float:
    """The sum of a Prometheus metric's samples (0 when absent)."""
    # Label values hold braces themselves (route="/channels/{id}/messages/{id}").
    return sum(float(value) for value in re.findall(rf"^{re.escape(name)}(?:{{.*}})? (\S+)$", text, re.M))


async def slot_holders(url: str) -> dict[int, int]:
    """slot -> pid of the process that claimed it last."""
    connection = await asyncpg.connect(dsn(url))
    try:
        rows = await connection.fetch("SELECT slot, holder FROM cluster_slots")
    except asyncpg.UndefinedTableError:
        return {}
    finally:
        await connection.close()
    return {row["slot"]: int(row["holder"].rsplit(":", 1)[1]) for row in rows if row["holder"]}
