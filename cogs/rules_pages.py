"""/tienlen rules: the rule-set explanation, one page at a time, with page buttons.

The text comes from :mod:`i18n.rules_text`, generated from the same
:class:`~tienlen.rules.RuleSet` fields the engine plays by.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import discord

from cogs.presenter import COLOUR
from i18n import language_of, t
from i18n.rules_text import rules_pages
from tienlen import RULESETS, RuleSet

__all__ = ["RulesButton", "rules_message"]

RULES_TEMPLATE = r"tl:r:(?P<source>mien-nam|iwin|mien-bac|table-[0-9]{1,20}):(?P<page>[0-9]{1,2})"


class RulesButton(discord.ui.DynamicItem[discord.ui.Button], template=RULES_TEMPLATE):
    """Previous / next page of a rules explanation (works for anyone, any time)."""

    def __init__(self, source: str, page: int, *, label: str = "", disabled: bool = False) -> None:
        super().__init__(discord.ui.Button(label=label or str(page + 1), style=discord.ButtonStyle.secondary,
                                           disabled=disabled, custom_id=f"tl:r:{source}:{page}"))
        self.source, self.page = source, page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button, match: Any, /):
        return cls(match["source"], int(match["page"]), label=item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        lang = language_of(interaction.locale)
        embed, view = rules_message(_rules_of(interaction, self.source), self.source, self.page, lang)
        await interaction.response.edit_message(embed=embed, view=view)


def _rules_of(interaction: discord.Interaction, source: str) -> RuleSet:
    if source in RULESETS:
        return RULESETS[source]
    tables = getattr(interaction.client, "tables", None)
    table = tables.table(int(source.split("-", 1)[1])) if tables is not None else None
    return table_rules(table) if table is not None else RULESETS["mien-nam"]


def table_rules(table: Any) -> RuleSet:
    """A table's rule set with its own turn time (a table option outside the preset)."""
    return replace(table.rules, turn_seconds=table.turn_seconds)


def rules_message(rules: RuleSet, source: str, page: int, lang: str) -> tuple[discord.Embed, discord.ui.View]:
    pages = rules_pages(rules, lang)
    page = max(0, min(page, len(pages) - 1))
    current = pages[page]
    embed = discord.Embed(title=current.title, description=current.body, colour=COLOUR)
    embed.set_footer(text=t(lang, "help.page_footer", page=page + 1, pages=len(pages)))
    view = discord.ui.View(timeout=None)
    view.add_item(RulesButton(source, max(0, page - 1), label=t(lang, "button.previous"), disabled=page == 0))
    view.add_item(RulesButton(source, min(len(pages) - 1, page + 1), label=t(lang, "button.next_page"),
                              disabled=page >= len(pages) - 1))
    return embed, view
