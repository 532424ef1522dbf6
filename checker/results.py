"""Results stage: turn a verified submission into its results file; cache, shard and merge them.

One results file per submission, `<results dir>/<submission-id>.json`, plus `index.json`.
Files are canonical JSON (sorted keys, 2-space indent, no wall-clock time), so the same inputs
give the same bytes, and `driftboard merge` of shard outputs equals a single run's output.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

from checker import __version__
from checker.aggregate import COUNTED_VERDICTS, aggregate_metrics, counted_runs, efficiency, is_number, seed_labels
from checker.errors import DriftboardError, UsageError
from checker.preregistration import (
    check_claims,
    check_declared,
    commit_order,
    evaluate_defeaters,
    evaluate_predictions,
)
from checker.report import plural
from checker.results_model import CellResult, LogDigest, NullResults, PreregCheck, ResultsFile

INDEX = "index.json"


def canonical_json(obj: Any) -> str:
    """The one serialisation of results: sorted keys, 2-space indent, UTF-8, trailing newline."""
    return json.dumps(obj, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def content_digest(obj: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of `obj` without its `digest` field."""
    body = {k: v for k, v in obj.items() if k != "digest"}
    return hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()


def combined_log_digest(digests: list[str]) -> str:
    """One digest over a set of logs: SHA-256 of their sorted SHA-256s, one per line."""
    return hashlib.sha256("".join(f"{d}\n" for d in sorted(digests)).encode()).hexdigest()


def pooled_rates(runs: list[dict[str, Any]]) -> dict[str, dict[str, list[float]]]:
    """Metric -> seed label -> [numerator, denominator], from the `rates` record of each counted run.

    Labels are `seed_labels` of the counted runs, the same keys `aggregate_metrics` uses.
    """
    out: dict[str, dict[str, list[float]]] = {}
    counted = counted_runs(runs)
    for run, label in zip(counted, seed_labels(counted), strict=True):
        for metric, pair in (run.get("rates") or {}).items():
            if isinstance(pair, list | tuple) and len(pair) == 2 and all(is_number(x) for x in pair):
                out.setdefault(metric, {})[label] = [float(pair[0]), float(pair[1])]
    return out


def build_cells(submission_id: str, prereg: Any, runs: list[dict[str, Any]],
                track_tables: dict[str, Any]) -> list[CellResult]:
    """One `CellResult` per declared or reported cell, in name order."""
    names = set(prereg.cells) if prereg is not None else set()
    names |= {str(r["cell"]) for r in runs if r.get("cell") is not None}
    cells = []
    for name in sorted(names):
        spec = prereg.cells.get(name) if prereg is not None else None
        cell_runs = [r for r in runs if r.get("cell") == name]
        comparator = (bool(spec.comparator) if spec is not None
                      else bool(cell_runs) and all(r.get("comparator") for r in cell_runs))
        # ungated COMPARATOR runs count only in a comparator cell, never beside gated runs
        counted = [r for r in cell_runs if r.get("verdict") == "VALID"
                   or (comparator and r.get("verdict") in COUNTED_VERDICTS)]
        for r in counted:
            if r.get("track", "agent") == "agent":
                r.setdefault("metrics", {}).update(efficiency(r))
        result_id = f"{submission_id}/{name}"
        verdicts = Counter(str(r.get("verdict")) for r in cell_runs)
        cell = {
            "result_id": result_id,
            "cell": name,
            "flags": dict(spec.flags) if spec is not None else {},
            "comparator": comparator,
            "seeds_declared": list(spec.seeds) if spec is not None else [],
            "seeds_reported": sorted(str(r.get("seed")) for r in cell_runs),
            "runs": len(cell_runs),
            "valid_runs": len(counted),
            "verdicts": dict(sorted(verdicts.items())),
            "metrics": {k: v.model_dump() for k, v in
                        aggregate_metrics(result_id, counted, pooled_rates(counted)).items()},
            "tables": track_tables.get(name, {}),
            "log_sha256": sorted(str(r["log_sha256"]) for r in cell_runs if r.get("log_sha256")),
        }
        cell["digest"] = content_digest(cell)
        cells.append(CellResult.model_validate(cell))
    return cells


