"""The agent track: commitment vs binding drift (ARG-style runs).

replay (fold the log into state) -> evidence (every recorded label against the log's own rows, one
module per check) -> gate (the validity conditions, one module each, declared once in `GATE`, each
returning its typed result) -> GDS bind/abandon, grounding, milestones and the run metrics (one module
per concern under `metrics`, each returning a typed `figures.Figures` record) -> `scorer.score_run`,
the track's entry point, which builds the run's `RunResult` from those typed parts and has its verdict
judged by `checker.stages.verdict`.
"""
