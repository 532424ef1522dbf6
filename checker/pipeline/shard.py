"""Sharding a verification across machines, and merging the shards' results folders.

`driftboard verify --shard K/N` verifies every N-th submission (sorted order) starting at the
K-th; `driftboard merge` combines the shard folders into the bytes one run writes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from checker.format.errors import UsageError
from checker.format.results_io import INDEX, read_results
from checker.pipeline.binding import Bound, check_binding, inputs_of, write_binding
from checker.pipeline.boards import write_boards
from checker.pipeline.results import write_index


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


def merge_command(shards: list[Path], out: Path, job: str | None = None) -> int:
    """`driftboard merge`: check each shard's binding, copy its results files into `out`, write the index and binding.

    A shard output is accepted only when `checker.pipeline.binding.check_binding` accepts it: its
    `binding.json` names this job (`--job` / `$DRIFTBOARD_JOB`) and this checker's code, lists every
    results file in it with its bytes, and every file's recorded inputs are the tree's (recomputed
    here). Returns 1 (nothing merged) when any shard is refused, listing why.

    Raises:
        UsageError: a shard folder is missing, or two shards disagree on a submission.
    """
    seen: dict[str, Path] = {}
    inputs: dict[str, Bound] = {}
    cached: set[str] = set()
    refused: list[str] = []
    for shard in shards:
        if not shard.is_dir():
            raise UsageError(f"{shard}: no such results folder")
        checked = check_binding(shard, job)
        refused += checked.problems
        cached |= set(checked.binding.get("cached", []))
        for name in checked.accepted:
            path = shard / name
            if name in seen and seen[name].read_bytes() != path.read_bytes():
                raise UsageError(f"{name}: shards {seen[name].parent} and {shard} disagree")
            seen[name] = path
            inputs[name] = inputs_of(json.loads(path.read_bytes()))
    if refused:
        for line in refused:
            print(f"merge: {line}", file=sys.stderr)
        print(f"merge: refused {len(refused)} problem(s); nothing merged (publication computes, never reads)",
              file=sys.stderr)
        return 1
    out.mkdir(parents=True, exist_ok=True)
    for name, path in sorted(seen.items()):
        if (out / name).resolve() != path.resolve():
            shutil.copyfile(path, out / name)
    write_index(out)
    boards = write_boards([read_results(out / name) for name in sorted(seen)], out)  # boards.json, comparisons
    write_binding(out, [*seen, INDEX, *boards], cached, job, None, inputs)
    print(f"merged {len(seen)} results files from {len(shards)} shards into {out}")
    return 0
