"""Vietnamese names and descriptions for the slash commands (app_commands.Translator).

Descriptions and choices carry a catalogue key in their ``locale_str``; command,
group and option names are looked up as ``name.<english name>``.
"""

from __future__ import annotations

import discord
from discord import app_commands

from i18n import catalogue, language_of

__all__ = ["CatalogueTranslator"]

_NAME_LOCATIONS = {
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
    app_commands.TranslationContextLocation.parameter_name,
}


class CatalogueTranslator(app_commands.Translator):
    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContext
    ) -> str | None:
        if language_of(locale) != "vi":
            return None
        strings = catalogue("vi")
        if context.location in _NAME_LOCATIONS:
            return strings.get(f"name.{string.message}")
        key = string.extras.get("key")
        return strings.get(key) if key else None
