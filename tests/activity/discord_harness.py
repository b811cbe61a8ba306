"""A stand-in for the Discord client's side of the Embedded App SDK, for the browser test.

Discord runs an Activity in an iframe and talks to the SDK inside it by ``postMessage``: the SDK sends
HANDSHAKE (opcode 0), the client answers with the READY dispatch, then each command (AUTHORIZE,
AUTHENTICATE, CAPTURE_LOG, ...) is a FRAME (opcode 1) answered with the same ``cmd`` and ``nonce``.
:func:`harness_page` is that parent page: it loads the real client (``/?frame_id=…&instance_id=…&platform=…``,
the query Discord gives) in an iframe, so the vendored SDK runs unchanged; AUTHORIZE is answered with a
code the fake Discord issued, AUTHENTICATE with the user the fake knows. The page is served to the browser
by the test itself (Playwright routing, on the Activity's own origin, which the SDK accepts), never by the bot.
The shapes follow the SDK's own schemas (``output/schema/*.mjs`` of @discord/embedded-app-sdk 2.5.0).
"""

from __future__ import annotations

import json

__all__ = ["harness_page", "HARNESS_PATH"]

HARNESS_PATH = "/__discord_client__"


def harness_page(*, instance_id: str, code: str, user: dict, application_id: int, platform: str = "mobile") -> str:
    config = json.dumps({"code": code, "user": user, "application_id": str(application_id)})
    src = f"/?frame_id=frame-1&instance_id={instance_id}&platform={platform}&guild_id=1&channel_id=1"
    return f"""<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>html,body,iframe{{margin:0;border:0;width:100%;height:100%;display:block}}</style></head>
<body><iframe id="activity" src="{src}"></iframe>
<script>
const config = {config};
const frame = document.getElementById("activity");
window.commands = [];  // what the SDK asked, in order (the test reads it)
function answer(payload) {{ frame.contentWindow.postMessage([1, payload], location.origin); }}
window.addEventListener("message", (event) => {{
  if (event.source !== frame.contentWindow || !Array.isArray(event.data)) return;
  const [opcode, payload] = event.data;
  if (opcode === 0) {{  // HANDSHAKE: the client is ready
    window.commands.push("HANDSHAKE");
    answer({{cmd: "DISPATCH", evt: "READY", nonce: null,
             data: {{v: 1, config: {{api_endpoint: "//discord.com/api", environment: "production"}}}}}});
    return;
  }}
  if (opcode !== 1) return;
  window.commands.push(payload.cmd);
  let data = null;
  if (payload.cmd === "AUTHORIZE") data = {{code: config.code}};
  if (payload.cmd === "AUTHENTICATE") data = {{
    access_token: payload.args.access_token, user: config.user, scopes: ["identify"],
    expires: new Date(Date.now() + 6048e5).toISOString(),
    application: {{id: config.application_id, name: "Tiến lên", description: ""}}}};
  answer({{cmd: payload.cmd, evt: null, nonce: payload.nonce, data}});
}});
</script></body></html>"""