def null_results(track: str, runs: list[dict[str, Any]], triggered: list[str]) -> NullResults:
    """Completions first: "0 completions across N valid runs" (agent) or correct turns (constraint)."""
    valid = [r for r in runs if r.get("verdict") == "VALID"]
    if track == "agent":
        completions = sum(int((r.get("metrics") or {}).get("completions") or 0) for r in valid)
        headline = f"{plural(completions, 'completion')} across {plural(len(valid), 'valid run')}"
        if not valid:
            headline = f"no valid runs ({len(runs)} reported): no completion can be counted"
        return NullResults(valid_runs=len(valid), runs=len(runs), completions=completions if valid else None,
                           headline=headline, triggered_defeaters=triggered)
    correct = sum(int((r.get("metrics") or {}).get("correct_turns") or 0) for r in valid)
    turns = sum(int((r.get("metrics") or {}).get("turns") or 0) for r in valid)
    headline = f"{correct} of {plural(turns, 'turn')} correct across {plural(len(valid), 'valid run')}"
    return NullResults(valid_runs=len(valid), runs=len(runs), completions=None, headline=headline,
                       triggered_defeaters=triggered)


def build_results(sub: Any, findings: list[dict[str, Any]], root: Path | None) -> ResultsFile:
    """Assemble a `ResultsFile` from a verified submission (`checker.verify.SubmissionResult`)."""
    from checker.verify import scorer_for

    manifest, prereg = sub.manifest, sub.prereg
    if manifest is None:
        raise DriftboardError(f"{sub.path}: cannot write results without a valid submission.yaml")
    runs = sorted(sub.runs, key=lambda r: str(r.get("path")))
    scored = [r for r in runs if r.get("verdict") != "MALFORMED"]
    tables: dict[str, Any] = scorer_for(manifest.track).cell_tables(scored) if scored else {}
    cells = build_cells(manifest.id, prereg, runs, tables)
    by_name = {c.cell: c for c in cells}
    defeaters = evaluate_defeaters(prereg, runs)
    prereg_path = Path(sub.path) / "prereg.yaml"
    prereg_sha = sub.prereg_sha256  # as the load stage read it: never re-read through a link or a FIFO
    check = check_declared(prereg, runs, prereg_sha)
    if root is not None and prereg_sha is not None:
        order = commit_order(root, prereg_path, [Path(str(r["path"])) for r in runs if r.get("path")])
        check = PreregCheck(**{**check.model_dump(), "commit_order": order})
    thresholds = prereg.thresholds.model_dump() if prereg is not None else {}
    data: dict[str, Any] = {
        "checker_version": __version__,
        "submission_id": manifest.id,
        "title": manifest.title,
        "authors": [a.name for a in manifest.authors],
        "track": manifest.track,
        "synthetic": manifest.synthetic,
        "prereg_written_after_runs": prereg is not None and prereg.written_after_runs,
        "profile": sub.profile,
        "thresholds": thresholds,
        "thresholds_source": "prereg" if prereg is not None and "thresholds" in prereg.model_fields_set else "defaults",
        "prereg_sha256": prereg_sha,
        "problem_sets": sorted({_problem_set_digest(r["problem_set"]) for r in runs if r.get("problem_set")}),
        "logs": [LogDigest(path=str(r["path"]), sha256=str(r["log_sha256"]), run_id=r.get("run_id")).model_dump()
                 for r in runs if r.get("log_sha256")],
        "null_results": null_results(manifest.track, runs, [d.id for d in defeaters if d.triggered]).model_dump(),
        "runs": runs,
        "cells": [c.model_dump() for c in cells],
        "prereg_check": check.model_dump(),
        "defeaters": [d.model_dump() for d in defeaters],
        "predictions": evaluate_predictions(prereg, by_name),
        "claims": [c.model_dump() for c in check_claims(manifest, by_name, runs)],
        "findings": findings,
        "manifest": manifest.model_dump(mode="json"),
        "reproduce": f"driftboard verify {sub.path}",
    }
    # normalise through the model (defaults filled in) and canonical JSON, then digest
    data = json.loads(canonical_json(ResultsFile.model_validate(data).model_dump(mode="json")))
    data["digest"] = content_digest(data)
    return ResultsFile.model_validate(data)


def results_problems(results: ResultsFile) -> list[str]:
    """What makes verification fail beyond format errors: claims, undeclared runs, digest, order."""
    out = [f"claim {c.cell}/{c.metric}: claimed {c.claimed}, recomputed {c.recomputed}"
           for c in results.claims if not c.agrees]
    out += [f"undeclared run {u['run_id']} (cell {u['cell']}, seed {u['seed']})" for u in results.prereg_check.undeclared]
    repeated = Counter((str(r.get("cell")), str(r.get("seed"))) for r in results.runs if r.get("cell") is not None)
    out += [f"cell {cell}, seed {seed}: {n} runs carry this seed label (a seed is reported once)"
            for (cell, seed), n in sorted(repeated.items()) if n > 1]
    out += [f"run {m['run_id']}: prereg digest in the header differs from prereg.yaml"
            for m in results.prereg_check.digest_mismatch]
    if results.prereg_check.commit_order.get("status") == "violated":
        out.append(str(results.prereg_check.commit_order.get("detail")))
    return out


