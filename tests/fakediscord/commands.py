"""Registered application commands and how a user's invocation becomes data.

The store keeps what the bot PUT (globally and per guild), assigning ids the
way Discord does. ``CommandStore.invocation`` turns a test's
``"tienlen create", rules="mien-nam"`` into the ``data`` object of an
APPLICATION_COMMAND (or AUTOCOMPLETE) interaction, enforcing what the Discord
client enforces: existing subcommands, required options, choices, ranges,
contexts and default member permissions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from . import payloads
from .errors import ClientRefused
from .wire import ApiError
from .world import ALL_PERMISSIONS, Attachment, Channel, Guild, Member, Role, User, World

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11
GUILD_CONTEXT, BOT_DM_CONTEXT = 0, 1
PRIMARY_ENTRY_POINT = 4
"""The command type of an application's Entry Point ("Launch"), which Discord adds when Activities are enabled."""


class CommandStore:
    """Application commands by scope: ``None`` for global, else a guild id."""

    def __init__(self, world: World) -> None:
        self._world = world
        # Set by the server once it knows its port; attachment options link there.
        self.api_base = ""
        self._scopes: dict[Optional[int], list[dict]] = {None: []}

    def list(self, guild_id: Optional[int] = None) -> list[dict]:
        return list(self._scopes.get(guild_id, []))

    def add_entry_point(self, name: str = "launch") -> dict:
        """What enabling Activities on the Developer Portal does: a global Entry Point command
        (handler 2: Discord launches the Activity itself)."""
        return self.upsert({"name": name, "type": PRIMARY_ENTRY_POINT, "handler": 2, "description": "",
                            "contexts": [0, 1, 2], "integration_types": [0, 1]})

    def bulk_overwrite(self, payload: list[dict], guild_id: Optional[int] = None) -> list[dict]:
        previous = {(c["name"], c["type"]): c for c in self._scopes.get(guild_id, [])}
        keeps_entry_point = any(entry.get("type") == PRIMARY_ENTRY_POINT for entry in payload)
        if guild_id is None and not keeps_entry_point and any(kind == PRIMARY_ENTRY_POINT for _, kind in previous):
            # As Discord answers a bulk update without the app's Entry Point command.
            raise ApiError(400, 50240, "You cannot remove this app's Entry Point command in a bulk update operation. "
                                       "Please include the Entry Point command in your update request or delete it "
                                       "separately.")
        stored = [self._normalise(entry, guild_id, previous) for entry in payload]
        self._scopes[guild_id] = stored
        return stored

    def upsert(self, entry: dict, guild_id: Optional[int] = None) -> dict:
        commands = self._scopes.setdefault(guild_id, [])
        previous = {(c["name"], c["type"]): c for c in commands}
        command = self._normalise(entry, guild_id, previous)
        commands[:] = [c for c in commands if c["id"] != command["id"]] + [command]
        return command

    def get(self, command_id: int, guild_id: Optional[int] = None) -> Optional[dict]:
        return next((c for c in self._scopes.get(guild_id, []) if int(c["id"]) == command_id), None)

    def delete(self, command_id: int, guild_id: Optional[int] = None) -> bool:
        commands = self._scopes.get(guild_id, [])
        kept = [c for c in commands if int(c["id"]) != command_id]
        self._scopes[guild_id] = kept
        return len(kept) != len(commands)

    def _normalise(self, entry: dict, guild_id: Optional[int], previous: dict) -> dict:
        kind = entry.get("type", 1)
        old = previous.get((entry["name"], kind))
        command = {
            "default_member_permissions": None,
            "contexts": None,
            "integration_types": [0],
            "nsfw": False,
            "description": "",
            "options": [],
            **entry,
            # Discord keeps the id of a command that is overwritten with the same name.
            "id": old["id"] if old else str(self._world.ids.next()),
            "application_id": str(self._world.application_id),
            "version": str(self._world.ids.next()),
            "type": kind,
        }
        if guild_id is not None:
            command["guild_id"] = str(guild_id)
        return command

    # -- invocation -----------------------------------------------------

    def find(self, name: str, guild: Optional[Guild]) -> dict:
        """The chat-input command a user in ``guild`` (None: a DM) would get."""
        scopes = ([guild.id] if guild is not None else []) + [None]
        for scope in scopes:
            for command in self._scopes.get(scope, []):
                if command["name"] == name and command["type"] == 1:
                    return command
        known = sorted({c["name"] for scope in scopes for c in self._scopes.get(scope, [])})
        raise ClientRefused(
            f"no slash command {name!r} is registered for this "
            f"{'guild' if guild else 'DM'} (known: {known}); did the bot sync its command tree?"
        )

    def invocation(
        self,
        path: str,
        options: dict[str, Any],
        *,
        guild: Optional[Guild],
        member: Optional[Member],
        focused: Optional[str] = None,
        enforce: bool = True,
    ) -> dict:
        """Build interaction ``data`` for ``path`` ("cmd [group] sub") and options."""
        names = path.split()
        if not names:
            raise ValueError("empty command path")
        command = self.find(names[0], guild)
        if enforce:
            _check_available(command, guild, member)
        data: dict[str, Any] = {"id": command["id"], "name": command["name"], "type": 1}
        if "guild_id" in command:
            # discord.py looks up guild commands by this field, not by the interaction's guild.
            data["guild_id"] = command["guild_id"]
        spec, container = _descend(command, names, data)
        resolved = _Resolved(self._world, guild, self.api_base)
        container.extend(_option_values(spec, options, resolved, focused=focused, enforce=enforce))
        if resolved:
            data["resolved"] = resolved.payload()
        return data


