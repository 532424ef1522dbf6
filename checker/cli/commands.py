"""Glue for the command line: run one stage, render its result with a reporter, return the exit code.

`validate`, `schema`, `verify` (its text report: each submission's summary, then each track's
runs and cells through `checker.cli.report_text`), `build`, `release` (the committed tree's
verified results as a release file) and the terminal progress bar. Kept apart from
`checker.cli.main` so that option parsing stays separate from execution (and each is testable on
its own).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click

from checker.format.errors import visible
from checker.format.progress import Progress
from checker.format.report import findings_json, findings_text, plural

if TYPE_CHECKING:
    from checker.format.cell_tables import ConstraintCellTables
    from checker.format.results_model import ResultsFile, ResultsSummary, RunResult
    from checker.pipeline.report import SubmissionResult, VerifyReport


def validate_command(paths: list[Path], fmt: str) -> int:
    """`driftboard validate`: print every finding and a total; return 0, 1 or 2."""
    from checker.pipeline.cache import default_cache_dir
    from checker.pipeline.metrics import claim_names
    from checker.stages.fetch import default_store
    from checker.stages.validate import validate_paths

    # logs stored by reference are fetched (into the blob store beside the cache) and validated like committed ones
    report = validate_paths(paths, claim_names, default_store(default_cache_dir()))
    findings = report.unreadable + report.findings
    errors = sum(1 for f in findings if f.severity == "error")
    if fmt == "json":
        click.echo(
            findings_json(
                "validate", findings, report.exit_code,
                summary={"submissions": report.submissions, "runs": report.runs, "lines": report.lines,
                         "problems": errors},
            ),
            nl=False,
        )
    else:
        checked = f"{plural(report.submissions, 'submission')}, {plural(report.runs, 'run log')}, {plural(report.lines, 'line')}"
        summary = f"{plural(errors, 'problem')} found ({checked} checked)" if errors else f"ok: no problems ({checked} checked)"
        click.echo(findings_text(findings, summary), nl=False)
    return report.exit_code


def schema_command(out: Path) -> int:
    """`driftboard schema`: write the JSON Schemas and list them."""
    from checker.format.schema.export import write_schemas

    for path in write_schemas(out):
        click.echo(path.as_posix())
    return 0


def verify_command(paths: list[Path], profile: str | None, problems: list[Path], fmt: str,
                   out: Path | None = None, jobs: int = 1, shard: str | None = None, cache: bool = False,
                   cache_dir: Path | None = None) -> int:
    """`driftboard verify`: score every run, print tables (text) or the full records (JSON)."""
    from checker.pipeline.cache import default_cache_dir
    from checker.pipeline.report import report_json
    from checker.pipeline.shard import parse_shard
    from checker.pipeline.verify import default_problem_dirs, verify_paths

    with terminal_progress("verifying logs", enabled=fmt == "text") as progress:
        report = verify_paths(paths, profile, problems or default_problem_dirs(), jobs=jobs, shard=parse_shard(shard),
                              cache_dir=(cache_dir or default_cache_dir()) if cache else None, results_dir=out,
                              progress=progress)
    findings = report.unreadable + report.findings
    errors = sum(1 for f in findings if f.severity == "error")
    if fmt == "json":
        click.echo(findings_json("verify", findings, report.exit_code, **report_json(report)), nl=False)
        return report.exit_code
    for sub in report.submissions:
        _submission_text(sub)
    outcome = f"{plural(errors, 'problem')} found" if errors else "ok: verified"
    _echo(findings_text(findings, f"{outcome} ({_totals(report, cache)})"), nl=False)
    return report.exit_code


def _totals(report: VerifyReport, cache: bool) -> str:
    """`N submissions, N runs` (and the cache's hits and misses when it was used)."""
    total_runs = sum(len(s.runs) for s in report.submissions)
    tail = f"{plural(len(report.submissions), 'submission')}, {plural(total_runs, 'run')}"
    if cache:
        tail += f"; cache {report.cache_hits} hit(s), {report.cache_misses} miss(es)"
    return tail


def _summary_text(summary: ResultsSummary) -> None:
    """A verified submission's headline, declared runs, defeaters, missing runs and predictions."""
    from checker.cli.report_text import declared_text
    from checker.format.numbers import fmt as shown
    from checker.stages.boards import ranking_line

    _echo(f"   {summary.null_results.headline}")
    for line in declared_text(summary.cells, summary.track):
        _echo(line)
    for cell in summary.cells:
        _echo(f"   {cell.cell}: {ranking_line(cell.ranking)}")
    for d in summary.defeaters:
        state = {True: "TRIGGERED", False: "not triggered", None: "undefined"}[d.triggered]
        _echo(f"   defeater {d.id}: {state} ({d.metric} = {d.value})")
    for m in summary.prereg_check.missing:
        _echo(f"   {m['cell']} / {m['seed']}: missing (not reported)")
    for pred in summary.predictions:
        holds = {True: "holds", False: "does not hold", None: "undefined"}[pred.holds]
        _echo(f"   prediction {pred.id}: {holds} ({pred.metric} {shown(pred.value)} {pred.op} {shown(pred.compared_to)})")


def _submission_text(sub: SubmissionResult) -> None:
    """One submission of `driftboard verify`'s text report: its summary, then each track's runs and cells."""
    from checker.cli.report_text import track_text

    _echo(f"== {sub.path} (profile {sub.profile})" + (" (cached)" if sub.cached else ""))
    if sub.awaiting_runs:
        _echo("   pre-registered; awaiting runs (listed on the Pre-registered page; nothing to score yet)")
    handle = sub.results
    summary = handle.summary if handle is not None else None  # never the full results file: the cell tables come from its cells
    if summary is not None:
        _summary_text(summary)
    for track, results in sorted(_scored_by_track(sub).items()):
        tables = _constraint_tables(summary) if summary is not None and track == summary.track else None
        _echo(track_text(track, results, tables, handle.turn_records if handle is not None else None,
                         handle.mismatch_counts if handle is not None else None), nl=False)
    for res in sub.runs:
        if res.verdict == "MALFORMED":
            _echo(f"MALFORMED {res.path} (not scored)")


def _scored_by_track(sub: SubmissionResult) -> dict[str, list[RunResult]]:
    """Track -> the submission's runs that were scored (every run but the MALFORMED ones)."""
    default = sub.manifest.track if sub.manifest else "agent"
    by_track: dict[str, list[RunResult]] = {}
    for res in sub.runs:
        if res.verdict != "MALFORMED":
            by_track.setdefault(str(res.track or default), []).append(res)
    return by_track


def _constraint_tables(summary: ResultsSummary) -> dict[str, ConstraintCellTables] | None:
    """Cell -> its stored constraint tables (None for an agent submission: its tables are computed from its runs)."""
    if summary.track != "constraint":
        return None
    return {c.cell: t for c in summary.cells if (t := c.constraint_tables) is not None}


def _echo(text: str, nl: bool = True) -> None:
    """Print text that holds submitted names: control, bidi and zero-width characters spelled out."""
    click.echo(visible(text, keep="\n"), nl=nl)


def build_command(submissions: Path, results: Path, out: Path, verify: bool = True, project: Path | None = None,
                  job: str | None = None) -> int:
    """`driftboard build`: verify (cached) into the results folder unless told not to, then render the site.

    Publication computes, never reads: the results folder must be bound to this job, this code and
    this tree (`checker.pipeline.binding.check_binding`); a results file that is not is refused
    (exit 1, nothing built). After `verify` here, stale files of another tree are left out (listed).
    """
    from checker.cli.workdir import check_workdir
    from checker.format.errors import UsageError
    from checker.pipeline.binding import check_binding
    from checker.pipeline.registry import registry
    from checker.pipeline.results import INDEX
    from checker.pipeline.verify import ensure_results
    from checker.render.site import build_site, project_root, results_of_tree, stray_results

    check_workdir("build", {"--submissions": submissions} if verify else {"--results": results}, project,
                  also="--project DIR")
    root = project_root(project)  # before verifying: a missing mkdocs.yml is a usage error, said at once
    if verify:
        with terminal_progress("verifying logs") as progress:
            only = ensure_results(submissions, results, progress)
    elif not (results / INDEX).is_file():
        raise UsageError(f"{results}: no {INDEX}; run `driftboard verify` (or `driftboard merge`) first")
    else:
        only = results_of_tree(submissions, results)
    checked = check_binding(results, job, strays=not verify)
    if checked.problems:
        for line in checked.problems:
            click.echo(f"build: {visible(line)}", err=True)
        click.echo(f"build: refused ({plural(len(checked.problems), 'problem')}): publication computes, never reads; "
                   "nothing built", err=True)
        return 1
    only &= {name.removesuffix(".json") for name in checked.accepted}
    skipped = stray_results(results, only)
    if skipped:
        click.echo(f"build: left out {len(skipped)} results file(s) not verified for this tree: "
                   + ", ".join(visible(s) for s in skipped), err=True)
    code = build_site(results, out, only=only, logs_root=Path("."), project=root, registry=registry(submissions))
    click.echo(built_line(out))
    return code


def built_line(out: Path) -> str:
    """`built N pages into PATH (site URL ...)`: what `build` wrote, and the URL its pages cite."""
    from checker.render.site import SITE_URL

    pages = sum(1 for p in out.rglob("*.html") if p.is_file())
    return f"built {plural(pages, 'page')} into {out} (site URL {SITE_URL}); preview: driftboard serve --out {out}"


def imported(code: int, out: Path) -> int:
    """After an import (into a new folder): say how many run logs it wrote, where, and what to run next."""
    runs = [p for p in (out / "runs").glob("*.jsonl") if p.is_file()] if (out / "runs").is_dir() else []
    _echo(f"imported {plural(len(runs), 'run log')} into {out}; check them: driftboard verify {out}")
    return code


def _mb(n: int) -> str:
    """Bytes as MB with one decimal (at least 0.1 for a non-empty amount)."""
    return f"{max(n / 1e6, 0.1 if n else 0.0):.1f}"


@contextmanager
def terminal_progress(label: str, enabled: bool = True, stream: TextIO | None = None) -> Iterator[Progress | None]:
    """A click progress bar on stderr as a `Progress` callback, or None.

    None unless `enabled` (False in JSON mode) and the stream is a terminal: no bar in CI logs or
    when output is piped. Only stderr is drawn on, so stdout is the same with or without a bar.

    The work is counted in bytes of stored logs (`checker.format.progress`), shown as a percentage,
    MB read of MB to read, and the time left.

    Args:
        label: what is being done (`verifying logs`).
        enabled: whether a bar is wanted at all.
        stream: where to draw (default: stderr); tests pass a stream that claims to be a terminal.
    """
    out = stream if stream is not None else sys.stderr
    try:
        tty = bool(out.isatty())
    except (AttributeError, ValueError):
        tty = False
    if not enabled or not tty:
        yield None
        return
    bar: Any = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = click.progressbar(length=total, label=label, file=out, show_pos=False, show_percent=True,
                                    show_eta=True, item_show_func=lambda text: text)
            bar.__enter__()
        bar.update(done - bar.pos, f"{_mb(done)} of {_mb(total)} MB of logs")

    try:
        yield update
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)


