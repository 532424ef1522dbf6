"""`driftboard bench validate`: stream-validate a large run log; compare with a bare json.loads loop.

Both measurements run in fresh child processes (so peak RSS is the validator's own), on the
same file, in the same run, alternating, best of two each. Two logs of the same events: one in
canonical lines (what `RunLogWriter` writes: the validator's fast path; the headline figures), one
written with `json.dumps` (defaults left out: every line misses the fast path, which gives up after
`checker.stages.validate.FAST_PATH_GIVE_UP` lines; reported on its own as `slow_path_*`).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import click

BASELINE = """
import json, resource, sys, time
t = time.perf_counter()
n = 0
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        json.loads(line)
        n += 1
dt = time.perf_counter() - t
print(dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, n)
"""

VALIDATE = """
import resource, sys, time
from pathlib import Path
from checker.stages.validate import ValidationReport, validate_run_file
t = time.perf_counter()
report = ValidationReport()
validate_run_file(Path(sys.argv[1]), "bench.jsonl", report)
dt = time.perf_counter() - t
assert not report.findings, [f.render() for f in report.findings[:5]]
print(dt, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, report.lines)
"""


def generate(path: Path, size_mb: int, canonical: bool = True) -> int:
    """Write a valid agent run log of at least `size_mb` MB (canonical lines, or `json.dumps`'s); returns its line count."""
    from checker.format.schema.events import canonical_line, validate_event

    target = size_mb * 1_000_000
    run_id = "bench-validate-run"
    prev = hashlib.sha256(run_id.encode()).hexdigest()
    written = 0
    seq = 0

    def emit(fh, obj: dict) -> None:  # type: ignore[no-untyped-def]
        nonlocal prev, written, seq
        event = {"seq": seq, "prev": prev, **obj}
        line = (canonical_line(validate_event(event)) if canonical
                else json.dumps(event, separators=(",", ":")).encode())
        fh.write(line + b"\n")
        prev = hashlib.sha256(line).hexdigest()
        written += len(line) + 1
        seq += 1

    with path.open("wb") as fh:
        emit(fh, {"type": "run_start", "format_version": "1.0", "run_id": run_id, "submission_id": "bench",
                  "track": "agent", "cell": "FULL", "seed": "s1", "backbone": "synthetic",
                  "prereg_sha256": "0" * 64, "started_at": "2026-11-01T00:00:00Z"})
        turn = 0
        while written < target:
            turn += 1
            emit(fh, {"type": "llm_call", "turn": turn, "organ": "OBSERVER", "prompt_tokens": 900 + turn % 97,
                      "completion_tokens": 120, "render_tokens": 800, "ops_accepted": 3})
            emit(fh, {"type": "beat", "turn": turn, "action": "ACTION6", "params": {"x": turn % 64, "y": 7},
                      "target_ref": f"R{turn % 50:04d}", "step_id": f"C{turn % 9:04d}-S1", "drift_ref": "LIVE",
                      "source_stamp": "COMMITMENT_STEP", "render_tokens": 400, "match": 1})
            emit(fh, {"type": "receipt", "turn": turn, "action": "ACTION6", "target_ref": f"R{turn % 50:04d}",
                      "predicted": {"cells_changed": "nonzero"}, "observed": {"cells_changed": 4},
                      "match": 1, "predictor_id": f"RU{turn % 13:04d}", "predictor_kind": "RULE"})
        emit(fh, {"type": "run_end", "status": "COMPLETED"})
    return seq


def _child(script: str, path: Path) -> tuple[float, float, int]:
    out = subprocess.run([sys.executable, "-c", script, str(path)], check=True, capture_output=True, text=True)
    dt, rss_kb, lines = out.stdout.split()
    return float(dt), int(rss_kb) / 1024, int(lines)


def run(size_mb: int, workdir: Path | None) -> int:
    """Generate, measure, print; the last line carries the figures."""
    figures = []
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        for canonical in (True, False):
            path = Path(tmp) / ("canonical.jsonl" if canonical else "json-dumps.jsonl")
            lines = generate(path, size_mb, canonical)
            mb = path.stat().st_size / 1_000_000
            click.echo(f"generated {path.name}: {mb:.1f} MB, {lines} lines"
                       + ("" if canonical else " (not canonical: the slow path)"))
            base, val, rss = [], [], []
            for _ in range(2):
                b = _child(BASELINE, path)
                v = _child(VALIDATE, path)
                base.append(b[0])
                val.append(v[0])
                rss.append(v[1])
                click.echo(f"json.loads loop {b[0]:.2f} s ({b[1]:.0f} MB peak); validate {v[0]:.2f} s ({v[1]:.0f} MB peak)")
            t_base, t_val = min(base), min(val)
            figures.append((mb / t_val, t_base / t_val, max(rss)))
    (fast_mb, fast_ratio, fast_rss), (slow_mb, slow_ratio, slow_rss) = figures
    click.echo(f"mb_per_s={fast_mb:.1f} ratio_vs_json_loads={fast_ratio:.2f} peak_rss_mb={max(fast_rss, slow_rss):.0f} "
               f"slow_path_mb_per_s={slow_mb:.1f} slow_path_ratio_vs_json_loads={slow_ratio:.2f}")
    return 0
