"""Driftboard: verify submitted agent-run logs and publish a drift leaderboard.

Data flows one way: importers -> canonical submission -> validate -> replay -> gate ->
score -> aggregate -> results -> render -> site.
"""

__version__ = "0.1.0"

FORMAT_VERSION = "1.0"
"""The canonical run-log format version this checker writes and reads (major 1)."""

FIELD_DOCSTRINGS = True
"""Build the format models with their attribute docstrings as field descriptions (the JSON Schemas and
the format reference show them). Reading them parses every model's source, about 0.1 s of CPU at start-up,
which checking or importing logs never needs: those commands switch this off before the models are built
(`checker.cli.main.main`); once the models are built it has no effect."""
