"""The leaderboard site: verified results -> Jinja pages -> `mkdocs build --strict` (issue #7)."""