def _check_available(command: dict, guild: Optional[Guild], member: Optional[Member]) -> None:
    contexts = command.get("contexts")
    if guild is None:
        in_dms = BOT_DM_CONTEXT in contexts if contexts is not None else command.get("dm_permission", True) is not False
        if "guild_id" in command or not in_dms:
            raise ClientRefused(f"/{command['name']} is not available in DMs")
        return
    if contexts is not None and GUILD_CONTEXT not in contexts:
        raise ClientRefused(f"/{command['name']} is not available in guilds")
    required = command.get("default_member_permissions")
    if required is not None and member is not None:
        needed = int(required)
        # "0" means admins only; Member.permissions already expands admin to all bits.
        if (member.permissions & needed) != needed or (needed == 0 and member.permissions != ALL_PERMISSIONS):
            raise ClientRefused(f"{member.user.name} lacks the permissions to see /{command['name']}")


def _descend(command: dict, names: list[str], data: dict) -> tuple[dict, list]:
    """Walk subcommand groups/subcommands; returns the leaf spec and its option list."""
    spec, container = command, data.setdefault("options", [])
    for name in names[1:]:
        child = next(
            (o for o in spec.get("options", []) if o["name"] == name and o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)),
            None,
        )
        if child is None:
            raise ClientRefused(f"/{' '.join(names)}: no subcommand {name!r} (have {_subcommand_names(spec)})")
        node: dict[str, Any] = {"type": child["type"], "name": name, "options": []}
        container.append(node)
        spec, container = child, node["options"]
    if _subcommand_names(spec):
        raise ClientRefused(f"/{' '.join(names)} needs a subcommand: one of {_subcommand_names(spec)}")
    return spec, container


def _subcommand_names(spec: dict) -> list[str]:
    return [o["name"] for o in spec.get("options", []) if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]


def _option_values(spec: dict, given: dict[str, Any], resolved: "_Resolved", *, focused: Optional[str], enforce: bool) -> list[dict]:
    params = {o["name"]: o for o in spec.get("options", [])}
    values = {_option_name(key, params): value for key, value in given.items()}
    if focused is not None:
        focused = _option_name(focused, params)
    result = []
    for name, param in params.items():
        if name not in values:
            # During autocomplete the client sends whatever the user filled in so far.
            if enforce and param.get("required") and focused is None:
                raise ClientRefused(f"option {name!r} is required")
            continue
        if name == focused:
            # The focused option always arrives as the raw typed text.
            result.append({"name": name, "type": param["type"], "value": str(values[name]), "focused": True})
            continue
        value = _convert(param, values[name], resolved, enforce=enforce)
        result.append({"name": name, "type": param["type"], "value": value})
    return result


