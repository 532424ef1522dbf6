"""Search finds submissions, cells and runs: one short entry per page, added to the theme's search index.

The theme indexes every Markdown page section by section; submission and cell pages are long tables
(inserted after the theme renders, so it would index only their boilerplate prose) and run pages are built
outside MkDocs (`checker.render.shell`), so all three are left out of its pass (`search: exclude`) and get
one entry each here instead: the page's title and a line naming what a reader searches for (submission id
and title, cell, track, board, the models the logs show, seed and verdict). The build collects the entries
in `<docs>/.search.json` (a dot file, which MkDocs never publishes); the MkDocs hook appends them to
`search/search_index.json` after the theme has written it (`merge`).

Bounded: each entry's text is at most `TEXT_MAX` characters, and the entries together at most
`EXTRA_BYTES` bytes of the index: submissions first, then cells, then runs, in page order, until the
budget is spent (a run left out is still one click from its cell page, which is in the index).

Submitted strings (titles, cell and model names, run ids) are escaped as HTML: the theme shows an entry's
title and text as markup, as it does the text it extracts from pages (escaped the same way).
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from checker.format.boards_model import cell_model_labels
from checker.format.results_model import ResultsFile
from checker.render.paths import cell_path, submission_path, url_of
from checker.render.ranking import board_label_of
from checker.render.runs import run_path

EXTRA = ".search.json"
"""The collected entries, in the docs folder."""
TEXT_MAX = 200
"""Characters of one entry's text (before escaping)."""
EXTRA_BYTES = 400_000
"""Bytes the added entries may take in the search index (the theme's own index of the shipped site is ~480 KB)."""
KINDS = ("submission", "cell", "run")
"""Entry kinds in the order the budget serves them."""


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class SearchEntries:
    """One entry per submission, cell and run page; written once per build."""

    def __init__(self) -> None:
        self.entries: dict[str, list[dict[str, str]]] = {k: [] for k in KINDS}

    def add(self, kind: str, location: str, title: str, text: str) -> None:
        """An entry for the page at site-relative URL `location` (raw strings: escaped here)."""
        self.entries[kind].append({"location": location, "title": html.escape(_clip(title, TEXT_MAX), quote=False),
                                   "text": html.escape(_clip(text, TEXT_MAX), quote=False)})

    def bounded(self) -> list[dict[str, str]]:
        """The entries that fit in `EXTRA_BYTES`, submissions first, then cells, then runs."""
        out: list[dict[str, str]] = []
        used = 0
        for kind in KINDS:
            for e in self.entries[kind]:
                size = len(_dump(e).encode("utf-8")) + 1
                if used + size > EXTRA_BYTES:
                    return out
                out.append(e)
                used += size
        return out

    def write(self, docs: Path) -> None:
        """Write the bounded entries into the docs folder (`EXTRA`), where the MkDocs hook finds them."""
        (docs / EXTRA).write_text(json.dumps(self.bounded(), ensure_ascii=False), encoding="utf-8")


def _dump(obj: object) -> str:
    """JSON as the theme writes its index (compact separators)."""
    return json.dumps(obj, separators=(",", ":"))


def merge(site_dir: Path, docs_dir: Path) -> None:
    """Append the collected entries to the theme's search index (nothing to do when there are none)."""
    extra = docs_dir / EXTRA
    index = site_dir / "search" / "search_index.json"
    if not extra.is_file() or not index.is_file():
        return
    entries = json.loads(extra.read_text(encoding="utf-8"))
    if not entries:
        return
    data = json.loads(index.read_text(encoding="utf-8"))
    data["docs"].extend(entries)
    index.write_text(_dump(data), encoding="utf-8")


def search_entries(r: ResultsFile, found: SearchEntries) -> None:
    """The entries of one submission's pages: the submission, each cell, each run (its first page)."""
    cells = [c.cell for c in r.cells]
    models = {c.cell: ", ".join(cell_model_labels(r, c)) or "no LLM" for c in r.cells}
    every = sorted({m for c in r.cells for m in cell_model_labels(r, c)})
    title = _clip(r.title, 60)
    found.add("submission", url_of(submission_path(r)), r.title,
              f"Submission {r.submission_id} · {r.track} track · model {', '.join(every) or 'no LLM'} · "
              f"{len(r.runs)} runs · cells {', '.join(cells)}")
    for c in r.cells:
        found.add("cell", url_of(cell_path(r, c.cell)), f"Result {r.submission_id}/{c.cell}",
                  f"Cell {c.cell} · model {models[c.cell]} · {c.valid_runs} of {c.n_declared or c.runs} runs valid · "
                  f"{title} · board {board_label_of(c)}")
    for run in r.runs:
        found.add("run", url_of(run_path(r, run)), f"Run {run.run_id or run.path}",
                  f"{run.verdict} run · cell {run.cell or '—'} · seed {run.seed or '—'} · model "
                  f"{models.get(run.cell or '', '—')} · submission {r.submission_id}: {title}")
