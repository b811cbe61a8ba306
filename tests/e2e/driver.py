"""Play the real bot through the fake Discord like people would: buttons and selects only.

Each scripted player reads their own private hand message (DM, or the
ephemeral "My hand" view when DMs are closed), picks a play with the engine's
baseline rule (the lowest legal combination, bombs last) from the quick-play
menu, or passes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from i18n import t
from tienlen import RULESETS, classify
from tests.fakediscord import FakeDiscord

HAND_PREFIX = "tl:h:"
TABLE_PREFIX = "tl:t:"
TEXT_DISPLAY = 10
YOUR_TURN = t("en", "hand.your_turn")


def baseline_key(combo: Any) -> tuple:
    """The engine's baseline preference (tienlen.ai.lowest): lowest play, bombs last."""
    return (combo.bomb is not None, combo.top, combo.size)


def field_value(message: Any, name: str, *, prefix: bool = False) -> str | None:
    """The text under the block titled ``name`` (a Components V2 text display "**name**\n…");
    ``prefix``: a title that starts with ``name``."""
    for component in message.walk_components():
        if component.get("type") == TEXT_DISPLAY:
            first, _, rest = component.get("content", "").partition("\n")
            if first == f"**{name}**" or (prefix and first.startswith(f"**{name}")):
                return rest
    return None


def shown_text(message: Any) -> str:
    """Everything a message's text displays say."""
    return "\n".join(c.get("content", "") for c in message.walk_components() if c.get("type") == TEXT_DISPLAY)


def heading_of(message: Any) -> str:
    """A layout's title (its "## …" line)."""
    for line in shown_text(message).splitlines():
        if line.startswith("## "):
            return line[3:]
    return ""


def footer_of(message: Any) -> str:
    """A layout's small print (its "-# …" line)."""
    for line in shown_text(message).splitlines():
        if line.startswith("-# "):
            return line[3:]
    return ""


def titled(fake: FakeDiscord, title: str, channel: Any = None) -> Any | None:
    """The newest message (in ``channel``, default the fake's) whose layout is titled ``title``."""
    return next((m for m in reversed(fake.messages(channel)) if heading_of(m) == title), None)


def table_message(fake: FakeDiscord, channel: Any = None) -> Any | None:
    """The channel's table message: the newest one with table buttons (a closed table's has
    none left: then the newest that had them)."""
    channel = channel or fake.channel
    live = fake.latest_message(None, prefix=TABLE_PREFIX, channel=channel, where=lambda message: not message.ephemeral)
    return live or fake.latest_message(None, channel=channel, where=lambda message: not message.ephemeral and any(
        f"{TABLE_PREFIX}start:" in text or f"{TABLE_PREFIX}hand:" in text for text in message.revision_texts()))