def release_command(submissions: Path, results: Path, releases: Path, fmt: str = "text") -> int:
    """`driftboard release`: record the verified results of the committed tree as `releases/<id>.json`.

    The tree must be committed (no uncommitted change under `submissions`), and every submission in
    it verified at its last commit (`driftboard verify submissions/` first). Writes nothing when the
    release exists with the same bytes; refuses to overwrite one that differs.
    """
    from checker.pipeline.metrics import RANK_BY
    from checker.pipeline.releases import commit_of, diff, make_release, previous_release, read_releases

    root = _submissions_root(submissions)
    commit = commit_of(root)
    _refuse_uncommitted(submissions, root)
    loaded = _verified_results(submissions, results)
    prev = previous_release(read_releases(releases), commit)
    release, text = make_release(loaded, commit, prev, RANK_BY.__getitem__)
    path = releases / f"{release.release}.json"
    changes = diff(prev.submissions if prev else {}, release.submissions, release.withdrawn)
    status = _write_release(path, text)
    counts = {"added": len(changes.added), "changed": len(changes.changed), "withdrawn": len(changes.withdrawn)}
    if fmt == "json":
        from checker.format.report import safe_json

        click.echo(safe_json({"command": "release", "ok": True, "exit_code": 0, "problems": [],
                              "release": release.release, "path": path.as_posix(), "status": status,
                              "commit": release.commit, "date": release.date, "digest": release.digest,
                              "previous": prev.release if prev else None, **counts}), nl=False)
        return 0
    since = prev.release if prev else "nothing (first release)"
    cells = sum(len(s.cells) for s in release.submissions.values())
    click.echo(f"release {release.release} ({status}): {plural(len(release.submissions), 'submission')}, "
               f"{plural(cells, 'cell')} at commit {release.commit[:7]} of {release.date}; since {since}: "
               f"{counts['added']} added, {counts['changed']} changed, {counts['withdrawn']} withdrawn")
    click.echo(f"{path.as_posix()} (digest {release.digest}); publish it: git add {path.as_posix()} && git commit")
    return 0


