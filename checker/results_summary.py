"""The small record of a verified submission that verify keeps in memory and the cache keeps beside each entry.

A results file holds every per-turn record of a constraint run (a DRIFT-Bench-size submission:
22,688 turns, about 11 MB of JSON). Verify writes that file as soon as the submission is scored
and keeps only its *summary*: the same `ResultsFile` with the per-turn records of its runs left
out when there are more than `KEEP_TURNS` of them (every other field is kept: run ids and
digests for the checks across submissions, cells with their tables for the text report,
claims, defeaters and the pre-registration check for the findings). The full file is read
back only when a caller asks for it (`--format json`, `SubmissionResult.results`).

The cache stores the summary as `<key>.summary.json` beside `<key>.json`, so a warm pass reads
digests and summaries, never whole results files, and copies the cached bytes to `--out`.
"""

from __future__ import annotations

import json
from pathlib import Path

from checker.results_io import canonical_json
from checker.results_model import ResultsFile

KEEP_TURNS = 400
"""Per-turn records kept in a summary when the whole submission has at most this many
(the text report lists them up to the same number: `checker.report_text.TEXT_TURN_LIMIT`)."""
SUMMARY_SUFFIX = ".summary.json"


def turn_records(results: ResultsFile) -> int:
    """Per-turn records in a results file (all runs)."""
    return sum(len(r.turns or []) for r in results.runs)


def summarize(results: ResultsFile) -> tuple[ResultsFile, int]:
    """(the summary of `results`, its number of per-turn records).

    The summary is `results` itself when it holds at most `KEEP_TURNS` per-turn records, else
    `results` with every run's `turns` set to None.
    """
    n = turn_records(results)
    if n <= KEEP_TURNS:
        return results, n
    runs = [r.model_copy(update={"turns": None}) if r.turns is not None else r for r in results.runs]
    return results.model_copy(update={"runs": runs}), n


def summary_json(results: ResultsFile) -> str:
    """The summary file's text: `{"turn_records": n, "results": <summary>}` as canonical JSON."""
    summary, n = summarize(results)
    return canonical_json({"turn_records": n, "results": summary.model_dump(mode="json")})


def read_summary(path: Path) -> tuple[ResultsFile, int] | None:
    """(summary, per-turn records) from a summary file; None when absent or unreadable."""
    try:
        doc = json.loads(path.read_bytes())
        return ResultsFile.model_validate(doc["results"]), int(doc["turn_records"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
