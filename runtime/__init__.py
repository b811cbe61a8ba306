"""The async orchestrator between Discord adapters (cogs), the engine and the database.

Every change of a table is one path (:mod:`runtime.service`): a pure step
(:mod:`runtime.steps`) makes the new state and the records to store; the
store (:mod:`runtime.store`, the only module here that imports :mod:`db`)
writes them in one transaction; only then does the registry
(:mod:`runtime.registry`) keep the new state, the scheduler
(:mod:`runtime.scheduler`) derive what the table waits for, and the outbox
(:mod:`runtime.outbox`) tell Discord.  Nothing here imports discord.
"""
