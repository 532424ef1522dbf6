"""The boards document (`boards.json`, written by `checker.pipeline.boards` beside `index.json`): its shape and reader.

Every pairwise comparison of a board is in a file of its own beside `boards.json`,
`comparisons-<16 hex digits of the SHA-256 of the board id>.csv` (`comparisons_name`), one row a pair
(`COMPARISON_COLUMNS`): `boards.json` keeps the rows, rank ranges and what the board is, and names each
board's comparisons file with its SHA-256, its size and its count of pairs (`ComparisonsRef`). A board of
N rows has N(N-1)/2 pairs: the site's pages never need them, so the build does not load them; it copies
each file, its digest checked, into the site as the board's download (`publish_comparisons`).
`read_comparisons` gives a board's comparisons back (digest and size checked).

The renderer reads boards through this module only (it never imports the pipeline that computes them).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import TypedDict

from checker.format.errors import UsageError
from checker.format.results_io import BOARDS
from checker.format.results_model import CellRanking, CellResult, ResultsSummary


class BoardRowDoc(TypedDict):
    """One ranked row of a board."""

    result_id: str
    submission_id: str
    cell: str
    figure: float
    n: int
    """Units the figure pools (seeds or problems)."""
    turns: int | None
    """Constraint: the turns the problems hold over every declared run."""
    ci95: list[float] | None
    interval: str
    """How the interval was computed, or why there is none."""
    rank_best: int
    rank_worst: int
    rank: str
    """`1` or `1–2`."""


class ComparisonDoc(TypedDict):
    """One paired comparison of two rows of a board."""

    a: str
    b: str
    shared: int
    test: str
    p: float
    significant: bool
    """Rejected by Holm's procedure across the board."""


class ComparisonsRef(TypedDict):
    """Where a board's comparisons are (`comparisons_name`, beside `boards.json`) and the digest of their bytes."""

    file: str
    sha256: str
    bytes: int
    pairs: int
    """Comparisons in the file: N(N-1)/2 for N ranked rows."""
    significant: int
    """Of them, rejected by Holm's procedure across the board."""


class BoardDoc(TypedDict):
    """One board: its key, rule, methods and rows (best first); its comparisons are in a file of their own."""

    id: str
    key: dict[str, str]
    label: str
    track: str
    rule: str
    metric: str
    higher_is_better: bool
    unit: str
    rows: list[BoardRowDoc]
    comparisons: ComparisonsRef
    unranked: list[dict[str, str]]
    """Cells with this key that do not rank here: result id and reason."""


class BoardsDocument(TypedDict):
    """`boards.json`."""

    boards_format: str
    checker_version: str
    rank_meaning: str
    boards: list[BoardDoc]
    ranked_models: list[str]
    """Language models ranked on any board (derived from the logs); empty: none is ranked yet."""
    digest: str


BOARDS_FORMAT = "2.0"
"""2.0: each board's comparisons in a file of their own (`ComparisonsRef`); 1.0 held them in `boards.json`."""

EMPTY: BoardsDocument = {"boards_format": BOARDS_FORMAT, "checker_version": "", "rank_meaning": "", "boards": [],
                        "ranked_models": [], "digest": ""}
"""No boards (a results folder without `boards.json`): nothing is ranked."""


def read_boards(results_dir: Path) -> BoardsDocument:
    """`<results_dir>/boards.json`, or `EMPTY` when the folder has none."""
    path = results_dir / BOARDS
    if not path.is_file():
        return EMPTY
    doc: BoardsDocument = json.loads(path.read_text(encoding="utf-8"))
    return doc


COMPARISONS_PREFIX = "comparisons-"
COMPARISON_COLUMNS = ("a", "b", "shared", "test", "p", "significant")
"""The columns of a comparisons file, in order (the header row): `ComparisonDoc`'s keys."""
MAX_COMPARISONS_BYTES = 512 << 20
"""Largest comparisons file `read_comparisons` reads into memory (a board of 3,000 rows writes about 450 MB)."""


def comparisons_name(board_id: str) -> str:
    """The file name of a board's comparisons: `comparisons-<16 hex digits of the SHA-256 of the board id>.csv`.

    Board ids hold `:` and digests; a digest of the id is a file name on any system, and the same board
    keeps its file name from one verification to the next.
    """
    return f"{COMPARISONS_PREFIX}{hashlib.sha256(board_id.encode('utf-8')).hexdigest()[:16]}.csv"


def comparisons_csv(comparisons: Iterable[ComparisonDoc]) -> str:
    """The one serialisation of a board's comparisons.

    RFC 4180 CSV (CRLF rows, quoted only when needed), header `COMPARISON_COLUMNS`, one row a pair in the
    board's order; p as Python's shortest round-trip `repr`, significant as `true` / `false`. Result ids start
    with a submission id (a lower-case letter or digit), so no cell starts with a character a spreadsheet
    would run as a formula.
    """
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\r\n")
    out.writerow(COMPARISON_COLUMNS)
    for c in comparisons:
        out.writerow([c["a"], c["b"], c["shared"], c["test"], repr(float(c["p"])),
                      "true" if c["significant"] else "false"])
    return buf.getvalue()


