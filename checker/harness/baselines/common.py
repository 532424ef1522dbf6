"""Shared pieces of the baseline generators: fixed provenance, YAML and submission writing.

Everything here is deterministic: no wall clock, no git state, no environment. The harness
commit written into every baseline manifest is `GENERATOR_COMMIT`, a fixed identifier of the
baseline generator's version (not the repository's live commit, which would change the bytes
on every commit); bump it whenever the generator's output changes on purpose.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml

from checker import FORMAT_VERSION
from checker.format.logio import RunLogWriter

GENERATOR_NAME = "driftboard baselines"
GENERATOR_VERSION = "1.0"
GENERATOR_COMMIT = "d81f7b0a5e11ce01"
"""The checker version's baseline generator (fixed hex id; bumped when the output changes on purpose)."""
LICENSE = "CC-BY-4.0"
AUTHOR = {"name": "Driftboard maintainers", "affiliation": "Driftboard"}
CONTACT = "the Driftboard issue tracker"
BASE_DATE = "2026-01-01"

Emit = Callable[[dict[str, object]], object]
"""Writes one event from its fields (`RunLogWriter.write`, which validates them)."""
T = TypeVar("T")


def run_sync(coro: Coroutine[Any, Any, T]) -> T:
    """The result of a coroutine that never waits (scripted organs, a replayed log), without an event loop.

    The agent's organ hooks are coroutines so that a model can be awaited; the scripted stand-ins
    and a replay of recorded outputs never suspend, so the episode runs to its end on the first step.

    Raises:
        RuntimeError: the coroutine waited for something (it needs an event loop).
    """
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError("the coroutine waited for something: run it in an event loop")


class _NoAliasDumper(yaml.SafeDumper):
    """A safe dumper that never writes anchors/aliases (the loader refuses them)."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def dump_yaml(data: Mapping[str, object]) -> bytes:
    """Deterministic YAML bytes (insertion order, no aliases, UTF-8)."""
    text = yaml.dump(data, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True, width=100,
                     default_flow_style=False)
    return text.encode("utf-8")


def started_at(day: int, minute: int = 0) -> str:
    """A fixed ISO 8601 start time derived from run numbers (never the wall clock)."""
    return f"{BASE_DATE[:8]}{1 + day % 28:02d}T{minute // 60 % 24:02d}:{minute % 60:02d}:00Z"


def harness() -> dict[str, str]:
    """The `harness` block of every baseline manifest."""
    return {"name": GENERATOR_NAME, "version": GENERATOR_VERSION, "commit": GENERATOR_COMMIT}


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256."""
    return hashlib.sha256(data).hexdigest()


class SubmissionWriter:
    """Writes one submission folder: prereg first (its digest goes into every run header)."""

    def __init__(self, out: Path, submission_id: str, prereg: Mapping[str, object]) -> None:
        self.root = out / submission_id
        self.submission_id = submission_id
        self.prereg_bytes = dump_yaml(prereg)
        self.prereg_sha256 = sha256_hex(self.prereg_bytes)
        self.files: list[str] = []
        self.root.mkdir(parents=True, exist_ok=True)
        runs = self.root / "runs"
        if runs.exists():
            for old in sorted(p for p in runs.iterdir() if p.name.endswith((".jsonl", ".jsonl.gz", ".jsonl.zst"))):
                old.unlink()
        (self.root / "prereg.yaml").write_bytes(self.prereg_bytes)

    def run(self, file: str, run_start: Mapping[str, object], body: Callable[[Emit], None],
            status: str = "COMPLETED", reason: str | None = "horizon reached") -> None:
        """Write one run log through `RunLogWriter`; `body(emit)` writes the events."""
        header = {"format_version": FORMAT_VERSION, "submission_id": self.submission_id,
                  "prereg_sha256": self.prereg_sha256, **run_start}
        path = self.root / file
        if path.exists():
            path.unlink()
        with RunLogWriter(path, header) as log:
            body(log.write)
            log.end(status, reason)
        self.files.append(file)

    def manifest(self, fields: Mapping[str, object]) -> None:
        """Write `submission.yaml` listing every run written so far."""
        data = {"format_version": FORMAT_VERSION, "id": self.submission_id, **fields, "files": list(self.files)}
        (self.root / "submission.yaml").write_bytes(dump_yaml(data))


__all__ = [
    "AUTHOR", "CONTACT", "GENERATOR_COMMIT", "GENERATOR_NAME", "GENERATOR_VERSION", "LICENSE", "Emit", "SubmissionWriter",
    "dump_yaml", "harness", "run_sync", "started_at",
]
