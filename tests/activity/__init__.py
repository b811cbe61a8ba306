"""Tests of the table as a Discord Activity (activity/): server, protocol, browser."""
