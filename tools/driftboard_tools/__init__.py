"""Driftboard's developer tools: benchmarks, the fuzz harness and the generators they share.

Not part of the checker: nothing under `checker/` imports this package (the import contract
`no-tools` in pyproject.toml keeps it so), and the checker runs without it installed. It is
installed beside the checker from `tools/` (`pip install -e tools/`, which `make test` does);
`driftboard bench ...` finds its command group (`driftboard_tools.cli`) through the
`driftboard.commands` entry point.

* `generate`: deterministic synthetic inputs and hypothesis strategies (results files, agent run
  logs, realistic constraint turns, whole leaderboards, native ARG / DRIFT-Bench stores, small
  domain problems). They time nothing; tests take their fixtures from here.
* `bench`: the benchmarks behind `driftboard bench validate|constraint|agent|cli|site|scale`
  (they print measured figures and ratios against a baseline timed in the same run).
* `fuzz`: the fuzz harness behind `driftboard bench fuzz` (targets, mutations, the runner).
"""
