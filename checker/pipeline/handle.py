"""A submission's verified results: the summary at hand, the whole results file on demand.

Verify writes a submission's results file as soon as it is built (to the cache and/or `--out`)
and keeps only a `ResultsHandle`: the file's summary (`checker.format.results_summary`: every field
but the per-turn records of a large submission) and where the whole file can be read back.
A results file written nowhere (no cache, no `--out`) stays in memory, its only copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from checker.format.results_io import read_results
from checker.format.results_model import ResultsFile, ResultsSummary
from checker.format.results_summary import summarize


@dataclass(frozen=True)
class ResultsHandle:
    """A results file, held in memory or stored on disk: `summary` always, the whole file by `load()`."""

    summary: ResultsSummary
    """The results file's summary (`ResultsSummary`: every field but the per-turn records of a large submission)."""
    turn_records: int
    """Per-turn records in the whole file (the summary may leave them out)."""
    mismatch_counts: dict[str, int] | None
    """Mismatches per run path when the summary keeps only each run's first (None: it keeps them all)."""
    path: Path | None = None
    """Where the whole file is stored (the cache entry, else the `--out` file); None: held in memory."""
    held: ResultsFile | None = None
    """The whole file, kept only when it is stored nowhere."""

    @classmethod
    def of(cls, full: ResultsFile, path: Path | None) -> ResultsHandle:
        """The handle of `full`, stored at `path` (None: stored nowhere, so kept in memory)."""
        summary, turns, counts = summarize(full)
        return cls(summary, turns, counts, path, full if path is None else None)

    def load(self) -> ResultsFile:
        """The whole results file (read back from disk when it is stored there)."""
        if self.held is not None:
            return self.held
        assert self.path is not None, "a handle holds its file or knows where it is stored"
        return read_results(self.path)
