"""/tienlen rules: one page of a rule set's explanation, with page buttons.

The text comes from :mod:`i18n.rules_text`, generated from the same
:class:`~tienlen.rules.RuleSet` fields the engine plays by.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from discord import ui

from cogs.custom_ids import rules_id
from cogs.layouts.style import accent_for, button, footer, heading, panel, row, text
from i18n import t
from i18n.rules_text import rules_pages
from tienlen import RuleSet

__all__ = ["rules_layout", "table_rules"]


def table_rules(table: Any) -> RuleSet:
    """A table's rule set with its own turn time (a table option outside the preset)."""
    return replace(table.rules, turn_seconds=table.turn_seconds)


def rules_layout(rules: RuleSet, source: str, page: int, lang: str) -> ui.LayoutView:
    """Page ``page`` (clamped) of ``rules``; ``source``: what the page buttons reopen (a preset or a table)."""
    pages = rules_pages(rules, lang)
    page = max(0, min(page, len(pages) - 1))
    current = pages[page]
    buttons = row(
        button(rules_id(source, max(0, page - 1)), t(lang, "button.previous"), disabled=page == 0),
        button(rules_id(source, min(len(pages) - 1, page + 1)), t(lang, "button.next_page"),
               disabled=page >= len(pages) - 1),
    )
    return panel(accent_for(rules.name), [heading(current.title), text(current.body),
                                          footer(t(lang, "help.page_footer", page=page + 1, pages=len(pages))),
                                          buttons])
