"""`driftboard cite`: a BibTeX entry and a plain-text citation for a verified submission or cell.

The text is built by `checker.render.citation`, the same function the site's "Cite" blocks use,
so the page and the command print the same bytes (permalink from `site_url` in mkdocs.yml, log
digest, checker version, verification date and the repository commit).
"""

from __future__ import annotations

from pathlib import Path

import click

from checker.errors import UsageError
from checker.render.citation import DEFAULT_SITE_URL, citation, cite_text, permalink, site_url
from checker.render.text import slug as render_slug
from checker.results_io import read_results


def slug(value: str) -> str:
    """The page slug the site uses for a submission id or cell name."""
    return render_slug(value)


def cite_command(ref: str, results_dir: Path) -> int:
    """`driftboard cite SUBMISSION[/CELL]`: print the BibTeX entry, then the plain-text citation."""
    submission, _, cell = ref.partition("/")
    if not submission:
        raise UsageError("expected SUBMISSION-ID or SUBMISSION-ID/CELL")
    results = read_results(results_dir / f"{submission}.json")
    click.echo(cite_text(results, cell or None), nl=False)
    return 0


__all__ = ["DEFAULT_SITE_URL", "citation", "cite_command", "permalink", "site_url", "slug"]
