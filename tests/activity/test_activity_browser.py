"""The Activity's client in a real browser (headless Chromium through Playwright): two players, one on a
phone-sized touch screen, open the table, sit down, deal, and the player on turn plays by tapping cards.

The phone page runs the real Embedded App SDK inside a stand-in of Discord's client
(:mod:`tests.activity.discord_harness`: handshake, READY, AUTHORIZE answered with a code of the fake
Discord, AUTHENTICATE); the desktop page takes the test server's hook instead (``?test_code=…&instance_id=…``,
honoured only when the server sets ``data-test-hooks``), which skips the SDK. Both sign in through the real
``POST /api/token`` exchange and WebSocket sign-in against the fake Discord.
Skipped only when Debian's chromium is not installed, and never under ``.ci/run`` (which installs it and sets
``TIENLEN_REQUIRE_BROWSER=1``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.activity.discord_harness import HARNESS_PATH, harness_page
from tests.e2e.driver import table_message
from tests.fakediscord import payloads
from tests.fakediscord.activities import png
from cogs.layouts.words import chips
from i18n import t
from tienlen import Card

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(not Path(CHROMIUM).exists() and os.environ.get("TIENLEN_REQUIRE_BROWSER") != "1",
                       reason="Debian's chromium is not installed (apt-get install -y chromium; .ci/run does it)"),
]


@pytest.fixture
async def browser():
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield launched
        finally:
            await launched.close()


def watched(page) -> list[str]:
    """Keep the page's errors (``page.errors``) and every WebSocket frame it receives (``page.received``)."""
    errors: list[str] = []
    received: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: received.append(payload)))
    page.errors, page.received = errors, received
    return errors


async def open_page(browser, fake, bot, user, instance, **context):
    page = await (await browser.new_context(**context)).new_page()
    watched(page)
    code = fake.activities.authorize(user)
    await page.goto(f"http://127.0.0.1:{bot.activity_server.port}/?test_code={code}&instance_id={instance}")
    await page.wait_for_selector('#controls [data-action]')
    return page


async def open_in_discord(browser, fake, bot, user, instance, **context):
    """A page that holds the client in an iframe, as Discord does, and answers the SDK (the phone's)."""
    page = await (await browser.new_context(**context)).new_page()
    errors = watched(page)
    base = f"http://127.0.0.1:{bot.activity_server.port}"
    html = harness_page(instance_id=instance, code=fake.activities.authorize(user), user=payloads.user(user),
                        application_id=fake.world.application_id)
    await page.route(base + HARNESS_PATH, lambda route: route.fulfill(body=html, content_type="text/html"))
    await page.goto(base + HARNESS_PATH)
    frame = page.frame_locator("#activity")
    await frame.locator("#controls [data-action]").first.wait_for()
    assert await page.evaluate("window.commands.slice(0, 3)") == ["HANDSHAKE", "AUTHORIZE", "AUTHENTICATE"]
    activity = next(child for child in page.frames if child.url.startswith(base + "/?frame_id="))
    activity.errors, activity.received = errors, page.received
    return page, activity


async def drag_across(page, frame, codes, *, touch: bool) -> None:
    """Press on the first card of ``codes`` in ``frame``'s hand, slide over the others, lift (mouse or finger)."""
    points = []
    for code in codes:
        box = await frame.locator(f'#hand [data-card="{code}"]').bounding_box()  # in the page's viewport
        points.append((box["x"] + box["width"] * 0.25, box["y"] + box["height"] * 0.6))  # clear of the next card
    if not touch:
        await page.mouse.move(*points[0])
        await page.mouse.down()
        for x, y in points[1:]:
            await page.mouse.move(x, y, steps=4)
        await page.mouse.up()
        return
    cdp = await page.context.new_cdp_session(page)
    (x, y), rest = points[0], points[1:]
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for next_x, next_y in rest:
        for step in range(1, 5):
            await cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
                {"x": x + (next_x - x) * step / 4, "y": y + (next_y - y) * step / 4}]})
        x, y = next_x, next_y
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    await cdp.detach()


