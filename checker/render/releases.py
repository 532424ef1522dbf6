"""Release pages and the results changelog, rendered from the committed release files (`checker.pipeline.releases`).

* `releases/<id>.md`: an archived page per release: every cell's figures as that release published
  them, read from the release file (never from the current results), one row per cell with a stable
  anchor (`checker.pipeline.releases.anchor`, the permalink a citation names), and a banner per page and a
  mark per row where the current figure differs, linking to it;
* `releases/index.md`: every release, newest first;
* the "Results" part of the changelog: what each release added, changed and withdrew against the
  one before, and what the current results change against the newest release ("not yet released").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from checker.format.numbers import fmt
from checker.format.release_model import ReleaseCell, ReleaseFile, ReleaseSubmission, Withdrawal
from checker.pipeline.releases import Change, Diff, anchor, diff, entries, release_path
from checker.render.context import Release
from checker.render.metrics import rank_metric
from checker.render.paths import cell_path, submission_path, url_of
from checker.render.stream import Listing
from checker.render.tables import Column, Row, Table, write_downloads
from checker.render.text import md_escape

REPRODUCE = "git checkout {commit} && driftboard verify submissions/"


def _h(value: object) -> str:
    """A value for HTML text or an attribute (every submitted string goes through here)."""
    return escape(str(value), quote=True)


def _same(a: ReleaseCell, b: ReleaseCell) -> bool:
    return (a.figure, a.valid_only, a.n_valid, a.n_declared, a.logs_sha256, a.digest) == (
        b.figure, b.valid_only, b.n_valid, b.n_declared, b.logs_sha256, b.digest)


def release_label(releases: list[ReleaseFile], results: Sequence[Listing], fallback: Release) -> Release:
    """What the home and track pages say the results are "as of": the newest release, and whether the results moved on."""
    if not releases:
        return {"id": f"none yet (results verified at {fallback['id']})" if fallback["as_of"] else fallback["id"],
                "as_of": fallback["as_of"]}
    newest = releases[-1]
    pending = not diff(newest.submissions, entries(results, rank_metric)).empty()
    return {"id": newest.release + (" + unreleased changes" if pending else ""), "as_of": fallback["as_of"]}


Current = dict[tuple[str, str], tuple[Listing, ReleaseCell]]
"""(submission, cell) -> (its results, its release entry) in the current results."""


def _current_cells(results: Sequence[Listing]) -> Current:
    now = entries(results, rank_metric)
    by_id = {r.submission_id: r for r in results}
    return {(sid, cell): (by_id[sid], e) for sid, sub in now.items() for cell, e in sub.cells.items()}


DOWNLOAD_COLUMNS = (("submission", "submission"), ("cell", "cell"), ("metric", "metric"),
                    ("figure", "figure (all declared)"), ("valid_only", "valid only"),
                    ("valid_of_declared", "valid of declared"), ("checker", "checker"),
                    ("logs_sha256", "logs SHA-256"), ("result_digest", "result digest"), ("now", "now"))
"""The release table's columns, in page order (its CSV and JSON downloads)."""
ROOT = "../../"
"""From a release page back to the site root."""


@dataclass
class _Rows:
    """A release table: its HTML rows, its download records, and how many of its cells changed or left."""

    html: list[str] = field(default_factory=list)
    records: list[Row] = field(default_factory=list)
    differs: int = 0
    gone: int = 0


def _now(e: ReleaseCell, now: tuple[Listing, ReleaseCell] | None, cell: str, rows: _Rows) -> tuple[str, str]:
    """(the "now" cell's HTML, its text) of a released cell, against its current entry (`now`, None when gone)."""
    if now is None:
        rows.gone += 1
        return '<span class="db-badge">no longer published</span>', "no longer published"
    href = f"{ROOT}{url_of(cell_path(now[0], cell))}"
    if _same(e, now[1]):
        return f'<a href="{href}">unchanged (current page)</a>', "unchanged"
    # the link is the cell's whole text: a link beside other text in a cell is told only by colour
    rows.differs += 1
    text = f"changed since: now {fmt(now[1].figure)}"
    return f'<strong><a href="{href}">{_h(text)}</a></strong>', text


def _release_rows(rel: ReleaseFile, current: Current) -> _Rows:
    rows = _Rows()
    for sid, sub in sorted(rel.submissions.items()):
        for cell, e in sorted(sub.cells.items()):
            mark, now_text = _now(e, current.get((sid, cell)), cell, rows)
            rows.html.append(_row(sid, sub, cell, e, mark))
            rows.records.append({"submission": sid, "cell": cell, "metric": e.metric, "figure": e.figure,
                                 "valid_only": e.valid_only, "valid_of_declared": _valid_of(e),
                                 "checker": sub.checker_version, "logs_sha256": e.logs_sha256,
                                 "result_digest": e.digest or None, "now": now_text})
    return rows


def _withdrawn(w: Withdrawal) -> str:
    if w.cell:
        return (f"<li>{_h(w.submission)}/{_h(w.cell)}: {_h(w.reason)} (last published in "
                f'<a href="../{w.last_release}/#{anchor(w.submission, w.cell)}">{w.last_release}</a>)</li>')
    return (f"<li>{_h(w.submission)}: {_h(w.reason)} (last published in "
            f'<a href="../{w.last_release}/">{w.last_release}</a>)</li>')


