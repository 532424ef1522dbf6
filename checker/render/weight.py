"""Page weight (issue 16): what one page load fetches stays under `PAGE_WEIGHT_BUDGET` on a page without charts.

Measured the way a reader's browser does (`tests/test_site_weight.py`: Chromium, the sum of the
response bodies of one page load). Most of the weight is the theme's own CSS and JavaScript
(~252 KB, loaded on every page and never edited here), so the rest is kept small:

* `slim_page` (from the MkDocs hook, after the fragments are in) drops the scripts a page does not
  use (the chart loader on a page without a chart, the table sorter's loader on a page without a
  table; the sorter itself loads when a reader reaches for a table header, `tablesort.js`) and
  minifies the HTML (whitespace and markup only: text, `<pre>` blocks and scripts keep their bytes);
* `minify_assets` minifies our own stylesheet and scripts in the built site (the sources in `site/`
  keep their comments);
* `palette_subset` keeps, of the theme's palette stylesheet (every primary and accent colour of
  Material), only the schemes and colours `mkdocs.yml` configures: the light and dark schemes
  (the reader's toggle) in the default indigo. `write_palette_subset` writes it beside the
  original at build time and `slim_page` points the pages at it.

Everything here is a pure function of its input, so two builds stay byte-identical.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import minify_html
import rcssmin
import rjsmin

PAGE_WEIGHT_BUDGET = 300_000
"""Bytes (uncompressed) that one load of a page without charts may fetch: HTML, CSS, JS, fonts, images, JSON."""

_SCRIPT = r'<script src="[^"]*{name}"></script>\s*'
_CHART_SCRIPTS = re.compile(_SCRIPT.format(name=r"javascripts/charts\.js"))
_TABLE_SCRIPTS = re.compile(_SCRIPT.format(name=r"javascripts/tablesort\.js"))
_PALETTE = re.compile(r'(assets/stylesheets/palette\.[0-9a-f]+)\.min\.css"')
SUBSET_SUFFIX = ".subset.min.css"
"""The palette subset sits beside the theme's `palette.<hash>.min.css` as `palette.<hash>` + this."""


def trim_scripts(html: str) -> str:
    """Drop the chart loader from a page with no chart and the table sorter from a page with no table."""
    if 'class="vega-chart' not in html:
        html = _CHART_SCRIPTS.sub("", html)
    if "<table" not in html:
        html = _TABLE_SCRIPTS.sub("", html)
    return html


def minify(html: str) -> str:
    """Minify markup only: whitespace between tags, comments, redundant quotes; text and `<pre>` keep their bytes."""
    return str(minify_html.minify(html, keep_closing_tags=True, keep_html_and_head_opening_tags=True,
                                  minify_css=False, minify_js=False))


def slim_page(html: str) -> str:
    """A built page, lighter: unused scripts dropped, the palette subset linked, markup minified."""
    return minify(_PALETTE.sub(r'\1' + SUBSET_SUFFIX + '"', trim_scripts(html)))


# ------------------------------------------------------------------------------------------- palette


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


_ATTR = re.compile(r"\[data-md-color-(primary|accent|scheme)=([\w-]+)\]")


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


def palette_subset(css: str, primaries: Iterable[str], accents: Iterable[str], schemes: Iterable[str]) -> str:
    """Keep the rules of Material's palette stylesheet that can apply with the configured colours and schemes.

    A selector naming `[data-md-color-primary=X]` (or accent, scheme) for an X not configured can never
    match, so it goes; a rule left with no selector goes; everything else is kept byte for byte.
    """
    allowed = {"primary": set(primaries), "accent": set(accents), "scheme": set(schemes)}

    def live(selector: str) -> bool:
        return all(value in allowed[kind] for kind, value in _ATTR.findall(selector))

    def walk(text: str) -> str:
        kept: list[str] = []
        for prelude, body in _blocks(text):
            if prelude.lstrip().startswith("@"):
                if body:
                    inner = walk(body)
                    if inner:
                        kept.append(f"{prelude}{{{inner}}}")
                else:
                    kept.append(prelude)
                continue
            if not body and "{" not in prelude:  # a trailing comment (the source map line)
                continue
            selectors = [s for s in _split_selectors(prelude) if live(s)]
            if selectors:
                kept.append(f"{','.join(selectors)}{{{body}}}")
        return "".join(kept)

    return walk(css)


def configured_palette(palette: object) -> tuple[set[str], set[str], set[str]]:
    """The primaries, accents and schemes a `theme.palette` setting uses (Material's defaults: indigo, default)."""
    entries = palette if isinstance(palette, list) else [palette] if isinstance(palette, dict) else []
    primaries, accents, schemes = set(), set(), set()
    for entry in entries:
        primaries.add(str(entry.get("primary") or "indigo"))
        accents.add(str(entry.get("accent") or "indigo"))
        schemes.add(str(entry.get("scheme") or "default"))
    return primaries, accents, schemes


def write_palette_subset(site_dir: Path, palette: object) -> list[Path]:
    """Write `palette.<hash>.subset.min.css` beside each palette stylesheet of the built site; returns them."""
    primaries, accents, schemes = configured_palette(palette)
    written = []
    for src in sorted((site_dir / "assets" / "stylesheets").glob("palette.*.min.css")):
        if src.name.endswith(SUBSET_SUFFIX):
            continue
        dest = src.with_name(src.name[: -len(".min.css")] + SUBSET_SUFFIX)
        dest.write_text(palette_subset(src.read_text(encoding="utf-8"), primaries, accents, schemes), encoding="utf-8")
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
