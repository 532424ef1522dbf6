"""When two names are the same name: the identity key (NFKC, case folding, TR39 skeleton) and the page slug.

Submission ids, cell names and run ids name pages, permalinks and citations. Two names that a
reader cannot tell apart, or that land on one page, are one name:

* `identity_key`: the fixed point of NFKC → case folding → the Unicode TR39 *skeleton*
  (`skeleton`: NFD, every character mapped to its prototype by Unicode's `confusables.txt`,
  NFD again). `FULL` and `full`, `seed1` and `seedl` (`1` → `l`), `rn` and `m`, Latin `a` and
  Cyrillic `а` have one key. The data is vendored (`unicode/confusables.txt`, Unicode 13.0.0,
  with its licence beside it), never fetched at run time.
* `slug`: the file-name-safe page slug of a name (kept when already safe, else cleaned and
  suffixed with a hash of the original). Cleaning drops characters, so a safe name can equal
  another name's cleaned-and-hashed slug (`scripted-oracle-eeae22` is the slug of
  `scripted/oracle`): `slug_key` (the slug, case-folded for case-insensitive file systems)
  says which names share a page.
* `near`: edit distance within a bound (`NEAR_DISTANCE`), for ids that differ by a typo.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import cache
from importlib import resources

from checker.format.schema.common import SourceRef

_SLUG_BAD = re.compile(r"[^A-Za-z0-9._-]+")
MAX_KEY_ROUNDS = 4
"""NFKC, case folding and the skeleton are each idempotent; their composition settles in a round or two."""
NEAR_DISTANCE = 2
"""Two submission ids whose identity keys are this many edits (insertions, deletions, substitutions) apart
or fewer are near-duplicates, when the shorter key has `NEAR_MIN_LENGTH` characters or more; shorter keys
are near-duplicates at one edit. Two edits cover one transposition (`referecne`) or two typos. Ids that
differ only in digits at the same places are not near-duplicates: numbers are read as numbers
(`lab-agent-v1`, `lab-agent-v2`; `checker.format.names`)."""
NEAR_MIN_LENGTH = 8


@cache
def _prototypes() -> dict[str, str]:
    """Unicode's confusables: character -> its prototype (a sequence), from the vendored `confusables.txt`."""
    text = resources.files("checker.format.unicode").joinpath("confusables.txt").read_text(encoding="utf-8")
    table: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        source, target = line.split(";")
        table[chr(int(source.strip(), 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def skeleton(value: str) -> str:
    """The TR39 skeleton: NFD, each character replaced by its prototype, NFD again."""
    table = _prototypes()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", value))
    return unicodedata.normalize("NFD", mapped)


def identity_key(value: str) -> str:
    """The name as compared: NFKC, case folding and the skeleton, repeated until nothing changes."""
    key = value
    for _ in range(MAX_KEY_ROUNDS):
        nxt = skeleton(unicodedata.normalize("NFKC", key).casefold()).casefold()
        if nxt == key:
            break
        key = nxt
    return key


def slug(value: str) -> str:
    """A file-name-safe, stable slug: the page name of a submission id, cell or run.

    Safe names are kept (`A0` -> `A0`); anything else is cleaned and suffixed with a short hash
    of the original (`gpt 4/x` -> `gpt-4-x-1a2b3c`). A kept name can still equal another name's
    hashed slug: `slug_key` is what must be unique.
    """
    cleaned = _SLUG_BAD.sub("-", value).strip("-.")
    if cleaned == value and cleaned:
        return cleaned
    return f"{cleaned or 'x'}-{hashlib.sha256(value.encode('utf-8')).hexdigest()[:6]}"


def slug_key(value: str) -> str:
    """The page a name lands on, compared as a case-insensitive file system compares it."""
    return slug(value).casefold()


def edit_distance(a: str, b: str, bound: int) -> int:
    """Levenshtein distance of `a` and `b` when it is at most `bound`, else `bound + 1` (a band of width `bound`)."""
    if abs(len(a) - len(b)) > bound:
        return bound + 1
    if len(a) > len(b):
        a, b = b, a
    big = bound + 1
    prev = [j if j <= bound else big for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        cur = [big] * (len(b) + 1)
        if i <= bound:
            cur[0] = i
        lo, hi = max(1, i - bound), min(len(b), i + bound)
        for j in range(lo, hi + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost, big)
        if min(cur) > bound:
            return big
        prev = cur
    return min(prev[len(b)], big)


def near_bound(a: str, b: str) -> int:
    """The edit distance at or under which two identity keys are near-duplicates (see `NEAR_DISTANCE`)."""
    return NEAR_DISTANCE if min(len(a), len(b)) >= NEAR_MIN_LENGTH else 1


def deletion_keys(key: str, depth: int = NEAR_DISTANCE) -> set[str]:
    """Every string made by deleting up to `depth` characters of `key`.

    Two keys within `depth` edits share one of these (a substitution is a deletion on each side), so
    candidates for `near` are found by lookup, linear in the number of ids (`checker.format.names`).
    """
    out = {key}
    frontier = {key}
    for _ in range(depth):
        frontier = {s[:i] + s[i + 1:] for s in frontier for i in range(len(s))}
        out |= frontier
    return out


def recorded_model(source: SourceRef | None, backbone: str | None) -> str | None:
    """The model a run's importer provenance records, when it is the header's `backbone`; None: only declared.

    An importer reads the model from the native files (`source.details.model`: Inspect, τ-bench; the
    DRIFT-Bench transcript importer's native run id `<model>/<method>`). A header backbone that no such
    record backs is the submitter's word, and the board marks it "declared" (`checker.format.boards_model`).
    """
    if source is None or not backbone:
        return None
    named = (source.details or {}).get("model")
    if named is None and source.importer.startswith("drift-bench-transcript@") and source.native_run_id:
        named = source.native_run_id.rsplit("/", 1)[0]
    return backbone if named == backbone else None
