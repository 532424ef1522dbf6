"""Bounded cost when parsing untrusted input (integrity principle 7): what the parsers share.

Parsing JSON or YAML builds one container per object or array. CPython's cyclic garbage collector
runs a full collection whenever the containers alive grow by a quarter, and each traverses every
container built so far: parsing n objects at once costs more than linear (measured: 4x the input,
5-10x the time). Parsed values hold no reference cycles, so the collector has nothing to find while
they are built; `gc_paused` turns it off for the parse and back on after (as `verify` does while it
scores a run, `checker.pipeline.verify`). tests/test_bounded_cost.py times every parser at n and 4n.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block (left as it was when it was already off)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
