"""Benchmarks behind `driftboard bench ...`: each prints figures and ratios against a baseline timed in the same run.

`validate`, `constraint`, `agent` (and `agent_generated`, its `--generated` variant), `startup`
(`bench cli`), `site` and `scale`; `measure` times child processes for them. The data they
run on comes from `driftboard_tools.generate`.
"""
