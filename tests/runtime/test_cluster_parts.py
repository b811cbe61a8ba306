"""The pieces of the cluster that need no Discord and no database: settings,
shard arithmetic, the rate-limit budget, outage logging and metric names."""

from __future__ import annotations

import doctest
import logging

import discord
import pytest

import cogs.delivery.limits
import runtime.cluster
import runtime.metrics
from cogs.delivery.limits import ChannelBudget, Outages, is_outage
from runtime.cluster import round_up_shards, shard_of_guild, shards_of_slot
from runtime.metrics import Metrics, route_template
from runtime.settings import Settings


@pytest.mark.parametrize("module", [runtime.cluster, runtime.metrics, cogs.delivery.limits])
def test_doctests(module) -> None:
    assert doctest.testmod(module).failed == 0


def test_cluster_settings_from_the_environment() -> None:
    settings = Settings.from_env({"CLUSTERS": "2", "SHARD_COUNT": "4", "METRICS_PORT": "9101",
                                  "DISCORD_API_BASE": "http://nirn:8080/api/v10",
                                  "DATABASE_URL": "postgresql+asyncpg://db/tienlen"})
    assert (settings.clusters, settings.shard_count, settings.metrics_port) == (2, 4, 9101)
    assert settings.discord_api_base == "http://nirn:8080/api/v10"
    assert settings.cluster_problem() is None
    defaults = Settings.from_env({})
    assert (defaults.clusters, defaults.shard_count, defaults.metrics_port, defaults.table_edit_interval) == (1, None, None, 0.0)
    assert defaults.cluster_problem() is None  # SQLite with one slot: the zero-set-up default


def test_cluster_settings_that_cannot_work_are_one_line() -> None:
    sqlite = Settings.from_env({"CLUSTERS": "2"})
    assert "needs PostgreSQL" in sqlite.cluster_problem()
    odd = Settings.from_env({"CLUSTERS": "2", "SHARD_COUNT": "3", "DATABASE_URL": "postgresql+asyncpg://db/x"})
    assert "multiple of CLUSTERS" in odd.cluster_problem()
    for problem in (sqlite.cluster_problem(), odd.cluster_problem()):
        assert "\n" not in problem


def test_every_shard_belongs_to_exactly_one_slot_and_guilds_follow_discord_routing() -> None:
    for clusters in (1, 2, 3):
        shard_count = round_up_shards(5, clusters)
        assert shard_count % clusters == 0 and shard_count >= 5
        owned = [shard for slot in range(clusters) for shard in shards_of_slot(slot, clusters=clusters,
                                                                               shard_count=shard_count)]
        assert sorted(owned) == list(range(shard_count))
    assert round_up_shards(0, 2) == 2
    guild = (123 << 22) | 77
    assert shard_of_guild(guild, 4) == 123 % 4


def test_the_budget_waits_only_when_discord_says_the_bucket_is_empty() -> None:
    now = [0.0]
    budget = ChannelBudget(clock=lambda: now[0])
    budget.observe("PATCH", 1, remaining=2, reset_after=5.0)
    budget.spend("PATCH", 1)
    assert budget.delay("PATCH", 1) == 0.0
    budget.spend("PATCH", 1)
    assert budget.delay("PATCH", 1) == 5.0  # empty: wait for the refill
    assert budget.delay("PATCH", 2) == 0.0 and budget.delay("POST", 1) == 0.0  # other buckets
    now[0] = 3.0
    assert budget.delay("PATCH", 1) == 2.0
    now[0] = 5.0
    assert budget.delay("PATCH", 1) == 0.0  # refilled


def _http_error(status: int) -> discord.HTTPException:
    from types import SimpleNamespace

    return discord.HTTPException(SimpleNamespace(status=status, reason="x"), "x")


def test_outages_are_server_side_failures_and_logged_once(caplog) -> None:
    assert is_outage(_http_error(503)) and is_outage(_http_error(429)) and is_outage(ConnectionResetError())
    assert not is_outage(_http_error(400)) and not is_outage(_http_error(404))
    now = [0.0]
    outages = Outages(clock=lambda: now[0])
    caplog.set_level(logging.WARNING)
    for _ in range(20):
        outages.failed("table edits", _http_error(503))
    assert outages.failing("table edits")
    now[0] = 40.0
    outages.recovered("table edits")
    outages.recovered("table edits")
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 2 and "HTTP 503" in lines[0] and "after 40 s (20 failed attempts)" in lines[1]
    assert not any(record.exc_info for record in caplog.records)


def test_rest_routes_are_counted_without_ids_or_tokens() -> None:
    metrics = Metrics()
    metrics.count_request("PATCH", "/api/v10/channels/1/messages/2", 200)
    metrics.count_request("PATCH", "/api/v10/channels/3/messages/4", 429)
    assert route_template("/api/v10/webhooks/5/c2VjcmV0/messages/@original") == "/webhooks/{id}/{token}/messages/@original"
    route = "/channels/{id}/messages/{id}"
    assert metrics.registry.get_sample_value("tienlen_rest_requests_total",
                                             {"method": "PATCH", "route": route, "status": "200"}) == 1
    assert metrics.registry.get_sample_value("tienlen_rest_rate_limited_total", {"method": "PATCH", "route": route}) == 1


def test_a_refused_stale_write_tells_the_player_the_table_is_moving() -> None:
    from cogs.delivery.answers import explain
    from db import StaleEpoch
    from i18n import t

    for lang in ("en", "vi"):
        assert explain(StaleEpoch(1, 3, 4), lang) == t(lang, "error.table_moving")


def test_without_a_proxy_each_slot_paces_rest_to_its_share_of_the_global_limit() -> None:
    assert Settings.from_env({}).rest_requests_per_second == 50  # one process: the whole limit, never its 429
    two = Settings.from_env({"CLUSTERS": "2", "DATABASE_URL": "postgresql+asyncpg://db/x"})
    assert two.rest_requests_per_second == 25
    proxied = Settings.from_env({"CLUSTERS": "2", "DISCORD_API_BASE": "http://nirn:8080/api/v10"})
    assert proxied.rest_requests_per_second is None  # the shared proxy paces every process together
    assert Settings.from_env({"DISCORD_API_BASE": "http://nirn:8080/api/v10"}).rest_requests_per_second is None
    assert Settings.from_env({"CLUSTERS": "2", "REST_REQUESTS_PER_SECOND": "0"}).rest_requests_per_second is None
    assert Settings.from_env({"REST_REQUESTS_PER_SECOND": "40"}).rest_requests_per_second == 40


async def test_the_global_pace_never_lets_more_than_its_share_into_any_second() -> None:
    """Discord counts the global limit in fixed one-second windows: a bucket as deep as a whole second
    (the old pace) let a burst and a second's refill into one window, and drew the 429 storms."""
    from cogs.delivery.limits import GlobalPace

    now = [100.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    pace = GlobalPace(50.0, clock=lambda: now[0], sleep=sleep)
    sent = []
    for number in range(600):
        if number % 97 == 0:
            now[0] += 3.0  # a quiet spell: the bucket fills up again
        await pace.acquire()
        sent.append(now[0])
    for first in range(len(sent)):
        in_window = sum(1 for moment in sent[first:first + 60] if moment < sent[first] + 1.0)
        assert in_window <= 50, (first, in_window)
    busy = sent[98:193]  # a stretch that the quiet spells do not break: the calls go out at the refill's pace
    assert (len(busy) - 1) / (busy[-1] - busy[0]) >= 44.9