def parse_comparisons(text: str) -> list[ComparisonDoc]:
    """A comparisons file's rows (`comparisons_csv` read back).

    Raises:
        UsageError: not a comparisons file (header, a row's length, a number or a flag).
    """
    rows = csv.reader(io.StringIO(text, newline=""))
    if tuple(next(rows, ())) != COMPARISON_COLUMNS:
        raise UsageError(f"not a comparisons file: the header must be {','.join(COMPARISON_COLUMNS)}")
    out: list[ComparisonDoc] = []
    for i, row in enumerate(rows, 2):
        if len(row) != len(COMPARISON_COLUMNS) or row[5] not in ("true", "false"):
            raise UsageError(f"comparisons file, row {i}: not a comparison")
        try:
            out.append({"a": row[0], "b": row[1], "shared": int(row[2]), "test": row[3], "p": float(row[4]),
                        "significant": row[5] == "true"})
        except ValueError:
            raise UsageError(f"comparisons file, row {i}: shared or p is not a number") from None
    return out


def _checked_path(results_dir: Path, ref: ComparisonsRef) -> Path:
    """The comparisons file `ref` names in `results_dir` (a bare name of the expected form, a regular file)."""
    name = ref["file"]
    if "/" in name or "\\" in name or not (name.startswith(COMPARISONS_PREFIX) and name.endswith(".csv")):
        raise UsageError(f"{results_dir / BOARDS}: {name!r} is not a comparisons file name")
    path = results_dir / name
    if path.is_symlink() or not path.is_file():
        raise UsageError(f"{path}: missing (named by {BOARDS}); run `driftboard verify` again")
    if path.stat().st_size != ref["bytes"]:
        raise UsageError(f"{path}: not the file {BOARDS} names (its size differs): refused")
    return path


def read_comparisons(results_dir: Path, board: BoardDoc) -> list[ComparisonDoc]:
    """Every comparison of `board` (a board of `results_dir`'s `boards.json`), its file's SHA-256 checked.

    Raises:
        UsageError: the file is missing, over `MAX_COMPARISONS_BYTES`, not the one `boards.json` names, or not a
            comparisons file.
    """
    ref = board["comparisons"]
    path = _checked_path(results_dir, ref)
    if ref["bytes"] > MAX_COMPARISONS_BYTES:
        raise UsageError(f"{path}: over {MAX_COMPARISONS_BYTES >> 20} MiB; not read")
    raw = path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != ref["sha256"]:
        raise UsageError(f"{path}: its SHA-256 is not the one {BOARDS} records: refused")
    return parse_comparisons(raw.decode("utf-8"))


def comparison_files(doc: BoardsDocument) -> list[str]:
    """The comparisons files a boards document names (one per board), sorted."""
    return sorted(b["comparisons"]["file"] for b in doc["boards"])


def publish_comparisons(results_dir: Path, doc: BoardsDocument, dest: Path) -> list[str]:
    """Copy each board's comparisons file from `results_dir` into `dest`, streamed, its SHA-256 checked; the names.

    Nothing is parsed: the bytes published are the bytes `boards.json` digests.

    Raises:
        UsageError: a file is missing or is not the one `boards.json` names (size or SHA-256).
    """
    names = []
    for board in doc["boards"]:
        ref = board["comparisons"]
        src = _checked_path(results_dir, ref)
        dest.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        target = dest / ref["file"]
        with src.open("rb") as fin, target.open("wb") as fout:
            while chunk := fin.read(1 << 20):
                digest.update(chunk)
                fout.write(chunk)
        if digest.hexdigest() != ref["sha256"]:
            target.unlink()
            raise UsageError(f"{src}: its SHA-256 is not the one {BOARDS} records: refused")
        names.append(ref["file"])
    return sorted(names)


NO_LLM = "no LLM — scripted"


def cell_models(r: ResultsSummary, c: CellResult) -> list[str]:
    """The language models behind a cell as its logs show them: backbones of runs that record model calls."""
    runs = [run for run in r.runs if run.cell == c.cell]
    out = set()
    for run in runs:
        calls = run.metric("llm_calls")
        if run.track == "agent" and not calls:
            continue
        if run.backbone and "scripted" not in run.backbone.lower() and "no llm" not in run.backbone.lower():
            out.add(run.backbone)
    return sorted(out)


DECLARED = " (declared)"
"""Appended to a model or backbone the logs do not record: it is only the submitter's word."""


def cell_model_labels(r: ResultsSummary, c: CellResult) -> list[str]:
    """`cell_models`, each marked "declared" unless a run of the cell records it (`RunResult.model_recorded`)."""
    recorded = {run.model_recorded for run in r.runs if run.cell == c.cell}
    return [m if m in recorded else m + DECLARED for m in cell_models(r, c)]


def backbone_label(r: ResultsSummary, backbone: str) -> str:
    """The manifest's backbone, marked "declared" unless a run of the submission records it."""
    return backbone if backbone in {run.model_recorded for run in r.runs} else backbone + DECLARED


def ranking_line(r: CellRanking | None) -> str:
    """`ranked on board K` or `not ranked: reason` (what verify and ci print per cell)."""
    if r is None:
        return "not ranked: no board verdict in this results file"
    if r.ranked:
        return f"ranked on board {r.board}"
    return f"not ranked: {r.reason}" + (f" (board {r.board})" if r.board else "")


__all__ = ["BOARDS", "BOARDS_FORMAT", "COMPARISONS_PREFIX", "COMPARISON_COLUMNS", "DECLARED", "EMPTY",
           "MAX_COMPARISONS_BYTES", "NO_LLM", "BoardDoc", "BoardRowDoc", "BoardsDocument", "ComparisonDoc",
           "ComparisonsRef", "backbone_label", "cell_model_labels", "cell_models", "comparison_files",
           "comparisons_csv", "comparisons_name", "parse_comparisons", "publish_comparisons", "ranking_line",
           "read_boards", "read_comparisons"]
