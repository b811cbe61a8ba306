"""A whole game in three real browser pages and one AI seat (headless Chromium, as in
test_activity_browser.py): every human move is a tap in its owner's page but two, one made by a slash
command and one by a component of the player's DM hand (the Pass button, or the quick-play menu when the
player leads), which show in the pages; a move in a page edits the table message; each page showed, and each page's
WebSocket received, its owner's cards only."""

from __future__ import annotations

import asyncio
import json

from tests.activity.test_activity_browser import browser, open_in_discord, open_page, pytestmark  # noqa: F401
from tests.e2e.driver import HAND_PREFIX, YOUR_TURN, shown_text, table_message
from tienlen import Card

__all__ = ["pytestmark"]


async def until(predicate, timeout: float = 10.0, what: str = "") -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")
        await asyncio.sleep(0.02)


def actions(service, channel: int) -> int:
    table = service.table(channel)
    return len(table.game.actions) if table.game is not None else -1


def last_hand_version(page) -> int | None:
    """The version (actions so far) of the last hand the page's socket received."""
    for raw in reversed(page.received):
        if '"type":"hand"' in raw:
            hand = json.loads(raw)["hand"]
            return hand["version"] if hand else None
    return None


def seat_cards(raw: str, user: int) -> int | None:
    """How many cards ``user`` holds in a table frame (None: another frame)."""
    frame = json.loads(raw)
    if frame.get("type") != "table":
        return None
    return next((seat["cards"] for seat in frame.get("seats", ()) if seat.get("user") == str(user)), None)


def moved_on(service, channel: int, before: int) -> bool:
    """A move was made since ``before`` actions (or it ended the game: the table holds no game then)."""
    table = service.table(channel)
    return table.game is None or table.game.finished or len(table.game.actions) > before


async def move_in_the_dm(fake, user) -> None:
    """The move a player makes in their DM hand: Pass when they may, else the first quick play."""

    def on_turn():
        message = fake.latest_with_component(user, HAND_PREFIX)
        return message if message is not None and YOUR_TURN in shown_text(message) else None

    message = await fake.wait_for(on_turn, what=f"{user.name}'s DM hand on turn")
    passing = next((cid for cid in message.custom_ids() if cid.startswith(f"{HAND_PREFIX}pass:")), None)
    if passing is not None and not message.component(passing).get("disabled"):
        await fake.click(user, message, passing)
        return
    quick = next(cid for cid in message.custom_ids() if cid.startswith(f"{HAND_PREFIX}quick:"))
    await fake.select(user, message, quick, [message.component(quick)["options"][0]["value"]])


async def shown_cards(page, selector: str) -> list[str]:
    return await page.eval_on_selector_all(f"{selector} [data-card]", "cards => cards.map(c => c.dataset.card)")


async def test_three_pages_and_an_ai_seat_play_a_whole_game(fake_discord, activity_bot, browser):  # noqa: F811
    fake, service = fake_discord, activity_bot.tables
    channel = fake.channel.id
    alice, bob, carol = fake.users[:3]
    bob.locale = "vi"
    instance = fake.activities.launch(fake.channel, [alice, bob, carol])
    pages = {alice.id: await open_page(browser, fake, activity_bot, alice, instance,
                                       viewport={"width": 1024, "height": 900})}
    _phone_page, pages[bob.id] = await open_in_discord(browser, fake, activity_bot, bob, instance,
                                                       viewport={"width": 360, "height": 740}, has_touch=True,
                                                       is_mobile=True, device_scale_factor=2)
    pages[carol.id] = await open_page(browser, fake, activity_bot, carol, instance,
                                      viewport={"width": 800, "height": 800})
    await pages[alice.id].click('[data-action="create"]')
    await pages[bob.id].tap('[data-action="join"]')
    await pages[carol.id].click('[data-action="join"]')
    await pages[alice.id].wait_for_selector('[data-seat="2"]')
    await pages[alice.id].click('[data-action="addbot"]')
    await pages[alice.id].wait_for_selector('[data-seat="3"]')
    await pages[alice.id].click('[data-action="start"]')
    await until(lambda: service.table(channel).game is not None, what="the deal")
    table = service.table(channel)
    dealt = {seat.user_id: {card.code for card in table.game.hand(index)}
             for index, seat in enumerate(table.game_seats) if seat.user_id}
    off_page = {carol.id: "slash", alice.id: "dm"}  # carol's first move, and alice's once a page has moved
    page_moves = 0
    while (table := service.table(channel)).game is not None and not table.game.finished:
        user = table.game_seats[table.game.turn].user_id
        before = actions(service, channel)
        if user is None:  # the AI seat
            await until(lambda: moved_on(service, channel, before), what="the AI seat's move")
            continue
        page = pages[user]
        # Tap only once the page has the hand as it is now (a quick play drawn for an older pile is refused).
        await until(lambda: last_hand_version(page) == before, what="the page to get the hand on turn")
        # What a page shows of its hand is its owner's cards only.
        await page.wait_for_selector("#quick [data-action='quick'], #controls [data-action='pass']:not([disabled])")
        assert set(await shown_cards(page, "#hand")) <= dealt[user]
        way = off_page.get(user) if user != alice.id or page_moves else None
        if way is not None:
            del off_page[user]
            if way == "slash":
                cards = service.hand(channel, user).legal[0].cards
                await fake.slash(carol, "tienlen play", cards=" ".join(card.code for card in cards))
            else:
                await move_in_the_dm(fake, alice)
            await until(lambda: moved_on(service, channel, before), what=f"the move by {way}")
            if service.table(channel).game is None or service.table(channel).game.finished:
                break
            left = len(service.hand(channel, user).cards)
            seat = next(index for index, seat in enumerate(table.seats) if seat.user_id == user)
            for other in (uid for uid in pages if uid != user):  # a move by button shows in the pages
                await until(lambda: any(seat_cards(raw, user) == left for raw in pages[other].received),
                            what=f"the move by {way} in the other pages")
                assert str(left) in await pages[other].text_content(f'[data-seat="{seat}"]')
            continue
        quick = await page.query_selector("#quick [data-action='quick']")
        if quick is not None:
            codes = (await quick.get_attribute("data-cards")).split()
            await (quick.tap() if user == bob.id else quick.click())
        else:
            codes = []
            await page.click("#controls [data-action='pass']")
        await until(lambda: moved_on(service, channel, before),
                    what=lambda: f"a page's move; the page got {page.received[-3:]}")
        page_moves += 1
        if codes and page_moves == 1:  # a move in a page edits the table message
            symbols = " ".join(Card.parse(code).symbol for code in codes)
            await fake.wait_for(lambda: symbols in table_message(fake).text(), what="the table message")
    assert not off_page and page_moves >= 3
    for page in pages.values():
        await page.wait_for_selector("#summary:not([hidden])")
        assert page.errors == []
    # Every hand frame a page's socket received carried its owner's cards only.
    for user, page in pages.items():
        hands = [json.loads(raw)["hand"] for raw in page.received if '"type":"hand"' in raw]
        hands = [hand for hand in hands if hand]
        assert hands and all(set(hand["cards"]) <= dealt[user] for hand in hands)
        others = set().union(*(cards for owner, cards in dealt.items() if owner != user))
        assert not any(others & set(hand["cards"]) for hand in hands)
