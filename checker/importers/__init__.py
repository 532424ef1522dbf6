"""Importers: native outputs of other harnesses -> canonical submissions (an edge of the pipeline).

* `arg` (`arg_store`, `arg_events`): an ARG store pair (state.db + probe.db) -> an agent-track submission;
* `drift_bench` (`drift_bench_read`): DRIFT-Bench transcripts or results databases -> a constraint-track submission;
* `inspect` (`inspect_read`): Inspect AI eval logs of the `driftboard/constraint` task -> a constraint-track submission,
  and (`inspect_agent`) of the `driftboard/agent` task, replayed through its harness -> an agent-track submission;
* `naming` (file and run-id names from native names) and `output` (YAML bytes, the kept pre-registration) are shared.

Every importer writes canonical run logs through `RunLogWriter`, a pre-registration marked as
written after the runs where it makes one, and a manifest; the same input gives the same bytes.
Nothing in the verify pipeline imports this package.
"""
