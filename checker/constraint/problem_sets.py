"""Problem sets loaded on demand: only the folders a scored run needs are read and validated.

`verify` used to load every `--problems` path (every sub-folder of `problems/`) before doing
anything else. With the official DRIFT-Bench set shipped (1,020 problems, 7,110 gold turns, each
re-checked with Z3) that costs about a second on every call, most of them cache hits or agent-only.
`LazyProblemSets` is the same mapping (digest -> `ProblemSet`) as `load_problem_sets`, filled
only when asked:

* the cache key uses `fingerprint`: the SHA-256 over every path's name and every problem file's
  relative path and bytes (no parsing), so an unchanged tree costs one read and hash of the files;
* `get(digest)` / `[digest]` loads the paths one at a time, smallest first (by total file size),
  until one of them provides the digest; a digest no path provides loads them all;
* iterating (the "loaded: ..." list of a missing-set message) loads them all.

Results are unchanged: a set is found by the digest of its validated contents, exactly as before.
What changes is when an invalid problem file is reported: when a run needs the sets (or on
iteration), not before any submission is read. Both report it as a usage error (exit 2).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from checker.format.errors import UsageError

if TYPE_CHECKING:  # the loader imports Z3: only a run that needs a set pays for it
    from checker.constraint.problems import ProblemSet


def _files(root: Path) -> list[Path]:
    if not root.exists():
        raise UsageError(f"{root}: no such file or directory")
    if root.is_dir():
        return sorted(p for p in root.rglob("*.json") if p.is_file())
    return [root]


class LazyProblemSets(Mapping[str, "ProblemSet"]):
    """Digest -> problem set over `paths`, each path read and validated on first need."""

    def __init__(self, paths: Sequence[Path]) -> None:
        """Remember the paths (they must exist: a missing one is a usage error now, as before)."""
        self._pending: list[Path] = []
        self._sizes: dict[Path, int] = {}
        fingerprint = hashlib.sha256()
        for root in paths:
            files = _files(root)
            fingerprint.update(f"{root.name or root.as_posix()}\0{len(files)}\0".encode())
            size = 0
            for f in files:
                data = f.read_bytes()
                size += len(data)
                rel = f.relative_to(root).as_posix() if root.is_dir() else f.name
                fingerprint.update(f"{rel}\0{len(data)}\0".encode() + hashlib.sha256(data).digest())
            self._pending.append(root)
            self._sizes[root] = size
        # smallest first: a run of a small set never waits for a large one it does not use
        self._pending.sort(key=lambda p: (self._sizes[p], p.as_posix()))
        self._sets: dict[str, ProblemSet] = {}
        self._fingerprint = fingerprint.hexdigest()  # a string: the mapping is pickled to worker processes

    @property
    def fingerprint(self) -> str:
        """SHA-256 over the paths' names, files and bytes: equal fingerprints, equal sets."""
        return self._fingerprint

    def _load_next(self) -> None:
        from checker.constraint.problems import load_problem_sets

        root = self._pending.pop(0)
        for digest, ps in load_problem_sets([root]).items():
            self._sets.setdefault(digest, ps)

    def _load_all(self) -> None:
        while self._pending:
            self._load_next()

    def __getitem__(self, digest: str) -> ProblemSet:
        """The set with this digest, loading paths until one provides it.

        Raises:
            KeyError: no path provides it.
            UsageError: a problem file that had to be read is invalid.
        """
        while digest not in self._sets and self._pending:
            self._load_next()
        return self._sets[digest]

    def __iter__(self) -> Iterator[str]:
        """Every digest (loads every path), in load order."""
        self._load_all()
        return iter(self._sets)

    def __len__(self) -> int:
        """Number of sets (loads every path)."""
        self._load_all()
        return len(self._sets)

    @property
    def loaded(self) -> list[str]:
        """Names of the paths read so far (for tests and benchmarks)."""
        return sorted({ps.name.split(":")[0] for ps in self._sets.values()})

