"""The body rows of a `Table` as HTML: the one hot loop of the site build, written in Python.

`_table.html.j2` renders everything around the rows (filters, caption, header, downloads); the rows
themselves, one `<td>` per column per row, come from `table_rows`. Profiled on `driftboard bench site`
(200 submissions, 9,250 tables), the same logic as Jinja expressions took 17% of the build's CPU time
(about 3.3 million template steps); here it is one function call per table. The markup is exactly the one
the template wrote before (the site's bytes did not change), and every value still goes through the
same escaping: submitted text through `md_escape`, everything else through `markupsafe.escape`.
"""

from __future__ import annotations

import hashlib

from markupsafe import Markup, escape

from checker.render.tables import Column, Row, Table, facet_value
from checker.render.text import fmt, md_escape, sort_key

FacetOptions = list[tuple[str, str, list[str]]]


def facet_key(value: object) -> str:
    """A facet value as it appears in `data-f-*` attributes and filter options: a digest, never submitted text."""
    return hashlib.sha256(str(value).encode("utf-8")).hexdigest()[:16]


def sort_attr(value: object) -> str:
    """The `data-sort` value of a numeric cell (undefined sorts last: `-Infinity`)."""
    return "-Infinity" if value is None else sort_key(value)


def table_rows(t: Table, facets: FacetOptions, root: str) -> Markup:
    """`<tr>…</tr>` lines (each ending in a newline) of the rows and columns `t` shows (`shown_rows`, `shown`).

    `facets`: the table's offered filters (`Table.facet_options()`), each giving its rows a `data-f-<key>`;
    `root`: the relative path to the site root, prefixed to each link.
    """
    keys = [(escape(key), key) for key, _label, _values in facets]
    cols = [(c, c.numeric and t.sortable, ' class="db-wide"' if c.wide else "") for c in t.shown]
    out: list[str] = []
    for row in t.shown_rows:
        out.append("<tr")
        for html_key, key in keys:
            out.append(f' data-f-{html_key}="{facet_key(facet_value(row, key))}"')
        out.append(">")
        for c, sorted_numeric, wide in cols:
            out.append(_cell(c, row, sorted_numeric, wide, root))
        out.append("</tr>\n")
    return Markup("".join(out))


def _cell(c: Column, row: Row, sorted_numeric: bool, wide: str, root: str) -> str:
    v = row.get(c.key)
    link = row.get(c.link) if c.link else None
    note = row.get(c.note) if c.note else None
    attrs = ""
    if sorted_numeric:
        key = sort_attr(v)
        shown = fmt(v)
        # the sorter reads a plain number from the text; `data-sort` only where it could not (page weight)
        if not (key in (shown, shown + ".0") and not c.badge and not link and not note):
            attrs = f' data-sort="{escape(key)}"'
    if c.badge:
        body = f'<span class="db-badge db-why">{md_escape(v)}</span>' if v else ""
    elif v is None:
        why = row.get(c.undefined_note) if c.undefined_note else None
        body = "—" + (f' <span class="db-note">{md_escape(why)}</span>' if why else "")
    elif link:
        body = f'<a href="{escape(root)}{escape(link)}">{md_escape(v)}</a>'
    elif c.numeric:
        body = str(escape(c.prefix + fmt(v)))
        if note:
            body += f' <span class="db-note">{md_escape(note)}</span>'
    elif v is True:
        body = "yes"
    elif v is False:
        body = "no"
    else:
        body = str(md_escape(v))
    return f"<td{attrs}{wide}>{body}</td>"
