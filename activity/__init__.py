"""The table as a Discord Activity (issue 43): a web client inside Discord, served by the bot itself.

Off by default.  With ``ACTIVITY_PORT`` set, ``bot.py`` starts
:class:`activity.server.ActivityServer` (aiohttp) on ``ACTIVITY_HOST``:

* ``GET /`` serves the committed client (:mod:`activity.client`, plain files, no build step);
* ``POST /api/token`` exchanges the ``code`` of the SDK's ``authorize`` for an access token
  at Discord's OAuth2 endpoint (:mod:`activity.discord_api`);
* ``GET /ws`` is one WebSocket per client: the first frame names the access token and
  the activity instance; the server asks Discord who the user is and where the instance
  runs, and trusts nothing else the client says (:mod:`activity.server`).

The socket carries the public table, its owner's hand (to the owner only) and the
player's actions, which go through the same :class:`runtime.service.TableService`
calls as the buttons.  The runtime's outbox tells the Activity's hub of every committed
change as it is published (``Outbox.watch``), apart from the Discord layer's delivery.
"""
