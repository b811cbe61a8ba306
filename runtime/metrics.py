"""Operations endpoints: ``/healthz`` and Prometheus ``/metrics``.

Served by a small aiohttp server on ``METRICS_PORT`` (off by default).  The
figures are the ones an operator of a cluster needs: which slot and shards
this process runs, how many tables and games it holds, how fast interactions
get their first answer, Discord REST calls and 429s by route, database
transaction latency, interactions forwarded to other slots, and takeovers.

>>> route_template("/api/v10/channels/1234/messages/5678")
'/channels/{id}/messages/{id}'
>>> route_template("/api/v10/interactions/99/aW50ZXJhY3Rpb24/callback")
'/interactions/{id}/{token}/callback'
"""

from __future__ import annotations

import re
from collections.abc import Callable

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

__all__ = ["Metrics", "route_template"]

_API_PREFIX = re.compile(r"^/api/v\d+")
_TOKEN_AFTER = re.compile(r"/(interactions|webhooks)/(\d+)/[^/]+")
_NUMBER = re.compile(r"/\d+(?=/|$)")

LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
DB_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


def route_template(path: str) -> str:
    """A REST path with its ids and tokens replaced, so routes can be counted."""
    path = _API_PREFIX.sub("", path)
    path = _TOKEN_AFTER.sub(lambda match: f"/{match.group(1)}/{{id}}/{{token}}", path)
    return _NUMBER.sub("/{id}", path)


class Metrics:
    """Every figure this process exports, in its own registry."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        self.slot = Gauge("tienlen_cluster_slot", "Cluster slot held by this process (-1: standby)", registry=registry)
        self.slot.set(-1)
        self.shards = Gauge("tienlen_shards", "Gateway shards of this process", ["state"], registry=registry)
        self.open_tables = Gauge("tienlen_open_tables", "Tables held in this process", registry=registry)
        self.games_running = Gauge("tienlen_games_running", "Games in progress in this process", registry=registry)
        self.first_response = Histogram(
            "tienlen_first_response_seconds", "From receiving an interaction to its first answer",
            buckets=LATENCY_BUCKETS, registry=registry,
        )
        self.rest_requests = Counter(
            "tienlen_rest_requests", "Discord REST requests", ["method", "route", "status"], registry=registry
        )
        self.rate_limited = Counter(
            "tienlen_rest_rate_limited", "Discord REST requests answered 429", ["method", "route"], registry=registry
        )
        self.db_transaction = Histogram(
            "tienlen_db_transaction_seconds", "Database transaction time", ["kind"],
            buckets=DB_BUCKETS, registry=registry,
        )
        self.forwarded = Counter(
            "tienlen_forwarded_interactions", "DM interactions handed to another slot's process",
            ["outcome"], registry=registry,
        )
        self.unexpected_errors = Counter(
            "unexpected_errors", "Errors in interactions that no input explains (bugs)", registry=registry
        )
        self.takeovers = Counter(
            "tienlen_cluster_takeovers", "Slots this process took over from a previous holder", registry=registry
        )
        self.healthy: Callable[[], bool] = lambda: False
        self._runner: web.AppRunner | None = None

    def count_request(self, method: str, path: str, status: int) -> None:
        route = route_template(path)
        self.rest_requests.labels(method, route, str(status)).inc()
        if status == 429:
            self.rate_limited.labels(method, route).inc()

    def observe_transaction(self, kind: str, seconds: float) -> None:
        self.db_transaction.labels(kind).observe(seconds)

    # ------------------------------------------------------------ the server
    async def serve(self, host: str, port: int) -> None:
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/metrics", self._metrics)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()

    async def _healthz(self, _request: web.Request) -> web.Response:
        if self.healthy():
            return web.Response(text="ok\n")
        return web.Response(status=503, text="not serving (standby, or shards not connected)\n")

    async def _metrics(self, _request: web.Request) -> web.Response:
        body = generate_latest(self.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
