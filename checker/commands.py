"""Glue for the command line: run one stage, render its result with a reporter, return the exit code.

Kept apart from `cli.py` so that option parsing stays separate from execution (and each is
testable on its own).
"""

from __future__ import annotations

from pathlib import Path

import click

from checker.report import findings_json, findings_text, plural


def validate_command(paths: list[Path], fmt: str) -> int:
    """`driftboard validate`: print every finding and a total; return 0, 1 or 2."""
    from checker.validate import validate_paths

    report = validate_paths(paths)
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


def verify_command(paths: list[Path], profile: str | None, problems: list[Path], fmt: str) -> int:
    """`driftboard verify`: score every run, print tables (text) or the full records (JSON)."""
    from checker.verify import scorer_for, verify_paths

    report = verify_paths(paths, profile, problems)
    findings = report.unreadable + report.findings
    errors = sum(1 for f in findings if f.severity == "error")
    if fmt == "json":
        subs = []
        for s in report.submissions:
            cells: dict[str, object] = {}
            for track in sorted({r.start.track for r in s.records}):
                scored = [r for r in s.runs if r.get("verdict") != "MALFORMED" and r.get("track", track) == track]
                cells.update(scorer_for(track).cell_tables(scored))
            subs.append({"path": s.path, "submission_id": s.manifest.id if s.manifest else None,
                         "profile": s.profile, "runs": s.runs, "cells": cells})
        click.echo(findings_json("verify", findings, report.exit_code, submissions=subs), nl=False)
        return report.exit_code
    for sub in report.submissions:
        click.echo(f"== {sub.path} (profile {sub.profile})")
        by_track: dict[str, list[dict[str, object]]] = {}
        for rec, res in zip(sub.records, [r for r in sub.runs if r.get("verdict") != "MALFORMED"], strict=False):
            by_track.setdefault(rec.start.track, []).append(res)
        for track, results in sorted(by_track.items()):
            click.echo(scorer_for(track).render_text(results), nl=False)
        for res in sub.runs:
            if res.get("verdict") == "MALFORMED":
                click.echo(f"MALFORMED {res['path']} (not scored)")
    total_runs = sum(len(s.runs) for s in report.submissions)
    summary = f"{plural(errors, 'problem')} found" if errors else "ok: verified"
    click.echo(findings_text(findings, f"{summary} ({plural(len(report.submissions), 'submission')}, {plural(total_runs, 'run')})"), nl=False)
    return report.exit_code


def build_command(submissions: Path, results: Path, out: Path) -> int:
    """`driftboard build`: make sure results exist (verify if needed), then render the site."""
    from checker.render.site import build_site
    from checker.results import ensure_results

    ensure_results(submissions, results)
    return build_site(results, out)
