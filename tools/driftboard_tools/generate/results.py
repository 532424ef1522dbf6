"""Synthetic results files: what the renderer reads, without verifying anything.

`synthetic_results(n)` makes `n` results documents (two in three on the agent track: five
cells of five seeds, gate tables, mismatches, an undefined metric; the rest constraint
submissions with per-depth tables), deterministic for a seed; `drift_size_results` makes
constraint submissions of DRIFT-Bench size (issue 17's scale site); `write_results_dir`
writes them as a results folder (`<id>.json` + `index.json`). Used by `driftboard bench site`
and by the site and citation tests as their fixtures.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from checker.constraint.metrics import DEPTH_BINS, aggregate
from checker.format.cell_tables import ConstraintCellTables, DepthBin, DepthTable
from checker.format.results_model import ResultsFile
from checker.pipeline.boards import write_boards
from checker.pipeline.results import with_rankings

AGENT_CELLS = ("FULL", "J0", "A0", "J0A0", "BARE")
CONSTRAINT_CELLS = ("qwen3-8b/baseline", "qwen3-8b/mus_repair", "gpt-oss-20b/baseline", "gpt-oss-20b/mus_repair")
SEEDS = ("s1", "s2", "s3", "s4", "s5")
GAME_ID = "synthetic-world"
"""The one world every synthetic agent run plays: the agent cells share one board."""
CONDITIONS = ("render_ceiling", "silent_degrade", "startup_probe", "shadow_identity", "canary_echo",
              "write_error_rate", "evidence")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _agg(values: dict[str, float | int | None]) -> dict[str, Any]:
    defined = [v for v in values.values() if v is not None]
    mean = round(sum(defined) / len(defined), 6) if defined else None
    return {"n_defined": len(defined), "n": len(values), "values": values, "mean": mean,
            "min": min(defined) if defined else None, "max": max(defined) if defined else None,
            "ci95": [min(defined), max(defined)] if len(defined) >= 2 else None}


def _all_declared(values: dict[str, float | int | None], worst: float) -> dict[str, Any]:
    """An all-declared figure: a seed missing from `values` (not VALID) counts as `worst`; undefined seeds are left out."""
    per: dict[str, float | None] = {}
    for s in SEEDS:
        v = values.get(s, worst) if s in values else worst
        per[s] = float(v) if v is not None else None
    defined = [v for v in per.values() if v is not None]
    return {"value": round(sum(defined) / len(defined), 10) if defined else None, "worst": worst,
            "n_declared": len(SEEDS), "n_worst": sum(1 for s in SEEDS if s not in values),
            "n_undefined": sum(1 for v in per.values() if v is None), "values": per}


def _gate(rng: random.Random) -> dict[str, dict[str, Any]]:
    """A synthetic gate table in the shape of `GateConditions` (random statuses, plausible numbers)."""
    common: dict[str, dict[str, Any]] = {
        "render_ceiling": {"B": 6000, "breaches": 0, "beat_breaches": 0, "call_breaches": 0, "max_render_tokens": 300,
                           "lines": [1, 2]},
        "silent_degrade": {"count": 0, "acted_beats": 150, "lines": [1, 2]},
        "startup_probe": {"present": True, "image_receipt_ok": None},
        "shadow_identity": {"paired_groups": 6, "differing": 0, "examples": []},
        "canary_echo": {"floor": 0.9, "warmup": 2, "rows": 64, "rows_used": 60, "fallback_all_rows": False,
                        "rates": {"Z2": 1.0}, "zones_below": []},
        "write_error_rate": {"floor": 0.25, "min_ops": 5, "failed": [],
                             "organs": {"OBSERVER": {"rejects": 3, "accepted": 97, "ops": 100, "judged": True,
                                                     "wer": 0.03}}},
        "evidence": {"checked": True, "mismatches": 0, "by_check": {}, "lines": []},
    }
    gate: dict[str, dict[str, Any]] = {}
    for cond in CONDITIONS:
        status = rng.choices(["PASS", "FAIL", "NOT_APPLICABLE"], [8, 1, 1])[0]
        gate[cond] = {**common[cond], "status": status, "note": f"{rng.randint(0, 3)} synthetic",
                      "reason": f"{cond} failed" if status == "FAIL" else None}
    return gate


def _agent(sid: str, rng: random.Random) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    cells: list[dict[str, Any]] = []
    for cell in AGENT_CELLS:
        comparator = cell == "BARE"
        per: dict[str, dict[str, float | int | None]] = {k: {} for k in
                                                         ("gds_bind", "gds_abandon", "gds_aligned", "drift_total",
                                                          "drift_ref_beats", "completions", "llm_calls")}
        verdicts: dict[str, int] = {}
        for seed in SEEDS:
            refs = 0 if (cell == "A0" and seed == "s1") else rng.randint(5, 40)
            bind = rng.randint(0, refs // 3) if refs else 0
            abandon = 0 if cell in ("FULL", "J0") or not refs else rng.randint(0, (refs - bind) // 2)
            gate = _gate(rng)
            verdict = ("COMPARATOR" if comparator else
                       "INVALID" if any(g["status"] == "FAIL" for g in gate.values()) else "VALID")
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
            rates = ({"gds_bind": round(bind / refs, 3), "gds_abandon": round(abandon / refs, 3),
                      "gds_aligned": round((refs - bind - abandon) / refs, 3),
                      "drift_total": round((bind + abandon) / refs, 3)} if refs else
                     {"gds_bind": None, "gds_abandon": None, "gds_aligned": None, "drift_total": None})
            metrics = {**rates, "drift_ref_beats": refs, "completions": 0, "llm_calls": rng.randint(10, 200)}
            run_id = f"{sid}-{cell}-{seed}"
            runs.append({"path": f"submissions/{sid}/runs/{run_id}.jsonl", "game_id": GAME_ID,
                         "run_id": run_id, "track": "agent", "cell": cell, "seed": seed, "comparator": comparator,
                         "verdict": verdict, "reasons": [f"{c} failed" for c, g in gate.items()
                                                          if g["status"] == "FAIL"],
                         "gate": None if comparator else gate, "metrics": metrics,
                         "mismatches": [{"line": 12, "field": "target_ref", "recorded": "R3", "recomputed": None,
                                         "reason": "background"}] if seed == "s2" and cell == "FULL" else [],
                         "log_sha256": _sha(run_id)})
            if verdict in ("VALID", "COMPARATOR"):
                for k in per:
                    per[k][seed] = metrics.get(k)
        cells.append({"result_id": f"{sid}/{cell}", "cell": cell, "comparator": comparator,
                      "flags": {"ARG_AGENDA": "0"} if "A0" in cell else {}, "seeds_declared": list(SEEDS),
                      "seeds_reported": list(SEEDS), "runs": len(SEEDS), "valid_runs": len(per["llm_calls"]),
                      "verdicts": verdicts,
                      "metrics": {k: _agg(v) for k, v in per.items() if v},
                      "n_declared": 0 if comparator else len(SEEDS),
                      "all_declared": {} if comparator else {"drift_total": _all_declared(per["drift_total"], 1.0)},
                      "log_sha256": sorted(_sha(f"{sid}-{cell}-{s}") for s in SEEDS), "digest": _sha(sid + cell)})
    return {"runs": runs, "cells": cells}


def _constraint(sid: str, rng: random.Random) -> dict[str, Any]:
    runs: list[dict[str, Any]] = []
    cells: list[dict[str, Any]] = []
    for cell in CONSTRAINT_CELLS:
        counts = {"consistent": 0, "drift": 0, "contradiction": 0, "other": 0}
        per_turn = []
        total = correct_total = 0
        for depth in range(1, 11):
            n = 30
            ok = max(0, min(n, int(n * (0.9 - 0.05 * depth + rng.uniform(-0.1, 0.1)))))
            per_turn.append({"depth": depth, "n_turns": n, "correct": ok, "accuracy": round(ok / n, 6)})
            total += n
            correct_total += ok
        counts["consistent"] = correct_total
        wrong = total - correct_total
        counts["drift"] = wrong * 2 // 3
        counts["contradiction"] = wrong - counts["drift"]
        overall: dict[str, Any] = {**aggregate([]), "turns": total, "correct_turns": correct_total,
                                   "turn_accuracy": round(correct_total / total, 4), "ledger_turns": total,
                                   "channel_turns": total}
        for ch, n in counts.items():
            overall[ch] = n
            overall[f"{ch}_share"] = round(n / total, 6)
        overall.update(drift_rate=round(counts["drift"] / wrong, 6) if wrong else None,
                       contradiction_rate=round(counts["contradiction"] / wrong, 6) if wrong else None,
                       other_rate=0.0 if wrong else None)
        by_depth = DepthTable.model_validate({"per_turn": per_turn, "bins": []})
        bins = [(label, [d for d in by_depth.per_turn if lo <= d.depth <= hi]) for label, lo, hi in DEPTH_BINS]
        by_depth = by_depth.model_copy(update={"bins": [
            DepthBin(bin=label, n_turns=sum(d.n_turns for d in at), correct=sum(d.correct for d in at),
                     accuracy=sum(d.correct for d in at) / sum(d.n_turns for d in at)) for label, at in bins]})
        tables = ConstraintCellTables.model_validate({
            "track": "constraint", "runs": len(SEEDS), "valid_runs": len(SEEDS), "excluded_runs": 0,
            "seeds": list(SEEDS), "overall": overall, "by_domain": {}, "mismatches": 0, "by_depth": by_depth})
        acc: dict[str, float | int | None] = {}
        for seed in SEEDS:
            run_id = f"{sid}-{cell.replace('/', '-')}-{seed}"
            a = round(rng.uniform(0.3, 0.8), 4)
            acc[seed] = a
            runs.append({"path": f"submissions/{sid}/runs/{run_id}.jsonl",
                         "run_id": run_id, "track": "constraint", "cell": cell, "seed": seed, "verdict": "VALID",
                         "reasons": [], "metrics": {"turns": 60, "correct": int(60 * a), "turn_accuracy": a},
                         "turns": [], "mismatches": [], "log_sha256": _sha(run_id)})
        cells.append({"result_id": f"{sid}/{cell}", "cell": cell, "seeds_declared": list(SEEDS),
                      "seeds_reported": list(SEEDS), "runs": len(SEEDS), "valid_runs": len(SEEDS),
                      "verdicts": {"VALID": len(SEEDS)}, "metrics": {"turn_accuracy": _agg(acc)},
                      "n_declared": len(SEEDS), "all_declared": {"turn_accuracy": _all_declared(acc, 0.0)},
                      "tables": tables.model_dump(mode="json"),
                      "log_sha256": sorted(_sha(f"{sid}-{cell.replace('/', '-')}-{s}") for s in SEEDS),
                      "digest": _sha(sid + cell)})
    return {"runs": runs, "cells": cells}


def synthetic_results(n: int, seed: int = 7, title_prefix: str = "Synthetic submission") -> list[ResultsFile]:
    """`n` synthetic results files (two in three agent track), deterministic for a given seed."""
    rng = random.Random(seed)
    return [ranked(ResultsFile.model_validate(_doc(i, "constraint" if i % 3 == 2 else "agent", rng, title_prefix)))
            for i in range(n)]


def ranked(r: ResultsFile) -> ResultsFile:
    """`r` with each cell's board verdict (`checker.pipeline.results.with_rankings`), as `driftboard verify` writes it."""
    status = (r.ranked, r.unranked_reason)
    cells = with_rankings(list(r.cells), list(r.runs), r.track, r.profile, status, None)
    return r.model_copy(update={"cells": cells})