async def test_two_players_open_deal_and_play_a_card_by_tapping(fake_discord, activity_bot, browser):
    fake = fake_discord
    alice, bob = fake.users[:2]
    bob.locale = "vi"
    instance = fake.activities.launch(fake.channel, [alice, bob])
    fake.activities.set_avatar(alice, png(230, 120, 30, size=64))  # bob has none: Discord's default one
    desktop = await open_page(browser, fake, activity_bot, alice, instance, viewport={"width": 1024, "height": 720},
                              reduced_motion="reduce")  # alice's system asks for no animation
    phone_page, phone = await open_in_discord(browser, fake, activity_bot, bob, instance,
                                              viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True,
                                              device_scale_factor=2)
    # On the desktop, bob's picture fails to load: his initials on a coloured circle stay.
    await desktop.route(f"**/api/avatar/{bob.id}", lambda route: route.fulfill(status=404, body="{}"))
    # The vendored SDK loads as a module in this browser (the hook only skips calling it).
    assert await desktop.evaluate("import('/client/discord-sdk.js').then(m => typeof m.DiscordSDK)") == "function"

    await desktop.click('[data-action="create"]')
    await phone.wait_for_selector('[data-seat="0"]')
    await phone.tap('[data-action="join"]')
    await desktop.wait_for_selector('[data-seat="1"]')
    assert await phone.text_content('[data-action="leave"]') == "Rời bàn"  # bob's Discord language
    loaded = "img => img.complete && img.naturalWidth > 0"
    for page in (desktop, phone):
        await page.wait_for_function(f"() => [...document.querySelectorAll('[data-seat=\"0\"] .avatar img')].some({loaded})")
    await phone.wait_for_function(f"() => [...document.querySelectorAll('[data-seat=\"1\"] .avatar img')].some({loaded})")
    await desktop.wait_for_selector('[data-seat="1"] .avatar img', state="detached")
    assert await desktop.text_content('[data-seat="1"] .avatar') == "B"
    # Add AI at the level chosen (normal unless chosen), then take it away again.
    channel = fake.channel.id
    service = activity_bot.tables
    assert await desktop.input_value('[data-action="ailevel"]') == "normal"
    assert await phone.text_content('[data-action="ailevel"] option[value="hard"]') == "khó"
    await desktop.select_option('[data-action="ailevel"]', "hard")
    await desktop.click('[data-action="addbot"]')
    await phone.wait_for_selector('[data-seat="2"]')
    assert service.table(channel).seats[2].ai_level == "hard"
    await desktop.click('[data-action="removebot"]')
    await phone.wait_for_selector('[data-seat="2"]', state="detached")
    await desktop.click('[data-action="start"]')
    for page in (desktop, phone):
        await page.wait_for_selector("#hand [data-card]")

    table = service.table(channel)
    on_turn = table.game_seats[table.game.turn].user_id
    player, watcher = (desktop, phone) if on_turn == alice.id else (phone, desktop)
    for page in (desktop, phone):  # the seat on turn is marked, and only it; no one has passed or is out yet
        await page.wait_for_selector(f'#seats .seat.turn[data-seat="{table.game.turn}"]')
        assert await page.eval_on_selector_all("#seats .seat.turn", "els => els.length") == 1
        assert await page.eval_on_selector_all("#seats .seat.passed, #seats .seat.out", "els => els.length") == 0
    # Each page shows its owner's hand and no other: the DOM against the engine.
    for page, user in ((desktop, alice), (phone, bob)):
        shown = await page.eval_on_selector_all("#hand [data-card]", "cards => cards.map(c => c.dataset.card)")
        assert shown == [card.code for card in service.hand(channel, user.id).cards]
    hand = service.hand(channel, on_turn)
    play = min(hand.legal, key=lambda combo: (combo.size, combo.top))  # e.g. the 3♠ that must open
    dimmed = await player.eval_on_selector_all("#hand .card.dim", "cards => cards.map(c => c.dataset.card)")
    assert not set(dimmed) & {card.code for card in play.cards}
    assert set(dimmed) == {card.code for card in hand.cards} - {card.code for combo in hand.legal for card in combo.cards}

    # Dragging across the hand toggles every card passed over (a mouse on the desktop, a finger on the phone),
    # and the server's answer about the selection is shown; dragging back over them clears it.
    for page, touch in ((desktop, False), (phone, True)):
        codes = await page.eval_on_selector_all("#hand [data-card]", "cards => cards.slice(0, 3).map(c => c.dataset.card)")
        for expected in (codes, []):
            await drag_across(desktop if page is desktop else phone_page, page, codes, touch=touch)
            await page.wait_for_function(
                "codes => [...document.querySelectorAll('#hand .card.selected')].map(c => c.dataset.card).join() === codes.join()",
                arg=expected)
            if expected:
                await page.wait_for_selector("#selection.legal, #selection.illegal")
                assert (await page.text_content("#selection")).strip()
    tap = player.tap if player is phone else player.click
    for card in play.cards:
        await tap(f'#hand [data-card="{card.code}"]')
    await player.wait_for_selector("#selection.legal")
    await tap('#controls [data-action="play"]:not([disabled])')

    codes = [card.code for card in play.cards]
    for page in (watcher, player):
        await page.wait_for_function(
            "codes => [...document.querySelectorAll('#pile-cards [data-card]')].map(c => c.dataset.card).join() === codes.join()",
            arg=codes)
    assert not await player.query_selector_all(f'#hand [data-card="{codes[0]}"]')  # gone from the hand
    # The play slid to the pile on the phone, from bob's hand if he played it, else from the player's seat;
    # not on the desktop, whose system asks for reduced motion.
    slid = await phone.eval_on_selector_all("#pile-cards [data-card]", "cards => cards.map(c => c.dataset.slide)")
    assert slid == ["hand" if player is phone else "seat"] * len(codes)
    assert await desktop.eval_on_selector_all("#pile-cards [data-card]", "cards => cards.map(c => c.dataset.slide)") == [
        None] * len(codes)
    symbols = " ".join(Card.parse(code).symbol for code in codes)
    await fake.wait_for(lambda: symbols in table_message(fake).text(), what="the table message to show the play")
    assert desktop.errors == [] and phone.errors == []
    shots = os.environ.get("ACTIVITY_SCREENSHOTS")  # a folder: docs/images/activity-*.jpg were made so
    if shots:
        await phone.wait_for_timeout(400)  # the slide to the pile is over
        await desktop.screenshot(path=str(Path(shots) / "activity-desktop.png"))
        await phone_page.screenshot(path=str(Path(shots) / "activity-phone.png"))


