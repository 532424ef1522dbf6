"""`driftboard bench site`: build the site for 10 and for 200 synthetic submissions.

Synthetic results files stand in for verified ones (agent and constraint tracks, five cells of
five seeds each, gate tables, mismatches, an undefined metric per submission), so the benchmark
measures the renderer and MkDocs, not the scorers. Run pages are included (one per run). Each
build runs in a fresh child process, measured like `bench scale` does (`measure`: wall time, CPU
time, peak RSS). Prints as its last line
`site_s_10=<s> site_s_200=<s> pages_200=<n> run_pages_200=<n> rss_mb_200=<MB> ms_per_page_200=<ms> cpu_s_200=<s>`;
the goal (issue 16) is 200 submissions in under 30 s with a peak RSS under 400 MB.
(Synthetic results come from `driftboard_tools.generate.results`.)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import click

from driftboard_tools.bench.measure import Measured, measure

BUILD = "import sys; from pathlib import Path; from checker.render.site import build_site; " \
        "sys.exit(build_site(Path(sys.argv[1]), Path(sys.argv[2])))"
"""The child process one measured build runs in (the results folder is written beforehand)."""

GENERATE = "import sys; from pathlib import Path; from driftboard_tools.generate.results import synthetic_results, " \
           "write_results_dir; write_results_dir(synthetic_results(int(sys.argv[1])), Path(sys.argv[2]))"
"""Writes the synthetic results in a child process of its own. Not in this process: on Linux a child started by
`subprocess` (vfork + exec) inherits its parent's peak resident set as its own `ru_maxrss`, so 200 submissions
generated here (about 420 MB) were once reported as the build's peak (464 MB, when the build itself peaked at 243 MB)."""


def time_build(n: int, workdir: Path) -> Measured:
    """Build the site for `n` synthetic submissions in a child process (results written beforehand, by another)."""
    results = workdir / f"results-{n}"
    subprocess.run([sys.executable, "-c", GENERATE, str(n), str(results)], check=True)
    m = measure([sys.executable, "-c", BUILD, str(results), str(workdir / f"site-{n}")], Path.cwd(),
                workdir / f"build-{n}.log")
    if m.code != 0:
        raise click.ClickException(f"site build of {n} submissions exited {m.code}; see {workdir / f'build-{n}.log'}")
    return m


def run(workdir: Path | None) -> int:
    """Time the site build for 10 and for 200 synthetic submissions; print the figures."""
    tmp = None
    if workdir is None:
        tmp = tempfile.mkdtemp(prefix="driftboard-bench-site-")
        workdir = Path(tmp)
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        got: dict[int, tuple[Measured, int, int]] = {}
        for n in (10, 200):
            m = time_build(n, workdir)
            site = workdir / f"site-{n}"
            pages = sum(1 for _ in site.rglob("index.html"))
            runs = sum(1 for _ in (site / "runs").rglob("index.html")) if (site / "runs").is_dir() else 0
            size = sum(p.stat().st_size for p in site.rglob("*") if p.is_file())
            got[n] = (m, pages, runs)
            click.echo(f"{n} submissions: {m.wall_s:.1f} s wall, {m.cpu_s or 0:.1f} s CPU, {pages} pages "
                       f"({runs} run pages), {1000 * m.wall_s / pages:.1f} ms a page, peak RSS {m.rss_max_mb:.0f} MB, "
                       f"{size / 1e6:.1f} MB")
        m, pages, runs = got[200]
        met = m.wall_s < 30 and m.rss_max_mb < 400
        click.echo(f"goal: 200 submissions in under 30 s, peak RSS under 400 MB: {'met' if met else 'NOT met'}"
                   + ("" if met or (m.cpu_s or 0) >= 30 else f" (CPU {m.cpu_s:.1f} s: the machine is shared)"))
        click.echo(f"site_s_10={got[10][0].wall_s:.2f} site_s_200={m.wall_s:.2f} pages_200={pages} "
                   f"run_pages_200={runs} rss_mb_200={m.rss_max_mb:.0f} ms_per_page_200={1000 * m.wall_s / pages:.2f} "
                   f"cpu_s_200={m.cpu_s or 0:.2f}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0
