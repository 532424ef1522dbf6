"""Boards across submissions: one ranked table per board key, with intervals, paired tests and rank ranges.

Computed from the results files only (each cell's `ranking`: its board, whether it ranks, and the
units its ranked figure pools), never from pages; `driftboard verify` over `submissions/` writes the
document to `<results dir>/boards.json` beside `index.json`, and `driftboard build` recomputes it from
the results it publishes (so a page never shows a board that its results files do not give).

Per board (`checker.stages.boards.TRACKS` declares its key and evidence rule):

* **figure**: the cell's all-declared (intent-to-treat) figure of the track's ranking metric, as
  pooled over its units: per seed (agent) the mean; per problem (constraint) correct turns over turns.
* **interval** (95%), fitted to n: seeds — the percentile bootstrap of the mean from at least 5
  values (`checker.stages.aggregate.bootstrap_ci`); problems — a cluster bootstrap over problems,
  turns nested (Miller 2024), from at least `MIN_CLUSTERS` problems; the Wilson interval of the
  pooled turns under that, or when the figure is 0 or 1 (where a bootstrap collapses to a point)
  (Wilson 1927; Bowyer, Aitchison and Ivanova 2025).
* **between two rows**: on their shared units, the exact McNemar test when every unit's outcome is
  0 or 1 for both, else a paired bootstrap of the mean difference (`RESAMPLES` draws seeded by the
  board and the pair); p-values Holm-corrected across every pair of the board (Holm 1979).
* **rank range**: best = 1 + rows significantly better; worst = N − rows significantly worse
  (LMArena's upper-bound rank, `checker.stages.statistics.rank_ranges`); rows whose ranges overlap
  are not separable.

`write_boards` writes each board's comparisons to a file of their own beside `boards.json`
(`checker.format.boards_model.comparisons_name`, CSV), and `boards.json` names each file with its
SHA-256: the site's pages need the rows, rank ranges and ties, never the N(N-1)/2 pairs of a board,
and publish the pairs as the board's download.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from checker import __version__
from checker.format.boards_model import (
    BOARDS,
    BOARDS_FORMAT,
    COMPARISONS_PREFIX,
    BoardDoc,
    BoardRowDoc,
    BoardsDocument,
    ComparisonDoc,
    ComparisonsRef,
    cell_models,
    comparisons_csv,
    comparisons_name,
)
from checker.format.results_io import canonical_json, content_digest
from checker.format.results_model import CellResult, ResultsSummary
from checker.pipeline.metrics import RANK_BY, get
from checker.stages.aggregate import bootstrap_ci, seed_for
from checker.stages.boards import MIN_SEEDS, TRACKS, board_label, is_label
from checker.stages.statistics import ALPHA, MIN_CLUSTERS, RESAMPLES, holm, mcnemar_exact, rank_ranges, wilson

RANK_MEANING = ("A rank range \"1–2\" means the row is significantly worse than no row above 1 and significantly "
                "better than every row below 2 (paired tests on shared seeds or problems, Holm-corrected at 5%): "
                "rows whose ranges overlap are statistically tied.")


def _pooled(units: dict[str, list[float]]) -> tuple[float, int]:
    num = sum(u[0] for u in units.values())
    den = sum(u[1] for u in units.values())
    return (num / den if den else 0.0), int(den)


def _cluster_ci(units: dict[str, list[float]], key: str) -> list[float] | None:
    """Percentile cluster bootstrap of sum(num) / sum(den), resampling whole problems (numpy, seeded by `key`)."""
    import numpy as np

    num = np.asarray([u[0] for _, u in sorted(units.items())], dtype=float)
    den = np.asarray([u[1] for _, u in sorted(units.items())], dtype=float)
    rng = np.random.default_rng(seed_for(key))
    idx = rng.integers(0, len(num), size=(RESAMPLES, len(num)))
    dens = den[idx].sum(axis=1)
    rates = num[idx].sum(axis=1)[dens > 0] / dens[dens > 0]
    lo, hi = np.percentile(rates, [2.5, 97.5])
    return [round(float(lo), 12), round(float(hi), 12)]


def _interval(track: str, units: dict[str, list[float]], key: str) -> tuple[list[float] | None, str]:
    """The row's 95% interval and how it was computed (or why there is none)."""
    if track == "agent" or TRACKS[track].unit == "seed":
        values = [u[0] / u[1] for _, u in sorted(units.items())]
        ci = bootstrap_ci(values, key)
        return ci, ("seed bootstrap (percentile, 2,000 draws)" if ci is not None
                    else f"none: {len(values)} defined seed values (a bootstrap needs {MIN_SEEDS})")
    num, den = sum(u[0] for u in units.values()), sum(u[1] for u in units.values())
    if len(units) >= MIN_CLUSTERS and 0 < num < den:
        unit = TRACKS[track].unit
        nested = "turns" if unit == "problem" else "trials"
        return _cluster_ci(units, key), f"cluster bootstrap over {unit}s, {nested} nested (2,000 draws)"
    w = wilson(int(num), int(den))
    unit = TRACKS[track].unit
    why = "at 0 or 1, where a bootstrap collapses" if len(units) >= MIN_CLUSTERS else f"under {MIN_CLUSTERS} {unit}s"
    return ([round(w[0], 12), round(w[1], 12)] if w else None), f"Wilson interval of the pooled {unit} outcomes ({why})"