def _submissions_root(submissions: Path) -> Path:
    """The submissions folder, resolved.

    Raises:
        UsageError: no such folder.
    """
    from checker.format.errors import UsageError

    if not submissions.is_dir():
        raise UsageError(f"{submissions}: no submissions folder")
    return submissions.resolve()


def _refuse_uncommitted(submissions: Path, root: Path) -> None:
    """A release records a commit: refuse a tree with uncommitted changes.

    Raises:
        ReleaseError: the folder has uncommitted (or untracked) changes.
    """
    from checker.pipeline.releases import ReleaseError

    dirty = _git_lines(root, "status", "--porcelain", "--untracked-files=all", "--", ".")
    if dirty:
        raise ReleaseError(f"{submissions}: uncommitted changes ({len(dirty)} path(s), e.g. {visible(dirty[0][3:])}); "
                           "a release records a commit: commit first")


def _verified_results(submissions: Path, results: Path) -> list[ResultsFile]:
    """The results of every submission of the tree, each verified at its folder's last commit.

    Raises:
        ReleaseError: a submission has no results for this tree, or results of another commit.
    """
    from checker.pipeline.binding import check_binding
    from checker.pipeline.releases import ReleaseError
    from checker.render.site import _manifest_id, load_results

    root = submissions.resolve()
    checked = check_binding(results, strays=False)  # publication computes: only results bound to this tree and code
    if checked.problems:
        raise ReleaseError("; ".join(visible(p) for p in checked.problems[:5]))
    folders = {_manifest_id(p): p for p in sorted(submissions.iterdir()) if (p / "submission.yaml").is_file()}
    loaded = load_results(results, _tree_ids(submissions, results, set(folders)))
    stale = [r.submission_id for r in loaded if not _verified_at_last_commit(root, r, folders[r.submission_id])]
    if stale:
        raise ReleaseError(f"results not verified at the folder's last commit: {', '.join(visible(s) for s in stale)}; "
                           f"run `driftboard verify {submissions}` again")
    return loaded


