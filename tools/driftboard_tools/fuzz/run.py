"""`driftboard bench fuzz`: hypothesis-driven fuzzing of every path that reads untrusted input.

Not part of CI (it runs for minutes). The time budget is split evenly across the chosen targets
(`driftboard_tools.fuzz.targets.TARGETS`); each target draws cases from hypothesis in rounds of
`ROUND` examples (generation only: no shrinking, no example database) with seeds derived from
`--seed`, and executes them until its share of the time is used up.

A crash (see `driftboard_tools.fuzz.targets`) is counted, printed once per signature and saved, up to
`KEEP_PER_SIGNATURE` cases per signature, as `<crashes>/<target>-<signature>-<n>/` holding
`case.json` (parameters, note, error, traceback) and `files/`. `--replay DIR` runs saved cases
again. Per target the last lines report `inputs`, `inputs_per_s`, `distinct_findings` (finding
messages with names and numbers blanked, as `kind_of` does) and `crashes`; the final line sums them.
Exit code 0 when nothing crashed, 1 otherwise.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from checker.format.errors import UsageError

ROUND = 500
"""Examples per hypothesis round (a fresh seed each round keeps the engine's memory bounded)."""
KEEP_PER_SIGNATURE = 3
DEFAULT_CRASHES = Path(tempfile.gettempdir()) / "driftboard-fuzz-crashes"


class _TimeUp(BaseException):
    """Raised inside a hypothesis round to end it (a BaseException, so hypothesis does not catch it)."""


@dataclass
class TargetStats:
    """What one target did."""

    name: str
    inputs: int = 0
    seconds: float = 0.0
    kinds: set[str] = field(default_factory=set)
    crashes: int = 0
    signatures: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        """The `key=value` figures."""
        rate = self.inputs / self.seconds if self.seconds else 0.0
        return (f"target={self.name} inputs={self.inputs} inputs_per_s={rate:.1f} "
                f"distinct_findings={len(self.kinds)} crashes={self.crashes} crash_signatures={len(self.signatures)}")


def signature(exc: BaseException) -> str:
    """Exception type plus the innermost frame inside `checker/` (where the crash happened)."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/checker/" in f.filename.replace("\\", "/")]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    head = type(exc).__name__
    if type(exc).__name__ == "ContractViolation":
        head += ":" + str(exc).split(":", 1)[0][:40]
    return f"{head}@{where}"


def save_case(crashes: Path, target: str, sig: str, n: int, case: Any, exc: BaseException) -> Path:
    """Write a crashing case for `--replay`."""
    slug = hashlib.sha256(sig.encode()).hexdigest()[:10]
    folder = crashes / f"{target}-{slug}-{n}"
    files = folder / "files"
    files.mkdir(parents=True, exist_ok=True)
    for rel, data in case.files.items():
        (files / rel).parent.mkdir(parents=True, exist_ok=True)
        (files / rel).write_bytes(data)
    doc = {"target": target, "signature": sig, "params": case.params, "note": case.note, "error": repr(exc)[:2000],
           "traceback": "".join(traceback.format_exception(exc)), "files": sorted(case.files)}
    (folder / "case.json").write_text(json.dumps(doc, indent=2, default=repr), encoding="utf-8")
    return folder


def fuzz_target(target: Any, seconds: float, crashes: Path, seed: int) -> TargetStats:
    """Run one target for `seconds`; returns its figures."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hseed

    stats = TargetStats(target.name)
    strategy = target.strategy()
    start = time.monotonic()
    deadline = start + seconds

    @settings(database=None, deadline=None, max_examples=ROUND, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, derandomize=False)
    @given(strategy)
    def body(case: Any) -> None:
        if time.monotonic() >= deadline:
            raise _TimeUp
        stats.inputs += 1
        with tempfile.TemporaryDirectory(prefix="driftboard-fuzz-") as tmp:
            try:
                stats.kinds |= target.execute(case, Path(tmp))
            except Exception as exc:  # every escaping exception is a crash, recorded and kept for replay
                stats.crashes += 1
                sig = signature(exc)
                n = stats.signatures.get(sig, 0)
                stats.signatures[sig] = n + 1
                if n < KEEP_PER_SIGNATURE:
                    where = save_case(crashes, target.name, sig, n, case, exc)
                    if n == 0:
                        click.echo(f"crash target={target.name} signature={sig} saved={where}")

    rnd = 0
    try:
        while time.monotonic() < deadline:
            hseed(seed * 100_003 + rnd)(body)()
            rnd += 1
    except _TimeUp:
        pass
    stats.seconds = time.monotonic() - start
    return stats


def replay(path: Path) -> int:
    """Run saved crash cases again (a case folder or a folder of them); 1 if any still crashes."""
    from driftboard_tools.fuzz.targets import TARGETS, Case

    folders = [path] if (path / "case.json").is_file() else sorted(p.parent for p in path.glob("*/case.json"))
    if not folders:
        raise UsageError(f"{path}: no saved case (case.json) found")
    failed = 0
    for folder in folders:
        doc = json.loads((folder / "case.json").read_text(encoding="utf-8"))
        files = {rel: (folder / "files" / rel).read_bytes() for rel in doc["files"]}
        target = TARGETS[doc["target"]]()
        with tempfile.TemporaryDirectory(prefix="driftboard-replay-") as tmp:
            try:
                kinds = target.execute(Case(files, doc["params"], doc.get("note", "")), Path(tmp))
            except Exception as exc:
                failed += 1
                click.echo(f"CRASH {folder.name}: {signature(exc)}\n{''.join(traceback.format_exception(exc))}")
                continue
        click.echo(f"ok {folder.name}: {', '.join(sorted(kinds))[:200]}")
    click.echo(f"replayed={len(folders)} still_crashing={failed}")
    return 1 if failed else 0


def _import_everything() -> None:
    """Import every checker module now, so the whole run uses one snapshot of the code."""
    import importlib
    import pkgutil

    import checker

    for mod in pkgutil.walk_packages(checker.__path__, "checker."):
        if not mod.name.endswith("__main__"):
            importlib.import_module(mod.name)


def run(seconds: float, targets: list[str], crashes: Path | None, seed: int, replay_path: Path | None = None) -> int:
    """Fuzz the chosen targets (all when empty) for `seconds` in total; print figures; 0 if no crash.

    Raises:
        UsageError: hypothesis is not installed, an unknown target, or no seeds (not a source checkout).
    """
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        raise UsageError("driftboard bench fuzz needs hypothesis: pip install 'driftboard[test]'") from None
    from driftboard_tools.fuzz.targets import TARGETS

    if replay_path is not None:
        return replay(replay_path)
    names = targets or list(TARGETS)
    unknown = [n for n in names if n not in TARGETS]
    if unknown:
        raise UsageError(f"unknown fuzz target(s) {', '.join(unknown)}; choose from {', '.join(TARGETS)}")
    if seconds <= 0:
        raise UsageError("--seconds must be positive")
    _import_everything()
    crash_dir = crashes or DEFAULT_CRASHES
    share = seconds / len(names)
    click.echo(f"fuzzing {len(names)} target(s) for {share:.0f} s each, seed {seed}; crashes go to {crash_dir}")
    all_stats = []
    for name in names:
        target = TARGETS[name]()
        click.echo(f"-- {name}: {target.description}")
        stats = fuzz_target(target, share, crash_dir, seed)
        all_stats.append(stats)
        for sig, count in sorted(stats.signatures.items()):
            click.echo(f"   crash signature {sig}: {count} input(s)")
        click.echo(stats.line())
    total = sum(s.inputs for s in all_stats)
    crashed = sum(s.crashes for s in all_stats)
    wall = sum(s.seconds for s in all_stats)
    click.echo(f"fuzz_seconds={wall:.0f} inputs={total} inputs_per_s={total / wall if wall else 0:.1f} "
               f"distinct_findings={sum(len(s.kinds) for s in all_stats)} crashes={crashed}")
    return 1 if crashed else 0
