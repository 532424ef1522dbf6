"""Near-copies are copies (issue 29, principle 6): runs whose events mostly equal another run's.

One changed event, a shifted turn or a rewritten nonce gives a copied run a new payload digest
(`checker.stages.copies`), so copies are also compared by content *similarity*:

* **What is compared.** Each body event (between `run_start` and `run_end`) is one element: a
  64-bit hash of its canonical payload (chain fields left out, as for the payload digest), paired
  with how many equal events came before it. The one seed-dependent field that is not an
  observation is normalised: a canary's nonce (drawn afresh per run) is blanked, in `canary_salt`
  and `canary_echo` rows and inside the echo's output text, so rewriting nonces does not hide a
  copy (frames, clicks and counters are observations and stay) (a multiset: a run repeating one event 100 times is
  not a run of one event). Order is not part of it, so events reordered where the order does not
  matter change nothing. `run_start` (run id, seed label, cell, start time) and `run_end` are left
  out; body events carry no timestamp.
* **The threshold.** Two runs are near-copies when the Jaccard similarity of their element sets
  is at least `THRESHOLD` = 0.9: at least 90 % of the events of the two runs together are shared.
  Honest runs are far from it: over the 225 shipped runs the highest is 0.616 (a micro-world A0
  run and the J0A0 run of the same seed: the same world, half the machinery), and two seeds of one
  cell stay below 0.3; a copy with one event in twenty changed is at ≥ 0.9. A run of fewer than
  `MIN_EVENTS` events has too few events for a share to mean anything and is compared by payload
  digest only.
* **How, in less than quadratic time.** Each run keeps a one-permutation MinHash sketch (`K` = 128
  bins, the low 16 bits of each bin's minimum kept, stored with the run's results): the share of
  equal bins among those not empty in both estimates the Jaccard similarity (standard error ≤ 0.045
  for runs filling the bins; a short run's few elements land in bins of their own, so its estimate
  is close to exact; at 0.616 the threshold is 6.6 errors away). Candidate pairs come from
  locality-sensitive hashing: the sketch is cut into `BANDS` bands of `ROWS` bins, runs sharing a
  band land in one bucket (a pair at 0.9 shares a band with probability 1 − 10⁻¹⁴), and each run
  is compared with at most `NEIGHBOURS` earlier runs of each bucket, so the work is O(n · BANDS · NEIGHBOURS), not n².
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

K = 128
"""Bins of the sketch (one minimum each)."""
HEX = 4
"""Hex digits kept per minimum (its low 16 bits)."""
EMPTY = "...."
"""An empty bin (no element hashed into it)."""
BANDS, ROWS = 32, 4
"""Locality-sensitive hashing: `BANDS` bands of `ROWS` bins (BANDS * ROWS = K)."""
THRESHOLD = 0.9
"""Estimated Jaccard similarity at or above which two runs are near-copies."""
MIN_EVENTS = 20
"""Runs with fewer body events are compared by payload digest only."""
NEIGHBOURS = 8
"""Earlier runs of a bucket each run is compared with."""

_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_MIX = 0xD6E8FEB86659FD93
_CANARY = b'{"type":"canary_'


def element(payload: bytes) -> int:
    """The 64-bit hash of one event's canonical payload, a canary's nonce blanked (see the module docstring)."""
    if payload.startswith(_CANARY):
        row = json.loads(payload)
        nonce = row.get("nonce")
        if isinstance(nonce, str) and nonce:
            row["nonce"] = ""
            if isinstance(row.get("output_text"), str):
                row["output_text"] = row["output_text"].replace(nonce, "")
        payload = json.dumps(row, sort_keys=True, separators=(",", ":")).encode()
    return int.from_bytes(hashlib.blake2b(payload, digest_size=8).digest(), "big")


def sketch(elements: Sequence[int]) -> str | None:
    """The one-permutation MinHash sketch of a run's event hashes, HEX·K characters; None below `MIN_EVENTS`.

    Each element (an event hash, made distinct per repeat) is mixed once; its top 7 bits pick one of
    the K bins and the bin keeps the smallest of the rest (Li, Owen & Zhang, "One permutation
    hashing", 2012): one pass, O(n), standard library only.
    """
    if len(elements) < MIN_EVENTS:
        return None
    seen: dict[int, int] = {}
    mins = [_MASK] * K
    shift = 64 - (K.bit_length() - 1)
    low = (1 << shift) - 1
    for h in elements:
        k = seen.get(h, 0)
        seen[h] = k + 1
        x = ((h ^ (k * _GOLDEN)) * _MIX) & _MASK  # the k-th repeat of an event is its own element
        x ^= x >> 29
        b, v = x >> shift, x & low
        if v < mins[b]:
            mins[b] = v
    return "".join(EMPTY if m == _MASK else f"{m & 0xFFFF:04x}" for m in mins)


def similarity(a: str, b: str) -> float:
    """Estimated Jaccard similarity of two sketches: equal non-empty bins / bins not empty in both."""
    equal = used = 0
    for i in range(0, HEX * K, HEX):
        x, y = a[i:i + HEX], b[i:i + HEX]
        if x == EMPTY and y == EMPTY:
            continue
        used += 1
        equal += x == y
    return equal / used if used else 1.0


def near_pairs(sketches: Sequence[str | None]) -> list[tuple[int, int, float]]:
    """Pairs (i, j, estimated similarity), i < j, of sketches at or above `THRESHOLD`.

    Equal sketches are one entry (their runs are paired with each other directly); candidates come
    from the bands (see the module docstring), each compared with at most `NEIGHBOURS` earlier runs
    of its bucket.
    """
    pairs: set[tuple[int, int]] = set()
    first: dict[str, int] = {}
    for i, s in enumerate(sketches):
        if s is None:
            continue
        if s in first:
            pairs.add((first[s], i))
        else:
            first[s] = i
    reps = sorted(first.values())
    width = HEX * ROWS
    for band in range(BANDS):
        buckets: dict[str, list[int]] = {}
        for i in reps:
            key = str(sketches[i])[band * width:(band + 1) * width]
            bucket = buckets.setdefault(key, [])
            for j in bucket[-NEIGHBOURS:]:
                if similarity(str(sketches[j]), str(sketches[i])) >= THRESHOLD:
                    pairs.add((j, i))
            bucket.append(i)
    out = []
    for i, j in sorted(pairs):
        est = similarity(str(sketches[i]), str(sketches[j]))
        out.append((i, j, est))
    return out


__all__ = [
    "BANDS",
    "MIN_EVENTS",
    "NEIGHBOURS",
    "ROWS",
    "THRESHOLD",
    "K",
    "element",
    "near_pairs",
    "similarity",
    "sketch",
]
