"""`driftboard bench cli`: how fast the command line starts, timed in fresh processes.

Each command is run `runs` times as `python -m checker ...` in a child process (a new
interpreter every time, as a user or CI calls it), alternating the commands so a burst of load
on the machine hits them all alike. Measured per run, by a small launcher process (see
`LAUNCHER`): wall time, CPU time (user + system) and peak resident set of the child; medians of
wall and CPU, the largest peak RSS. The baseline, timed in the same loop, is the bare
interpreter (`python -c pass`): what no command can go below.

The one-run submission is ARG's smallest conformance case with a run (`t_zcr_zcr-echo`, 7 beats),
imported once into a temporary folder; `verify` writes its results there too (`--out`, and
`--no-cache`), so nothing is written into the working directory.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import click

import checker
from checker.format.errors import UsageError
from checker.importers.arg import import_submission

STARTUP_GOAL_S = 0.4
"""Issue 21: `verify` and `validate` of a one-run submission under 0.4 s wall on the project's machine."""
ONE_RUN_CASE = "t_zcr_zcr-echo"
"""The ARG case imported as the one-run submission (7 beats)."""


@dataclass
class Timing:
    """Medians over the runs of one command."""

    name: str
    wall_s: float
    cpu_s: float
    rss_mb: float
    runs: int


def _env() -> dict[str, str]:
    """The child's environment: this checker first on the path (not whichever one is installed)."""
    root = str(Path(checker.__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    return env


LAUNCHER = """
import os, sys, time
out = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
t0 = time.perf_counter()
pid = os.posix_spawn(sys.executable, [sys.executable, *sys.argv[1:]], os.environ, file_actions=out)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
print(os.waitstatus_to_exitcode(status), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""
"""Starts the timed command and reports its exit code, wall time, CPU time and peak RSS (KiB).

A small interpreter in between, because a child's peak RSS on Linux counts the address space it
was forked from: started straight from the benchmark (tens of MB) every command would show at
least the benchmark's own size."""


def time_commands(commands: dict[str, list[str]], runs: int, cwd: Path) -> list[Timing]:
    """Run each command `runs` times in fresh interpreters (interleaved); medians per command.

    Raises:
        RuntimeError: a command exited with a code other than 0 or 1.
    """
    env = _env()
    walls: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    rss: dict[str, float] = dict.fromkeys(commands, 0.0)
    for _ in range(runs):
        for name, args in commands.items():
            proc = subprocess.run([sys.executable, "-c", LAUNCHER, *args], cwd=cwd, env=env, capture_output=True,
                                  text=True, check=False)
            fields = proc.stdout.split()
            if proc.returncode != 0 or len(fields) != 4 or fields[0] not in ("0", "1"):
                raise RuntimeError(f"{name}: {proc.stdout.strip() or proc.stderr.strip()[-500:]} ({' '.join(args)})")
            walls[name].append(float(fields[1]))
            cpus[name].append(float(fields[2]))
            rss[name] = max(rss[name], int(fields[3]) / (1024 * 1024 if sys.platform == "darwin" else 1024))
    return [Timing(name, statistics.median(walls[name]), statistics.median(cpus[name]), rss[name], runs)
            for name in commands]


def startup(one_run: Path, workdir: Path, runs: int) -> list[Timing]:
    """Time `--help`, `validate` and `verify` of the one-run submission `one_run`, and the bare interpreter."""
    out = workdir / "results"
    commands = {
        "python -c pass (baseline)": ["-c", "pass"],
        "driftboard --help": ["-m", "checker", "--help"],
        "driftboard validate": ["-m", "checker", "validate", str(one_run)],
        "driftboard verify": ["-m", "checker", "verify", str(one_run), "--no-cache", "--out", str(out)],
    }
    return time_commands(commands, runs, workdir)


def import_one_run(cases: Path, out: Path) -> Path:
    """Import the one-run ARG case into `out` (the submission timed by `startup`)."""
    case = cases / ONE_RUN_CASE
    import_submission(case / "state.db", case / "probe.db", out)
    return out


def startup_lines(timings: list[Timing]) -> list[str]:
    """One line per command: median wall and CPU, peak RSS, and the goal where there is one."""
    lines = []
    for t in timings:
        goal = ""
        if t.name in ("driftboard verify", "driftboard validate"):
            goal = f"  goal < {STARTUP_GOAL_S} s wall: {'met' if t.wall_s < STARTUP_GOAL_S else 'NOT met'}"
        lines.append(f"  {t.name:<28} wall {t.wall_s:.3f} s  cpu {t.cpu_s:.3f} s  peak RSS {t.rss_mb:.0f} MB"
                     f"  (median of {t.runs}){goal}")
    return lines


def run(cases: Path | None, runs: int, workdir: Path | None) -> int:
    """`driftboard bench cli`: print the start-up table; the last line carries the figures."""
    cases = cases_dir_or_fail(cases)
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        one = import_one_run(cases, Path(tmp) / "one-run")
        timings = startup(one, Path(tmp), runs)
    click.echo(machine_line())
    click.echo(f"start-up, fresh processes, one-run submission ({ONE_RUN_CASE}):")
    for line in startup_lines(timings):
        click.echo(line)
    click.echo(summary(timings))
    return 0


def summary(timings: list[Timing]) -> str:
    """`startup_verify_s=… startup_validate_s=… startup_help_s=… python_s=…` (median wall times)."""
    by = {t.name: t for t in timings}
    return (f"startup_verify_s={by['driftboard verify'].wall_s:.3f} startup_validate_s={by['driftboard validate'].wall_s:.3f} "
            f"startup_help_s={by['driftboard --help'].wall_s:.3f} python_s={by['python -c pass (baseline)'].wall_s:.3f} "
            f"startup_verify_cpu_s={by['driftboard verify'].cpu_s:.3f}")


def default_cases() -> Path:
    """The ARG conformance cases: `$DRIFTBOARD_SHARED_DATA/arg/cases` (default `../shared/data`)."""
    return Path(os.environ.get("DRIFTBOARD_SHARED_DATA", "../shared/data")) / "arg" / "cases"


def cases_dir_or_fail(cases: Path | None) -> Path:
    """`cases`, or the default folder; a usage error naming where the data comes from when it is absent.

    Raises:
        UsageError: the folder holds no ARG case.
    """
    folder = cases if cases is not None else default_cases()
    if not (folder / ONE_RUN_CASE / "state.db").is_file():
        raise UsageError(f"no ARG conformance cases under {folder} (the shared reference data: set "
                         "DRIFTBOARD_SHARED_DATA to the folder holding arg/cases, or pass --cases)")
    return folder


def machine_line() -> str:
    """CPU model, cores, RAM, Python and the load average now (the figures depend on all of them)."""
    cpu = platform.processor() or platform.machine()
    ram = "?"
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), cpu)
        ram = next((f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB" for line in
                    Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal:")), ram)
    except OSError:
        pass
    load = ",".join(f"{x:.2f}" for x in os.getloadavg())
    return (f"machine: {cpu}, {os.cpu_count()} cores, {ram} RAM, Python {platform.python_version()}, "
            f"{platform.system()} {platform.release()}; load average {load}")