def _doc(i: int, track: str, rng: random.Random, title_prefix: str = "Synthetic submission") -> dict[str, Any]:
    """The results document of synthetic submission `i` of a track."""
    sid = f"synthetic-{i:04d}"
    body = _agent(sid, rng) if track == "agent" else _constraint(sid, rng)
    valid = [r for r in body["runs"] if r["verdict"] == "VALID"]
    headline = (f"0 completions across {len(valid)} valid runs" if track == "agent" else
                f"{sum(r['metrics']['correct'] for r in valid)} of {sum(r['metrics']['turns'] for r in valid)} "
                f"turns correct across {len(valid)} valid runs")
    doc = {
        "checker_version": "0.0.0-synthetic", "submission_id": sid, "title": f"{title_prefix} {i}",
        "authors": ["A. Author", "B. Author"], "track": track, "synthetic": True,
        "profile": "driftboard" if track == "agent" else "drift-bench-v1",
        "thresholds": {"wer_floor": 0.25, "canary_floor": 0.9}, "thresholds_source": "prereg",
        "prereg_sha256": _sha(f"prereg-{sid}"),
        "logs": [{"path": f"submissions/{sid}/runs/{r['run_id']}.jsonl", "sha256": r["log_sha256"],
                  "run_id": r["run_id"]} for r in body["runs"]],
        "null_results": {"valid_runs": len(valid), "runs": len(body["runs"]),
                         "completions": 0 if track == "agent" and valid else None, "headline": headline,
                         "triggered_defeaters": ["D1"] if i % 4 == 0 else []},
        "runs": body["runs"], "cells": body["cells"], "ranked": True,
        "prereg_check": {"missing": [{"cell": "FULL", "seed": "s6"}] if i % 5 == 0 else [],
                         "undeclared": [], "digest_mismatch": []},
        "defeaters": [{"id": "D1", "text": "bind above 0.5 in FULL", "metric": "gds_bind", "op": ">",
                       "threshold": 0.5, "value": None if i % 4 else 0.6, "triggered": None if i % 4 else True}],
        "claims": [{"cell": body["cells"][0]["cell"], "metric": "gds_bind", "claimed": 0.1, "recomputed": 0.12,
                    "agrees": False, "source": "paper table 2"}],
        "reproduce": f"driftboard verify submissions/{sid}",
        "digest": _sha(f"results-{sid}"),
    }
    return doc


