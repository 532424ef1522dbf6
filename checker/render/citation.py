"""One citation, one base URL: what `driftboard cite`, the cell pages, `CITATION.cff` and the sitemap share.

The base URL is `site_url` in the repository's `mkdocs.yml` and nowhere else: MkDocs builds the
sitemap from it, the cell pages' "Cite" blocks and `driftboard cite` build permalinks from it
(`tests/test_citation.py` fails if `CITATION.cff` or the built sitemap disagree). A citation names
the permalink, the combined SHA-256 of the logs behind the number, the checker version, the
result's content digest, the verification date and the repository commit that reproduces it.
"""

from __future__ import annotations

import re
from pathlib import Path

from checker.errors import UsageError, visible
from checker.render.text import slug
from checker.results_io import combined_log_digest
from checker.results_model import ResultsFile

REPO = Path(__file__).resolve().parents[2]
MKDOCS_YML = REPO / "mkdocs.yml"
DEFAULT_SITE_URL = "https://driftboard.github.io/driftboard/"
"""Used only when the checker runs without its repository (an installed wheel); must equal mkdocs.yml."""


def site_url(config: Path = MKDOCS_YML) -> str:
    """The published site's base URL (`site_url` in mkdocs.yml), ending with `/`."""
    try:
        text = config.read_text(encoding="utf-8")
    except OSError:
        return DEFAULT_SITE_URL
    match = re.search(r"^site_url:\s*['\"]?([^'\"\s#]+)", text, flags=re.MULTILINE)
    url = match.group(1) if match else DEFAULT_SITE_URL
    return url if url.endswith("/") else url + "/"


def permalink(results: ResultsFile, cell: str | None, base: str | None = None) -> str:
    """URL of the submission page, or of the cell's permalink page."""
    root = base or site_url()
    if cell is None:
        return f"{root}submissions/{slug(results.submission_id)}/"
    return f"{root}results/{slug(results.submission_id)}/{slug(cell)}/"


def _bib_escape(text: str) -> str:
    return re.sub(r"([{}\\&%$#_^~])", r"\\\1", " ".join(text.split()))


def reproduce_command(results: ResultsFile) -> str:
    """The shell command that reproduces the numbers: the pinned commit (when known), then verify."""
    verify = f"driftboard verify submissions/{results.submission_id}"
    commit = results.provenance.commit
    return f"git checkout {commit} && {verify}" if commit else verify


def citation_fields(results: ResultsFile, cell: str | None, base: str | None = None) -> dict[str, str | None]:
    """What a citation names (the fields of `driftboard cite --format json`).

    Id, cell, permalink, combined log SHA-256, result digest, checker, profile, verification date,
    repository commit and the command that reproduces it.

    Raises:
        UsageError: the cell does not exist in the results.
    """
    if cell is not None:
        found = [c for c in results.cells if c.cell == cell]
        if not found:
            names = ", ".join(c.cell for c in results.cells) or "none"
            raise UsageError(f"{results.submission_id} has no cell {cell!r} (cells: {names})")
        logs = found[0].log_sha256
        digest = found[0].digest
        result_id = found[0].result_id
    else:
        logs = [log.sha256 for log in results.logs]
        digest = results.digest
        result_id = results.submission_id
    return {
        "submission": results.submission_id, "cell": cell, "result_id": result_id,
        "permalink": permalink(results, cell, base), "logs_sha256": combined_log_digest(logs), "result_digest": digest,
        "checker_version": results.checker_version, "profile": results.profile,
        "verified": results.provenance.verified, "commit": results.provenance.commit,
        "reproduce": reproduce_command(results),
    }


def citation(results: ResultsFile, cell: str | None, base: str | None = None) -> tuple[str, str]:
    """(BibTeX, plain text) for the submission or one of its cells.

    Raises:
        UsageError: the cell does not exist in the results.
    """
    f = citation_fields(results, cell, base)
    result_id, url, log_digest, reproduce = str(f["result_id"]), f["permalink"], f["logs_sha256"], f["reproduce"]
    commit = f["commit"] or "uncommitted"
    verified = f["verified"] or "undated"
    key = "driftboard:" + re.sub(r"[^A-Za-z0-9:_-]", "-", result_id)
    authors = " and ".join(_bib_escape(a) for a in results.authors)
    what = f"{results.title}" + (f", cell {cell}" if cell else "")
    note = (f"Verified by Driftboard checker {results.checker_version} (profile {results.profile}) on {verified};"
            f" logs SHA-256 {log_digest}; result digest {f['result_digest']}; repository commit {commit};"
            f" reproduce: {reproduce}")
    lines = [
        f"@misc{{{key},",
        f"  title = {{{{{_bib_escape(what)}}}}},",
        f"  author = {{{authors}}},",
        f"  howpublished = {{Driftboard verified result {_bib_escape(result_id)}}},",
    ]
    if f["verified"]:
        lines.append(f"  year = {{{verified[:4]}}},")
        lines.append(f"  date = {{{verified}}},")
    lines += [f"  url = {{{url}}},", f"  note = {{{_bib_escape(note)}}}", "}"]
    plain = (f"{', '.join(results.authors)}. {what}. Driftboard verified result {result_id}, verified {verified}. "
             f"{url} (logs SHA-256 {log_digest}; checker {results.checker_version}, profile {results.profile}; "
             f"repository commit {commit}; reproduce: {reproduce}).")
    return "\n".join(lines), plain


def cite_text(results: ResultsFile, cell: str | None, base: str | None = None) -> str:
    """Exactly what `driftboard cite ID[/CELL]` prints: BibTeX, a blank line, the plain text (escaped)."""
    bib, plain = citation(results, cell, base)
    return visible(bib, keep="\n") + "\n\n" + visible(plain, keep="\n") + "\n"
