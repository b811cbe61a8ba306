"""Settings from the environment (and ``.env``): one place for every knob.

Each setting is documented in ``.env.example``.  Test-only settings are
prefixed ``TIENLEN_TEST_`` and never needed in production.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///tienlen.db"


@dataclass(frozen=True)
class Settings:
    discord_token: str | None = None
    database_url: str = DEFAULT_DATABASE_URL
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    default_bet: int = 10
    default_rules: str = "mien-nam"
    default_turn_seconds: int | None = None
    """None: the preset's own turn time."""
    starting_chips: int = 1000
    daily_chips: int = 200
    idle_minutes: float = 15.0
    ai_delay_seconds: float = 1.2
    ai_workers: int = 1
    """Processes for the `hard` AI (0: think in a thread instead)."""
    ai_budget_ms: int = 300
    min_turn_seconds: int = 10
    table_edit_interval: float = 0.0
    """Extra seconds between two edits of one table message; Discord's bucket paces them anyway."""
    clusters: int = 1
    """Cluster slots: processes that run shards at once (more than 1 needs PostgreSQL)."""
    shard_count: int | None = None
    """Gateway shards in all; None: Discord's recommendation rounded up to a multiple of ``clusters``."""
    metrics_port: int | None = None
    """Serve /healthz and Prometheus /metrics on this port (None: off)."""
    metrics_host: str = "127.0.0.1"
    discord_api_base: str | None = None
    """Discord REST base URL, e.g. a shared rate-limit proxy (nirn-proxy) for a cluster."""
    rest_requests_per_second: float | None = None
    """This process's pace for REST calls outside interaction answers (None: not paced)."""
    deal_seed: int | None = None
    """Test only: make the shuffles of a run reproducible."""
    api_base: str | None = None
    """Test only: Discord REST base URL (a fake server)."""
    gateway_url: str | None = None
    """Test only: Discord gateway URL (a fake server)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, *, load_dotenv_file: bool = True) -> "Settings":
        if env is None:
            if load_dotenv_file:
                from dotenv import load_dotenv

                load_dotenv()
            env = os.environ
        return cls(
            discord_token=(env.get("DISCORD_TOKEN") or "").strip() or None,
            database_url=env.get("DATABASE_URL") or DEFAULT_DATABASE_URL,
            dev_guild_id=_int(env.get("DEV_GUILD_ID")),
            log_level=(env.get("LOG_LEVEL") or "INFO").upper(),
            default_bet=_int(env.get("DEFAULT_BET")) or 10,
            default_rules=env.get("DEFAULT_RULES") or "mien-nam",
            default_turn_seconds=_int(env.get("DEFAULT_TURN_SECONDS")),
            starting_chips=_int(env.get("STARTING_CHIPS")) or 1000,
            daily_chips=_int(env.get("DAILY_CHIPS")) or 200,
            idle_minutes=_float(env.get("IDLE_MINUTES"), 15.0),
            ai_delay_seconds=_float(env.get("AI_DELAY_SECONDS"), 1.2),
            ai_workers=_int(env.get("AI_WORKERS"), 1),
            ai_budget_ms=_int(env.get("AI_BUDGET_MS")) or 300,
            min_turn_seconds=_int(env.get("TIENLEN_TEST_MIN_TURN_SECONDS")) or 10,
            table_edit_interval=_float(env.get("TIENLEN_TEST_EDIT_INTERVAL"), 0.0),
            clusters=_int(env.get("CLUSTERS")) or 1,
            shard_count=_int(env.get("SHARD_COUNT")),
            metrics_port=_int(env.get("METRICS_PORT")),
            metrics_host=env.get("METRICS_HOST") or "127.0.0.1",
            discord_api_base=(env.get("DISCORD_API_BASE") or "").strip() or None,
            rest_requests_per_second=_rest_pace(env),
            deal_seed=_int(env.get("TIENLEN_TEST_SEED")),
            api_base=env.get("TIENLEN_TEST_API_BASE") or None,
            gateway_url=env.get("TIENLEN_TEST_GATEWAY_URL") or None,
        )


    @property
    def uses_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    def cluster_problem(self) -> str | None:
        """One line saying why the cluster settings cannot work, or None."""
        if self.clusters < 1:
            return "CLUSTERS must be 1 or more."
        if self.clusters > 1 and self.uses_sqlite:
            return (f"CLUSTERS={self.clusters} needs PostgreSQL: set DATABASE_URL=postgresql+asyncpg://... "
                    "(SQLite serves one process only).")
        if self.shard_count is not None and (self.shard_count < 1 or self.shard_count % self.clusters):
            return f"SHARD_COUNT={self.shard_count} must be a positive multiple of CLUSTERS={self.clusters}."
        return None


# Discord's global limit for a bot token, shared by all of its processes.
GLOBAL_REQUESTS_PER_SECOND = 50


def _rest_pace(env: Mapping[str, str]) -> float | None:
    """REST_REQUESTS_PER_SECOND, or by default an equal share of the global
    limit for each slot of a cluster (the whole limit for one process); none
    behind a shared proxy, which paces every process together (0: off)."""
    explicit = env.get("REST_REQUESTS_PER_SECOND")
    if explicit is not None and explicit.strip():
        return float(explicit) or None
    if (env.get("DISCORD_API_BASE") or "").strip():
        return None
    return GLOBAL_REQUESTS_PER_SECOND / (_int(env.get("CLUSTERS")) or 1)


def _int(value: str | None, default: int | None = None) -> int | None:
    if value is None or not value.strip():
        return default
    return int(value)


def _float(value: str | None, default: float) -> float:
    if value is None or not value.strip():
        return default
    return float(value)
