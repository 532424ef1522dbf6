"""Citations: a BibTeX entry and a plain-text citation for a verified submission or cell.

Every citation names the permalink, the combined SHA-256 of the logs behind the number, the
checker version, the result's content digest and the command that reproduces it.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from checker.errors import UsageError, visible
from checker.render.text import slug as render_slug
from checker.report import safe_json
from checker.results import combined_log_digest, read_results
from checker.results_model import ResultsFile

DEFAULT_SITE_URL = "https://driftboard.github.io/driftboard/"


def site_url(config: Path = Path("mkdocs.yml")) -> str:
    """The published site's base URL (`site_url` in mkdocs.yml), ending with `/`."""
    try:
        text = config.read_text(encoding="utf-8")
    except OSError:
        return DEFAULT_SITE_URL
    match = re.search(r"^site_url:\s*['\"]?([^'\"\s]+)", text, flags=re.MULTILINE)
    url = match.group(1) if match else DEFAULT_SITE_URL
    return url if url.endswith("/") else url + "/"


def slug(value: str) -> str:
    """The page slug the site uses for a submission id or cell name."""
    return render_slug(value)


def permalink(results: ResultsFile, cell: str | None, base: str | None = None) -> str:
    """URL of the submission page, or of the cell's permalink page."""
    root = base or site_url()
    if cell is None:
        return f"{root}submissions/{slug(results.submission_id)}/"
    return f"{root}results/{slug(results.submission_id)}/{slug(cell)}/"


def _bib_escape(text: str) -> str:
    return re.sub(r"([{}\\&%$#_^~])", r"\\\1", text)


def citation_fields(results: ResultsFile, cell: str | None, base: str | None = None) -> dict[str, str | None]:
    """What a citation names: id, cell, permalink, combined log SHA-256, result digest, checker, profile, command.

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
        "reproduce": f"driftboard verify submissions/{results.submission_id}",
    }


def citation(results: ResultsFile, cell: str | None, base: str | None = None) -> tuple[str, str]:
    """(BibTeX, plain text) for the submission or one of its cells.

    Raises:
        UsageError: the cell does not exist in the results.
    """
    f = citation_fields(results, cell, base)
    result_id, url, log_digest, reproduce = str(f["result_id"]), f["permalink"], f["logs_sha256"], f["reproduce"]
    key = "driftboard:" + re.sub(r"[^A-Za-z0-9:_-]", "-", result_id)
    authors = " and ".join(_bib_escape(a) for a in results.authors)
    what = f"{results.title}" + (f", cell {cell}" if cell else "")
    note = (f"Verified by Driftboard checker {results.checker_version} (profile {results.profile});"
            f" logs SHA-256 {log_digest}; result digest {f['result_digest']}; reproduce: {reproduce}")
    bib = "\n".join([
        f"@misc{{{key},",
        f"  title = {{{{{_bib_escape(what)}}}}},",
        f"  author = {{{authors}}},",
        f"  howpublished = {{Driftboard verified result {_bib_escape(result_id)}}},",
        f"  url = {{{url}}},",
        f"  note = {{{_bib_escape(note)}}}",
        "}",
    ])
    plain = (f"{', '.join(results.authors)}. {what}. Driftboard verified result {result_id}. {url} "
             f"(logs SHA-256 {log_digest}; checker {results.checker_version}, profile {results.profile}; "
             f"reproduce: {reproduce}).")
    return bib, plain


def cite_command(ref: str, results_dir: Path, fmt: str = "text") -> int:
    """`driftboard cite SUBMISSION[/CELL]`: print the BibTeX entry, then the plain-text citation.

    With `fmt="json"`: `{command: "cite", ok, exit_code, problems: [], bibtex, text, permalink,
    logs_sha256, result_digest, checker_version, profile, reproduce, submission, cell, result_id}`.
    """
    submission, _, cell = ref.partition("/")
    if not submission:
        raise UsageError("expected SUBMISSION-ID or SUBMISSION-ID/CELL")
    results = read_results(results_dir / f"{submission}.json")
    bib, plain = citation(results, cell or None)
    if fmt == "json":
        fields = citation_fields(results, cell or None)
        click.echo(safe_json({"command": "cite", "ok": True, "exit_code": 0, "problems": [], "bibtex": bib,
                              "text": plain, **fields}), nl=False)
        return 0
    click.echo(visible(bib, keep="\n"))  # submitted titles: control and bidi characters spelled out
    click.echo("")
    click.echo(visible(plain, keep="\n"))
    return 0