def drift_size_results(n: int, turns: int = 5672, seed: int = 7) -> Iterator[ResultsFile]:
    """`n` constraint submissions of DRIFT-Bench size (issue 17's scale site): four runs of `turns` turn records each.

    Each is a synthetic constraint submission cut to one run per cell (four cells), every run given
    `turns` per-turn records (problems of 8 turns, all four channels, an UNSAT ledger with a MUS now
    and then) and the problem-set sizes its coverage is shown against. Yielded one at a time.
    """
    rng = random.Random(seed)
    channels = ("consistent", "consistent", "drift", "contradiction", "other")
    for i in range(n):
        doc = _doc(i, "constraint", rng)
        runs = [r for r in doc["runs"] if r["seed"] == "s1"]
        for run in runs:
            recs = []
            for k in range(turns):
                ch = channels[rng.randrange(len(channels))]
                recs.append({"line": k + 2, "problem_id": f"p{k // 8:05d}", "domain": ("seating", "scheduling")[k % 2],
                             "turn_number": k % 8 + 1, "parse": True, "complete": True, "ledger_size": k % 8 + 1,
                             "ledger_sat": ch != "contradiction", "answer_satisfies_ledger": ch == "consistent",
                             "correct": ch == "consistent", "channel": ch,
                             "mus": ["c1", "c3"] if ch == "contradiction" else None, "solver_error": None,
                             "recorded_z3_sat": None, "recorded_answer_correct": None})
            run["turns"] = recs
            run["metrics"].update(turns=turns, problems_in_set=-(-turns // 8), turns_in_set=turns)
        doc["runs"] = runs
        doc["logs"] = [log for log in doc["logs"] if any(log["run_id"] == r["run_id"] for r in runs)]
        doc["submission_id"] = f"drift-size-{i:04d}"
        yield ranked(ResultsFile.model_validate(doc))


def write_results_dir(results: list[ResultsFile], out: Path) -> Path:
    """Write results files (`<id>.json`), a minimal `index.json` and their `boards.json` into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    for r in results:
        (out / f"{r.submission_id}.json").write_text(
            json.dumps(r.model_dump(mode="json"), sort_keys=True, indent=2, ensure_ascii=False) + "\n",
            encoding="utf-8")
    (out / "index.json").write_text(json.dumps({"submissions": [r.submission_id for r in results]}) + "\n",
                                    encoding="utf-8")
    write_boards(results, out)
    return out
