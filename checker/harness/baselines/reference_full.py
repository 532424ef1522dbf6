"""The constraint reference methods under the ranked profile over DRIFT-Bench's whole test split.

A new submission (`driftboard-reference-full`) beside `driftboard-reference-lite`: the same four
scripted methods (`checker.harness.baselines.reference_lite`), every turn of the 816 problems
(5,672 turns) of `problems/drift-bench-v1/test/`, one declared run each, so each cell ranks on the
full split's own board, labelled "reference baseline — no LLM". The logs are Zstandard-compressed
(`.jsonl.zst`, `checker.format.storage`): about 32 MB as plain JSONL, a few MB stored.
"""

from __future__ import annotations

from pathlib import Path

from checker.harness.baselines.reference_lite import Split
from checker.harness.baselines.reference_lite import write as write_split

SUBMISSION_ID = "driftboard-reference-full"
FULL = Split(SUBMISSION_ID, "drift-bench-test", Path(__file__).resolve().parents[3] / "problems" / "drift-bench-v1" / "test",
             "DRIFT-Bench test split", "drift-bench-v1/test", log_suffix=".jsonl.zst")


def write(out: Path, src: Path | None = None, limit: int | None = None) -> Path:
    """Write the submission folder into `out`; returns its path (`src`, `limit`: see `reference_lite.write`)."""
    return write_split(out, src, FULL, limit)


__all__ = ["FULL", "SUBMISSION_ID", "write"]
