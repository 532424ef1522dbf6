"""Reported, not verified: published figures that no submitted log backs.

Two datasets ship in `checker/harness/baselines/reported/`, kept apart from verified results:

* `arg-published-runs.csv` (+ `arg-published-runs.md`, the column meanings, sources and the
  record's internal inconsistencies): every run/cell figure of the ARG campaign document and
  paper (`arjmandi/ARG` at commit `3e15a86`), copied as printed; blank = not published. The run
  stores behind them were never released, so none can be recomputed.
* `drift-bench-paper-tables.csv`: the DRIFT-Bench paper tables (`kaons-research/drift-bench`
  at commit `d24cda4`, `docs/paper_tables/*.csv`, MIT licence, (c) 2026 Kaons), converted to one
  long table `table, row_key, column, value, source, license`, one figure per line. Only the
  published figures are included (no problems, no transcripts).

`convert_paper_tables(src, dst)` regenerates the second file from a DRIFT-Bench checkout; the
baseline generator does not need the original files.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

REPORTED_DIR = Path(__file__).parent / "reported"
ARG_CSV = REPORTED_DIR / "arg-published-runs.csv"
DRIFT_CSV = REPORTED_DIR / "drift-bench-paper-tables.csv"
DRIFT_SOURCE = "kaons-research/drift-bench@d24cda4 docs/paper_tables/{name}"
DRIFT_LICENSE = "MIT (c) 2026 Kaons"
DRIFT_TABLES = (
    "benchmark_stats.csv", "main_results.csv", "repair_success_by_trigger.csv",
    "residual_decomposition_summary.csv", "sat_but_wrong_summary.csv",
)
ARG_CONTEXT_COLUMNS = frozenset({
    "row_id", "row_kind", "run_label", "source", "date", "batch_wave", "game", "cell", "flags", "seed_label",
    "horizon_actions", "backbone", "verdict_reason", "notes",
})
"""ARG columns that describe a row rather than report a figure."""
ROW_KEYS = {"repair_success_by_trigger.csv": ("model", "trigger_code")}
"""Columns that identify a row (default: the first column)."""


@dataclass(frozen=True)
class ReportedFigure:
    """One published figure with its source; never a verified result."""

    dataset: str
    row_key: str
    column: str
    value: str
    source: str


def convert_paper_tables(src: Path, dst: Path = DRIFT_CSV) -> int:
    """Convert DRIFT-Bench's `paper_tables/*.csv` into the long table; returns the figure count.

    Raises:
        FileNotFoundError: a table is missing under `src`.
    """
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(["table", "row_key", "column", "value", "source", "license"])
    n = 0
    for name in DRIFT_TABLES:
        with (src / name).open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            columns = list(reader.fieldnames or [])
            keys = ROW_KEYS.get(name, tuple(columns[:1]))
            for row in reader:
                key = "/".join(row[k] for k in keys)
                for col in columns:
                    if col in keys or row[col] == "":
                        continue
                    out.writerow([name.removesuffix(".csv"), key, col, row[col], DRIFT_SOURCE.format(name=name),
                                  DRIFT_LICENSE])
                    n += 1
    dst.write_text(buf.getvalue(), encoding="utf-8")
    return n


def load_reported() -> list[ReportedFigure]:
    """Every reported figure of both datasets (ARG: one per non-blank metric cell)."""
    figures: list[ReportedFigure] = []
    with ARG_CSV.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            for col, value in row.items():
                if col in ARG_CONTEXT_COLUMNS or not value:
                    continue
                key = f"{row['row_id']} {row['run_label'] or row['cell']}".strip()
                figures.append(ReportedFigure("arg-published-runs", key, col, value,
                                              f"arjmandi/ARG@3e15a86 {row['source']}"))
    with DRIFT_CSV.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            figures.append(ReportedFigure(f"drift-bench:{row['table']}", row["row_key"], row["column"], row["value"],
                                          row["source"]))
    return figures


__all__ = ["ARG_CSV", "DRIFT_CSV", "REPORTED_DIR", "ReportedFigure", "convert_paper_tables", "load_reported"]
