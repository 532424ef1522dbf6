"""The small record of a verified submission that verify keeps in memory and the cache keeps beside each entry.

A results file holds every per-turn record of a constraint run (a DRIFT-Bench-size submission:
22,688 turns, about 11 MB of JSON) and every recorded label that disagrees with the recomputation
(thousands per run for some agent logs). Verify writes that file as soon as the submission is
scored and keeps only its *summary*, a `ResultsSummary` (its own type: code that needs every
record takes a `ResultsFile`): the file's fields with the per-turn records of its runs left out
when there are more than `KEEP_TURNS` of them, and each run's mismatches cut to the first (with
the counts kept) when there are more than `KEEP_TURNS` in all (every other field is kept: run ids
and digests for the checks across submissions, cells with their tables for the text report,
claims, defeaters and the pre-registration check for the findings). A submission with nothing to
leave out keeps its `ResultsFile` as its summary. The full file is read back only when a caller
asks for it (`--format json`, `SubmissionResult.results`).

The cache stores the summary as `<key>.summary.json` beside `<key>.json`, so a warm pass reads
digests and summaries, never whole results files, and copies the cached bytes to `--out`.
"""

from __future__ import annotations

import json
from pathlib import Path

from checker.format.results_io import canonical_json
from checker.format.results_model import ResultsFile, ResultsSummary, RunResult

KEEP_TURNS = 400
"""Per-turn records kept in a summary when the whole submission has at most this many
(the text report lists them up to the same number: `checker.cli.report_text.TEXT_TURN_LIMIT`)."""
SUMMARY_SUFFIX = ".summary.json"


def turn_records(results: ResultsFile) -> int:
    """Per-turn records in a results file (all runs)."""
    return sum(len(r.turns or []) for r in results.runs)


def summarize(results: ResultsFile) -> tuple[ResultsSummary, int, dict[str, int] | None]:
    """(the summary of `results`, its number of per-turn records, mismatches per run path or None).

    The summary is `results` with every run's `turns` set to None when it holds more than
    `KEEP_TURNS` per-turn records, and with each run's `mismatches` cut to the first when the
    runs record more than `KEEP_TURNS` mismatches in all (the third item then gives each run's
    count; None when nothing was cut). A small submission's summary is `results` itself.
    """
    n = turn_records(results)
    n_mismatches = sum(len(r.mismatches) for r in results.runs)
    counts = {r.path: len(r.mismatches) for r in results.runs} if n_mismatches > KEEP_TURNS else None
    if n <= KEEP_TURNS and counts is None:
        return results, n, None
    runs = [_cut(r, drop_turns=n > KEEP_TURNS, cut_mismatches=counts is not None) for r in results.runs]
    fields = {name: getattr(results, name) for name in ResultsSummary.model_fields}
    return ResultsSummary.model_construct(results.model_fields_set, **{**fields, "runs": runs}), n, counts


def _cut(run: RunResult, drop_turns: bool, cut_mismatches: bool) -> RunResult:
    """One run of the summary: without its per-turn records, and with its first mismatch only, as asked."""
    update: dict[str, object] = {}
    if drop_turns and run.turns is not None:
        update["turns"] = None
    if cut_mismatches and len(run.mismatches) > 1:
        update["mismatches"] = run.mismatches[:1]
    return run.model_copy(update=update) if update else run


def summary_json(results: ResultsFile) -> str:
    """The summary file's text: `{"turn_records": n, "mismatches": counts, "results": <summary>}` as canonical JSON."""
    summary, n, counts = summarize(results)
    return canonical_json({"turn_records": n, "mismatches": counts, "results": summary.model_dump(mode="json")})


def read_summary(path: Path) -> tuple[ResultsSummary, int, dict[str, int] | None] | None:
    """(summary, per-turn records, mismatch counts) from a summary file; None when absent or unreadable."""
    try:
        doc = json.loads(path.read_bytes())
        counts = doc["mismatches"]
        if counts is not None:
            counts = {str(k): int(v) for k, v in counts.items()}
        return ResultsSummary.model_validate(doc["results"]), int(doc["turn_records"]), counts
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