def _tree_ids(submissions: Path, results: Path, ids: set[str | None]) -> set[str]:
    """The submission ids of the tree (`ids`, from its manifests), each with results verified for this tree.

    Raises:
        ReleaseError: a submission of the tree has no results verified for it.
    """
    from checker.pipeline.releases import ReleaseError
    from checker.render.site import results_of_tree

    only = results_of_tree(submissions, results) if results.is_dir() else set()
    missing = sorted(str(i) for i in ids if i not in only)
    if missing:
        raise ReleaseError(f"not verified for this tree: {', '.join(visible(m) for m in missing)}; "
                           f"run `driftboard verify {submissions}` first")
    return {i for i in only if i in ids}


def _verified_at_last_commit(root: Path, r: ResultsFile, folder: Path) -> bool:
    """The results were verified from the folder as committed at its last commit (no uncommitted change)."""
    # first-parent, as `checker.pipeline.provenance` pins it: the merge on the published branch
    last = _git_lines(root, "log", "--first-parent", "-1", "--format=%H", "--", str(folder.resolve()))
    return not r.provenance.uncommitted and bool(last) and r.provenance.commit == last[0]


def _write_release(path: Path, text: str) -> str:
    """Write a release file: `written`, or `unchanged` when it exists with the same bytes.

    Raises:
        ReleaseError: it exists and differs (a release is never rewritten).
    """
    from checker.pipeline.releases import ReleaseError

    if path.is_file():
        if path.read_bytes() != text.encode("utf-8"):
            raise ReleaseError(f"{path}: exists and differs; a release is never rewritten")
        return "unchanged"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return "written"


def _git_lines(root: Path, *args: str) -> list[str]:
    import subprocess

    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []
