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
YOUR_TURN = t("en", "hand.your_turn")


def baseline_key(combo: Any) -> tuple:
    """The engine's baseline preference (tienlen.ai.lowest): lowest play, bombs last."""
    return (combo.bomb is not None, combo.top, combo.size)


def field_value(message: Any, name: str) -> str | None:
    for embed in message.embeds:
        for item in embed.get("fields", []):
            if item.get("name") == name:
                return item.get("value")
    return None


@dataclass
class TableDriver:
    fake: FakeDiscord
    table: Any  # the live table message
    rules_name: str = "mien-nam"
    players: list[Any] = field(default_factory=list)
    ephemeral_hands: dict[int, Any] = field(default_factory=dict)
    """Players whose DMs are closed: their last "My hand" view (None until opened)."""
    reopen_ephemeral: bool = True
    """Press "My hand" again before each ephemeral move (else wait for the bot to refresh it)."""
    actions: int = 0

    @property
    def channel_id(self) -> int:
        return self.fake.channel.id

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
            return self.ephemeral_hands[user.id]
        return self.fake.latest_with_component(user, HAND_PREFIX)

    def hand_says_turn(self, user: Any) -> bool:
        message = self.hand_message(user)
        return message is not None and any(YOUR_TURN in (e.get("description") or "") for e in message.embeds)

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
            shown = [embed.get("description") for embed in message.embeds] if message is not None else None
            lines.append(f"hand of {user.name}: {shown!r}")
        return "\n".join(lines)

    async def play_turn(self, user: Any) -> str:
        """One baseline move for ``user``: the lowest legal play, or pass."""
        before = self.table.text()
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
        await self.fake.wait_for(lambda: self.table.text() != before, what="the table message to show the move")
        return "played" if quick else "passed"

    async def play_to_the_end(self, max_actions: int = 400) -> None:
        for _ in range(max_actions):
            user = await self.wait_for_human_turn()
            if user is None:
                return
            await self.play_turn(user)
        raise AssertionError("the game did not end")


RULES_FOR = RULESETS
