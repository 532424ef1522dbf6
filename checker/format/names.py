"""Every name a reader sees is unique where it is used (integrity principle 3): the rules, over names and works.

Rules, over the names of every submission checked together (`validate` and the pull-request
check: the whole tree; `verify`: the submissions of the invocation; `build`: every results file):

* **same name**: two different submission ids, two cells of one submission, or two run ids
  with one identity key (NFKC, case folding, TR39 confusable skeleton:
  `checker.format.identity.identity_key`) are one name a reader cannot tell apart;
* **same page**: two such names with one slug key (`checker.format.identity.slug_key`: the page
  slug, case-folded) share a page and a permalink: one page would overwrite the other;
* **reserved**: a cell or run id whose slug is a page name the build writes itself (`index`);
* **near-duplicate**: two submission ids within `NEAR_DISTANCE` edits of each other (keys of
  `NEAR_MIN_LENGTH` characters or more; one edit for shorter ones), unless they differ only in
  digits at the same places (numbers are read as numbers: `lab-agent-v1`, `lab-agent-v2`);
* **same work**: two submissions with one title, or with the same authors and the same citation.

Each collision is an error on every name involved (which one is the original is not the
checker's call), ending with what to do. Equal names (the same run id twice, one folder name)
are reported by the checks that own them. Cost: one dictionary pass per rule; near-duplicates
are found through deletion neighbourhoods (`deletion_keys`), linear in the number of ids.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from checker.format.cost import gc_paused
from checker.format.errors import Finding
from checker.format.identity import deletion_keys, edit_distance, identity_key, near_bound, slug, slug_key
from checker.format.schema.manifest import Prereg, Submission

_DIGITS = re.compile(r"[0-9]")
RESERVED_PAGE_NAMES = ("index",)
"""Slugs a cell or run may not take: the build writes a page of that name beside theirs."""
_NORMALISED = "Unicode normalisation (NFKC, case folding, confusable skeleton, Unicode TR39)"


@dataclass(frozen=True)
class Name:
    """A name as a reader meets it: what kind, its value, where it is written, and where it must be unique."""

    kind: str
    """`submission id`, `cell` or `run id`."""
    value: str
    path: str
    line: int | None = None
    scope: str = ""
    """Names are compared within one scope (cells: their submission id; ids and run ids: everywhere)."""


@dataclass(frozen=True)
class Work:
    """What a submission says it is: title, authors and citation, and where that is written."""

    submission_id: str
    path: str
    title: str
    authors: tuple[str, ...]
    citation: str | None


def identity_findings(names: Iterable[Name], works: Iterable[Work] = (), *, near: bool = True) -> list[Finding]:
    """Every collision among `names` and `works` (see the module docstring), sorted by path.

    `near`: also near-duplicate submission ids (the submission checks); the build refuses only names that
    are one name or one page (`checker.render.names`).
    """
    names = sorted(set(names), key=lambda n: (n.path, n.line or 0, n.kind, n.value))
    out: list[Finding] = []
    out.extend(_collisions(names, identity_key, _same_name))
    out.extend(_collisions(names, slug_key, _same_page))
    out.extend(_reserved(names))
    if near:
        out.extend(_near_ids([n for n in names if n.kind == "submission id"]))
    out.extend(_same_work(list(works)))
    return sorted(out, key=lambda f: (f.path, f.line or 0, f.message))


def _collisions(names: list[Name], key_of: Callable[[str], str],
                message: Callable[[Name, list[str]], str]) -> Iterator[Finding]:
    groups: dict[tuple[str, str, str], list[Name]] = {}
    for n in names:
        groups.setdefault((n.kind, n.scope, key_of(n.value)), []).append(n)
    for group in groups.values():
        if len({n.value for n in group}) < 2:
            continue
        for n in group:
            others = sorted({f"{o.value!r} ({o.path}{f':{o.line}' if o.line else ''})" for o in group
                             if o.value != n.value})
            yield Finding(n.path, n.line, message(n, others))


def _same_name(n: Name, others: list[str]) -> str:
    where = f" of submission {n.scope!r}" if n.scope else ""
    return (f"{n.kind}{where} {n.value!r} is the same name as {', '.join(others)} after {_NORMALISED}: "
            f"a reader cannot tell them apart; rename one so that the names differ in more than case, "
            f"compatibility forms or look-alike characters")


def _same_page(n: Name, others: list[str]) -> str:
    where = f" of submission {n.scope!r}" if n.scope else ""
    return (f"{n.kind}{where} {n.value!r} has the same page as {', '.join(others)} (page slug {slug(n.value)!r}, "
            "compared without case): one page and permalink would replace the other; rename one (a name of "
            "letters, digits, '.', '_' and '-' is its own slug)")


def _reserved(names: list[Name]) -> Iterator[Finding]:
    for n in names:
        if n.kind != "submission id" and slug_key(n.value) in RESERVED_PAGE_NAMES:
            yield Finding(n.path, n.line, (
                f"{n.kind} {n.value!r} is reserved: its page would be the {slug_key(n.value)!r} page the build "
                "writes beside it; choose another name"))


def _near_ids(ids: list[Name]) -> Iterator[Finding]:
    """Submission ids within the near-duplicate bound of each other (distinct identity keys)."""
    keyed = {identity_key(n.value): n for n in ids}
    index: dict[str, set[str]] = {}
    with gc_paused():  # hundreds of small sets per id: the collector's passes over them would make this superlinear
        for key in keyed:
            for variant in deletion_keys(key):
                index.setdefault(variant, set()).add(key)
        pairs = sorted(_candidates(index, {k: _DIGITS.sub("0", n.value) for k, n in keyed.items()}))
    del index
    for a, b in pairs:
        bound = near_bound(a, b)
        distance = edit_distance(a, b, bound)
        if distance > bound:
            continue
        for n, o in ((keyed[a], keyed[b]), (keyed[b], keyed[a])):
            yield Finding(n.path, n.line, (
                f"submission id {n.value!r} is {distance} edit(s) from submission id {o.value!r} ({o.path}): ids "
                f"within {bound} edit(s) of another (after {_NORMALISED}) are refused so that readers can tell "
                "submissions apart; choose an id that differs by a word"))


def _candidates(index: dict[str, set[str]], shape: dict[str, str]) -> set[tuple[str, str]]:
    """Pairs of keys sharing a deletion variant, except pairs of one shape.

    Ids that differ only in digits in place (`lab-run-0001`, `lab-run-0002`) are read as numbers, never
    near-duplicates, so a thousand numbered ids cost no pairs.
    """
    pairs: set[tuple[str, str]] = set()
    for group in index.values():
        if len(group) < 2:
            continue
        by_shape: dict[str, list[str]] = {}
        for key in group:
            by_shape.setdefault(shape[key], []).append(key)
        if len(by_shape) < 2:
            continue
        members = sorted(group)
        pairs.update((a, b) for i, a in enumerate(members) for b in members[i + 1:] if shape[a] != shape[b])
    return pairs


def _text_key(text: str) -> str:
    return identity_key(" ".join(unicodedata.normalize("NFKC", text).split()))


def _same_work(works: list[Work]) -> Iterator[Finding]:
    by_title: dict[str, list[Work]] = {}
    by_block: dict[tuple[tuple[str, ...], str], list[Work]] = {}
    for w in works:
        by_title.setdefault(_text_key(w.title), []).append(w)
        if w.citation and w.citation.strip():
            authors = tuple(sorted(_text_key(a) for a in w.authors))
            by_block.setdefault((authors, _text_key(w.citation)), []).append(w)
    groups = [*((g, "title") for g in by_title.values()), *((g, "authors and citation") for g in by_block.values())]
    for group, what in groups:
        ids = {w.submission_id for w in group}
        if len(ids) < 2:
            continue
        for w in group:
            others = ", ".join(sorted(repr(i) for i in ids - {w.submission_id}))
            yield Finding(w.path, None, (
                f"the {what} of submission {w.submission_id!r} equal(s) those of submission {others} (after "
                f"{_NORMALISED} and whitespace): two submissions may not share a citation block; give each its "
                "own title (and its own citation, when the same authors cite one work)"))


def submission_names(manifest: Submission | None, prereg: Prereg | None, display: str) -> tuple[list[Name], list[Work]]:
    """The names and the work a submission folder declares (`display`: the folder as shown in findings)."""
    if manifest is None:
        return [], []
    where = f"{display}/submission.yaml"
    names = [Name("submission id", manifest.id, where)]
    if prereg is not None:
        names.extend(Name("cell", cell, f"{display}/prereg.yaml", None, manifest.id) for cell in prereg.cells)
    work = Work(manifest.id, where, manifest.title, tuple(a.name for a in manifest.authors), manifest.citation)
    return names, [work]
