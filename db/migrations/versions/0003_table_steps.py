"""A table's running game as a column, and summaries that reached Discord.

``tables.game_id`` names the game a table is playing, written in the same
transaction as the table's state (a new game's id is only known inside it).
``games.summary_posted_at`` says the public end-of-game summary reached
Discord; a finished game without it is summarised again after a restart.
Games that ended before this revision count as posted.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from collections.abc import Sequence
import json

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("game_id", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("summary_posted_at", sa.DateTime(timezone=True), nullable=True))
    connection = op.get_bind()
    tables = sa.table("tables", sa.column("channel_id", sa.BigInteger()), sa.column("state", sa.JSON()),
                      sa.column("game_id", sa.BigInteger()))
    for channel_id, state in connection.execute(sa.select(tables.c.channel_id, tables.c.state)).all():
        if isinstance(state, str):
            state = json.loads(state)
        game_id = state.get("game_id") if state.get("phase") == "playing" else None
        if game_id is not None:
            connection.execute(tables.update().where(tables.c.channel_id == channel_id).values(game_id=game_id))
    games = sa.table("games", sa.column("status", sa.String()), sa.column("ended_at", sa.DateTime(timezone=True)),
                     sa.column("summary_posted_at", sa.DateTime(timezone=True)))
    connection.execute(games.update().where(games.c.status != "running").values(summary_posted_at=games.c.ended_at))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("summary_posted_at")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("game_id")
