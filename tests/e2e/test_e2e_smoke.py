"""Smoke: create a table, join, start, and see hands arrive by DM."""


async def test_create_join_start(fake_discord, start_bot, make_bot):
    fake = fake_discord
    await start_bot(make_bot())
    alice, bob = fake.users[0], fake.users[1]
    created = await fake.slash(alice, "tienlen create", rules="mien-nam", bet=10)
    print(created)
    table = created.message
    print(table.text() if hasattr(table, "text") else table)
    joined = await fake.click(bob, table, f"tl:t:join:{fake.channel.id}")
    print(joined)
    started = await fake.click(alice, table, f"tl:t:start:{fake.channel.id}")
    print(started)
    await fake.wait_for(lambda: fake.dm_messages(alice) and fake.dm_messages(bob))
    print(fake.dm_messages(alice)[-1])