def _release_head(rel: ReleaseFile, rows: _Rows, newer: str | None) -> list[str]:
    """The page's title, what it is, whether its figures still stand, and what it withdrew."""
    lines = ["---", f"title: Release {rel.release}", "---", "",
             f"# Release {rel.release}", "",
             f'<p class="db-asof">The figures release <code>{rel.release}</code> published: the verified results at '
             f"commit <code>{rel.commit}</code> of <strong>{rel.date}</strong>, read from "
             f"<code>releases/{rel.release}.json</code> (digest <code>{rel.digest}</code>), never from the current "
             f"results. Checker {_h(rel.checker_version)}. Reproduce: "
             f"<code>{_h(REPRODUCE.format(commit=rel.commit))}ID</code>.</p>", ""]
    if rows.differs or rows.gone:
        lines += ['<div class="admonition warning" role="note"><p class="admonition-title">Superseded figures</p>'
                  f"<p>{rows.differs} cell(s) of this release have a different figure now and {rows.gone} are no "
                  "longer published; each row below links to the current figure. A citation of this release still "
                  "means the figures on this page.</p></div>", ""]
    elif newer:
        lines += ['<div class="admonition note" role="note"><p class="admonition-title">Still current</p>'
                  f"<p>Every figure of this release is unchanged in the current results (newer release: "
                  f'<a href="../{newer}/">{newer}</a>).</p></div>', ""]
    lines += ["Each row's anchor is its permalink in this release (it never changes). The ranked figure is the "
              "all-declared (intent-to-treat) value of the track's ranking metric; the valid-only figure stands "
              "beside it. Digests are shortened here; the table's downloads and the release file hold them in full.", ""]
    if rel.withdrawn:
        items = "".join(_withdrawn(w) for w in rel.withdrawn)
        lines += [f'<div class="db-withdrawn"><p><strong>Withdrawn in this release</strong></p><ul>{items}</ul></div>', ""]
    return lines


def _release_table(rel: ReleaseFile, rows: _Rows, docs: Path | None) -> str:
    """The table of every cell of the release (raw HTML), with its downloads when `docs` is given."""
    head = "<tr>" + "".join(f'<th scope="col">{label}</th>' for _key, label in DOWNLOAD_COLUMNS) + "</tr>"
    caption = f"Every cell of release {rel.release}, as published"
    downloads = ""
    if docs is not None:
        table = Table("release", caption, [Column(k, label) for k, label in DOWNLOAD_COLUMNS], rows.records)
        write_downloads(table, docs, f"downloads/releases/{rel.release}")
        downloads = (f'<p class="db-downloads">{caption}: download <a href="{ROOT}{table.download}.csv" download>CSV'
                     f'</a> · <a href="{ROOT}{table.download}.json" download>JSON</a></p>')
    body = "".join(rows.html) if rows.html else f'<tr><td colspan="{len(DOWNLOAD_COLUMNS)}"><em>No cells.</em></td></tr>'
    return (f'<div class="db-table" id="table-release"><div class="db-scroll" tabindex="0" role="region" '
            f'aria-label="{caption} (scrolls sideways)"><table data-db-nosort="1"><caption>{caption}</caption>'
            f"<thead>{head}</thead><tbody>{body}</tbody></table></div>{downloads}</div>")


def release_page(rel: ReleaseFile, current: Current, newer: str | None, docs: Path | None = None) -> str:
    """The archived page of one release (Markdown with a raw-HTML table).

    `current`: (submission, cell) -> (its results, its entry) in the current results; `newer`: the next
    release's id; `docs`: where to write the table's CSV and JSON downloads (None: no downloads).
    """
    rows = _release_rows(rel, current)
    return "\n".join([*_release_head(rel, rows, newer), _release_table(rel, rows, docs), ""])


def _valid_of(e: ReleaseCell) -> str:
    return f"{e.n_valid} of {e.n_declared or e.runs}{' declared' if e.n_declared else ' reported'}"


def _row(sid: str, sub: ReleaseSubmission, cell: str, e: ReleaseCell, mark: str) -> str:
    logs = f'<code>{e.logs_sha256[:12]}…</code> ({e.logs} logs)'
    digest = f'<code>{e.digest[:12]}…</code>' if e.digest else "—"
    metric = _h(e.metric) if e.metric else "— (comparator)"
    return (f'<tr id="{anchor(sid, cell)}"><td>{_h(sid)}</td><td><a href="#{anchor(sid, cell)}">{_h(cell)}</a></td>'
            f"<td>{metric}</td><td>{_h(fmt(e.figure))}</td><td>{_h(fmt(e.valid_only))}</td>"
            f"<td>{_valid_of(e)}</td>"
            f"<td>{_h(sub.checker_version)}</td><td>{logs}</td><td>{digest}</td><td>{mark}</td></tr>")


