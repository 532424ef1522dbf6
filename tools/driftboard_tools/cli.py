"""`driftboard bench ...`: the benchmarks' command group, registered as a `driftboard.commands` plugin.

Installed from `tools/` (`pip install -e tools/`); the checker never imports this package: its
command line finds the group through the `driftboard.commands` entry point.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from checker.cli.main import run_stage


def make_workdir(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """A bench's `--workdir`: created when missing; one that cannot be (a file there, no permission) is bad usage."""
    if value is not None:
        try:
            value.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.BadParameter(f"cannot create the folder {value}: {exc.strerror}") from None
    return value


def workdir_option(help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A bench's `--workdir PATH` option (`make_workdir`: created when missing)."""
    return click.option("--workdir", type=click.Path(path_type=Path), default=None, callback=make_workdir, help=help)



@click.group()
def bench() -> None:
    """Benchmarks (they print figures; they are not tests)."""


@bench.command("validate")
@click.option("--size-mb", default=200, show_default=True, help="Size of the generated log.")
@workdir_option("Where to write the log.")
def bench_validate(size_mb: int, workdir: Path | None) -> None:
    """Generate a large valid run log, validate it, compare with a bare json.loads loop."""
    from driftboard_tools.bench.validate import run

    run_stage(lambda: run(size_mb, workdir))


@bench.command("constraint")
@click.option("--problems", "problems", required=True, type=click.Path(path_type=Path),
              help="DRIFT-Bench problems folder (the test split is used).")
@click.option("--jobs", default=1, show_default=True, help="Worker processes.")
@click.option("--naive-sample", default=300, show_default=True, help="Realistic turns for the naive baseline.")
@click.option("--limit", type=click.IntRange(1), default=None,
              help="Only this many problems, spread over the split (and over the baselines' suite).")
@click.option("--seed", default=0, show_default=True, help="Seed of the generated non-gold turns.")
@click.option("--baselines", type=click.Path(path_type=Path), default=None,
              help="Run logs scored as the baselines part (default: the shipped constraint baselines).")
@click.option("--no-baselines", is_flag=True, help="Generated non-gold turns only.")
def bench_constraint(problems: Path, jobs: int, naive_sample: int, limit: int | None, seed: int,
                     baselines: Path | None, no_baselines: bool) -> None:
    """Score realistic (non-gold) and gold turns of the test split: fast path, all-Z3, fresh-solver baseline."""
    from driftboard_tools.bench.constraint import SHIPPED_RUNS, run

    runs = None if no_baselines else (baselines or SHIPPED_RUNS)
    run_stage(lambda: run(problems, jobs, naive_sample, limit, seed, runs))


@bench.command("agent")
@click.option("--cases", type=click.Path(path_type=Path), default=None,
              help="ARG conformance cases  [default: $DRIFTBOARD_SHARED_DATA/arg/cases, else ../shared/data/arg/cases].")
@click.option("--repeats", default=3, show_default=True, help="Timings per stage (the best is kept).")
@click.option("--startup-runs", default=5, show_default=True, help="Fresh processes per command for the start-up figure.")
@click.option("--synthetic/--no-synthetic", default=False, show_default=True,
              help="Also time generated runs of 400 and 10,000 beats (linearity).")
@workdir_option("Where to write imported and generated logs.")
@click.option("--generated", is_flag=True,
              help="Instead: verify of a generated submission (bench scale's agent runs) against json.loads of its bytes.")
@click.option("--generated-runs", default=20, show_default=True, help="Runs of the generated submission.")
@click.option("--generated-events", default=10_000, show_default=True, help="Events per generated run (about).")
def bench_agent(cases: Path | None, repeats: int, startup_runs: int, synthetic: bool, workdir: Path | None,
                generated: bool, generated_runs: int, generated_events: int) -> None:
    """CPU per beat of import, verify and replay + gate + metrics on ARG's cases, against ARG's probes; start-up.

    With --generated: CPU per event of verify (and its stages) on a generated realistic submission,
    and its ratio to json.loads of the same bytes (last line `ratio_vs_json_loads=...`).

    \b
    Example:
        driftboard bench agent --repeats 3 --startup-runs 9
        driftboard bench agent --generated --repeats 3
    """
    if generated:
        from driftboard_tools.bench.agent_generated import run as run_generated

        if generated_runs < 4 or generated_events < 100:
            raise click.UsageError("--generated-runs must be at least 4 and --generated-events at least 100")
        run_stage(lambda: run_generated(generated_runs, generated_events, repeats, workdir))
        return
    from driftboard_tools.bench.agent import run

    run_stage(lambda: run(cases, repeats, startup_runs, synthetic, workdir))


@bench.command("inspect-agent")
@click.option("--game", default="w101", show_default=True, help="The micro-world game (w<world seed>).")
@click.option("--horizon", default=150, show_default=True, help="Actions per game.")
@workdir_option("Where to write the Inspect logs and the imports (a temporary folder inside it).")
def bench_inspect_agent(game: str, horizon: int, workdir: Path | None) -> None:
    """CPU per beat of driftboard/agent with the scripted model (harness, Inspect, import), log size per 1,000 beats."""
    from driftboard_tools.bench.inspect_agent import run

    run_stage(lambda: run(workdir, game, horizon))


@bench.command("cli")
@click.option("--cases", type=click.Path(path_type=Path), default=None,
              help="ARG conformance cases (the one-run submission is imported from them)  "
                   "[default: $DRIFTBOARD_SHARED_DATA/arg/cases, else ../shared/data/arg/cases].")
@click.option("--runs", default=10, show_default=True, help="Fresh processes per command.")
@workdir_option("Where to put the one-run submission.")
def bench_cli(cases: Path | None, runs: int, workdir: Path | None) -> None:
    """Start-up: `--help`, `validate` and `verify` of a one-run submission in fresh processes (median wall, CPU).

    \b
    Example:
        driftboard bench cli --runs 10
    """
    from driftboard_tools.bench.startup import run

    run_stage(lambda: run(cases, runs, workdir))


@bench.command("site")
@workdir_option("Where to build.")
def bench_site(workdir: Path | None) -> None:
    """Build the site for 10 and for 200 synthetic submissions and time both."""
    from driftboard_tools.bench.site import run

    run_stage(lambda: run(workdir))


@bench.command("scale")
@click.option("--quick", is_flag=True, help="Tiny sizes: a smoke test of every stage (figures meaningless).")
@click.option("--agent-runs", type=click.IntRange(1), default=None, help="Agent runs in total  [default: 1000].")
@click.option("--agent-events", type=click.IntRange(100), default=None,
              help="Agent events in total, spread over the runs  [default: 10000000].")
@click.option("--agent-seeds", type=click.IntRange(1), default=None,
              help="Seeds per cell (4 cells per agent submission)  [default: 10].")
@click.option("--constraint-submissions", type=click.IntRange(1), default=None,
              help="Constraint submissions, 4 runs each over the whole problem set  [default: 50].")
@click.option("--constraint-turns", type=click.IntRange(1), default=None,
              help="Gold turns of the synthetic problem set  [default: 5672, DRIFT-Bench's test split].")
@click.option("--problems", "problems", type=click.Path(path_type=Path), default=None,
              help="Use these DRIFT-Bench problems (test split) instead of a synthetic set.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None, help="Worker processes to compare with 1  [default: 2].")
@click.option("--z3-subset", type=click.IntRange(1), default=None,
              help="Constraint submissions verified with the solver shortcuts off  [default: 1].")
@click.option("--zstd-level", type=click.IntRange(1, 22), default=None,
              help="The storage stage's zstd copies at this level, and the shipped level measured on one submission "
                   "(zstd -19 of the full halves takes hours on 2 cores)  [default: 19, what `driftboard compress` writes].")
@click.option("--storage-verify-first", type=click.IntRange(1), default=None,
              help="The storage stage's verify passes and fetch on each half's first N submissions only (bytes and "
                   "compression: the whole half)  [default: all].")
@workdir_option("Where generated data is kept and reused  [default: $TMPDIR/driftboard-bench-scale].")
@click.option("--json", "json_out", type=click.Path(path_type=Path), default=None, help="Also write the figures as JSON.")
@click.option("--markdown", "md_out", type=click.Path(path_type=Path), default=None,
              help="Also write the figures as Markdown tables.")
@click.option("--storage-only", is_flag=True,
              help="Only the storage forms (plain, gzip, zstd, by reference) of each half: bytes, verify, fetch, memory.")
@click.option("--half", "halves", type=click.Choice(["agent", "constraint"]), multiple=True,
              help="With --storage-only: this half only (repeatable)  [default: both].")
def bench_scale(quick: bool, workdir: Path | None, json_out: Path | None, md_out: Path | None, storage_only: bool,
                halves: tuple[str, ...], **sizes: Any) -> None:
    """Verify 1,000 agent runs (10^7 events) and 50 DRIFT-Bench-size constraint submissions: time, RSS, cache, curve.

    \b
    Example (the storage forms at the issue's sizes, constraint half on the real test split):
        driftboard bench scale --storage-only --problems problems/drift-bench-v1
    """
    from driftboard_tools.bench.scale import HALVES, run, sizes_from_options

    if halves and not storage_only:
        raise click.UsageError("--half goes with --storage-only (a full run measures both halves)")
    run_stage(lambda: run(workdir, sizes_from_options(quick, **sizes), json_out, md_out, storage_only,
                          halves or HALVES))


@bench.command("fuzz")
@click.option("--seconds", default=600.0, show_default=True, type=float, help="Total time, split evenly across targets.")
@click.option("--target", "targets", multiple=True, metavar="NAME",
              help="validate, yaml, verify, import-arg, import-drift-bench or domains (repeatable; default: all).")
@click.option("--crashes", type=click.Path(path_type=Path), default=None,
              help="Folder for crashing inputs (default: driftboard-fuzz-crashes in the system temp folder).")
@click.option("--seed", default=0, show_default=True,
              help="Seed of the hypothesis rounds (a seed draws the same inputs in the same order).")
@click.option("--replay", "replay_path", type=click.Path(path_type=Path), default=None,
              help="Run saved crash cases (a case folder or the crashes folder) instead of fuzzing.")
def bench_fuzz(seconds: float, targets: tuple[str, ...], crashes: Path | None, seed: int, replay_path: Path | None) -> None:
    """Fuzz every untrusted-input path with mutated seeds; count inputs, findings and crashes (not run in CI)."""
    from driftboard_tools.fuzz.run import run

    run_stage(lambda: run(seconds, list(targets), crashes, seed, replay_path))
