"""The Pre-registered page (`preregistered.md`): every study from the day its pre-registration is merged.

Written from `checker.pipeline.registry` (computed from the tree at build time, never read from a
results file). Every submitted string goes through `md_escape`.
"""

from __future__ import annotations

from collections.abc import Iterable

from checker.format.numbers import DASH
from checker.format.registry_model import Registry, RegistryEntry
from checker.render.text import md_escape, slug
from checker.render.writer import Writer

PAGE = "preregistered.md"
SHOWN_SEEDS = 8
"""Seed labels listed per cell (the count is always shown)."""

INTRO = """# Pre-registered

Every study is listed here from the day its pre-registration is merged, the way a trial registry
lists studies before their results: the cells and seeds it declares, the split (problem or task
set) or horizon, its predictions, the date it was registered and its age. Runs arrive in a later
pull request and are judged against this declaration; a study that never gets runs stays listed
with its age, and a withdrawn one stays listed as withdrawn, with its reason (`withdrawal.yaml`).
Dates are those of the merges on the published branch, never dates a submitter wrote.
"""


def _cells(e: RegistryEntry) -> str:
    parts = []
    for c in e.cells:
        seeds = ", ".join(str(md_escape(s)) for s in c.seeds[:SHOWN_SEEDS])
        if len(c.seeds) > SHOWN_SEEDS:
            seeds += f", … and {len(c.seeds) - SHOWN_SEEDS} more"
        gone = f"; withdrawn: {', '.join(str(md_escape(s)) for s in c.withdrawn)}" if c.withdrawn else ""
        parts.append(f"{md_escape(c.name)}{' (comparator)' if c.comparator else ''}: {len(c.seeds)} seed(s) "
                     f"({seeds}{gone})")
    return "<br>".join(parts)


def _status(e: RegistryEntry, published: set[str]) -> str:
    if e.withdrawn is not None:
        return f"**withdrawn** {e.withdrawn_on or DASH}: {md_escape(e.withdrawn)}"
    if e.runs and e.submission_id in published:
        return f"runs submitted: [results](submissions/{slug(e.submission_id)}.md)"
    return "runs submitted" if e.runs else "**awaiting runs**"


def _split(e: RegistryEntry) -> str:
    bits = []
    if e.split:
        bits.append(f"set `{e.split[:12]}`")
    if e.horizon is not None:
        bits.append(f"horizon {e.horizon}")
    return ", ".join(bits) or DASH


def _declared(items: Iterable[str]) -> str:
    shown = [str(md_escape(t)) for t in items]
    return "<br>".join(shown) if shown else DASH


def registry_markdown(reg: Registry, published: set[str]) -> str:
    """The page's Markdown: a table, one row per study, sorted by id."""
    lines = [INTRO]
    if reg.as_of:
        lines.append(f"Ages are counted to {reg.as_of}, the date of the published commit.\n")
    if not reg.entries:
        lines.append("No pre-registration yet.\n")
        return "\n".join(lines)
    lines += ["| study | track · profile | split | declared cells (seeds) | predictions | defeaters | registered | "
              "age (days) | status |",
              "|---|---|---|---|---|---|---|---|---|"]
    for e in reg.entries:
        title = f"<br>{md_escape(e.title)}" if e.title else ""
        after = "<br>*written after the runs*" if e.written_after_runs else ""
        age = DASH if e.age_days is None else str(e.age_days)
        lines.append(f"| {md_escape(e.submission_id)}{title} | {md_escape(e.track)} · {md_escape(e.profile)} | "
                     f"{_split(e)} | {_cells(e)} | {_declared(e.predictions)} | {_declared(e.defeaters)} | "
                     f"{e.registered or DASH}{after} | {age} | {_status(e, published)} |")
    counts = {s: sum(1 for e in reg.entries if e.status == s) for s in ("awaiting runs", "runs submitted", "withdrawn")}
    lines += ["", f"{len(reg.entries)} studies: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + ".", ""]
    return "\n".join(lines)


def write_registry(w: Writer, reg: Registry | None, published: set[str]) -> None:
    """Write `preregistered.md` (nothing when the build was given no registry)."""
    if reg is not None:
        w.text(PAGE, registry_markdown(reg, published))
