"""Generators: synthetic inputs for the benchmarks, the fuzz harness and the tests; they time nothing.

* `results`: synthetic results files and a results folder (what the renderer reads);
* `agent_logs`: valid synthetic agent run logs, and issue 15's adversarial landing shape;
* `constraint_turns`: realistic (non-gold) constraint turns as the scorer sees them;
* `leaderboards`: the two synthetic leaderboards of `bench scale` (kept and reused by digest);
* `stores`: hypothesis strategies and writers of native inputs (ARG store pairs, DRIFT-Bench
  transcripts and results databases);
* `domains`: hypothesis strategies of small constraint problems, raw constraints and answers.

A test imports its fixtures from here, never from a benchmark module.
"""
