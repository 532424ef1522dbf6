"""File and run-id names the importers derive from native names (model, method, epoch)."""

from __future__ import annotations

import re

_NOT_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str) -> str:
    """A native name as a file-name-safe slug (`org/model v2` -> `org-model-v2`; never empty)."""
    return _NOT_NAME.sub("-", text).strip("-") or "x"


def unique(base: str, used: set[str]) -> str:
    """`base`, or `base-2`, `base-3`, ... when taken ("a b" and "a/b" both slug to "a-b"); records the result in `used`."""
    stem, k = base, 1
    while stem in used:
        k += 1
        stem = f"{base}-{k}"
    used.add(stem)
    return stem
