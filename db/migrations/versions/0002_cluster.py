"""Cluster slots (epochs that fence writes), oversized forwarded interactions,
and users' DM channels (so a new owner of a table need not reopen them).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AUTO_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "cluster_slots",
        sa.Column("slot", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("epoch", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("holder", sa.String(length=200), nullable=True),
        sa.Column("shard_count", sa.Integer(), nullable=True),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("slot", name=op.f("pk_cluster_slots")),
    )
    op.create_table(
        "forwarded_interactions",
        sa.Column("id", AUTO_ID, nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forwarded_interactions")),
    )


    op.create_table(
        "dm_channels",
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_dm_channels")),
    )


def downgrade() -> None:
    op.drop_table("dm_channels")
    op.drop_table("forwarded_interactions")
    op.drop_table("cluster_slots")
