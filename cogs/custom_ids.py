"""The ``custom_id`` of every component the bot posts: how each is written and read back.

A ``custom_id`` carries the table's channel (and, for hand controls, the game
number), so a click keeps working after a restart and from a DM.  It never
decides *who* acts: that is always ``interaction.user``; a crafted id can at
most name a table the user is not seated at, which is refused politely.

Layouts:
    ``tl:t:{action}:{channel}``                 table message buttons
    ``tl:h:{action}:{channel}:{game}[:{mask}]`` a player's hand controls
    ``tl:r:{source}:{page}``                    a page of the rules
    ``tl:a:{action}:{request}``                 an admin's confirmation (the request's interaction id)
    ``tl:p:{action}:{game}:{step}``             a replay's step buttons (``step``: the one shown)
    ``tl:act:open:{channel}``                   "Open the table": starts the Activity (activity/launch.py)

Both the layouts (:mod:`cogs.layouts`) and the handlers that receive the
clicks (:mod:`cogs.components`, :mod:`activity.launch`) use this module, and
nothing else.

>>> hand_id("play", 12, 3, 0b101)
'tl:h:play:12:3:5'
>>> import re; re.fullmatch(HAND_TEMPLATE, hand_id("pass", 12, 3))["game"]
'3'
"""

from __future__ import annotations

__all__ = ["TABLE_TEMPLATE", "HAND_TEMPLATE", "SELECT_TEMPLATE", "RULES_TEMPLATE", "ADMIN_TEMPLATE",
           "REPLAY_TEMPLATE", "REPLAY_ACTIONS", "OPEN_ACTIVITY_TEMPLATE", "TEMPLATES", "table_id", "hand_id",
           "rules_id", "admin_id", "replay_id", "open_activity_id"]

TABLE_TEMPLATE = r"tl:t:(?P<action>join|leave|ai|start|hand|next):(?P<channel>[0-9]{1,20})"
HAND_TEMPLATE = (
    r"tl:h:(?P<action>play|pass|clear):(?P<channel>[0-9]{1,20}):(?P<game>[0-9]{1,20})"
    r"(?::(?P<mask>[0-9a-f]{1,13}))?"
)
SELECT_TEMPLATE = r"tl:h:(?P<action>cards|quick):(?P<channel>[0-9]{1,20}):(?P<game>[0-9]{1,20})"
RULES_TEMPLATE = r"tl:r:(?P<source>mien-nam|iwin|mien-bac|table-[0-9]{1,20}):(?P<page>[0-9]{1,2})"
ADMIN_TEMPLATE = r"tl:a:(?P<action>reset|keep):(?P<request>[0-9]{1,20})"
REPLAY_TEMPLATE = r"tl:p:(?P<action>first|prev|next|last|chop|share|open):(?P<game>[0-9]{1,20}):(?P<step>[0-9]{1,5})"
REPLAY_ACTIONS = ("first", "prev", "next", "last", "chop", "share", "open")
OPEN_ACTIVITY_TEMPLATE = r"tl:act:open:(?P<channel>[0-9]{1,20})"
TEMPLATES = (TABLE_TEMPLATE, HAND_TEMPLATE, SELECT_TEMPLATE, RULES_TEMPLATE, ADMIN_TEMPLATE, REPLAY_TEMPLATE)


def table_id(action: str, channel_id: int) -> str:
    return f"tl:t:{action}:{channel_id}"


def hand_id(action: str, channel_id: int, game_id: int, mask: int | None = None) -> str:
    """A hand control (``mask``: the selected cards a Play button plays)."""
    suffix = f":{mask:x}" if mask is not None else ""
    return f"tl:h:{action}:{channel_id}:{game_id}{suffix}"


def rules_id(source: str, page: int) -> str:
    return f"tl:r:{source}:{page}"


def admin_id(action: str, request_id: int) -> str:
    """An admin's confirmation button (``request_id``: the interaction that asked for it)."""
    return f"tl:a:{action}:{request_id}"


def replay_id(action: str, game_id: int, step: int) -> str:
    """A replay button: ``action`` from the step ``step`` now shown of game ``game_id``."""
    return f"tl:p:{action}:{game_id}:{step}"


def open_activity_id(channel_id: int) -> str:
    """The table message's "Open the table" button.

    >>> open_activity_id(12)
    'tl:act:open:12'
    """
    return f"tl:act:open:{channel_id}"
