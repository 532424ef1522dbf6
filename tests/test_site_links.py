"""Every internal link of the built fixture site resolves to a file the site serves (issue 16 item 7)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from bs4 import BeautifulSoup

from checker.render.citation import site_url


def _target(site: Path, page: Path, href: str) -> Path | None:
    """The file an internal href points at (None: external, anchor-only or not a file link)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("#", "mailto:", "javascript:")) or not parts.path:
        return None
    base = "/" + page.relative_to(site).as_posix()
    path = unquote(urlsplit(urljoin(base, parts.path)).path)
    prefix = urlsplit(site_url()).path  # 404.html links absolutely, under the site's base path
    if parts.path.startswith("/") and path.startswith(prefix):
        path = path[len(prefix):]
    path = path.lstrip("/")
    target = site / path
    return target / "index.html" if path == "" or path.endswith("/") else target


@pytest.fixture(scope="module")
def site(fixture_site: Path) -> Path:
    """The fixture site (`conftest.fixture_site`)."""
    return fixture_site


def test_every_internal_link_resolves(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 50
    broken: list[str] = []
    for page in pages:
        doc = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
        for tag, attr in (("a", "href"), ("link", "href"), ("script", "src"), ("img", "src")):
            for el in doc.find_all(tag):
                href = el.get(attr)
                if not href:
                    continue
                target = _target(site, page, href)
                if target is not None and not target.is_file():
                    broken.append(f"{page.relative_to(site)}: {href}")
    assert broken == [], f"{len(broken)} broken internal links, e.g. {broken[:10]}"


def test_run_pages_linked_from_cell_pages(site: Path) -> None:
    doc = BeautifulSoup((site / "results/synthetic-0000/FULL/index.html").read_text(encoding="utf-8"), "html.parser")
    hrefs = [a["href"] for a in doc.select("#table-runs a")]
    assert any("runs/synthetic-0000/synthetic-0000-FULL-s1/" in h for h in hrefs)
