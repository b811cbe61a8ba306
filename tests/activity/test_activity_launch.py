""""Open the table" on the table message starts the Activity in its channel (LAUNCH_ACTIVITY), only while
the bot serves it; the Activity so started signs in and shows that channel's table."""

from __future__ import annotations

from cogs.layouts.table import table_layout
from tests.e2e.driver import table_message
from tests.fakediscord.interactions import ResponseType


def custom_ids(layout) -> list[str]:
    found, stack = [], list(layout.to_components())
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "custom_id" in item:
                found.append(item["custom_id"])
            stack.extend(value for value in item.values() if isinstance(value, (dict, list)))
        elif isinstance(item, list):
            stack.extend(item)
    return found


async def test_open_the_table_launches_the_activity_in_the_channel(fake_discord, activity_bot, connect):
    fake = fake_discord
    alice, bob = fake.users[:2]
    await fake.slash(alice, "tienlen create")
    table = await fake.wait_for(lambda: table_message(fake))
    opener = f"tl:act:open:{fake.channel.id}"
    assert opener in table.custom_ids()
    result = await fake.click(bob, table, opener)
    assert result.response_type is ResponseType.LAUNCH_ACTIVITY and result.message is None
    instance = result.interaction.activity_instance
    assert fake.activities.instances[instance].users == {bob.id}
    client = await connect(bob, instance)
    seats = client.latest("table")["seats"]
    assert [seat["name"] for seat in seats] == ["alice"]
    assert (await client.ask("join"))["type"] == "ok"
    await fake.wait_for(lambda: "bob" in table_message(fake).text())


def test_no_open_button_unless_the_activity_is_served(fake_discord):
    from runtime.snapshot import snapshot_of
    from runtime.state import TableState
    from tienlen.table import Seat, Table

    table = Table.create(channel_id=5, guild_id=6, host=Seat.human(1, "An"), rules_name="mien-nam", bet=10)
    snapshot = snapshot_of(TableState(table=table), version=1)
    assert "tl:act:open:5" not in custom_ids(table_layout(snapshot, "en"))
    assert "tl:act:open:5" in custom_ids(table_layout(snapshot, "en", activity=True))
