"""The "Reported, not verified" pages: one overview, then one page per source file, one table per row group.

A source file can be wide and sparse (the ARG campaign file: 43 columns, most blank for most
rows), which made one page of every file too heavy to load (page weight, `checker.render.weight`)
and slow to render. So each source gets its own page (`reported/<source>/`), its rows are split by
their group column (`GROUP_COLUMNS`: the ARG file's `row_kind`, the DRIFT-Bench file's `table`),
and within a group a column blank in every row is named once instead of shown as a column of
dashes, and a column with one value in every row is stated once above the table. Nothing is
dropped: every value of the file is on its pages, each table has its CSV/JSON (its columns, as shown),
and the overview and each source page link the whole file's.
A source whose groups hold more than `PART_BYTES` of rows continues on `reported/<source>-part-2/`, ...
(whole groups per part, packed in order: `checker.render.runs.page_ranges`).
"""

from __future__ import annotations

from typing import Any, TypedDict

from checker.render.runs import ROWS_BYTES_PER_PAGE, page_ranges, row_bytes
from checker.render.tables import Column, Row, Table
from checker.render.text import slug

PART_BYTES = ROWS_BYTES_PER_PAGE
"""Most bytes of table rows on one page of a source (estimated as for run pages), unless one group holds more."""

GROUP_COLUMNS = ("row_kind", "table")
"""The first of these a source file has splits its page into one table per value (in first-seen order)."""


class ReportedGroup(TypedDict):
    """One table of a source page: the rows of one group, with what every row shares stated once."""

    title: str
    table: Table
    constant: list[tuple[str, Any]]
    """(column, value) of the columns with the same value in every row of the group (two rows or more)."""
    blank: list[str]
    """Columns blank in every row of the group."""


def reported_groups(table: Table) -> list[ReportedGroup]:
    """`table` (one whole source file) split into its row groups; a file without a group column is one group."""
    keys = [c.key for c in table.columns]
    by = next((k for k in GROUP_COLUMNS if k in keys), None)
    groups: dict[str, list[Row]] = {}
    for row in table.rows:
        groups.setdefault("" if by is None else str(row.get(by)), []).append(row)
    out: list[ReportedGroup] = []
    for value, rows in groups.items():
        blank = [k for k in keys if all(r.get(k) is None for r in rows)]
        constant = [(k, rows[0][k]) for k in keys if k not in blank and len(rows) > 1
                    and all(r.get(k) == rows[0][k] for r in rows)]
        shared = set(blank) | {k for k, _v in constant}
        title = f"{by} = {value}" if by is not None else table.caption
        name = slug(f"{table.name}-{value}") if by is not None else table.name
        out.append({"title": title, "blank": blank, "constant": constant,
                    "table": Table(name, f"{title} ({len(rows)} rows, not verified)",
                                   [Column(k, k) for k in keys if k not in shared],
                                   [{k: v for k, v in r.items() if k not in shared} for r in rows])})
    return out


def reported_parts(table: Table) -> list[list[ReportedGroup]]:
    """The groups of one source (`reported_groups`) packed in order into pages of about `PART_BYTES` of rows each."""
    groups = reported_groups(table)
    sizes = [sum(row_bytes(r) for r in g["table"].rows) for g in groups]
    return [groups[lo:hi] for lo, hi in page_ranges(sizes, len(groups) or 1, PART_BYTES)]


def part_path(name: str, part: int) -> str:
    """Docs path of one page of a source (`reported/<name>.md`, then `reported/<name>-part-N.md`)."""
    return f"reported/{name}.md" if part == 1 else f"reported/{name}-part-{part}.md"
