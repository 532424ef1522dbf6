"""Does a file look like a results document (results file, index, boards, verify or ci report), whatever its name?

Publication computes, never reads: the site shows only results the publishing job computed from
the tree's logs with the tree's checker. A results-looking file committed anywhere in the
repository is therefore never read, and `driftboard ci` and `driftboard verify` report it as a
finding. The test reads the file's first `SNIFF_BYTES` only (bounded cost) and looks for the keys
only our results documents carry, in JSON or YAML spelling.
"""

from __future__ import annotations

import re
from pathlib import Path

SNIFF_BYTES = 64 * 1024
"""How much of a file is read to decide (a results document names its format in its first keys)."""

_KEYS = re.compile(rb"""(?:^|[{,\s])["']?(?:results_format|boards_format|checker_version)["']?\s*:""")
_REPORT = re.compile(rb""""command"\s*:\s*"(?:verify|ci|ci-history|merge|validate)\"""")


def looks_like_results(data: bytes) -> bool:
    """Whether these (leading) bytes carry a results document's keys."""
    head = data[:SNIFF_BYTES]
    return bool(_KEYS.search(head) or _REPORT.search(head))


def file_looks_like_results(path: Path) -> bool:
    """Whether a regular file (never followed through a link) looks like a results document; False when unreadable."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        with path.open("rb") as fh:
            return looks_like_results(fh.read(SNIFF_BYTES))
    except OSError:
        return False
