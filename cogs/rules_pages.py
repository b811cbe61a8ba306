"""/tienlen rules: the rule-set explanation, one page at a time, with page buttons.

The text comes from :mod:`i18n.rules_text`, generated from the same
:class:`~tienlen.rules.RuleSet` fields the engine plays by.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord

from cogs.presenter import COLOUR
from cogs.views import rules_view
from i18n import t
from i18n.rules_text import rules_pages
from tienlen import RuleSet

__all__ = ["rules_message", "table_rules"]


def table_rules(table: Any) -> RuleSet:
    """A table's rule set with its own turn time (a table option outside the preset)."""
    return replace(table.rules, turn_seconds=table.turn_seconds)


def rules_message(rules: RuleSet, source: str, page: int, lang: str) -> tuple[discord.Embed, discord.ui.View]:
    pages = rules_pages(rules, lang)
    page = max(0, min(page, len(pages) - 1))
    current = pages[page]
    embed = discord.Embed(title=current.title, description=current.body, colour=COLOUR)
    embed.set_footer(text=t(lang, "help.page_footer", page=page + 1, pages=len(pages)))
    return embed, rules_view(source, page, len(pages), lang)
