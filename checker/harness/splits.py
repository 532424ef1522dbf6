"""The lite split of DRIFT-Bench's test set: a fixed, stratified, seeded sample a ranked run can afford.

Procedure (documented on the constraint track page and in `problems/drift-bench-v1-lite/README.md`):

1. Read every problem of the source split (`problems/drift-bench-v1/test/*.json`, 816 problems).
2. Group them into strata by (domain, dialogue depth = number of turns): 3 domains x 7 depths (4-10).
3. In each stratum, sort the problem ids, shuffle them with Python's `random.Random` seeded by the
   first 8 bytes (big-endian) of SHA-256(`"drift-bench-v1-lite:<domain>:<depth>"`), and keep the
   first `PER_STRATUM` (6): 126 problems in all, every domain and depth equally represented.
4. Copy the chosen files byte for byte (MIT, with the licence and citation beside them).

The result is a problem set of its own, named by the digest of its problems like any other; a run
that declares it and covers it whole ranks on the lite board, beside (never mixed with) the full
split's board. `python -m checker.harness.splits` regenerates the folder; a test checks it is
byte-identical to the committed one.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sys
from pathlib import Path

PER_STRATUM = 6
SEED_PREFIX = "drift-bench-v1-lite"
REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "problems" / "drift-bench-v1" / "test"
TARGET = REPO / "problems" / "drift-bench-v1-lite"
KEEP = ("LICENSE", "CITATION.cff")
"""Files of the source set copied beside the sample (its licence and citation)."""


def stratum_seed(domain: str, depth: int) -> int:
    """The seed of one stratum's shuffle (step 3 of the procedure)."""
    return int.from_bytes(hashlib.sha256(f"{SEED_PREFIX}:{domain}:{depth}".encode()).digest()[:8], "big")


def choose(source: Path, per_stratum: int = PER_STRATUM) -> list[Path]:
    """The problem files of the lite split, sorted by name."""
    strata: dict[tuple[str, int], list[tuple[str, Path]]] = {}
    for path in sorted(source.glob("*.json")):
        problem = json.loads(path.read_text(encoding="utf-8"))
        strata.setdefault((problem["domain"], len(problem["turns"])), []).append((problem["problem_id"], path))
    chosen: list[Path] = []
    for (domain, depth), members in sorted(strata.items()):
        ordered = sorted(members)
        random.Random(stratum_seed(domain, depth)).shuffle(ordered)
        chosen.extend(path for _, path in ordered[:per_stratum])
    return sorted(chosen, key=lambda p: p.name)


def write_lite(source: Path = SOURCE, target: Path = TARGET) -> list[Path]:
    """Write the lite split into `target` (its problem files, licence and citation); the files written."""
    target.mkdir(parents=True, exist_ok=True)
    problems = target / "test"
    problems.mkdir(exist_ok=True)
    written = []
    for path in choose(source):
        shutil.copyfile(path, problems / path.name)
        written.append(problems / path.name)
    for name in KEEP:
        shutil.copyfile(source.parent / name, target / name)
        written.append(target / name)
    return written


if __name__ == "__main__":  # pragma: no cover - the command the README names
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else TARGET
    print(f"wrote {len(write_lite(SOURCE, out))} files into {out}")
