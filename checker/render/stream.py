"""The build streams results: one submission's whole results file in memory at a time.

`driftboard build` reads each results file once (`iter_results`), renders that submission's own
pages (submission, cells, runs) from it, and keeps only its *light* record (`light`) for the pages
that span submissions (home, track leaderboards, submissions, metrics, changelog). A results file
of a DRIFT-Bench-size constraint submission holds about 22,000 per-turn records; fifty of them
held at once were most of a 2.1 GB build. The light record (`LightResults`) has the fields of the
`ResultsFile`, with:

* every run's per-turn records replaced by one shared stub per distinct problem (only
  `problem_id` is set; any other field raises `AttributeError`, never a wrong value), so the
  cross-submission pages still count turns and distinct problems (coverage "n of N") at the cost
  of one list slot (8 bytes) a turn;
* each run's recorded-vs-recomputed mismatches cut to the first when the runs record more than
  `KEEP_TURNS` in all, as in verify's summaries (`checker.format.results_summary`); no cross-submission
  page lists mismatches.

Every other field (cells and their tables, gate tables, verdicts, provenance, claims) is kept.
The pages across submissions take a `Listing` (a whole results file or a light record); the
pages of one submission and its runs take the whole `ResultsFile`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from checker.format.errors import UsageError
from checker.format.results_io import is_results_name, read_results
from checker.format.results_model import ResultsFile, ResultsSummary, TurnResult
from checker.format.results_summary import KEEP_TURNS


class LightResults(ResultsSummary):
    """The light record of a results file (see the module docstring): per-turn records are problem-id stubs."""


Listing = ResultsFile | LightResults
"""What the pages across submissions read: a whole results file or its light record (runs' turns count, and
name their problem; nothing else of a turn is there to read)."""


def results_paths(results_dir: Path, only: set[str] | None = None) -> list[Path]:
    """The results files to render: those of `only` (ids), or every results file of the folder, sorted."""
    if not results_dir.is_dir():
        raise UsageError(f"{results_dir}: no results folder; run `driftboard verify` or `driftboard build` first")
    if only is not None:
        return [results_dir / f"{i}.json" for i in sorted(only)]
    return [p for p in sorted(results_dir.glob("*.json")) if is_results_name(p.name)]


def iter_results(paths: list[Path]) -> Iterator[ResultsFile]:
    """Each results file, read when asked for and never kept here (the caller releases it)."""
    for path in paths:
        yield read_results(path)


def _stub(problem_id: str) -> TurnResult:
    """A turn record with only its problem id set (reading any other field raises `AttributeError`)."""
    return TurnResult.model_construct(problem_id=problem_id)  # type: ignore[call-arg]  # deliberately partial


def light(r: ResultsFile) -> LightResults:
    """The record the cross-submission pages are built from (see the module docstring)."""
    stubs: dict[str, TurnResult] = {}
    cut = sum(len(run.mismatches) for run in r.runs) > KEEP_TURNS
    runs = []
    for run in r.runs:
        update: dict[str, object] = {}
        if run.turns:
            update["turns"] = [stubs.get(t.problem_id) or stubs.setdefault(t.problem_id, _stub(t.problem_id))
                               for t in run.turns]
        if cut and len(run.mismatches) > 1:
            update["mismatches"] = run.mismatches[:1]
        runs.append(run.model_copy(update=update) if update else run)
    fields = {name: getattr(r, name) for name in LightResults.model_fields}
    return LightResults.model_construct(r.model_fields_set, **{**fields, "runs": runs})