def _option_name(key: str, params: dict[str, dict]) -> str:
    for candidate in (key, key.replace("_", "-")):
        if candidate in params:
            return candidate
    raise ClientRefused(f"unknown option {key!r} (have {sorted(params)})")


def _convert(param: dict, value: Any, resolved: "_Resolved", *, enforce: bool) -> Any:
    kind = param["type"]
    if kind in (USER, CHANNEL, ROLE, MENTIONABLE, ATTACHMENT):
        return resolved.add(value)
    if param.get("choices") and enforce:
        value = _choice_value(param, value)
    if kind == STRING:
        _check_string(param, value, enforce)
    elif kind == INTEGER:
        _check_number(param, value, int, enforce)
    elif kind == NUMBER:
        _check_number(param, value, (int, float), enforce)
    elif kind == BOOLEAN and not isinstance(value, bool) and enforce:
        raise ClientRefused(f"option {param['name']!r} expects a boolean, got {value!r}")
    return value


def _choice_value(param: dict, value: Any) -> Any:
    for choice in param["choices"]:
        if value == choice["value"]:
            return value
    for choice in param["choices"]:
        if value == choice["name"]:
            return choice["value"]
    raise ClientRefused(f"{value!r} is not a choice of {param['name']!r}: {[c['value'] for c in param['choices']]}")


def _check_string(param: dict, value: Any, enforce: bool) -> None:
    if not enforce:
        return
    if not isinstance(value, str):
        raise ClientRefused(f"option {param['name']!r} expects a string, got {value!r}")
    if not param.get("min_length", 0) <= len(value) <= param.get("max_length", 6000):
        raise ClientRefused(f"option {param['name']!r}: length of {value!r} is out of range")


def _check_number(param: dict, value: Any, kinds: Any, enforce: bool) -> None:
    if not enforce:
        return
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise ClientRefused(f"option {param['name']!r} expects a number, got {value!r}")
    low, high = param.get("min_value"), param.get("max_value")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ClientRefused(f"option {param['name']!r}: {value} is outside [{low}, {high}]")


@dataclass
class _Resolved:
    """Collects the ``resolved`` section for user/channel/role/attachment options."""

    world: World
    guild: Optional[Guild]
    api_base: str
    users: dict[str, dict] = field(default_factory=dict)
    members: dict[str, dict] = field(default_factory=dict)
    channels: dict[str, dict] = field(default_factory=dict)
    roles: dict[str, dict] = field(default_factory=dict)
    attachments: dict[str, dict] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.users or self.channels or self.roles or self.attachments)

    def add(self, value: Any) -> str:
        if isinstance(value, User):
            return self._add_user(value)
        if isinstance(value, Channel):
            self.channels[str(value.id)] = {**payloads.channel(value), "permissions": "0"}
            return str(value.id)
        if isinstance(value, Role):
            self.roles[str(value.id)] = payloads.role(value)
            return str(value.id)
        if isinstance(value, tuple) and len(value) == 2:
            return self._add_attachment(*value)
        if isinstance(value, int) and value in self.world.users:
            return self._add_user(self.world.users[value])
        raise ClientRefused(f"cannot resolve option value {value!r}: pass a User, Channel, Role or (filename, bytes)")

    def _add_user(self, user: User) -> str:
        key = str(user.id)
        self.users[key] = payloads.user(user)
        member = self.guild.member(user) if self.guild else None
        if member is not None:
            self.members[key] = payloads.member(member, with_user=False, with_permissions=True)
        return key

    def _add_attachment(self, filename: str, data: bytes) -> str:
        attachment: Attachment = self.world.new_attachment(filename, data)
        self.attachments[str(attachment.id)] = payloads.attachment(attachment, self.api_base)
        return str(attachment.id)

    def payload(self) -> dict:
        parts = {"users": self.users, "members": self.members, "channels": self.channels,
                 "roles": self.roles, "attachments": self.attachments}
        return {key: value for key, value in parts.items() if value}
