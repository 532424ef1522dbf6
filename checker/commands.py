"""Glue for the command line: run one stage, render its result with a reporter, return the exit code.

Kept apart from `cli.py` so that option parsing stays separate from execution (and each is
testable on its own).
"""

from __future__ import annotations

from pathlib import Path

import click

from checker.errors import visible
from checker.report import findings_json, findings_text, plural


def validate_command(paths: list[Path], fmt: str) -> int:
    """`driftboard validate`: print every finding and a total; return 0, 1 or 2."""
    from checker.metrics import claim_names
    from checker.validate import validate_paths

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
    from checker.schema.export import write_schemas

    for path in write_schemas(out):
        click.echo(path.as_posix())
    return 0


def verify_command(paths: list[Path], profile: str | None, problems: list[Path], fmt: str,
                   out: Path | None = None, jobs: int = 1, shard: str | None = None, cache: bool = False,
                   cache_dir: Path | None = None) -> int:
    """`driftboard verify`: score every run, print tables (text) or the full records (JSON)."""
    from checker.cache import default_cache_dir
    from checker.numbers import fmt as shown
    from checker.report_text import declared_text, track_text
    from checker.results_model import RunResult
    from checker.shard import parse_shard
    from checker.verify import default_problem_dirs, report_json, verify_paths

    report = verify_paths(paths, profile, problems or default_problem_dirs(), jobs=jobs, shard=parse_shard(shard),
                          cache_dir=(cache_dir or default_cache_dir()) if cache else None, results_dir=out)
    findings = report.unreadable + report.findings
    errors = sum(1 for f in findings if f.severity == "error")
    if fmt == "json":
        click.echo(findings_json("verify", findings, report.exit_code, **report_json(report)), nl=False)
        return report.exit_code
    for sub in report.submissions:
        cached = " (cached)" if sub.cached else ""
        _echo(f"== {sub.path} (profile {sub.profile}){cached}")
        if sub.results is not None:
            _echo(f"   {sub.results.null_results.headline}")
            for line in declared_text(sub.results.cells, sub.results.track):
                _echo(line)
            for d in sub.results.defeaters:
                state = {True: "TRIGGERED", False: "not triggered", None: "undefined"}[d.triggered]
                _echo(f"   defeater {d.id}: {state} ({d.metric} = {d.value})")
            for m in sub.results.prereg_check.missing:
                _echo(f"   {m['cell']} / {m['seed']}: missing (not reported)")
            for pred in sub.results.predictions:
                holds = {True: "holds", False: "does not hold", None: "undefined"}[pred.holds]
                _echo(f"   prediction {pred.id}: {holds} ({pred.metric} {shown(pred.value)} {pred.op} {shown(pred.compared_to)})")
        by_track: dict[str, list[RunResult]] = {}
        for res in sub.runs:
            if res.verdict != "MALFORMED":
                track = str(res.track or (sub.manifest.track if sub.manifest else "agent"))
                by_track.setdefault(track, []).append(res)
        for track, results in sorted(by_track.items()):
            _echo(track_text(track, results), nl=False)
        for res in sub.runs:
            if res.verdict == "MALFORMED":
                _echo(f"MALFORMED {res.path} (not scored)")
    total_runs = sum(len(s.runs) for s in report.submissions)
    summary = f"{plural(errors, 'problem')} found" if errors else "ok: verified"
    tail = f"{plural(len(report.submissions), 'submission')}, {plural(total_runs, 'run')}"
    if cache:
        tail += f"; cache {report.cache_hits} hit(s), {report.cache_misses} miss(es)"
    _echo(findings_text(findings, f"{summary} ({tail})"), nl=False)
    return report.exit_code


def _echo(text: str, nl: bool = True) -> None:
    """Print text that holds submitted names: control, bidi and zero-width characters spelled out."""
    click.echo(visible(text, keep="\n"), nl=nl)


def build_command(submissions: Path, results: Path, out: Path, verify: bool = True) -> int:
    """`driftboard build`: verify (cached) into the results folder unless told not to, then render the site."""
    from checker.errors import UsageError
    from checker.render.site import build_site, results_of_tree, stray_results
    from checker.results import INDEX
    from checker.verify import ensure_results

    if verify:
        only = ensure_results(submissions, results)
    elif not (results / INDEX).is_file():
        raise UsageError(f"{results}: no {INDEX}; run `driftboard verify` (or `driftboard merge`) first")
    else:
        only = results_of_tree(submissions, results)
    skipped = stray_results(results, only)
    if skipped:
        click.echo(f"build: left out {len(skipped)} results file(s) not verified for this tree: "
                   + ", ".join(visible(s) for s in skipped), err=True)
    return build_site(results, out, only=only, logs_root=Path("."))