def _problem_set_digest(ref: Any) -> str:
    """A run's problem set as its digest (scorers record either the digest or {name, digest})."""
    return str(ref.get("digest")) if isinstance(ref, dict) else str(ref)


def write_results(results: ResultsFile, out: Path) -> Path:
    """Write `<out>/<submission-id>.json` (canonical bytes)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{results.submission_id}.json"
    path.write_text(canonical_json(results.model_dump(mode="json")), encoding="utf-8")
    return path


def read_results(path: Path) -> ResultsFile:
    """Read one results file.

    Raises:
        UsageError: the file is missing or not a results file.
    """
    try:
        return ResultsFile.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"{path}: cannot read results ({exc.strerror}); run `driftboard verify` first") from None
    except ValueError as exc:
        raise UsageError(f"{path}: not a Driftboard results file ({str(exc).splitlines()[0]})") from None


def write_index(out: Path) -> Path:
    """`index.json`: one summary row per results file in `out`, derived only from those files."""
    rows = []
    for path in sorted(out.glob("*.json")):
        if path.name == INDEX or path.name.startswith("shard-"):
            continue
        r = read_results(path)
        rows.append({
            "submission_id": r.submission_id, "title": r.title, "track": r.track, "synthetic": r.synthetic,
            "prereg_written_after_runs": r.prereg_written_after_runs,
            "profile": r.profile, "headline": r.null_results.headline, "valid_runs": r.null_results.valid_runs,
            "runs": r.null_results.runs, "completions": r.null_results.completions,
            "cells": [c.cell for c in r.cells], "digest": r.digest, "file": path.name,
        })
    index = {"results_format": "1.0", "checker_version": __version__, "submissions": rows}
    index["digest"] = content_digest(index)
    path = out / INDEX
    path.write_text(canonical_json(index), encoding="utf-8")
    return path


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """`k/n` -> (k, n) with 1 <= k <= n.

    Raises:
        UsageError: malformed shard specification.
    """
    if text is None:
        return None
    try:
        k_s, n_s = text.split("/")
        k, n = int(k_s), int(n_s)
    except ValueError:
        raise UsageError(f"--shard must look like K/N (e.g. 1/4), not {text!r}") from None
    if not 1 <= k <= n:
        raise UsageError(f"--shard {text}: K must be between 1 and N")
    return k, n


def in_shard(index: int, shard: tuple[int, int] | None) -> bool:
    """Submission number `index` (0-based, in sorted order) belongs to shard k of n."""
    return shard is None or index % shard[1] == shard[0] - 1


def merge_command(shards: list[Path], out: Path) -> int:
    """`driftboard merge`: copy every shard's results files into `out`, then write the index.

    Raises:
        UsageError: a shard folder is missing, or two shards disagree on a submission.
    """
    seen: dict[str, Path] = {}
    for shard in shards:
        if not shard.is_dir():
            raise UsageError(f"{shard}: no such results folder")
        for path in sorted(shard.glob("*.json")):
            if path.name == INDEX or path.name.startswith("shard-"):
                continue
            read_results(path)
            if path.name in seen and seen[path.name].read_bytes() != path.read_bytes():
                raise UsageError(f"{path.name}: shards {seen[path.name].parent} and {shard} disagree")
            seen[path.name] = path
    out.mkdir(parents=True, exist_ok=True)
    for name, path in sorted(seen.items()):
        if (out / name).resolve() != path.resolve():
            shutil.copyfile(path, out / name)
    write_index(out)
    print(f"merged {len(seen)} results files from {len(shards)} shards into {out}")
    return 0


def cache_key(parts: dict[str, Any]) -> str:
    """Key of the verification cache: digests of every input plus the checker's version and code."""
    return hashlib.sha256(
        canonical_json({"checker_version": __version__, "checker_code": checker_code_digest(), **parts}).encode()
    ).hexdigest()


_CODE_DIGEST: list[str] = []


def checker_code_digest() -> str:
    """SHA-256 over the checker's own Python sources, so a code change never reuses stale results."""
    if not _CODE_DIGEST:
        package = Path(__file__).resolve().parent
        h = hashlib.sha256()
        for path in sorted(package.rglob("*.py")):
            h.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
        _CODE_DIGEST.append(h.hexdigest())
    return _CODE_DIGEST[0]


def ensure_results(submissions: Path, results: Path) -> None:
    """Make sure `results` holds verified results for every submission (verifying with the cache)."""
    from checker.verify import verify_to_results

    verify_to_results([submissions], results, profile=None, problem_dirs=None, jobs=1, shard=None, use_cache=True)
