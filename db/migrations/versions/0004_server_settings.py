"""Server settings chosen by each server's admins, their audit trail, and balance resets.

``guild_settings`` gains one nullable column per setting (NULL: the bot's
default from its environment); ``guild_setting_changes`` keeps who changed
what, and when; the ledger accepts ``reset`` entries (a server resetting
every balance to its starting chips).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AUTO_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
OLD_REASONS = "'start_grant', 'daily', 'settlement', 'leave_penalty', 'admin_grant', 'refund', 'transfer'"
NEW_REASONS = OLD_REASONS + ", 'reset'"
SETTINGS = (
    ("starting_chips", sa.BigInteger),
    ("daily_chips", sa.BigInteger),
    ("default_rules", lambda: sa.String(length=32)),
    ("default_bet", sa.BigInteger),
    ("default_turn_seconds", sa.Integer),
    ("ai_allowed", sa.Boolean),
    ("table_channels", sa.JSON),
    ("daily_min_account_days", sa.Integer),
)


def _ledger_reasons(batch, reasons: str) -> None:
    batch.drop_constraint(op.f("ck_ledger_reason_known"), type_="check")
    batch.create_check_constraint("reason_known", f"reason IN ({reasons})")


def upgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        for name, type_ in SETTINGS:
            batch.add_column(sa.Column(name, type_(), nullable=True))
    op.create_table(
        "guild_setting_changes",
        sa.Column("id", AUTO_ID, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("value", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_guild_setting_changes")),
    )
    op.create_index("ix_guild_setting_changes_guild_id_id", "guild_setting_changes", ["guild_id", "id"])
    with op.batch_alter_table("ledger", recreate="always") as batch:
        _ledger_reasons(batch, NEW_REASONS)


def downgrade() -> None:
    with op.batch_alter_table("ledger", recreate="always") as batch:
        _ledger_reasons(batch, OLD_REASONS)
    op.drop_index("ix_guild_setting_changes_guild_id_id", table_name="guild_setting_changes")
    op.drop_table("guild_setting_changes")
    with op.batch_alter_table("guild_settings") as batch:
        for name, _ in reversed(SETTINGS):
            batch.drop_column(name)
