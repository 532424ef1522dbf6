"""Tables: one object per table on the site, rendered as HTML and written as CSV and JSON downloads.

A page never formats a table by hand: it builds a `Table`, the `_table.html.j2` partial renders it,
and `write_downloads` writes the same rows as `<name>.csv` and `<name>.json`, so what a reader
downloads is exactly what the page shows (raw values: undefined is empty in CSV and null in JSON; a
column with one value in every row, stated once above the table, stays a column of the downloads).

Submitted strings are untrusted: a CSV cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage
return would be run as a formula by a spreadsheet that opens the download, so such text cells are
written with a leading `'` (the OWASP "CSV injection" rule). Numbers are written as numbers, and the
JSON download keeps every string exactly as submitted.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from json.encoder import encode_basestring as _encode_string  # C-accelerated
from pathlib import Path

LONG_TABLE_ROWS = 25
"""Rows a per-run table of a cell or submission page shows (`Table.limit`); its downloads hold every row."""

Value = str | int | float | bool | None
Row = Mapping[str, object]
"""One row of a table: column key -> raw value (text, a number, a flag; None when undefined; anything else is shown
and downloaded as its JSON)."""


@dataclass
class Column:
    """One column: key into each row, header text, and how the cell is shown."""

    key: str
    label: str
    numeric: bool = False
    link: str | None = None
    """Row key holding a site-relative URL (from the site root) that this column's cell links to."""
    help: str | None = None
    """Tooltip text (the metric's definition)."""
    badge: bool = False
    """Show a non-empty value as a badge (why a row is not ranked, a small-n mark); empty shows nothing."""
    wide: bool = False
    """Free text a reader reads in full (a user message, a model response): the cell gets room to breathe."""
    note: str | None = None
    """Row key of a short text shown after the value (what a figure is over, when not what the header says)."""
    prefix: str = ""
    """Shown before a defined numeric value (`$` for a cost); the downloads hold the bare number."""
    undefined_note: str | None = None
    """Row key of why the value is undefined, shown after the `—` (a cost with no declared price)."""


