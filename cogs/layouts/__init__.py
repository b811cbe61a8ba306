"""Layouts: pure functions from a snapshot and a language to a Components V2 :class:`discord.ui.LayoutView`.

One module per surface; a new surface gets a module of its own here, and
its delivery (where it goes, how) lives in :mod:`cogs.delivery`:

* :mod:`~cogs.layouts.table` — the public table message;
* :mod:`~cogs.layouts.hand` — a player's own hand (DM or ephemeral);
* :mod:`~cogs.layouts.summary` — the end-of-game summary;
* :mod:`~cogs.layouts.replay` — one step of a replay;
* :mod:`~cogs.layouts.stats` — history, stats, profile and the leaderboards;
* :mod:`~cogs.layouts.rules` — a page of the rules;
* :mod:`~cogs.layouts.admin` — a server's settings and the balance reset.

They share :mod:`~cogs.layouts.style` (the container, its accent colour and
Discord's limits) and :mod:`~cogs.layouts.words` (seats, plays, events).  No
layout does I/O: pictures are named here and drawn by delivery.
"""
