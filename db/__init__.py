"""The bot's data layer: chips, the ledger, stored games, tables, leaderboards.

SQLAlchemy 2 (asyncio) on SQLite by default, PostgreSQL by URL.  Nothing here
imports discord or the game engine: functions take plain values and return
frozen dataclasses.  Typical start-up::

    db = Database.from_url(settings.database_url)
    await db.upgrade()          # raises SchemaError with a one-line message
"""

from db.accounts import (
    get_account,
    get_or_create_account,
    grant,
    record_leave_penalty,
    reset_balances,
    transfer,
)
from db.changes import NOTHING_NEW, ChangeReceipt, GameSettlement, NewGame, TableChange, commit_changes
from db.connect import DEFAULT_URL
from db.daily import claim_daily
from db.dm_channels import dm_channel_of, remember_dm_channel
from db.database import Database, Fence
from db.errors import (
    ActionConflict,
    DailyAlreadyClaimed,
    DbError,
    GameClosed,
    GameNotFound,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    InvalidGame,
    InvalidTimezone,
    SchemaError,
    StaleEpoch,
    UnknownAccount,
)
from db.games import (
    abort_game,
    append_action,
    append_actions,
    create_game,
    finish_game,
    load_game,
    mark_summary_posted,
    recent_games,
    unfinished_games,
    unposted_summaries,
)
from db.guilds import (
    change_guild_settings,
    get_guild_settings,
    recent_setting_changes,
    set_guild_locale,
    set_guild_timezone,
)
from db.leaderboard import LeaderboardOrder, leaderboard, player_stats
from db.ledger import account_ledger
from db.records import (
    Account,
    BalanceChange,
    DailyClaim,
    GameStatus,
    GameSummary,
    GuildSettings,
    Leaderboard,
    LeaderRow,
    LedgerEntry,
    PlayerStats,
    Reason,
    SeatPayment,
    SeatResult,
    SeatSummary,
    SettingChange,
    Settlement,
    SettlementLine,
    StoredGame,
    StoredTable,
    TransferResult,
)
from db.settlement import settle_game, settlement_of
from db.tables import delete_table, load_tables, save_table, table_guild
from db.validation import MAX_AMOUNT

__all__ = [
    "DEFAULT_URL",
    "MAX_AMOUNT",
    "NOTHING_NEW",
    "Account",
    "ActionConflict",
    "BalanceChange",
    "ChangeReceipt",
    "GameSettlement",
    "NewGame",
    "TableChange",
    "commit_changes",
    "DailyAlreadyClaimed",
    "DailyClaim",
    "Database",
    "Fence",
    "DbError",
    "GameClosed",
    "GameNotFound",
    "GameStatus",
    "GameSummary",
    "GuildSettings",
    "IdempotencyConflict",
    "InsufficientFunds",
    "InvalidAmount",
    "InvalidGame",
    "InvalidTimezone",
    "LeaderRow",
    "Leaderboard",
    "LeaderboardOrder",
    "LedgerEntry",
    "PlayerStats",
    "Reason",
    "SchemaError",
    "StaleEpoch",
    "SeatPayment",
    "SeatResult",
    "SeatSummary",
    "SettingChange",
    "Settlement",
    "SettlementLine",
    "StoredGame",
    "StoredTable",
    "TransferResult",
    "UnknownAccount",
    "abort_game",
    "account_ledger",
    "change_guild_settings",
    "append_action",
    "append_actions",
    "claim_daily",
    "dm_channel_of",
    "create_game",
    "delete_table",
    "finish_game",
    "get_account",
    "get_guild_settings",
    "get_or_create_account",
    "grant",
    "leaderboard",
    "load_game",
    "load_tables",
    "mark_summary_posted",
    "player_stats",
    "recent_games",
    "record_leave_penalty",
    "recent_setting_changes",
    "reset_balances",
    "remember_dm_channel",
    "save_table",
    "set_guild_locale",
    "set_guild_timezone",
    "settle_game",
    "settlement_of",
    "table_guild",
    "transfer",
    "unfinished_games",
    "unposted_summaries",
]
