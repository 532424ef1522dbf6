"""Command line: parse options, call one stage, map exceptions to exit codes.

Exit codes: 0 verified / valid; 1 verification found problems; 2 bad usage or unreadable input.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from checker import __version__
from checker.errors import DriftboardError, UsageError

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"]}


def format_option(f: F) -> F:
    """`--format text|json` for every reporting command."""
    return click.option(
        "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
        help="Print findings as text lines or as one JSON document.",
    )(f)


def run_stage(fn: Callable[[], int]) -> None:
    """Call a stage and exit with its code; expected failures print one line, never a traceback."""
    try:
        code = fn()
    except UsageError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    except DriftboardError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    sys.exit(code)


@click.group(context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, prog_name="driftboard")
def cli() -> None:
    """Driftboard: verify agent-run logs and publish the drift leaderboard."""


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@format_option
def validate(paths: tuple[Path, ...], fmt: str) -> None:
    """Check submission folders or run files against the canonical format.

    Reports every problem as `path:line: message`, then a total.

    \b
    Example:
        driftboard validate submissions/
        driftboard validate submissions/my-run/runs/full-seed1.jsonl --format json
    """
    from checker.commands import validate_command

    run_stage(lambda: validate_command(list(paths), fmt))


@cli.command()
@click.option("--out", "out", type=click.Path(path_type=Path), required=True, help="Folder to write the schemas to.")
def schema(out: Path) -> None:
    """Write the JSON Schemas of the canonical format (events, manifest, prereg).

    \b
    Example:
        driftboard schema --out build/schema
    """
    from checker.commands import schema_command

    run_stage(lambda: schema_command(out))


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--profile", type=click.Choice(["driftboard", "arg-v1.0", "drift-bench-v1"]), default=None,
              help="Scoring profile (default: the one the pre-registration names, else driftboard).")
@click.option("--problems", "problems", multiple=True, type=click.Path(path_type=Path),
              help="Constraint problem set folder (repeatable); runs name the set they used by digest.")
@format_option
def verify(paths: tuple[Path, ...], profile: str | None, problems: tuple[Path, ...], fmt: str) -> None:
    """Replay, gate and score submissions; recompute every number from the logs.

    \b
    Example:
        driftboard verify submissions/
        driftboard verify submissions/drift-bench-seating --problems ../shared/data/drift-bench/problems
    """
    from checker.commands import verify_command

    run_stage(lambda: verify_command(list(paths), profile, list(problems), fmt))


@cli.group("import")
def import_() -> None:
    """Convert native outputs (ARG stores, DRIFT-Bench transcripts/databases) to canonical submissions."""


@import_.command("drift-bench")
@click.argument("src", type=click.Path(path_type=Path))
@click.option("--problems", "problems", required=True, type=click.Path(path_type=Path),
              help="DRIFT-Bench problems folder (searched recursively for <problem_id>.json).")
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="submissions/<id> to create.")
def import_drift_bench(src: Path, problems: Path, out: Path) -> None:
    """Import a DRIFT-Bench transcript JSONL or results SQLite database.

    \b
    Example:
        driftboard import drift-bench seating_example.jsonl --problems problems/ --out submissions/db-seating
    """
    from checker.importers.drift_bench import import_submission

    run_stage(lambda: import_submission(src, problems, out))


@import_.command("arg")
@click.argument("state_db", type=click.Path(path_type=Path))
@click.argument("probe_db", type=click.Path(path_type=Path))
@click.option("--out", "out", required=True, type=click.Path(path_type=Path), help="submissions/<id> to create.")
def import_arg(state_db: Path, probe_db: Path, out: Path) -> None:
    """Import every run of an ARG store pair (state.db + probe.db), opened read-only.

    \b
    Example:
        driftboard import arg state.db probe.db --out submissions/arg-ls20
    """
    from checker.importers.arg import import_submission

    run_stage(lambda: import_submission(state_db, probe_db, out))


@cli.group()
def bench() -> None:
    """Benchmarks (they print figures; they are not tests)."""


@bench.command("validate")
@click.option("--size-mb", default=200, show_default=True, help="Size of the generated log.")
@click.option("--workdir", type=click.Path(path_type=Path), default=None, help="Where to write the log.")
def bench_validate(size_mb: int, workdir: Path | None) -> None:
    """Generate a large valid run log, validate it, compare with a bare json.loads loop."""
    from checker.bench.validate_bench import run

    run_stage(lambda: run(size_mb, workdir))


@bench.command("constraint")
@click.option("--problems", "problems", required=True, type=click.Path(path_type=Path),
              help="DRIFT-Bench problems folder (the test split is used).")
@click.option("--jobs", default=1, show_default=True, help="Worker processes.")
@click.option("--naive-sample", default=300, show_default=True, help="Turns for the naive baseline.")
def bench_constraint(problems: Path, jobs: int, naive_sample: int) -> None:
    """Check every gold turn of the test split; compare with a fresh-solver-per-check baseline."""
    from checker.bench.constraint_bench import run

    run_stage(lambda: run(problems, jobs, naive_sample))


@bench.command("agent")
@click.option("--workdir", type=click.Path(path_type=Path), default=None, help="Where to write the logs.")
def bench_agent(workdir: Path | None) -> None:
    """Replay + gate + metrics on synthetic runs of 400 and 10,000 beats, against a bare parse."""
    from checker.bench.agent_bench import run

    run_stage(lambda: run(workdir))


def main() -> None:  # pragma: no cover
    """Entry point for `python -m checker`."""
    cli()
