"""The async orchestrator between Discord adapters (cogs), the engine and the database.

It owns the live tables: one asyncio lock per table, turn timers, AI turns,
write-through of every accepted action to ``db/`` and settlement.  It never
imports discord; it reports what changed through a :class:`Notifier`.
"""
