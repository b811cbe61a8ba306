"""Initial schema: accounts, ledger, games, game actions, tables, guild settings.

Revision ID: 0001
Revises:
Create Date: 2026-11-29

Generated with autogenerate, then tidied by hand: timestamps are spelled as
plain ``DateTime(timezone=True)`` so that this file never depends on
application code that may change later.
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AUTO_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
WINRATE_INDEX_WHERE = "games_played >= 10"


def _timestamp(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _counter(name: str, type_: sa.types.TypeEngine[Any] | None = None) -> sa.Column[Any]:
    return sa.Column(name, type_ or sa.Integer(), server_default=sa.text("0"), nullable=False)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        _timestamp("created_at"),
        _timestamp("last_daily_at", nullable=True),
        _counter("games_played"),
        _counter("firsts"),
        _counter("wins"),
        _counter("win_rate", sa.Float()),
        _counter("chips_won", sa.BigInteger()),
        _counter("chips_lost", sa.BigInteger()),
        _counter("chops_made"),
        _counter("chops_suffered"),
        sa.CheckConstraint("balance >= 0", name=op.f("ck_accounts_balance_not_negative")),
        sa.PrimaryKeyConstraint("guild_id", "user_id", name=op.f("pk_accounts")),
    )
    op.create_index(
        "ix_accounts_chips", "accounts", ["guild_id", sa.text("balance DESC"), "user_id"]
    )
    op.create_index("ix_accounts_wins", "accounts", ["guild_id", sa.text("wins DESC"), "user_id"])
    op.create_index(
        "ix_accounts_winrate",
        "accounts",
        ["guild_id", sa.text("win_rate DESC"), "user_id", "games_played"],
        sqlite_where=sa.text(WINRATE_INDEX_WHERE),
        postgresql_where=sa.text(WINRATE_INDEX_WHERE),
    )

    op.create_table(
        "games",
        sa.Column("id", AUTO_ID, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("rules", sa.String(length=64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("bet", sa.BigInteger(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        _timestamp("started_at"),
        _timestamp("ended_at", nullable=True),
        sa.Column("outcome", sa.JSON(), nullable=True),
        _timestamp("settled_at", nullable=True),
        sa.Column("settlement", sa.JSON(), nullable=True),
        sa.CheckConstraint(
            "status IN ('running', 'finished', 'aborted')",
            name=op.f("ck_games_status_known"),
        ),
        sa.CheckConstraint("bet >= 0", name=op.f("ck_games_bet_not_negative")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index("ix_games_channel_id_id", "games", ["channel_id", "id"])
    op.create_index("ix_games_status", "games", ["status"])

    op.create_table(
        "guild_settings",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column(
            "timezone",
            sa.String(length=64),
            server_default="Asia/Ho_Chi_Minh",
            nullable=False,
        ),
        sa.Column("locale", sa.String(length=16), nullable=True),
        sa.PrimaryKeyConstraint("guild_id", name=op.f("pk_guild_settings")),
    )

    op.create_table(
        "tables",
        sa.Column("channel_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        _timestamp("updated_at"),
        sa.PrimaryKeyConstraint("channel_id", name=op.f("pk_tables")),
    )

    op.create_table(
        "game_actions",
        sa.Column("game_id", sa.BigInteger(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        _timestamp("created_at"),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_actions_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_game_actions")),
    )

    op.create_table(
        "ledger",
        sa.Column("id", AUTO_ID, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=False),
        sa.Column("game_id", sa.BigInteger(), nullable=True),
        sa.Column("idempotency_key", sa.String(length=200), nullable=False),
        _timestamp("created_at"),
        sa.Column("details", sa.JSON(), nullable=True),
        sa.CheckConstraint(
            "reason IN ('start_grant', 'daily', 'settlement', 'leave_penalty', "
            "'admin_grant', 'refund', 'transfer')",
            name=op.f("ck_ledger_reason_known"),
        ),
        sa.CheckConstraint("balance_after >= 0", name=op.f("ck_ledger_balance_after_not_negative")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_ledger_game_id_games")),
        sa.ForeignKeyConstraint(
            ["guild_id", "user_id"],
            ["accounts.guild_id", "accounts.user_id"],
            name=op.f("fk_ledger_guild_id_user_id_accounts"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger")),
        sa.UniqueConstraint("idempotency_key", name=op.f("uq_ledger_idempotency_key")),
    )
    op.create_index("ix_ledger_game_id", "ledger", ["game_id"])
    op.create_index("ix_ledger_guild_id_user_id_id", "ledger", ["guild_id", "user_id", "id"])


def downgrade() -> None:
    op.drop_table("ledger")
    op.drop_table("game_actions")
    op.drop_table("tables")
    op.drop_table("guild_settings")
    op.drop_table("games")
    op.drop_table("accounts")