def releases_index(releases: list[ReleaseFile]) -> str:
    """`releases/index.md`: every release, newest first."""
    lines = ["---", "title: Releases", "---", "", "# Releases", "",
             "Each release is a committed file `releases/<date>-<commit>.json` recording every cell's figures at "
             "that commit; its page shows them as published, whatever the current results say. What each release "
             "changed is in the [changelog](../changelog.md#results).", ""]
    if not releases:
        lines.append("No release yet.")
    for rel in reversed(releases):
        cells = sum(len(s.cells) for s in rel.submissions.values())
        lines.append(f"- [{rel.release}]({rel.release}.md): {len(rel.submissions)} submission(s), {cells} cell(s); "
                     f"commit `{rel.commit[:12]}`, digest `{rel.digest[:12]}…`")
    return "\n".join(lines) + "\n"


Links = dict[tuple[str, str | None], str]
"""(submission, cell or None) -> the docs path a changelog entry links to."""


def _items(label: str, changes: list[Change], link: Links) -> list[str]:
    out = []
    for ch in changes:
        name = md_escape(ch.submission) + (f" / {md_escape(ch.cell)}" if ch.cell else "")
        href = link.get((ch.submission, ch.cell))
        shown = f"[{name}]({href})" if href else str(name)
        why = f" ({md_escape('; '.join(ch.reasons))})" if ch.reasons else ""
        out.append(f"- **{label}** {shown}: {md_escape(ch.what)}{why}")
    return out


def _diff_lines(d: Diff, link: Links) -> list[str]:
    if d.empty():
        return ["Nothing added, changed or withdrawn.", ""]
    return [*_items("added", d.added, link), *_items("changed", d.changed, link),
            *_items("withdrawn", d.withdrawn, link), ""]


def _current_links(results: Sequence[Listing], now: dict[str, ReleaseSubmission]) -> Links:
    """Where each current submission and cell is published."""
    by_id = {r.submission_id: r for r in results}
    links: Links = {}
    for sid, sub in now.items():
        links[(sid, None)] = submission_path(by_id[sid])
        for cell in sub.cells:
            links[(sid, cell)] = cell_path(by_id[sid], cell)
    return links


def _release_links(rel: ReleaseFile, before: ReleaseFile | None) -> Links:
    """Where each entry of a release's changes is shown: its archived row, else the previous release's."""
    page = release_path(rel.release)
    links: Links = {(sid, None): page for sid in rel.submissions}
    links.update({(sid, cell): f"{page}#{anchor(sid, cell)}" for sid, sub in rel.submissions.items()
                  for cell in sub.cells})
    if before is not None:
        bpage = release_path(before.release)
        for sid, sub in before.submissions.items():
            links.setdefault((sid, None), bpage)
            for cell in sub.cells:
                links.setdefault((sid, cell), f"{bpage}#{anchor(sid, cell)}")
    return links


def _release_section(rel: ReleaseFile, before: ReleaseFile | None) -> list[str]:
    """What one release added, changed and withdrew against the one before."""
    against = f"; against release {before.release}:" if before else "; the first release:"
    return [f"### Release {rel.release} {{ #release-{rel.release} }}", "",
            f"Commit `{rel.commit}` of {rel.date}; [figures as published]({release_path(rel.release)}); "
            f"digest `{rel.digest}`" + against, "",
            *_diff_lines(diff(before.submissions if before else {}, rel.submissions, rel.withdrawn),
                         _release_links(rel, before))]


def results_changelog(releases: list[ReleaseFile], results: Sequence[Listing]) -> str:
    """The changelog's results part: current results against the newest release, then each release against the one before."""
    lines = ["# Changelog", "", "## Results { #results }", "",
             "A release is a committed file (`releases/<date>-<commit>.json`, written by `driftboard release` from the "
             "verified results at that commit; the date is the commit's, never the clock). Each release has an "
             "[archived page](releases/index.md) with its figures as published; citations name the release. "
             "Below: what each release **added**, **changed** (old → new, and why where the records say) and "
             "**withdrew**, newest first.", ""]
    now = entries(results, rank_metric)
    newest = releases[-1] if releases else None
    lines += ["### Not yet released { #unreleased }", ""]
    if newest is not None:
        lines += [f"The current results against release [{newest.release}]({release_path(newest.release)}):", ""]
    else:
        lines += ["No release has been made yet: every current result is unreleased.", ""]
    lines += _diff_lines(diff(newest.submissions if newest else {}, now), _current_links(results, now))
    for i in range(len(releases) - 1, -1, -1):
        lines += _release_section(releases[i], releases[i - 1] if i else None)
    return "\n".join(lines) + "\n## Software\n"


def release_files(releases: list[ReleaseFile], results: Sequence[Listing], docs: Path | None = None) -> dict[str, str]:
    """Docs-relative path -> Markdown of every release page and the releases index (tables' downloads into `docs`)."""
    out = {"releases/index.md": releases_index(releases)}
    current = _current_cells(results) if releases else {}
    for i, rel in enumerate(releases):
        out[release_path(rel.release)] = release_page(rel, current, releases[i + 1].release if i + 1 < len(releases)
                                                      else None, docs)
    return out