@dataclass
class Table:
    """Rows of raw values with their columns; `name` is unique within its page."""

    name: str
    caption: str
    columns: list[Column]
    rows: Sequence[Row] = field(default_factory=list)
    sortable: bool = True
    empty: str = "No rows."
    download: str = ""
    """Site-relative path prefix of the downloads (set when the page is written)."""
    facets: list[tuple[str, str]] = field(default_factory=list)
    """(row key, label) of each filter that may be offered above the table; only a key whose value varies
    across the rows is offered (`facet_options`), and rows carry a `data-f-<key>` attribute for each."""
    downloads: bool = True
    """Write CSV/JSON downloads (False for per-run tables: the results file already holds the run)."""
    sticky: bool = False
    """A wide leaderboard: the first two columns stay in view while the table scrolls sideways."""
    limit: int | None = None
    """Most rows the page shows (None: all). A per-run table of a 200-episode cell is tens of KB; past the limit the
    page shows the first `limit` rows and says how many its downloads hold (a table with a limit has downloads)."""
    once: tuple[str, ...] = ()
    """Keys of columns with one value in every row (`state_once`): the page states each once above the table
    instead of repeating it in every row; the downloads keep them as columns."""

    def __post_init__(self) -> None:
        if self.limit is not None and not self.downloads:
            raise ValueError(f"table {self.name!r}: a row limit needs downloads (they hold the rows not shown)")

    @property
    def shown_rows(self) -> Sequence[Row]:
        """The rows the page shows (the first `limit`; the downloads hold every row)."""
        return self.rows if self.limit is None else self.rows[:self.limit]

    @property
    def shown(self) -> list[Column]:
        """The columns the page shows in the table (every column but those stated once)."""
        return [c for c in self.columns if c.key not in self.once]

    def stated_once(self) -> tuple[list[tuple[Column, Value]], list[Column]]:
        """(column, value) of each column stated once with a value, and the columns blank in every row."""
        first = self.rows[0] if self.rows else {}
        once = [c for c in self.columns if c.key in self.once]
        return ([(c, _plain(first.get(c.key))) for c in once if not _blank(first.get(c.key))],
                [c for c in once if _blank(first.get(c.key))])

    def blank_reason(self, c: Column) -> str | None:
        """Why a column blank in every row is undefined, when every row says the same (`Column.undefined_note`)."""
        if c.undefined_note is None or not self.rows:
            return None
        reasons = {row.get(c.undefined_note) for row in self.rows}
        reason = reasons.pop() if len(reasons) == 1 else None
        return reason if isinstance(reason, str) and reason else None

    def facet_options(self) -> list[tuple[str, str, list[str]]]:
        """(row key, label, sorted distinct values) of each facet whose value varies.

        A filter with one value filters nothing, so it is not offered.
        """
        out = []
        for key, label in self.facets:
            values = sorted({facet_value(row, key) for row in self.shown_rows})
            if len(values) > 1:
                out.append((key, label, values))
        return out

    def records(self) -> list[dict[str, Value]]:
        """Rows restricted to the table's columns (those stated once too), in column order (what the downloads hold)."""
        return [{c.key: _plain(row.get(c.key)) for c in self.columns} for row in self.rows]

    def to_csv(self) -> str:
        """RFC 4180 CSV with a header row; undefined values are empty cells."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\r\n")  # RFC 4180; also quotes a CR inside a cell
        writer.writerow([c.key for c in self.columns])
        for rec in self.records():
            writer.writerow([_csv_cell(v) for v in rec.values()])
        return buf.getvalue()

    def to_json(self) -> str:
        """`{"caption", "columns", "rows"}` as sorted, indented JSON (undefined is null).

        The bytes of `json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)`,
        written without its pure-Python indenting encoder (a site writes ~11,000 of these files).
        """
        columns = [_json_object({"key": c.key, "label": c.label}, "    ") for c in self.columns]
        rows = [_json_object(r, "    ") for r in self.records()]
        return (f'{{\n  "caption": {_json_value(self.caption)},\n  "columns": {_json_list(columns, "  ")},\n'
                f'  "rows": {_json_list(rows, "  ")}\n}}\n')


def _blank(v: object) -> bool:
    return v is None or v == ""


def state_once(table: Table, keep: Sequence[str] = ()) -> Table:
    """`table` with each column whose value is the same in every row (two rows or more) stated once, not repeated.

    `keep`: keys always shown as columns (what identifies a row and what it is ranked by). A column with a link is
    always kept (each row's link differs even where its text does not), and a numeric column unless it is blank in
    every row (a measured figure stays a column a reader can sort and compare, even where every row agrees).
    """
    if len(table.rows) < 2:
        return table
    first = table.rows[0]

    def same(key: str) -> bool:
        return all(row.get(key) == first.get(key) or (_blank(row.get(key)) and _blank(first.get(key)))
                   for row in table.rows)

    once = tuple(c.key for c in table.columns if c.key not in keep and not c.link and same(c.key)
                 and (not c.numeric or _blank(first.get(c.key))))
    return replace(table, once=once)


def flatten(name: str, value: object) -> Iterator[tuple[str, object]]:
    """A metric as (name, scalar) rows, so no value prints as a Python dict or list.

    A nested metric (per-bin accuracies, a decision mix) gives one row per leaf, named by its path
    (`bins › 1-50 › GA`).
    """
    if isinstance(value, dict):
        if not value:
            yield name, None
        for k in sorted(value, key=str):
            yield from flatten(f"{name} › {k}", value[k])
    elif isinstance(value, list | tuple):
        if not value:
            yield name, None
        for i, v in enumerate(value, 1):
            yield from flatten(f"{name} › {i}", v)
    else:
        yield name, value


def facet_value(row: Row, key: str) -> str:
    """A row's value for a facet, as the filter shows it (undefined is "—")."""
    v = row.get(key)
    return "—" if v is None or v == "" else str(v)


def _json_value(v: Value) -> str:
    """One scalar as `json.dumps` writes it (`allow_nan=False`: NaN and infinities raise ValueError)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return _encode_string(v)
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        if v != v or v in (math.inf, -math.inf):
            raise ValueError(f"Out of range float values are not JSON compliant: {v!r}")
        return float.__repr__(v)
    return json.dumps(v, sort_keys=True, ensure_ascii=False, allow_nan=False)


def _json_object(d: dict[str, Value], indent: str) -> str:
    if not d:
        return "{}"
    inner = indent + "  "
    return "{\n" + ",\n".join(f"{inner}{_encode_string(k)}: {_json_value(d[k])}" for k in sorted(d)) + f"\n{indent}}}"


def _json_list(items: list[str], indent: str) -> str:
    if not items:
        return "[]"
    inner = indent + "  "
    return "[\n" + ",\n".join(inner + x for x in items) + f"\n{indent}]"


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
"""First characters that make a spreadsheet treat a CSV cell as a formula."""


def _csv_cell(value: Value) -> Value:
    """A CSV cell: undefined is empty; text a spreadsheet would evaluate gets a leading `'`."""
    if value is None:
        return ""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def _plain(value: object) -> Value:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def write_downloads(table: Table, docs: Path, prefix: str, made: set[Path] | None = None) -> None:
    """Write `<prefix>/<name>.csv` and `.json` under the docs folder and remember the prefix.

    `made`: folders already created (shared by one build, so each folder is created once).
    """
    if not table.downloads:
        return
    table.download = f"{prefix}/{table.name}"
    target = docs / prefix
    if made is None or target not in made:
        target.mkdir(parents=True, exist_ok=True)
        if made is not None:
            made.add(target)
    (target / f"{table.name}.csv").write_text(table.to_csv(), encoding="utf-8", newline="")
    (target / f"{table.name}.json").write_text(table.to_json(), encoding="utf-8")
