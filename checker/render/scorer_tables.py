"""A cell's scorer tables (`CellResult.tables`, as the results file stores them) shown as tables, not as JSON.

A track's scorer keeps nested per-cell tables (`checker.format.cell_tables`): a figure per metric with its
seeds, a channel mix per domain, accuracy per depth bin, a claims decomposition. The cell page shows them so:

* records side by side: the entries of a mapping, or the items of a list, whose values are all records (a
  record maps names to scalars or to short lists of scalars: `per_seed`, an interval), and sibling records
  with the same fields (`claimed` and `false_claims`), make one table, one row per record, a column per field;
* every other value is a row of one table of values, named by its path (`overall › complete_rate`), as the
  run pages name a nested metric (`checker.render.tables.flatten`).

Nothing is left out: every leaf of the stored tables is in one of these tables (a list of scalars in one cell,
its items joined), and their downloads hold the same rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeGuard

from checker.format.identity import slug
from checker.format.numbers import fmt, is_number
from checker.render.tables import Column, Row, Table, flatten

SEP = " › "
"""Joins the parts of a nested value's path, as on the run pages."""
TRANSPOSE_FIELDS = 12
"""Records with more fields than this, and more than twice as many fields as records, are shown a row per field."""


def _scalar(v: object) -> bool:
    return v is None or isinstance(v, str | int | float | bool)


def _leafy(v: object) -> bool:
    """A scalar, or a list of scalars (shown in one cell)."""
    return _scalar(v) or (isinstance(v, list) and all(_scalar(x) for x in v))


def _record(v: object) -> TypeGuard[Mapping[str, object]]:
    """A non-empty mapping whose every value is leafy: one row of a table."""
    return isinstance(v, Mapping) and bool(v) and all(_leafy(x) for x in v.values())


def _records(v: object) -> list[tuple[object, Mapping[str, object]]] | None:
    """The (label, record) rows of a mapping or list of records (label: key, or position from 1); None otherwise."""
    if isinstance(v, Mapping) and v and all(_record(x) for x in v.values()):
        return [(k, x) for k, x in v.items() if _record(x)]
    if isinstance(v, list) and v and all(_record(x) for x in v):
        return [(i, x) for i, x in enumerate(v, 1) if _record(x)]
    return None


def _shown(v: object) -> object:
    """A leafy value as one cell: a list of scalars as its items joined (each formatted as the page formats numbers)."""
    if isinstance(v, list):
        return ", ".join(fmt(x) for x in v) if v else None
    return v


def _numbers(values: Sequence[object]) -> bool:
    """A numeric column: some value is a number and every other is undefined."""
    return any(is_number(v) for v in values) and all(is_number(v) or v is None for v in values)


def _path(parent: str, key: object) -> str:
    return f"{parent}{SEP}{key}" if parent else str(key)


class _Tables:
    """The tables of one cell, in the order the stored tables list their values (the values table first)."""

    def __init__(self) -> None:
        self.values: list[Row] = []
        self.tables: list[Table] = []
        self.names: set[str] = {"scorer-values"}

    def _name(self, path: str) -> str:
        base = name = f"scorer-{slug(path.replace(SEP, '-'))}"
        n = 1
        while name in self.names:
            n += 1
            name = f"{base}-{n}"
        self.names.add(name)
        return name

    def matrix(self, name: str, label: str, per: str, first: str,
               rows: Sequence[tuple[object, Mapping[str, object]]]) -> None:
        """One table of `label`: a row per record, a column per field.

        `per` says what a record is (an item, an entry); each row's label is in a first column headed `first`.

        Records with many more fields than there are records (a domain's 36 figures) are turned on their side:
        a row per field, a column per record, so the table reads down instead of scrolling far sideways.
        """
        fields: list[str] = []
        for _label, rec in rows:
            fields += [k for k in rec if k not in fields]
        if len(fields) > max(TRANSPOSE_FIELDS, 2 * len(rows)):
            records = [str(row) for row, _r in rows]
            key = next(k for k in ("field", "field_", "field__") if k not in records)
            cols = [Column(key, "field"), *(Column(c, c, numeric=_numbers([r.get(f) for f in fields]))
                                            for c, (_l, r) in zip(records, rows, strict=True))]
            out: list[Row] = [{key: f, **{c: _shown(r.get(f)) for c, (_l, r) in zip(records, rows, strict=True)}}
                              for f in fields]
            caption = f"{label}: one row per field, one column per {per}"
        else:
            key = next(k for k in ("row", "row_", "row__") if k not in fields)
            cols = [Column(key, first, numeric=_numbers([row for row, _r in rows])),
                    *(Column(k, k, numeric=_numbers([r.get(k) for _l, r in rows])) for k in fields)]
            out = [{key: row, **{k: _shown(rec.get(k)) for k in fields}} for row, rec in rows]
            caption = f"{label}: one row per {per}"
        self.tables.append(Table(self._name(name), f"Scorer table {caption}", cols, out))

    def walk(self, path: str, d: Mapping[str, object]) -> None:
        """Tables for the values of mapping `d` at `path` ("" at the top)."""
        records = {k: v for k, v in d.items() if _record(v)}
        siblings: dict[tuple[str, ...], list[str]] = {}
        for k, rec in records.items():
            siblings.setdefault(tuple(rec), []).append(k)
        for k, v in d.items():
            here = _path(path, k)
            group = siblings.get(tuple(records[k])) if k in records else None
            if group is not None and len(group) > 1:
                if k == group[0]:  # the group's table where its first record is
                    fields = ", ".join(records[k])
                    self.matrix(_path(path, "-".join(records[k])),
                                f"{path + ': ' if path else ''}{len(group)} records with the same fields ({fields})",
                                "record", "name", [(name, records[name]) for name in group])
            elif (rows := _records(v)) is not None:
                listed = isinstance(v, list)
                self.matrix(here, here, "item, in order" if listed else "entry", "#" if listed else str(k), rows)
            elif isinstance(v, Mapping) and v and k not in records:
                self.walk(here, v)
            elif _leafy(v):
                self.values.append({"name": here, "value": _shown(v)})
            else:
                self.values += [{"name": name, "value": leaf} for name, leaf in flatten(here, v)]


def scorer_tables(stored: Mapping[str, object]) -> list[Table]:
    """The cell's scorer tables (`CellResult.tables` dumped as JSON) as tables; empty when it stores none."""
    t = _Tables()
    t.walk("", stored)
    if t.values:
        t.tables.insert(0, Table("scorer-values", "Scorer tables: every value not in a table below (a nested value "
                                                  "named by its path)",
                                 [Column("name", "name"), Column("value", "value", numeric=True)], t.values))
    return t.tables
