"""Run pages outside MkDocs: their HTML bodies go into the theme's own page shell.

A site has thousands of run pages (one per run, more for long runs) and a handful of other pages.
Sent through MkDocs, each run page cost a Markdown conversion, a full Material template render
(navigation, header, footer) and a search-index pass: 15-18 ms a page, most of a 200-submission
build. The run viewer's body is pure HTML (its tables are rendered by our Jinja templates already),
and the shell around it is the same on every run page at one depth (run pages are not in the
navigation, so no nav item is active). So:

1. `driftboard build` renders each run page's body straight to HTML (`run.html.j2`) and stages the
   bodies of one submission in one file under the docs folder's `.runs/` (a dot folder, which
   MkDocs never publishes), with an index of (URL, title, byte range);
2. MkDocs builds two tiny shell pages, `_db-shell/a/b/` and `_db-shell/a/b/c/`, at the depths run
   pages live at (`runs/<id>/<run>/` and `runs/<id>/<run>/turns-N/`), so every relative link the
   theme writes (CSS, JavaScript, navigation, search) is already right for a run page there;
3. each staged body is put into the shell of its depth, with its title and its URL (canonical
   link), and written to the site; the shell pages are removed, and the sitemap lists the run
   pages in their place (`sitemap_with_runs`, called by the MkDocs hook).

The pages look and behave like every other page (theme, dark mode, search box, scripts), the
output is byte-identical for the same results, and the cost is linear in the bytes written.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from pathlib import Path
from typing import BinaryIO

from checker.format.errors import DriftboardError

SHELL_ROOT = "_db-shell"
"""Top-level folder of the shell pages (no generated page lives there: run pages are under `runs/`)."""
SHELL_PAGES = {3: f"{SHELL_ROOT}/a/b/index.md", 4: f"{SHELL_ROOT}/a/b/c/index.md"}
"""Docs path of the shell page for each URL depth (number of `/` in a run page's site-relative URL)."""
TITLE = "DBSHELLTITLE"
BODY = '<div class="db-shell-body"></div>'
_SLOT = re.compile(r'<h1 id="run">.*?<div class="db-shell-body"></div>', re.DOTALL)
"""The shell's heading (which gives the theme its "skip to content" link to `#run`) and body placeholder:
a run page's body, which starts with its own `<h1 id="run">`, replaces both."""
STAGE = ".runs"
"""Docs subfolder of the staged run bodies (`NNNNNN.html` + `NNNNNN.json` per submission)."""
SITEMAP_LIST = f"{STAGE}/sitemap.json"
"""The run pages' URLs, sorted, for the sitemap (see `sitemap_with_runs`)."""


def shell_source() -> str:
    """The Markdown source of a shell page: a title placeholder, no table of contents, not searched."""
    return (f"---\ntitle: {TITLE}\nhide:\n  - toc\nsearch:\n  exclude: true\n---\n\n# {TITLE} {{#run}}\n\n{BODY}\n")


def write_shell_sources(docs: Path) -> None:
    """Write the shell pages into the docs folder."""
    for rel in SHELL_PAGES.values():
        path = docs / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(shell_source(), encoding="utf-8")


class Stager:
    """Collects run page bodies, one staging file per submission (a few files, not one per page).

    Bodies are written as they come (`begin`, `add`, `end`): a submission with a thousand long runs
    never holds more than one page body in memory here.
    """

    def __init__(self, docs: Path) -> None:
        self.dir = docs / STAGE
        self.dir.mkdir(parents=True, exist_ok=True)
        self.count = 0
        self.urls: list[str] = []
        self._seen: set[str] = set()
        """Every URL staged, case-folded: a second page at one URL would replace the first."""
        self._fh: BinaryIO | None = None
        self._index: list[list[object]] = []
        self._offset = 0

    def begin(self) -> None:
        """Start the staging file of the next submission."""
        self.end()
        self._fh = (self.dir / f"{self.count:06d}.html").open("wb")
        self._index, self._offset = [], 0

    def add(self, url: str, title: str, body: str) -> None:
        """Stage the body of the run page at site-relative `url` with `title`."""
        if self._fh is None:
            raise DriftboardError("internal: Stager.add before Stager.begin")
        if url.count("/") not in SHELL_PAGES:
            raise DriftboardError(f"internal: no page shell for a run page at depth {url.count('/')}: {url}")
        if url.casefold() in self._seen:
            raise DriftboardError(f"two run pages at one URL {url!r} (compared without case): one would replace "
                                  "the other; rename one run id (see the identity findings of `driftboard verify`)")
        self._seen.add(url.casefold())
        data = body.encode("utf-8")
        self._fh.write(data)
        self._index.append([url, title, self._offset, self._offset + len(data)])
        self._offset += len(data)
        self.urls.append(url)

    def end(self) -> None:
        """Close the current submission's staging file and write its index."""
        if self._fh is None:
            return
        self._fh.close()
        self._fh = None
        (self.dir / f"{self.count:06d}.json").write_text(json.dumps(self._index, ensure_ascii=False) + "\n",
                                                         encoding="utf-8")
        self.count += 1

    def finish(self) -> None:
        """Close the last staging file and write the sorted list of run page URLs (read by the sitemap hook)."""
        self.end()
        (self.dir / "sitemap.json").write_text(json.dumps(sorted(self.urls)) + "\n", encoding="utf-8")


class Shell:
    """A built shell page cut into static parts around its title, its own URL and its body."""

    def __init__(self, page: str, shell_url: str) -> None:
        slots = list(_SLOT.finditer(page))
        if len(slots) != 1:
            raise DriftboardError(f"internal: the page shell {shell_url} does not hold its body placeholder once")
        head, tail = page[:slots[0].start()], page[slots[0].end():]
        token = re.compile(f"({re.escape(TITLE)}|{re.escape(shell_url)})")
        self.head = token.split(head)
        self.tail = token.split(tail)
        self.shell_url = shell_url
        for part in self.head[::2] + self.tail[::2]:
            if SHELL_ROOT in part or TITLE in part:
                raise DriftboardError(f"internal: the page shell {shell_url} names itself in a way not replaced")

    def _fill(self, parts: list[str], title: str, url: str) -> list[str]:
        out = list(parts)
        for i in range(1, len(out), 2):
            out[i] = title if out[i] == TITLE else url
        return out

    def wrap(self, body: str, title: str, url: str) -> str:
        """The whole HTML page of `body` at site-relative `url` with `title` (plain text)."""
        t = html.escape(title, quote=True)
        return "".join(self._fill(self.head, t, url)) + body + "".join(self._fill(self.tail, t, url))


def shell_url(depth: int) -> str:
    """Site-relative URL of the shell page of a depth (`_db-shell/a/b/`)."""
    return SHELL_PAGES[depth].removesuffix("index.md")


def publish_runs(docs: Path, out: Path) -> int:
    """Put every staged run body into its shell and write it to the site; remove the shells. Returns pages written."""
    shells = {}
    for depth in SHELL_PAGES:
        built = out / shell_url(depth) / "index.html"
        shells[depth] = Shell(built.read_text(encoding="utf-8"), shell_url(depth))
    shutil.rmtree(out / SHELL_ROOT)
    stage = docs / STAGE
    written = 0
    made: set[Path] = set()
    for index_path in sorted(stage.glob("[0-9]*.json")):
        entries = json.loads(index_path.read_text(encoding="utf-8"))
        data = index_path.with_suffix(".html").read_bytes()
        for url, title, start, end in entries:
            target = out / url / "index.html"
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            page = shells[url.count("/")].wrap(data[start:end].decode("utf-8"), title, url)
            target.write_text(page, encoding="utf-8")
            written += 1
    return written


_URL_ENTRY = re.compile(r"\n?[ \t]*<url>\s*<loc>([^<]*)</loc>.*?</url>", re.DOTALL)


def sitemap_with_runs(output: str, docs: Path) -> str:
    """The sitemap MkDocs wrote with the shell pages' entries replaced by one entry per run page."""
    listing = docs / SITEMAP_LIST
    if not listing.is_file():
        return output
    urls: list[str] = json.loads(listing.read_text(encoding="utf-8"))
    shells = [m for m in _URL_ENTRY.finditer(output) if f"/{SHELL_ROOT}/" in m.group(1)]
    if not shells:  # no site_url: MkDocs lists no page, so neither do we
        return output
    first = shells[0]
    base = first.group(1)[: first.group(1).index(f"{SHELL_ROOT}/")]
    template = first.group(0)
    entries = "".join(template.replace(first.group(1), html.escape(base + u, quote=False)) for u in urls)
    pieces = []
    pos = 0
    for i, m in enumerate(shells):
        pieces.append(output[pos:m.start()])
        if i == 0:
            pieces.append(entries)
        pos = m.end()
    pieces.append(output[pos:])
    return "".join(pieces)