async def play_out(service, channel: int) -> None:
    """Play the running game to its end through the service, as buttons would (the lowest play, else pass)."""
    while (table := service.table(channel)).game is not None and not table.game.finished:
        user = table.game_seats[table.game.turn].user_id
        legal = service.hand(channel, user).legal
        if legal and (not service.hand(channel, user).can_pass or len(legal) > 1):
            await service.play(channel, user, list(min(legal, key=lambda combo: (combo.size, combo.top)).cards))
        else:
            await service.pass_turn(channel, user)


async def test_the_end_of_a_game_and_its_replay_step_by_step(fake_discord, activity_bot, browser):
    fake = fake_discord
    alice, bob = fake.users[:2]
    bob.locale = "vi"
    instance = fake.activities.launch(fake.channel, [alice, bob])
    desktop = await open_page(browser, fake, activity_bot, alice, instance, viewport={"width": 1024, "height": 900})
    phone_page, phone = await open_in_discord(browser, fake, activity_bot, bob, instance,
                                              viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True,
                                              device_scale_factor=2)
    await desktop.click('[data-action="create"]')
    await phone.tap('[data-action="join"]')
    await desktop.wait_for_selector('[data-seat="1"]')
    await desktop.click('[data-action="start"]')
    await phone.wait_for_selector("#hand [data-card]")
    assert not await phone.query_selector('[data-action="replay"]')  # no replay while the game runs
    channel, service = fake.channel.id, activity_bot.tables
    await play_out(service, channel)

    for page in (desktop, phone):
        await page.wait_for_selector("#summary:not([hidden])")
    summary = service.snapshot(channel).summary
    for page, lang in ((desktop, "en"), (phone, "vi")):
        text = await page.text_content("#summary")
        assert t(lang, "summary.places") in text and summary.places[0] in text
        assert t(lang, "summary.payments", chips=chips(summary.bet, lang)) in text
    game = await service.replays.game(fake.guild.id, summary.game_id)
    dealt = [[card.code for card in hand] for hand in game.replay.frames[0].hands]

    await phone.tap('[data-action="replay"]')
    await phone.wait_for_selector("#replay:not([hidden]) [data-replay-seat]")
    assert await phone.is_hidden("#summary")
    shown = [await phone.eval_on_selector_all(f'[data-replay-seat="{seat}"] [data-card]',
                                              "cards => cards.map(c => c.dataset.card)") for seat in range(2)]
    assert shown == dealt  # the deal, every hand open: the game is over
    step_text = lambda step: f"{step}/{game.replay.steps} · "  # noqa: E731  (the bot's caption)
    assert (await phone.text_content("#replay .step")).startswith(step_text(0))
    await phone.tap('[data-action="replay-next"]')
    await phone.wait_for_function("text => document.querySelector('#replay .step').textContent.startsWith(text)",
                                  arg=step_text(1))
    await phone.tap('[data-action="replay-prev"]')
    await phone.wait_for_function("text => document.querySelector('#replay .step').textContent.startsWith(text)",
                                  arg=step_text(0))
    chop = game.replay.next_chop(0)  # the next chop from the deal, as the bot's replay jumps
    if chop is None:
        assert await phone.is_disabled('[data-action="replay-chop"]')
    else:
        await phone.tap('[data-action="replay-chop"]')
        await phone.wait_for_function("text => document.querySelector('#replay .step').textContent.startsWith(text)",
                                      arg=step_text(chop))
    await phone.tap('[data-action="replay-last"]')
    await phone.wait_for_function("text => document.querySelector('#replay .step').textContent.startsWith(text)",
                                  arg=step_text(game.replay.steps))
    assert t("vi", "summary.places") in await phone.text_content("#replay")
    assert await phone.is_disabled('[data-action="replay-next"]')
    shots = os.environ.get("ACTIVITY_SCREENSHOTS")
    if shots:
        await desktop.screenshot(path=str(Path(shots) / "activity-summary.png"))
        await phone_page.screenshot(path=str(Path(shots) / "activity-replay.png"))
    assert await desktop.is_visible("#summary")  # alice's page is not stepping
    await phone.tap('[data-action="replay-close"]')
    await phone.wait_for_selector("#summary:not([hidden])")
    assert desktop.errors == [] and phone.errors == []
