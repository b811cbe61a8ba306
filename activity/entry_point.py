"""Global command sync that keeps the application's Entry Point command.

When an application has Activities, Discord gives it an Entry Point command ("Launch", command type 4,
PRIMARY_ENTRY_POINT) and refuses a bulk overwrite of the global commands that leaves it out (error
50240).  discord.py's ``tree.sync()`` overwrites in bulk and does not know that type, so ``python bot.py
--sync`` would fail for any bot whose Activities are on, served by this process or not.  This tree reads
the global commands first and sends the Entry Point commands back as they are, with the slash commands.
"""

from __future__ import annotations

from typing import Any

from discord import app_commands
from discord.app_commands import AppCommand
from discord.errors import HTTPException

__all__ = ["EntryPointTree", "PRIMARY_ENTRY_POINT"]

PRIMARY_ENTRY_POINT = 4
_KEPT_FIELDS = ("id", "name", "type", "handler", "description", "name_localizations", "description_localizations",
                "contexts", "integration_types", "default_member_permissions", "nsfw")


class EntryPointTree(app_commands.CommandTree):
    async def sync(self, *, guild: Any = None) -> list[AppCommand]:
        """As :meth:`CommandTree.sync`; a global sync keeps the Entry Point commands (guilds have none)."""
        if guild is not None or self.client.application_id is None:
            return await super().sync(guild=guild)
        application_id = self.client.application_id
        kept = [{key: entry[key] for key in _KEPT_FIELDS if key in entry}
                for entry in await self._http.get_global_commands(application_id)
                if entry.get("type") == PRIMARY_ENTRY_POINT]
        if not kept:
            return await super().sync()
        commands = self._get_all_commands(guild=None)
        translator = self.translator
        if translator:
            payload = [await command.get_translated_payload(self, translator) for command in commands]
        else:
            payload = [command.to_dict(self) for command in commands]
        try:
            data = await self._http.bulk_upsert_global_commands(application_id, payload=[*payload, *kept])
        except HTTPException as error:
            if error.status == 400 and error.code == 50035:
                raise app_commands.CommandSyncFailure(error, commands) from None
            raise
        return [AppCommand(data=entry, state=self._state) for entry in data
                if entry.get("type") != PRIMARY_ENTRY_POINT]
