"""`driftboard cite`: a BibTeX entry and a plain-text citation for a verified submission or cell.

The text is built by `checker.render.citation`, the same functions the site's "Cite" blocks use,
so the page and the command print the same bytes (permalink from `site_url` in mkdocs.yml, log
digest, checker version, verification date and the repository commit).
"""

from __future__ import annotations

from pathlib import Path

import click

from checker.format.errors import DriftboardError, UsageError
from checker.format.report import safe_json
from checker.format.results_io import read_results
from checker.format.results_model import ResultsFile
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


def stale_for_tree(results: ResultsFile) -> str | None:
    """Why a results file does not describe the submission as it is on disk (None: it does).

    Checked when the submission folder `verify` read is here (a results file cited away from its
    tree is taken as it is): every log it verified is there with the SHA-256 it verified, and
    `submission.yaml` and `prereg.yaml` say what they said then (the manifest as validated, the
    pre-registration byte for byte).
    """
    import hashlib

    import yaml

    from checker.format.schema.manifest import Submission

    folder = Path(results.reproduce.removeprefix("driftboard verify ").strip())
    if not folder.is_dir():
        return None
    for log in results.logs:
        path = Path(log.path)
        if not path.is_file():
            return f"{log.path} does not exist"
        if hashlib.sha256(path.read_bytes()).hexdigest() != log.sha256:
            return f"{log.path} changed since it was verified"
    prereg = folder / "prereg.yaml"
    if results.prereg_sha256 and (not prereg.is_file() or hashlib.sha256(prereg.read_bytes()).hexdigest()
                                  != results.prereg_sha256):
        return f"{prereg} changed since it was verified"
    try:
        manifest = Submission.model_validate(yaml.safe_load((folder / "submission.yaml").read_text(encoding="utf-8")))
    except (OSError, ValueError, yaml.YAMLError):
        return f"{folder}/submission.yaml is not readable as verified"
    if manifest.record() != results.manifest:
        return f"{folder}/submission.yaml changed since it was verified"
    return None


def cite_command(ref: str, results_dir: Path, fmt: str = "text", releases_dir: Path = Path(RELEASES_DIR)) -> int:
    """`driftboard cite SUBMISSION[/CELL]`: print the BibTeX entry, then the plain-text citation.

    With `fmt="json"`: `{command: "cite", ok, exit_code, problems: [], bibtex, text, permalink,
    logs_sha256, result_digest, checker_version, profile, verified, commit, reproduce, submission,
    cell, result_id, release, release_permalink}`. A cell's citation names the first release in
    `releases_dir` that published exactly its figures (the site's Cite block reads the same files).
    """
    from checker.cli.workdir import check_workdir

    submission, _, cell = ref.partition("/")
    if not submission:
        raise UsageError("expected SUBMISSION-ID or SUBMISSION-ID/CELL")
    check_workdir("cite", {"--results": results_dir})
    results = read_results(results_dir / f"{submission}.json")
    stale = stale_for_tree(results)
    if stale:
        raise DriftboardError(f"{results_dir / f'{submission}.json'}: stale for this tree ({stale}): its title, figures "
                              "and reproduce commit may not be the tree's; run `driftboard verify submissions/` "
                              "first, then cite")
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
