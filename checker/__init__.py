"""Driftboard: verify submitted agent-run logs and publish a drift leaderboard.

Data flows one way: importers -> canonical submission -> validate -> replay -> gate ->
score -> aggregate -> results -> render -> site.
"""

__version__ = "0.1.0"

FORMAT_VERSION = "1.0"
"""The canonical run-log format version this checker writes and reads (major 1)."""
