"""Glue for the command line: run one stage, render its result with a reporter, return the exit code.

Kept apart from `cli.py` so that option parsing stays separate from execution (and each is
testable on its own).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import click

from checker.format.errors import visible
from checker.format.progress import Progress
from checker.format.report import findings_json, findings_text, plural


def validate_command(paths: list[Path], fmt: str) -> int:
    """`driftboard validate`: print every finding and a total; return 0, 1 or 2."""
    from checker.pipeline.metrics import claim_names
    from checker.stages.validate import validate_paths

    report = validate_paths(paths, claim_names)
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
    from checker.cli.report_text import declared_text, track_text
    from checker.format.numbers import fmt as shown
    from checker.format.results_model import RunResult
    from checker.pipeline.cache import default_cache_dir
    from checker.pipeline.shard import parse_shard
    from checker.pipeline.verify import default_problem_dirs, report_json, verify_paths

    with terminal_progress("verifying runs", enabled=fmt == "text") as progress:
        report = verify_paths(paths, profile, problems or default_problem_dirs(), jobs=jobs, shard=parse_shard(shard),
                              cache_dir=(cache_dir or default_cache_dir()) if cache else None, results_dir=out,
                              progress=progress)
    findings = report.unreadable + report.findings
    errors = sum(1 for f in findings if f.severity == "error")
    if fmt == "json":
        click.echo(findings_json("verify", findings, report.exit_code, **report_json(report)), nl=False)
        return report.exit_code
    for sub in report.submissions:
        cached = " (cached)" if sub.cached else ""
        _echo(f"== {sub.path} (profile {sub.profile}){cached}")
        summary = sub.results.summary if sub.results else None  # never the full file: the cell tables come from its cells
        if summary is not None:
            _echo(f"   {summary.null_results.headline}")
            for line in declared_text(summary.cells, summary.track):
                _echo(line)
            for d in summary.defeaters:
                state = {True: "TRIGGERED", False: "not triggered", None: "undefined"}[d.triggered]
                _echo(f"   defeater {d.id}: {state} ({d.metric} = {d.value})")
            for m in summary.prereg_check.missing:
                _echo(f"   {m['cell']} / {m['seed']}: missing (not reported)")
            for pred in summary.predictions:
                holds = {True: "holds", False: "does not hold", None: "undefined"}[pred.holds]
                _echo(f"   prediction {pred.id}: {holds} ({pred.metric} {shown(pred.value)} {pred.op} {shown(pred.compared_to)})")
        by_track: dict[str, list[RunResult]] = {}
        for res in sub.runs:
            if res.verdict != "MALFORMED":
                track = str(res.track or (sub.manifest.track if sub.manifest else "agent"))
                by_track.setdefault(track, []).append(res)
        for track, results in sorted(by_track.items()):
            tables = ({c.cell: c.tables for c in summary.cells if c.tables}
                      if summary is not None and track == summary.track == "constraint" else None)
            _echo(track_text(track, results, tables, sub.results.turn_records if sub.results else None,
                             sub.results.mismatch_counts if sub.results else None), nl=False)
        for res in sub.runs:
            if res.verdict == "MALFORMED":
                _echo(f"MALFORMED {res.path} (not scored)")
    total_runs = sum(len(s.runs) for s in report.submissions)
    outcome = f"{plural(errors, 'problem')} found" if errors else "ok: verified"
    tail = f"{plural(len(report.submissions), 'submission')}, {plural(total_runs, 'run')}"
    if cache:
        tail += f"; cache {report.cache_hits} hit(s), {report.cache_misses} miss(es)"
    _echo(findings_text(findings, f"{outcome} ({tail})"), nl=False)
    return report.exit_code


def _echo(text: str, nl: bool = True) -> None:
    """Print text that holds submitted names: control, bidi and zero-width characters spelled out."""
    click.echo(visible(text, keep="\n"), nl=nl)


def build_command(submissions: Path, results: Path, out: Path, verify: bool = True, project: Path | None = None) -> int:
    """`driftboard build`: verify (cached) into the results folder unless told not to, then render the site."""
    from checker.format.errors import UsageError
    from checker.pipeline.results import INDEX
    from checker.pipeline.verify import ensure_results
    from checker.render.site import build_site, project_root, results_of_tree, stray_results

    root = project_root(project)  # before verifying: a missing mkdocs.yml is a usage error, said at once
    if verify:
        with terminal_progress("verifying runs") as progress:
            only = ensure_results(submissions, results, progress)
    elif not (results / INDEX).is_file():
        raise UsageError(f"{results}: no {INDEX}; run `driftboard verify` (or `driftboard merge`) first")
    else:
        only = results_of_tree(submissions, results)
    skipped = stray_results(results, only)
    if skipped:
        click.echo(f"build: left out {len(skipped)} results file(s) not verified for this tree: "
                   + ", ".join(visible(s) for s in skipped), err=True)
    code = build_site(results, out, only=only, logs_root=Path("."), project=root)
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


@contextmanager
def terminal_progress(label: str, enabled: bool = True, stream: TextIO | None = None) -> Iterator[Progress | None]:
    """A click progress bar on stderr as a `Progress` callback, or None.

    None unless `enabled` (False in JSON mode) and the stream is a terminal: no bar in CI logs or
    when output is piped. Only stderr is drawn on, so stdout is the same with or without a bar.

    Args:
        label: what is being done (`verifying runs`).
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
            bar = click.progressbar(length=total, label=label, file=out, show_pos=True, show_eta=True)
            bar.__enter__()
        bar.update(done - bar.pos)

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
    from checker.format.errors import UsageError
    from checker.pipeline.metrics import RANK_BY
    from checker.pipeline.releases import ReleaseError, commit_of, diff, make_release, previous_release, read_releases
    from checker.render.site import _manifest_id, load_results, results_of_tree

    if not submissions.is_dir():
        raise UsageError(f"{submissions}: no submissions folder")
    root = submissions.resolve()
    commit = commit_of(root)
    dirty = _git_lines(root, "status", "--porcelain", "--untracked-files=all", "--", ".")
    if dirty:
        raise ReleaseError(f"{submissions}: uncommitted changes ({len(dirty)} path(s), e.g. {visible(dirty[0][3:])}); "
                           "a release records a commit: commit first")
    folders = {_manifest_id(p): p for p in sorted(submissions.iterdir()) if (p / "submission.yaml").is_file()}
    only = results_of_tree(submissions, results) if results.is_dir() else set()
    missing = sorted(str(i) for i in folders if i not in only)
    if missing:
        raise ReleaseError(f"not verified for this tree: {', '.join(visible(m) for m in missing)}; "
                           f"run `driftboard verify {submissions}` first")
    loaded = load_results(results, {i for i in only if i in folders})
    stale = []
    for r in loaded:
        last = _git_lines(root, "log", "-1", "--format=%H", "--", str(folders[r.submission_id].resolve()))
        if r.provenance.uncommitted or not last or r.provenance.commit != last[0]:
            stale.append(r.submission_id)
    if stale:
        raise ReleaseError(f"results not verified at the folder's last commit: {', '.join(visible(s) for s in stale)}; "
                           f"run `driftboard verify {submissions}` again")
    prev = previous_release(read_releases(releases), commit)
    release, text = make_release(loaded, commit, prev, RANK_BY.__getitem__)
    path = releases / f"{release.release}.json"
    changes = diff(prev.submissions if prev else {}, release.submissions, release.withdrawn)
    status = "written"
    if path.is_file():
        if path.read_bytes() != text.encode("utf-8"):
            raise ReleaseError(f"{path}: exists and differs; a release is never rewritten")
        status = "unchanged"
    else:
        releases.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    since = prev.release if prev else "nothing (first release)"
    counts = {"added": len(changes.added), "changed": len(changes.changed), "withdrawn": len(changes.withdrawn)}
    if fmt == "json":
        from checker.format.report import safe_json

        click.echo(safe_json({"command": "release", "ok": True, "exit_code": 0, "problems": [],
                              "release": release.release, "path": path.as_posix(), "status": status,
                              "commit": release.commit, "date": release.date, "digest": release.digest,
                              "previous": prev.release if prev else None, **counts}), nl=False)
        return 0
    cells = sum(len(s.cells) for s in release.submissions.values())
    click.echo(f"release {release.release} ({status}): {plural(len(release.submissions), 'submission')}, "
               f"{plural(cells, 'cell')} at commit {release.commit[:7]} of {release.date}; since {since}: "
               f"{counts['added']} added, {counts['changed']} changed, {counts['withdrawn']} withdrawn")
    click.echo(f"{path.as_posix()} (digest {release.digest}); publish it: git add {path.as_posix()} && git commit")
    return 0


def _git_lines(root: Path, *args: str) -> list[str]:
    import subprocess

    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [line for line in out.stdout.splitlines() if line.strip()] if out.returncode == 0 else []
