"""`driftboard cite`: a BibTeX entry and a plain-text citation for a verified submission or cell.

The text is built by `checker.render.citation`, the same functions the site's "Cite" blocks use,
so the page and the command print the same bytes (permalink from `site_url` in mkdocs.yml, log
digest, checker version, verification date and the repository commit).
"""

from __future__ import annotations

from pathlib import Path

import click

from checker.format.errors import UsageError
from checker.format.report import safe_json
from checker.format.results_io import read_results
from checker.pipeline.releases import RELEASES_DIR, read_releases
from checker.render.citation import (
    DEFAULT_SITE_URL,
    citation,
    citation_fields,
    cite_text,
    permalink,
    site_url,
)
from checker.render.text import slug as render_slug


def slug(value: str) -> str:
    """The page slug the site uses for a submission id or cell name."""
    return render_slug(value)


def cite_command(ref: str, results_dir: Path, fmt: str = "text", releases_dir: Path = Path(RELEASES_DIR)) -> int:
    """`driftboard cite SUBMISSION[/CELL]`: print the BibTeX entry, then the plain-text citation.

    With `fmt="json"`: `{command: "cite", ok, exit_code, problems: [], bibtex, text, permalink,
    logs_sha256, result_digest, checker_version, profile, verified, commit, reproduce, submission,
    cell, result_id, release, release_permalink}`. A cell's citation names the first release in
    `releases_dir` that published exactly its figures (the site's Cite block reads the same files).
    """
    submission, _, cell = ref.partition("/")
    if not submission:
        raise UsageError("expected SUBMISSION-ID or SUBMISSION-ID/CELL")
    results = read_results(results_dir / f"{submission}.json")
    releases = read_releases(releases_dir, check_history=False)
    if fmt == "json":
        bib, plain = citation(results, cell or None, releases=releases)
        fields = citation_fields(results, cell or None, releases=releases)
        click.echo(safe_json({"command": "cite", "ok": True, "exit_code": 0, "problems": [], "bibtex": bib,
                              "text": plain, **fields}), nl=False)
        return 0
    # visible(): control and bidi characters spelled out
    click.echo(cite_text(results, cell or None, releases=releases), nl=False)
    return 0


__all__ = ["DEFAULT_SITE_URL", "citation", "citation_fields", "cite_command", "permalink", "site_url", "slug"]