def _paired(board: str, a: str, b: str, ua: dict[str, list[float]], ub: dict[str, list[float]]) -> tuple[int, str, float]:
    """(shared units, test, two-sided p) of rows `a` and `b` on their shared units."""
    shared = sorted(set(ua) & set(ub))
    if not shared:
        return 0, "no shared units", 1.0
    va = [ua[s][0] / ua[s][1] if ua[s][1] else 0.0 for s in shared]
    vb = [ub[s][0] / ub[s][1] if ub[s][1] else 0.0 for s in shared]
    if all(v in (0.0, 1.0) for v in va + vb):
        return len(shared), "exact McNemar", mcnemar_exact([v == 1.0 for v in va], [v == 1.0 for v in vb])
    return len(shared), "paired bootstrap", _paired_bootstrap(va, vb, f"{board}|{a}|{b}")


def _paired_bootstrap(a: list[float], b: list[float], key: str) -> float:
    """Two-sided p that mean(a − b) is 0: the centred differences resampled (numpy; +1 correction)."""
    import numpy as np

    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    observed = float(d.mean())
    centred = d - observed
    if np.all(np.abs(centred) < 1e-15):
        return 1.0 if abs(observed) < 1e-15 else 0.0
    rng = np.random.default_rng(seed_for(key))
    means = centred[rng.integers(0, len(d), size=(RESAMPLES, len(d)))].mean(axis=1)
    extreme = int(np.count_nonzero(np.abs(means) >= abs(observed) - 1e-15))
    return (extreme + 1) / (RESAMPLES + 1)


def _cells(results: Iterable[ResultsSummary]) -> Iterable[tuple[ResultsSummary, CellResult]]:
    for r in results:
        for c in r.cells:
            if c.ranking is not None and c.ranking.board is not None:
                yield r, c


def boards_and_comparisons(results: Iterable[ResultsSummary]) -> tuple[list[BoardDoc], dict[str, str]]:
    """Every board with at least one cell on its key, and the text of each board's comparisons file, by file name.

    Boards have their ranked rows best first and are sorted by track, then id; files are `comparisons_csv`'s text.
    """
    members: dict[str, list[tuple[ResultsSummary, CellResult]]] = {}
    for r, c in _cells(results):
        assert c.ranking is not None and c.ranking.board is not None
        members.setdefault(c.ranking.board, []).append((r, c))
    docs, files = [], {}
    for bid, cells in members.items():
        doc, text = _board(bid, cells)
        docs.append(doc)
        files[doc["comparisons"]["file"]] = text
    return sorted(docs, key=lambda d: (d["track"], d["id"])), files


def board_docs(results: Iterable[ResultsSummary]) -> list[BoardDoc]:
    """Every board with at least one cell on its key, ranked rows best first; sorted by track, then id."""
    return boards_and_comparisons(results)[0]


