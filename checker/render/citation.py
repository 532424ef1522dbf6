"""One citation, one base URL: what `driftboard cite`, the cell pages, `CITATION.cff` and the sitemap share.

The base URL is `site_url` in the repository's `mkdocs.yml` and nowhere else: MkDocs builds the
sitemap from it, the cell pages' "Cite" blocks and `driftboard cite` build permalinks from it
(`tests/test_citation.py` fails if `CITATION.cff` or the built sitemap disagree). A citation names
the permalink, the combined SHA-256 of the logs behind the number, the checker version, the
result's content digest, the verification date and the repository commit that reproduces it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from checker.format.errors import UsageError, visible
from checker.format.release_model import ReleaseFile
from checker.format.results_io import combined_log_digest
from checker.format.results_model import ResultsFile
from checker.pipeline.releases import anchor, cited_release
from checker.render.ranking import board_label_of
from checker.render.text import slug

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


def release_of_cell(results: ResultsFile, cell: str | None, releases: Sequence[ReleaseFile],
                    base: str | None = None) -> tuple[str | None, str | None]:
    """(release id, permalink of the cell's row on its page) of the first release that published exactly this cell.

    `checker.pipeline.releases.cited_release`; (None, None) when no release did yet, or for a submission.
    """
    if cell is None:
        return None, None
    found = [c for c in results.cells if c.cell == cell]
    if not found:
        return None, None
    rel = cited_release(list(releases), results.submission_id, cell, found[0].digest,
                        combined_log_digest(found[0].log_sha256))
    if rel is None:
        return None, None
    return rel.release, f"{base or site_url()}releases/{rel.release}/#{anchor(results.submission_id, cell)}"


def citation_fields(results: ResultsFile, cell: str | None, base: str | None = None,
                    releases: Sequence[ReleaseFile] = ()) -> dict[str, str | None]:
    """What a citation names (the fields of `driftboard cite --format json`).

    Id, cell, permalink, combined log SHA-256, result digest, checker, profile, verification date,
    repository commit, the command that reproduces it, and for a cell the release that published
    these figures (`release`, `release_permalink`: None until a release has) and its board key in words
    (`board`: None for a submission, `none` for a cell without a key; `checker.render.ranking.board_label_of`).

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
        key = found[0].ranking.key if found[0].ranking is not None else {}
        board: str | None = board_label_of(found[0]) if key else "none"
    else:
        logs = [log.sha256 for log in results.logs]
        digest = results.digest
        result_id = results.submission_id
        board = None
    return {
        "submission": results.submission_id, "cell": cell, "result_id": result_id,
        "permalink": permalink(results, cell, base), "logs_sha256": combined_log_digest(logs), "result_digest": digest,
        "checker_version": results.checker_version, "profile": results.profile,
        "verified": results.provenance.verified, "commit": results.provenance.commit,
        "reproduce": reproduce_command(results), "board": board,
        **dict(zip(("release", "release_permalink"), release_of_cell(results, cell, releases, base), strict=True)),
    }


def citation(results: ResultsFile, cell: str | None, base: str | None = None,
             releases: Sequence[ReleaseFile] = ()) -> tuple[str, str]:
    """(BibTeX, plain text) for the submission or one of its cells (a cell's names its release, `citation_fields`).

    Raises:
        UsageError: the cell does not exist in the results.
    """
    f = citation_fields(results, cell, base, releases)
    result_id, url, log_digest, reproduce = str(f["result_id"]), f["permalink"], f["logs_sha256"], f["reproduce"]
    commit = f["commit"] or "uncommitted"
    verified = f["verified"] or "undated"
    key = "driftboard:" + re.sub(r"[^A-Za-z0-9:_-]", "-", result_id)
    authors = " and ".join(_bib_escape(a) for a in results.authors)
    what = f"{results.title}" + (f", cell {cell}" if cell else "")
    note = (f"Verified by Driftboard checker {results.checker_version} (profile {results.profile}) on {verified};"
            f" logs SHA-256 {log_digest}; result digest {f['result_digest']}; repository commit {commit};"
            f" reproduce: {reproduce}" + _release_words(cell, f))
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
             f"repository commit {commit}; reproduce: {reproduce}{_release_words(cell, f)}).")
    return "\n".join(lines), plain


def _release_words(cell: str | None, f: dict[str, str | None]) -> str:
    """`; board KEY; release ID, URL` (or `; not yet in a release`) for a cell; nothing for a submission."""
    if cell is None:
        return ""
    board = f"; board {f['board']}"
    return board + (f"; release {f['release']}, {f['release_permalink']}" if f["release"] else "; not yet in a release")


def cite_text(results: ResultsFile, cell: str | None, base: str | None = None,
              releases: Sequence[ReleaseFile] = ()) -> str:
    """Exactly what `driftboard cite ID[/CELL]` prints: BibTeX, a blank line, the plain text (escaped)."""
    bib, plain = citation(results, cell, base, releases)
    return visible(bib, keep="\n") + "\n\n" + visible(plain, keep="\n") + "\n"
