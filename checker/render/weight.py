"""Page weight (issues 16, 31): what one page load fetches stays under `PAGE_WEIGHT_BUDGET` on every page, charts included.

Charts are static SVG drawn at build time (`checker.render.chart_svg`); the ~955 KB of Vega loads only
when a reader asks for an interactive chart, so it is never part of a page load.

Measured the way a reader's browser does (`tests/test_site_weight.py`: Chromium, the sum of the
response bodies of one page load). Most of the weight is the theme's own CSS and JavaScript
(~252 KB as shipped, loaded on every page; the shipped files are never edited), so the rest is kept small:

* `slim_page` (from the MkDocs hook, after the fragments are in) drops the scripts a page does not
  use (the chart button's script on a page without a chart, the table sorter's loader on a page without a
  table; the sorter itself loads when a reader reaches for a table header, `tablesort.js`), empties
  the hidden copy of the table of contents on pages that hide it, links the theme's stylesheets'
  subsets, and drops the HTML's indentation (`minify`: text, `<pre>` blocks and scripts keep their bytes);
* `minify_assets` minifies our own stylesheet and scripts in the built site (the sources in `site/`
  keep their comments);
* `theme_css_subset` keeps, of the theme's stylesheets, every rule that can match on this site:
  a selector that needs `[data-md-color-primary=X]` (or accent, scheme) for a colour or scheme
  `mkdocs.yml` does not configure, or `[dir=rtl]` on a left-to-right site, can never match, so it
  goes; so does a selector that needs a class only a Markdown extension this site does not use
  writes (`EXTENSION_CLASSES`: content tabs, keys, critic, maths, task lists, code highlighting,
  footnotes, emoji, diagrams; the theme's script only acts on such elements when a page has them).
  Every other byte is kept (with nothing to drop the output equals the input; a test checks this
  on the shipped files). `write_theme_subsets` writes `<name>.subset.min.css` beside each shipped
  file, which stays: a page that sets `dir="rtl"` or carries one of those classes links the shipped
  files, so the subset is exact page by page.

Everything here is a pure function of its input, so two builds stay byte-identical.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import rcssmin
import rjsmin

PAGE_WEIGHT_BUDGET = 300_000
"""Bytes (uncompressed) that one load of any page may fetch: HTML, CSS, JS, fonts, images, JSON."""

_SCRIPT = r'<script src="[^"]*{name}"></script>\s*'
_CHART_SCRIPTS = re.compile(_SCRIPT.format(name=r"javascripts/charts\.js"))
_TABLE_SCRIPTS = re.compile(_SCRIPT.format(name=r"javascripts/tablesort\.js"))
_BOARD_SCRIPTS = re.compile(_SCRIPT.format(name=r"javascripts/leaderboard\.js"))
_HIDDEN_TOC = re.compile(r'(<div class="md-sidebar md-sidebar--secondary" data-md-component="sidebar" data-md-type="toc"'
                         r'\s+hidden>\s*<div class="md-sidebar__scrollwrap">\s*<div class="md-sidebar__inner">)'
                         r'\s*<nav [^>]*>.*?</nav>\s*(</div>)', re.S)
_THEME_CSS = re.compile(r'(assets/stylesheets/(?:main|palette)\.[0-9a-f]+)\.min\.css"')
EXTENSION_CLASSES = re.compile(
    r"tabbed-|keys$|key-|critic$|arithmatex$|task-list|highlight$|highlighttable$|hll$|linenos$|linenodiv$|"
    r"filename$|footnote|emojione$|twemoji$|gemoji$|mermaid$")
"""Class names (matched from the start) that only Markdown extensions this site does not enable write:
pymdownx.tabbed, keys, critic, arithmatex, tasklist, highlight (or codehilite), footnotes, emoji, and
superfences' mermaid fences. A page carrying one links the theme's full stylesheet."""
_RTL = re.compile(r'<[a-zA-Z][^<>]*\sdir="rtl"')
"""A tag that sets right to left (not the words `dir="rtl"` in a page's text, as on the Performance pages)."""
_CLASS_ATTR = re.compile(r'\sclass="([^"]*)"')
_CLASS_TOKEN = re.compile(r"\.((?:[\w-]|\\.)+)")
_FUNCTIONAL = re.compile(r":(?:not|is|where|has|matches)\((?:[^()]|\([^()]*\))*\)")
SUBSET_SUFFIX = ".subset.min.css"
"""A subset sits beside the theme's `main.<hash>.min.css` (or palette) as `main.<hash>` + this."""


def trim_scripts(html: str) -> str:
    """Drop scripts a page does not use: the chart loader, the table sorter, the boards' script.

    The chart loader goes from a page with no chart, the table sorter from a page with no table, and the filters,
    scroll cue and citation copier (`leaderboard.js`) from a page with none of our tables.
    """
    if "db-chart-interactive" not in html:
        html = _CHART_SCRIPTS.sub("", html)
    if "<table" not in html:
        html = _TABLE_SCRIPTS.sub("", html)
    if "db-table" not in html:
        html = _BOARD_SCRIPTS.sub("", html)
    return html


_VERBATIM = re.compile(r"(<(pre|textarea|script|style)\b.*?</\2>)", re.S | re.I)
_INDENT = re.compile(r"\n\s+")


def minify(html: str) -> str:
    """Drop the indentation: whitespace that starts with a line break becomes that line break.

    Whitespace that holds a line break renders as one space and reads as one in the page's text, so
    nothing a reader sees or copies changes; `<pre>`, `<textarea>`, scripts and styles keep every byte.
    """
    parts = _VERBATIM.split(html)
    out = []
    for i in range(0, len(parts), 3):
        out.append(_INDENT.sub("\n", parts[i]))
        if i + 1 < len(parts):
            out.append(parts[i + 1])
    return "".join(out)


def drop_hidden_toc(html: str) -> str:
    """Empty the right-hand table of contents of a page that hides it (`hide: [toc]`: never shown).

    The theme still writes it there, hidden, besides the copy in the navigation drawer, which stays.
    """
    return _HIDDEN_TOC.sub(r"\1\2", html, count=1)


def subset_fits(html: str) -> bool:
    """Whether the theme's stylesheet subsets style `html` exactly: left to right, no class of `EXTENSION_CLASSES`."""
    if _RTL.search(html):
        return False
    return not any(EXTENSION_CLASSES.match(name) for value in _CLASS_ATTR.findall(html) for name in value.split())


def slim_page(html: str, *, scripts: bool = True) -> str:
    """A built page, lighter: unused scripts and hidden table of contents dropped, theme CSS subsets linked, minified.

    `scripts=False` keeps every script: for the run pages' shell (`checker.render.shell`), whose body comes later.
    """
    html = drop_hidden_toc(trim_scripts(html) if scripts else html)
    if subset_fits(html):
        html = _THEME_CSS.sub(r'\1' + SUBSET_SUFFIX + '"', html)
    return minify(html)


# ------------------------------------------------------------------------------------------- theme CSS


def _blocks(css: str) -> list[tuple[str, str]]:
    """Split a stylesheet into top-level `(prelude, body)` pairs (body without the braces; `;` statements as prelude)."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(css)
    while i < n:
        j = i
        while j < n and css[j] not in "{;":
            if css.startswith("/*", j):
                j = css.index("*/", j + 2) + 2
                continue
            if css[j] in "\"'":
                j = css.index(css[j], j + 1)
            j += 1
        if j >= n:
            if css[i:].strip():
                out.append((css[i:], ""))
            break
        if css[j] == ";":
            out.append((css[i:j + 1], ""))
            i = j + 1
            continue
        depth, k = 1, j + 1
        while depth:
            if css[k] in "\"'":
                k = css.index(css[k], k + 1)
            elif css[k] == "{":
                depth += 1
            elif css[k] == "}":
                depth -= 1
            k += 1
        out.append((css[i:j], css[j + 1:k - 1]))
        i = k
    return out


_ATTR = re.compile(r"\[(?:data-md-color-)?(primary|accent|scheme|dir)=([\w-]+)\]")


def _split_selectors(prelude: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for k, ch in enumerate(prelude):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(prelude[start:k])
            start = k + 1
    parts.append(prelude[start:])
    return parts


def theme_css_subset(css: str, allowed: Mapping[str, Iterable[str]], drop_classes: re.Pattern[str] | None = None) -> str:
    """The rules of a theme stylesheet that can match: `allowed` maps primary/accent/scheme/dir to the values in use.

    A selector naming `[data-md-color-primary=X]` (or accent, scheme; or `[dir=X]`) for an X not
    allowed can never match, so it goes, and so does one that requires a class `drop_classes`
    matches; a rule left with no selector goes; the rest is kept byte for byte (the trailing
    source-map comment goes too).
    """
    sets = {kind: set(values) for kind, values in allowed.items()}

    def live(selector: str) -> bool:
        if not all(value in sets[kind] for kind, value in _ATTR.findall(selector) if kind in sets):
            return False
        # classes the selector requires (not those under :not(), :is(), ...): one only an unused extension writes?
        required = _CLASS_TOKEN.findall(_FUNCTIONAL.sub("", selector))
        return drop_classes is None or not any(drop_classes.match(name) for name in required)

    def walk(text: str) -> str:
        kept: list[str] = []
        for prelude, body in _blocks(text):
            if prelude.lstrip().startswith("@"):
                if "{" in body:  # a group of rules (@media, @supports, @keyframes): filter inside
                    inner = walk(body)
                    if inner:
                        kept.append(f"{prelude}{{{inner}}}")
                else:  # a statement (@charset ...;) or declarations (@page, @font-face): as is
                    kept.append(f"{prelude}{{{body}}}" if body else prelude)
                continue
            if not body and "{" not in prelude:  # a trailing comment (the source map line)
                continue
            selectors = [s for s in _split_selectors(prelude) if live(s)]
            if selectors:
                kept.append(f"{','.join(selectors)}{{{body}}}")
        return "".join(kept)

    return walk(css)


def theme_allowed(palette: object) -> dict[str, set[str]]:
    """What a page of this site can carry: the colours and schemes of `theme.palette` (Material's defaults), left to right."""
    entries = palette if isinstance(palette, list) else [palette] if isinstance(palette, dict) else []
    allowed: dict[str, set[str]] = {"primary": set(), "accent": set(), "scheme": set(), "dir": {"ltr"}}
    for entry in entries or [{}]:
        allowed["primary"].add(str(entry.get("primary") or "indigo"))
        allowed["accent"].add(str(entry.get("accent") or "indigo"))
        allowed["scheme"].add(str(entry.get("scheme") or "default"))
    return allowed


def write_theme_subsets(site_dir: Path, palette: object) -> list[Path]:
    """Write `<name>.subset.min.css` beside the theme's main and palette stylesheets of the built site; returns them."""
    allowed = theme_allowed(palette)
    written = []
    for src in sorted((site_dir / "assets" / "stylesheets").glob("*.min.css")):
        if src.name.endswith(SUBSET_SUFFIX) or not src.name.startswith(("main.", "palette.")):
            continue
        dest = src.with_name(src.name[: -len(".min.css")] + SUBSET_SUFFIX)
        dest.write_text(theme_css_subset(src.read_text(encoding="utf-8"), allowed, EXTENSION_CLASSES), encoding="utf-8")
        written.append(dest)
    return written


def minify_assets(site_dir: Path, paths: Iterable[str]) -> list[Path]:
    """Minify the site's own `.css` and `.js` files at `paths` (relative to `site_dir`; `.min.` files are left alone)."""
    done = []
    for rel in sorted(set(paths)):
        path = site_dir / rel
        if ".min." in path.name or not path.is_file() or path.suffix not in (".css", ".js"):
            continue
        text = path.read_text(encoding="utf-8")
        small = rcssmin.cssmin(text) if path.suffix == ".css" else rjsmin.jsmin(text)
        path.write_text(small, encoding="utf-8")
        done.append(path)
    return done


# ------------------------------------------------------------------------------------------- measure

_TAG = re.compile(r"<(link|script|img)\b([^<>]*)>", re.I)
_ATTR_VALUE = re.compile(r'\b(rel|href|src)="([^"]*)"', re.I)
CHART_LOADER = "javascripts/charts.js"
"""The script that adds each chart's "Interactive chart" button; Vega loads only when a reader presses it."""
_CHART_ELEMENT = re.compile(r'<figure\b(?=[^<>]*\sclass="db-chart")', re.I)


def page_resources(html: str) -> list[str]:
    """What loading `html` fetches besides itself: stylesheets, scripts, icons and images, as linked (relative URLs).

    External URLs (`https:`, `//`, `data:`) are left out: the site makes no external request (`font: false`).
    """
    out: list[str] = []
    for tag, attrs in _TAG.findall(html):
        values = {k.lower(): v for k, v in _ATTR_VALUE.findall(attrs)}
        if tag.lower() == "link":
            if not {"stylesheet", "icon"} & set(values.get("rel", "").lower().split()):
                continue
            url = values.get("href", "")
        else:
            url = values.get("src", "")
        url = url.split("#", 1)[0].split("?", 1)[0]
        if url and not re.match(r"^(?:[a-z][a-z0-9+.-]*:|//)", url, re.I) and url not in out:
            out.append(url)
    return out


def has_charts(html: str) -> bool:
    """Whether a built page holds a chart (a static SVG drawn at build time, or the words saying why there is none).

    No page fetches Vega when it loads (`site/javascripts/charts.js` loads it when a reader asks for an
    interactive chart), so a page with charts is measured like every other page.
    """
    return bool(_CHART_ELEMENT.search(html))


def page_weight(page: Path) -> dict[str, int]:
    """Bytes of one load of a built page from disk: the page (`""`) and each resource it links (by its URL).

    The same sum as the browser's (`tests/test_site_weight.py` checks the two agree on a sample), for a page
    whose scripts fetch nothing more at load than what is counted here: `copy.js`, which `leaderboard.js` adds
    on a page with a Copy citation button (search, the table sorter and the interactive charts' Vega load on use).
    """
    html = page.read_text(encoding="utf-8")
    sizes = {"": len(html.encode("utf-8"))}
    urls = page_resources(html)
    # the one script loaded by another at load time: leaderboard.js adds copy.js where a Copy citation button is
    board = next((u for u in urls if u.endswith("javascripts/leaderboard.js")), None)
    if board is not None and 'class="db-copy' in html:
        urls.append(board.removesuffix("leaderboard.js") + "copy.js")
    for url in urls:
        target = (page.parent / url).resolve()
        sizes[url] = target.stat().st_size if target.is_file() else 0
    return sizes


def site_weights(site_dir: Path) -> list[tuple[str, int, bool]]:
    """`(page URL, bytes of one load, has charts)` of every HTML page of a built site, heaviest first."""
    rows = []
    for page in sorted(site_dir.rglob("*.html")):
        rel = page.relative_to(site_dir).as_posix()
        url = rel.removesuffix("index.html") if rel.endswith("index.html") else rel
        rows.append((url, sum(page_weight(page).values()), has_charts(page.read_text(encoding="utf-8"))))
    return sorted(rows, key=lambda r: (-r[1], r[0]))


def main(argv: list[str] | None = None) -> int:
    """`python -m checker.render.weight SITE [N]`: the N (default 20) heaviest pages of a built site."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m checker.render.weight SITE [N]", file=sys.stderr)
        return 2
    rows = site_weights(Path(args[0]))
    for url, total, charts in rows[: int(args[1]) if len(args) > 1 else 20]:
        flag = "  OVER" if total >= PAGE_WEIGHT_BUDGET else ""
        print(f"{total / 1000:8.1f} KB  /{url}{'  (charts)' if charts else ''}{flag}")
    over = sum(1 for r in rows if r[1] >= PAGE_WEIGHT_BUDGET)
    print(f"{len(rows)} pages ({sum(1 for r in rows if r[2])} with charts), {over} over {PAGE_WEIGHT_BUDGET / 1000:.0f} KB")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
