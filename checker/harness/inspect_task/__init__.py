"""Inspect AI integration of the constraint track.

`protocol` holds the dialogue protocol (no Inspect import); `task` the task itself (needs the `inspect` extra).
"""
