"""Exceptions raised by the fake's test helpers.

Both derive from AssertionError so an unexpected one reads as a test failure,
while tests that expect them can ``pytest.raises`` the specific class.
"""


class ClientRefused(AssertionError):
    """The real Discord client would not let the user do this.

    Examples: a command hidden by its contexts or default permissions, a button
    on a message the user cannot see, a disabled button, a select value that is
    not an option. Pass ``force=True`` to the helper to send it anyway (a
    crafted request).
    """


class InteractionTimeout(AssertionError):
    """The bot did not send its first interaction response in time (3 s on Discord)."""
