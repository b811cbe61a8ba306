"""Skill ratings per server and player, with one history row per rated game.

``ratings`` holds each player's current belief (mu, sigma), rated games and
peak; ``rating_history`` one row per game and player, written with the
game's settlement (its key makes a rating change at most once per game).
``games.rated`` says whether a game moves ratings (decided at the deal;
NULL for games from before: they count with at least two humans).
``guild_settings.ranked_only``: only ranked tables move ratings.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ratings",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("peak", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("guild_id", "user_id", name=op.f("pk_ratings")),
    )
    op.create_index("ix_ratings_guild_id_ordinal", "ratings", ["guild_id", sa.text("ordinal DESC"), "user_id"])
    op.create_table(
        "rating_history",
        sa.Column("game_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_rating_history_game_id_games")),
        sa.PrimaryKeyConstraint("game_id", "user_id", name=op.f("pk_rating_history")),
    )
    op.create_index("ix_rating_history_guild_id_user_id_game_id", "rating_history",
                    ["guild_id", "user_id", "game_id"])
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean(), nullable=True))
    with op.batch_alter_table("guild_settings") as batch:
        batch.add_column(sa.Column("ranked_only", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("guild_settings") as batch:
        batch.drop_column("ranked_only")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("rated")
    op.drop_index("ix_rating_history_guild_id_user_id_game_id", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_guild_id_ordinal", table_name="ratings")
    op.drop_table("ratings")
