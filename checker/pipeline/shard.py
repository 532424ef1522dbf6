"""Sharding a verification across machines, and merging the shards' results folders.

`driftboard verify --shard K/N` verifies every N-th submission (sorted order) starting at the
K-th; `driftboard merge` combines the shard folders into the bytes one run writes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from checker.format.errors import UsageError
from checker.format.results_io import is_results_name, read_results
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
            if not is_results_name(path.name):
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
    write_boards([read_results(out / name) for name in sorted(seen)], out)
    print(f"merged {len(seen)} results files from {len(shards)} shards into {out}")
    return 0