@dataclass
class TableDriver:
    fake: FakeDiscord
    first_table: Any  # the table message when the driver started (each game gets a fresh one)
    rules_name: str = "mien-nam"
    players: list[Any] = field(default_factory=list)
    ephemeral_hands: dict[int, Any] = field(default_factory=dict)
    """Players whose DMs are closed: their last "My hand" view (None until opened)."""
    reopen_ephemeral: bool = True
    """Press "My hand" again before each ephemeral move (else wait for the bot to refresh it)."""
    actions: int = 0

    @property
    def table(self) -> Any:
        """The live table message now (a fresh one for each deal and each result)."""
        current = table_message(self.fake, self.first_table.channel)
        if current is not None:
            self.first_table = current
        return self.first_table

    def table_history(self) -> list[str]:
        """``text()`` of every revision of every table message of this table (retired ones too), oldest first."""
        messages = [m for m in self.fake.all_messages(include_deleted=True)
                    if m.channel is self.first_table.channel and not m.ephemeral
                    and any(TABLE_PREFIX in text for text in m.revision_texts())]
        return [text for message in messages for text in message.revision_texts()]

    @property
    def channel_id(self) -> int:
        return self.first_table.channel.id

    def custom_id(self, action: str) -> str:
        return f"tl:t:{action}:{self.channel_id}"

    # ------------------------------------------------------------- state
    def phase(self) -> str:
        ids = self.table.custom_ids()
        if any(cid.startswith("tl:t:hand:") for cid in ids):
            return "playing"
        if any(cid.startswith("tl:t:next:") for cid in ids):
            return "between"
        if any(cid.startswith("tl:t:start:") for cid in ids):
            return "lobby"
        return "closed"

    def turn_name(self) -> str | None:
        value = field_value(self.table, t("en", "table.now")) or ""
        match = re.search(r"\*\*(.+?)\*\*", value)
        return match.group(1) if match else None

    def user_named(self, name: str) -> Any | None:
        return next((user for user in self.players if user.name == name), None)

    def hand_message(self, user: Any) -> Any | None:
        if user.id in self.ephemeral_hands:
            known = self.ephemeral_hands[user.id]
            if known is not None and known.deleted:  # replaced by a newer view (a new picture comes so)
                newer = self.fake.latest_message(user, prefix=HAND_PREFIX,
                                                 where=lambda m: m.ephemeral and not m.deleted)
                self.ephemeral_hands[user.id] = known = newer or known
            return known
        return self.fake.latest_with_component(user, HAND_PREFIX)

    def hand_says_turn(self, user: Any) -> bool:
        message = self.hand_message(user)
        return message is not None and YOUR_TURN in shown_text(message)

    # ------------------------------------------------------------- acting
    async def open_hand(self, user: Any) -> Any:
        """Press "My hand" (the ephemeral view used when DMs are closed)."""
        result = await self.fake.click(user, self.table, self.custom_id("hand"))
        self.ephemeral_hands[user.id] = result.message
        return result.message

    async def wait_for_human_turn(self, timeout: float = 10.0) -> Any | None:
        """The human whose turn it is, once their hand shows it (None when the game ended)."""

        def ready() -> Any:
            phase = self.phase()
            if phase in ("between", "closed"):
                return "over"
            if phase != "playing":
                return None  # the deal is still being shown
            name = self.turn_name()
            user = self.user_named(name) if name else None
            if user is None:
                return None
            if (user.id in self.ephemeral_hands and self.reopen_ephemeral) or self.hand_says_turn(user):
                return user
            return None

        try:
            found = await self.fake.wait_for(ready, timeout=timeout, what="a human's turn or the end of the game")
        except AssertionError as error:
            raise AssertionError(f"{error}\n{self.describe()}") from None
        return None if found == "over" else found

    def describe(self) -> str:
        """What the table and each player's hand message show (for a failure's message)."""
        lines = [f"table ({self.phase()}, turn: {self.turn_name()}): {self.table.text()!r}"]
        for user in self.players:
            message = self.hand_message(user)
            shown = shown_text(message) if message is not None else None
            lines.append(f"hand of {user.name}: {shown!r}")
        return "\n".join(lines)

    async def play_turn(self, user: Any) -> str:
        """One baseline move for ``user``: the lowest legal play, or pass."""
        before = self.table.text(), self.table.id
        message = self.hand_message(user)
        if user.id in self.ephemeral_hands and self.reopen_ephemeral:
            message = await self.open_hand(user)  # a fresh ephemeral view
        quick = next((cid for cid in message.custom_ids() if cid.startswith("tl:h:quick:")), None)
        self.actions += 1
        if quick is not None:
            options = message.component(quick)["options"]
            rules = RULES_FOR[self.rules_name]
            combos = [(classify(int(option["value"], 16), rules), option["value"]) for option in options]
            _, value = min(combos, key=lambda item: baseline_key(item[0]))
            result = await self.fake.select(user, message, quick, [value])
        else:
            passing = next(cid for cid in message.custom_ids() if cid.startswith("tl:h:pass:"))
            result = await self.fake.click(user, message, passing)
        if user.id in self.ephemeral_hands and result.message is not None:
            self.ephemeral_hands[user.id] = result.message
        await self.fake.wait_for(lambda: (self.table.text(), self.table.id) != before,
                                 what="the table message to show the move")
        return "played" if quick else "passed"

    async def play_to_the_end(self, max_actions: int = 400) -> None:
        for _ in range(max_actions):
            user = await self.wait_for_human_turn()
            if user is None:
                return
            await self.play_turn(user)
        raise AssertionError("the game did not end")


RULES_FOR = RULESETS
