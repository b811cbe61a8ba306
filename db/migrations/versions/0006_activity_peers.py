"""Where each cluster slot's holder serves the Activity, so a client whose WebSocket
lands on another process is carried to the owner of its table (activity/relay.py).

``cluster_slots.activity_url``: the holder's Activity server as the other
processes reach it (NULL: no Activity there, or not published yet since the claim).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("cluster_slots") as batch:
        batch.add_column(sa.Column("activity_url", sa.String(length=300), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("cluster_slots") as batch:
        batch.drop_column("activity_url")
