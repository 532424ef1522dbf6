"""The agent track: commitment vs binding drift (ARG-style runs).

replay (fold the log into state) -> evidence (every recorded label against the log's own rows) ->
gate (the validity conditions, declared once in `GATE`) -> GDS bind/abandon, grounding, milestones
and run metrics -> `scorer.score_run`, the track's entry point.
"""