def _board(bid: str, cells: list[tuple[ResultsSummary, CellResult]]) -> tuple[BoardDoc, str]:
    """One board's document, and the text of its comparisons file."""
    first = cells[0][1].ranking
    assert first is not None
    key = dict(first.key)
    for name in [k for k in key if is_label(k, key)]:  # every name the board's runs give what they ran, sorted
        key[name] = " / ".join(sorted({c.ranking.key.get(name, "") for _, c in cells if c.ranking is not None} - {""}))
    track = key["track"]
    metric = RANK_BY[track]
    decl = get(metric)
    higher = decl is None or decl.higher_is_better is not False
    ranked = sorted(((r, c) for r, c in cells if c.ranking is not None and c.ranking.ranked),
                    key=lambda rc: rc[1].result_id)
    units = {c.result_id: (c.ranking.units if c.ranking is not None else {}) for _, c in ranked}
    figures = {rid: _pooled(u)[0] for rid, u in units.items()}
    comparisons, significant = _comparisons(bid, list(units), units)
    sign = 1 if higher else -1

    def better(x: str, y: str) -> bool:
        return significant.get((x, y), significant.get((y, x), False)) and sign * (figures[x] - figures[y]) > 0

    ranges = rank_ranges(figures, better)
    rows: list[BoardRowDoc] = []
    for r, c in ranked:
        rid = c.result_id
        ci, how = _interval(track, units[rid], f"{bid}|{rid}")
        n_units = len(units[rid])
        rows.append({"result_id": rid, "submission_id": r.submission_id, "cell": c.cell,
                     "figure": round(figures[rid], 12), "n": n_units,
                     "turns": _pooled(units[rid])[1] if TRACKS[track].unit == "problem" else None,
                     "ci95": ci, "interval": how, "rank_best": ranges[rid].best, "rank_worst": ranges[rid].worst,
                     "rank": ranges[rid].label})
    rows.sort(key=lambda x: (x["rank_best"], -sign * x["figure"], x["result_id"]))
    unranked = sorted(({"result_id": c.result_id, "reason": c.ranking.reason or ""} for _, c in cells
                       if c.ranking is not None and not c.ranking.ranked), key=lambda x: x["result_id"])
    text = comparisons_csv(comparisons)
    data = text.encode("utf-8")
    ref: ComparisonsRef = {"file": comparisons_name(bid), "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data),
           "pairs": len(comparisons), "significant": sum(1 for c in comparisons if c["significant"])}
    return {"id": bid, "key": key, "label": board_label(key), "track": track, "rule": TRACKS[track].rule,
            "metric": metric, "higher_is_better": higher, "unit": TRACKS[track].unit, "rows": rows,
            "comparisons": ref, "unranked": unranked}, text


def _comparisons(bid: str, ids: list[str], units: dict[str, dict[str, list[float]]]
                 ) -> tuple[list[ComparisonDoc], dict[tuple[str, str], bool]]:
    """Every pair's paired test, and which pairs Holm's procedure rejects across the board."""
    tests: dict[tuple[str, str], tuple[int, str, float]] = {}
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            tests[(a, b)] = _paired(bid, a, b, units[a], units[b])
    rejected = holm({pair: t[2] for pair, t in tests.items()}, ALPHA)
    docs: list[ComparisonDoc] = [{"a": a, "b": b, "shared": t[0], "test": t[1], "p": t[2],
                                  "significant": rejected[(a, b)]} for (a, b), t in tests.items()]
    return docs, rejected


def boards_document(results: Iterable[ResultsSummary]) -> BoardsDocument:
    """The whole `boards.json` document of a set of results."""
    return boards_with_comparisons(results)[0]


def boards_with_comparisons(results: Iterable[ResultsSummary]) -> tuple[BoardsDocument, dict[str, str]]:
    """The whole `boards.json` document of a set of results, and each board's comparisons file (name -> text)."""
    results = list(results)
    boards, files = boards_and_comparisons(results)
    ranked_ids = {row["result_id"] for b in boards for row in b["rows"]}
    models = sorted({m for r in results for c in r.cells if c.result_id in ranked_ids
                     for m in cell_models(r, c)})
    doc: dict[str, object] = {"boards_format": BOARDS_FORMAT, "checker_version": __version__,
                              "rank_meaning": RANK_MEANING, "boards": boards, "ranked_models": models}
    doc["digest"] = content_digest(json.loads(json.dumps(doc)))
    return doc, files  # type: ignore[return-value]


def write_boards(results: Iterable[ResultsSummary], out: Path) -> list[str]:
    """Write `<out>/boards.json` (canonical bytes) and each board's comparisons file; the names written, sorted.

    A comparisons file of `out` that this document does not name (a board of an earlier verification) is removed.
    """
    out.mkdir(parents=True, exist_ok=True)
    doc, files = boards_with_comparisons(results)
    for stale in sorted(out.glob(f"{COMPARISONS_PREFIX}*.csv")):
        if stale.name not in files and (stale.is_file() or stale.is_symlink()):
            stale.unlink()
    for name, text in sorted(files.items()):
        (out / name).write_bytes(text.encode("utf-8"))
    (out / BOARDS).write_text(canonical_json(doc), encoding="utf-8")
    return sorted([BOARDS, *files])
