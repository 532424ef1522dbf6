"""`driftboard bench scale`: the whole verify pipeline at leaderboard scale (issue 9).

Two synthetic leaderboards are generated into `--workdir` and kept there, by
`driftboard_tools.generate.leaderboards` (which says what they hold): an invocation with the same
generation parameters reuses them, so generation is measured once and never mixed into verify
figures. The agent half is `--agent-runs` runs (default 1,000) of about `--agent-events` events in
all (default 10^7) over the cells FULL/J0/A0/J0A0 x `--agent-seeds` seeds; the constraint half is
`--constraint-submissions` (default 50) submissions of DRIFT-Bench size (four scripted methods over
a set of `--constraint-turns` gold turns, default 5,672, or the real problems of `--problems`).

Every verification runs `python -m checker verify` in a child process (cwd = the workdir, so
no git history is consulted), with stdout to a log file. Measured:

* wall time, and peak memory two ways: `rss_max_mb`, the largest resident set of any single
  process of the tree (`os.wait4` of the child, whose figure covers the pool workers it reaped:
  exact), and `rss_tree_mb`, the largest *sum* of proportional set sizes (PSS, shared pages
  split between their sharers) over the verify process and its workers, sampled from
  /proc/PID/smaps_rollup every `measure.SAMPLE_S` seconds (so a peak shorter than that can be missed);
* cold (empty cache) with `--jobs 1` and `--jobs N`; warm (every submission a cache hit), the
  cache speed-up cold/warm; `--no-cache` (the slow path CI takes); a one-changed-submission
  re-verify (a pull request: 1 miss, N-1 hits);
* constraint only: the same `--z3-subset` submissions with the witness/pinned shortcuts on and
  off (`ProblemSolver(use_shortcuts=False)`, as `bench constraint` measures its z3-ledger
  path), and the slow path extrapolated to the whole half;
* the cost curve: `--no-cache --jobs 1` on the first 1, n/5 and n submissions, time and RSS per event
  or per turn, and the marginal cost of each step (a step whose marginal cost per unit rises by
  more than `SUPERLINEAR` is flagged); the same points with `--jobs N` give the speed-up and the
  process tree's memory at each size (flat in the number of submissions: each submission's
  results are written and released where it is scored);
* the baseline, in the same run: a bare `json.loads` loop over the same log bytes;
* merging both halves' results and building the site (`driftboard merge`, `driftboard build
  --no-verify`): time, peak RSS, pages and size;
* each half stored plain, gzip, zstd and by reference (`driftboard_tools.bench.storage`): bytes
  in the repository, cold `--jobs N` verify of each form against plain, the fetch with a cold and
  a warm blob store, peak memory (`--storage-only`: this stage alone, for the `--half`s given).

Byte-identical results across the cold, `--jobs N` and `--no-cache` passes are checked too.
The last line is `agent_events_per_s=… constraint_turns_per_s=… agent_cache_speedup=…
constraint_cache_speedup=… peak_rss_mb=…`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import resource
import shlex
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import click

from checker.format.errors import DriftboardError, UsageError
from driftboard_tools.bench.measure import Measured, machine, measure, tail
from driftboard_tools.bench.storage import markdown_rows, storage_stage
from driftboard_tools.generate.leaderboards import QUICK, Half, Sizes, generate_agent, generate_constraint

HALVES = ("agent", "constraint")
SUPERLINEAR = 1.2
"""A curve step whose marginal cost per unit exceeds the previous step's by this factor is flagged."""


FORCED_Z3 = """
import sys
from checker.constraint.domains.solver import ProblemSolver
import checker.constraint.scorer as c
_init = c._Checker.__init__
def _forced(self, problem):
    _init(self, problem)
    if self.domain is not None:
        self.solver = ProblemSolver(self.domain, use_shortcuts=False)
c._Checker.__init__ = _forced
import runpy
sys.argv[0] = "driftboard"
runpy.run_module("checker", run_name="__main__")
"""
"""Runs `python -m checker verify` (a child process) with every uncached SAT check on Z3 (no witness or pinned shortcut)."""


# -- the bench ---------------------------------------------------------------------------------
class Bench:
    """Runs the stages and collects figures (printed as `key=value` lines as they come)."""

    def __init__(self, workdir: Path, sizes: Sizes, json_out: Path | None = None, md_out: Path | None = None,
                 command: str = "driftboard bench scale") -> None:
        self.workdir = workdir
        self.sizes = sizes
        self.out = workdir / "out"
        self.json_out = json_out
        self.md_out = md_out
        self.command = command
        self.figures: dict[str, Any] = {}
        self.curve: list[dict[str, Any]] = []
        self.nocache: dict[tuple[str, int], Measured] = {}
        """`--no-cache --jobs 1` passes by (half, first k submissions), reused by the cost curve."""

    def emit(self, stage: str, **values: Any) -> None:
        """Record and print one stage's figures."""
        for k, v in values.items():
            self.figures[f"{stage}_{k}" if stage else k] = v
        click.echo(" ".join(f"{stage + '_' if stage else ''}{k}={_fmt(v)}" for k, v in values.items()))
        self.save()

    def save(self) -> None:
        """Write the figures so far (a stage that fails at scale leaves the earlier ones on disk)."""
        if self.json_out is not None:
            doc = {"figures": self.figures, "curve": self.curve, "sizes": asdict(self.sizes), "command": self.command}
            self.json_out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        if self.md_out is not None:
            self.md_out.write_text(markdown(self.figures, self.curve, self.command), encoding="utf-8")

    def verify(self, half: Half, label: str, subs: list[Path], *, jobs: int = 1, cache: str = "cold",
               forced_z3: bool = False, seed_blobs: Path | None = None) -> tuple[Measured, Path]:
        """Verify `subs` in a child; `cache` is cold (fresh dir), warm:<label> (reuse) or off.

        `seed_blobs`: a blob store copied into the cold cache first (fetched logs warm, results cold).
        """
        out = self.out / f"{half.name}-{label}"
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        if seed_blobs is not None:
            shutil.copytree(seed_blobs, out / "cache" / "blobs")
        args = ["verify", *(p.as_posix() for p in subs), "--jobs", str(jobs), "--out", str(out / "results")]
        if half.problems is not None:
            args += ["--problems", half.problems.as_posix()]
        if cache == "off":
            args.append("--no-cache")
        else:
            cache_dir = out / "cache" if cache == "cold" else self.out / f"{half.name}-{cache.split(':', 1)[1]}" / "cache"
            args += ["--cache-dir", str(cache_dir)]
        cmd = [sys.executable, "-c", FORCED_Z3, *args] if forced_z3 else [sys.executable, "-m", "checker", *args]
        m = measure(cmd, self.workdir, out / "verify.log")
        if m.code != 0:
            raise DriftboardError(f"verify ({half.name}, {label}) exited {m.code} after {m.wall_s:.0f} s at "
                                  f"{m.rss_max_mb:.0f} MB peak RSS; see {out / 'verify.log'}:\n"
                                  f"{tail(out / 'verify.log', 2000)}")
        return m, out / "results"

    def half_stages(self, half: Half) -> None:
        """Every verify figure of one half."""
        s, h, u = self.sizes, half.name, half.unit
        # baseline first: it also brings the logs into the page cache for every pass after it
        t0, c0 = time.perf_counter(), time.process_time()
        lines = 0
        for f in half.log_files:
            with f.open("rb") as fh:
                for line in fh:
                    json.loads(line)
                    lines += 1
        t_json, c_json = time.perf_counter() - t0, time.process_time() - c0
        self.emit(f"{h}_json_loads", s=round(t_json, 2), cpu_s=_round(c_json), lines=lines, mb=round(half.bytes / 1e6, 1))

        cold, res_cold = self.verify(half, "cold-j1", half.submissions)
        rate = half.total / cold.wall_s
        self.emit(f"{h}_cold_j1", s=round(cold.wall_s, 2), cpu_s=_round(cold.cpu_s), **{f"{u}s_per_s": round(rate)},
                  us_per=round(cold.wall_s / half.total * 1e6, 2), rss_max_mb=round(cold.rss_max_mb),
                  rss_tree_mb=round(cold.rss_tree_mb), misses=cold.misses,
                  ratio_vs_json_loads=round(t_json / cold.wall_s, 3),
                  # by CPU time too (the figure a loaded machine does not inflate): json.loads CPU / verify's CPU
                  ratio_vs_json_loads_cpu=round(c_json / cold.cpu_s, 3) if cold.cpu_s else None)
        warm, res_warm = self.verify(half, "warm-j1", half.submissions, cache="warm:cold-j1")
        self.emit(f"{h}_warm_j1", s=round(warm.wall_s, 2), cpu_s=_round(warm.cpu_s), hits=warm.hits, misses=warm.misses,
                  rss_max_mb=round(warm.rss_max_mb), cache_speedup=round(cold.wall_s / warm.wall_s, 1))
        if warm.misses:
            click.echo(f"WARNING: the warm {h} pass missed {warm.misses} submission(s): the checker's code or the "
                       "data changed between passes; the cache speed-up is not meaningful")
        j = s.jobs
        par, res_par = self.verify(half, f"cold-j{j}", half.submissions, jobs=j)
        self.emit(f"{h}_cold_j{j}", s=round(par.wall_s, 2), cpu_s=_round(par.cpu_s),
                  **{f"{u}s_per_s": round(half.total / par.wall_s)},
                  rss_max_mb=round(par.rss_max_mb), rss_tree_mb=round(par.rss_tree_mb),
                  speedup_vs_j1=round(cold.wall_s / par.wall_s, 2))
        nocache, res_nc = self.verify(half, "nocache-j1", half.submissions, cache="off")
        self.nocache[(h, len(half.submissions))] = nocache
        self.emit(f"{h}_nocache_j1", s=round(nocache.wall_s, 2), **{f"{u}s_per_s": round(half.total / nocache.wall_s)},
                  rss_max_mb=round(nocache.rss_max_mb), vs_cold=round(nocache.wall_s / cold.wall_s, 2))
        same = _dir_digest(res_cold) == _dir_digest(res_par) == _dir_digest(res_nc) == _dir_digest(res_warm)
        self.emit(f"{h}_results", identical_across_passes=same, mb=round(_dir_bytes(res_cold) / 1e6, 1),
                  cache_mb=round(_dir_bytes(self.out / f"{h}-cold-j1" / "cache") / 1e6, 1))
        for res in (res_warm, res_par, res_nc):
            shutil.rmtree(res, ignore_errors=True)
        changed = half.submissions[-1] / "submission.yaml"
        original = changed.read_bytes()
        try:
            changed.write_bytes(original + b"# changed by driftboard bench scale (a pull request)\n")
            pr, _ = self.verify(half, "one-changed", half.submissions, cache="warm:cold-j1")
        finally:
            changed.write_bytes(original)
        self.emit(f"{h}_one_changed", s=round(pr.wall_s, 2), cpu_s=_round(pr.cpu_s), hits=pr.hits, misses=pr.misses,
                  rss_max_mb=round(pr.rss_max_mb), changed_units=half.units[-1])
        if half.name == "constraint":
            self.forced_z3(half)
        self.cost_curve(half)
        storage_stage(self, half)

    def forced_z3(self, half: Half) -> None:
        """The constraint half's slow path: shortcuts off on a subset, extrapolated to the half."""
        k = self.sizes.z3_subset
        subset, turns = half.submissions[:k], sum(half.units[:k])
        fast, _ = self.verify(half, "subset-fast", subset, cache="off")
        self.nocache[(half.name, k)] = fast
        slow, _ = self.verify(half, "subset-forced-z3", subset, cache="off", forced_z3=True)
        per_turn = slow.wall_s / turns
        self.emit("constraint_forced_z3", submissions=k, turns=turns, fast_s=round(fast.wall_s, 2),
                  forced_s=round(slow.wall_s, 2), fast_turns_per_s=round(turns / fast.wall_s),
                  forced_turns_per_s=round(turns / slow.wall_s), slowdown=round(slow.wall_s / fast.wall_s, 1),
                  rss_max_mb=round(slow.rss_max_mb),
                  extrapolated_half_s=round(per_turn * half.total), extrapolated_from=f"{turns}/{half.total}")

    def cost_curve(self, half: Half) -> None:
        """`--no-cache --jobs 1` on the first 1, n/5 and n submissions: time and RSS per unit, marginal cost per step.

        Without the cache the curve is verification alone (no cache reads or writes); passes
        already made on the same submissions (the whole half, the shortcut subset) are reused.
        """
        points: list[tuple[int, int, Measured, Measured | None]] = []
        j = self.sizes.jobs
        for k in curve_points(len(half.submissions)):
            units = sum(half.units[:k])
            m = self.nocache.get((half.name, k)) or self.verify(half, f"curve-{k}", half.submissions[:k], cache="off")[0]
            par = self.verify(half, f"curve-{k}-j{j}", half.submissions[:k], cache="off", jobs=j)[0] if j > 1 else None
            points.append((k, units, m, par))
        prev_marginal = None
        for i, (k, units, m, par) in enumerate(points):
            row: dict[str, Any] = {"half": half.name, "submissions": k, "units": units, "s": round(m.wall_s, 2),
                                   "us_per_unit": round(m.wall_s / units * 1e6, 2), "rss_max_mb": round(m.rss_max_mb),
                                   "rss_tree_mb": round(m.rss_tree_mb), "marginal_us_per_unit": None,
                                   "marginal_rss_mb_per_1k_units": None, "flag": "", "jobs": j,
                                   "s_jobs": None if par is None else round(par.wall_s, 2),
                                   "speedup": None if par is None else round(m.wall_s / par.wall_s, 2),
                                   "rss_tree_mb_jobs": None if par is None else round(par.rss_tree_mb)}
            if i:
                _k0, u0, m0, _p0 = points[i - 1]
                marginal = (m.wall_s - m0.wall_s) / (units - u0) * 1e6
                row["marginal_us_per_unit"] = round(marginal, 2)
                row["marginal_rss_mb_per_1k_units"] = round((m.rss_max_mb - m0.rss_max_mb) / (units - u0) * 1000, 3)
                if prev_marginal is not None and marginal > prev_marginal * SUPERLINEAR:
                    row["flag"] = "SUPER-LINEAR time"
                prev_marginal = marginal
                if m.rss_max_mb - m0.rss_max_mb > 64 and m.rss_max_mb / m0.rss_max_mb > (units / u0) * SUPERLINEAR:
                    row["flag"] = (row["flag"] + "; " if row["flag"] else "") + "SUPER-LINEAR memory"
            self.curve.append(row)
            self.emit(f"{half.name}_curve_{k}", **{k2: v for k2, v in row.items() if k2 not in ("half", "submissions")})

    def site(self, halves: list[Half]) -> None:
        """Merge both halves' cold results and build the site from them."""
        merged = self.out / "site-results"
        site = self.out / "site" / "site"
        shutil.rmtree(merged, ignore_errors=True)
        shutil.rmtree(self.out / "site", ignore_errors=True)
        sources = [self.out / f"{h.name}-cold-j1" / "results" for h in halves]
        m = measure([sys.executable, "-m", "checker", "merge", *map(str, sources), "--out", str(merged)],
                    self.workdir, self.out / "merge.log")
        if m.code != 0:
            raise DriftboardError(f"merge exited {m.code}; see {self.out / 'merge.log'}")
        self.emit("merge", s=round(m.wall_s, 2), rss_max_mb=round(m.rss_max_mb), results_mb=round(_dir_bytes(merged) / 1e6, 1))
        # the workdir holds both halves' submissions (verify ran there, so results name them relative to it):
        # `build` publishes only results verified from the tree it is given
        b = measure([sys.executable, "-m", "checker", "build", "--no-verify", "--submissions", ".", "--results", str(merged),
                     "--out", str(site)],
                    self.workdir, self.out / "build.log")
        if b.code != 0:
            raise DriftboardError(f"build exited {b.code}; see {self.out / 'build.log'}:\n{tail(self.out / 'build.log', 2000)}")
        pages = sum(1 for _ in site.rglob("*.html"))
        self.emit("site", s=round(b.wall_s, 2), rss_max_mb=round(b.rss_max_mb), pages=pages,
                  mb=round(_dir_bytes(site) / 1e6, 1), docs_mb=round(_dir_bytes(self.out / "site" / "docs") / 1e6, 1))


def curve_points(n: int) -> list[int]:
    """Submission counts of the cost curve: 1, n/5 and n (deduplicated, ascending)."""
    return sorted({1, max(1, n // 5), n})


def _dir_digest(root: Path) -> str:
    """Digest of a results folder's files; `binding.json` left out (it records which files came from the cache)."""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.name != "binding.json":
            h.update(p.relative_to(root).as_posix().encode() + b"\0")
            with p.open("rb") as fh:
                for block in iter(functools.partial(fh.read, 1 << 20), b""):
                    h.update(block)
    return h.hexdigest()


def _dir_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.exists() else 0


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 1)


def _fmt(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, str) and (" " in v or not v):
        return json.dumps(v)
    return str(v)


def markdown(figures: dict[str, Any], curve: list[dict[str, Any]], command: str) -> str:
    """A Markdown report: machine, sizes, the stage table and the cost curve."""
    f = figures.get
    lines = [f"Command: `{command}`", "",
             f"Machine: {f('cpu')}, {f('cores')} cores, {f('ram_gib')} GiB RAM, Python {f('python')}, {f('os')}; "
             f"disk {f('disk')}; load average at start {f('load_avg')}, at the end {_fmt(f('load_avg_end'))}; "
             f"whole bench {_fmt(f('bench_total_s'))} s.", ""]
    lines += ["| stage | wall s | CPU s | throughput | peak RSS, largest process (MB) | peak RSS, process tree (MB) | notes |",
              "|---|---:|---:|---:|---:|---:|---|"]

    def row(stage: str, key: str, unit: str, note: str) -> None:
        if f"{key}_s" in figures:
            thr = figures.get(f"{key}_{unit}s_per_s")
            lines.append(f"| {stage} | {_fmt(f(f'{key}_s'))} | {_fmt(f(f'{key}_cpu_s'))} | "
                         f"{'' if thr is None else f'{thr:,} {unit}s/s'} | "
                         f"{_fmt(f(f'{key}_rss_max_mb'))} | {_fmt(f(f'{key}_rss_tree_mb'))} | {note} |")

    j = f("jobs")
    for h, unit in (("agent", "event"), ("constraint", "turn")):
        if f"{h}_cold_j1_s" not in figures:
            continue
        lines.append(f"| **{h}**: {f(f'{h}_submissions')} submissions, {f(f'{h}_runs')} runs, "
                     f"{f(f'{h}_{unit}s'):,} {unit}s, {f(f'{h}_log_mb')} MB of logs | | | | | | generated in "
                     f"{f(f'{h}_generate_s')} s (not part of any verify time) |")
        lines.append(f"| baseline: `json.loads` per line, same bytes | {f(f'{h}_json_loads_s')} | "
                     f"{_fmt(f(f'{h}_json_loads_cpu_s'))} | | | | in the bench process |")
        row("verify, cold cache, `--jobs 1`", f"{h}_cold_j1", unit,
            f"ratio vs json.loads {f(f'{h}_cold_j1_ratio_vs_json_loads')} (by CPU time "
            f"{_fmt(f(f'{h}_cold_j1_ratio_vs_json_loads_cpu'))})")
        row(f"verify, cold cache, `--jobs {j}`", f"{h}_cold_j{j}", unit,
            f"speed-up {f(f'{h}_cold_j{j}_speedup_vs_j1')}× over 1 job")
        row("verify, warm cache (all hits)", f"{h}_warm_j1", unit,
            f"{f(f'{h}_warm_j1_hits')} hit(s); cache speed-up {f(f'{h}_warm_j1_cache_speedup')}×")
        row("verify, `--no-cache` (slow path)", f"{h}_nocache_j1", unit, f"{f(f'{h}_nocache_j1_vs_cold')}× the cold pass")
        row("verify, one submission changed (a PR)", f"{h}_one_changed", unit,
            f"{f(f'{h}_one_changed_hits')} hit(s), {f(f'{h}_one_changed_misses')} miss(es)")
        if h == "constraint" and "constraint_forced_z3_forced_s" in figures:
            lines.append(f"| witness/pinned shortcuts off, {f('constraint_forced_z3_submissions')} submission(s) | "
                         f"{f('constraint_forced_z3_forced_s')} | | {f('constraint_forced_z3_forced_turns_per_s'):,} turns/s | "
                         f"{_fmt(f('constraint_forced_z3_rss_max_mb'))} | | "
                         f"{f('constraint_forced_z3_slowdown')}× the fast path on "
                         f"the same subset ({f('constraint_forced_z3_fast_s')} s); extrapolated to the half: "
                         f"{f('constraint_forced_z3_extrapolated_half_s')} s at 1 job |")
    if "site_s" in figures:
        lines.append(f"| merge both halves' results | {f('merge_s')} | | | {f('merge_rss_max_mb')} | | "
                     f"{f('merge_results_mb')} MB of results |")
        lines.append(f"| site build (`build --no-verify`) | {f('site_s')} | | | {f('site_rss_max_mb')} | | "
                     f"{f('site_pages'):,} pages, {f('site_mb')} MB |")
    if not curve:  # `--storage-only`: no curve was measured
        return "\n".join(lines + markdown_rows(figures)) + "\n"
    lines += ["", f"Cost curve (`--no-cache`, `--jobs 1` and `--jobs {_fmt(j)}`; unit = event or turn; marginal = "
                  "between this size and the previous; tree = PSS of the verify process and its workers):",
              "", f"| half | submissions | units | wall s | µs per unit | marginal µs per unit | peak RSS (MB) | "
                  f"marginal MB per 1,000 units | wall s, `--jobs {_fmt(j)}` | speed-up | peak RSS, tree, "
                  f"`--jobs {_fmt(j)}` (MB) | flag |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in curve:
        lines.append(f"| {r['half']} | {r['submissions']} | {r['units']:,} | {r['s']} | {r['us_per_unit']} | "
                     f"{_fmt(r['marginal_us_per_unit'])} | {r['rss_max_mb']} | {_fmt(r['marginal_rss_mb_per_1k_units'])} | "
                     f"{_fmt(r.get('s_jobs'))} | {_fmt(r.get('speedup'))} | {_fmt(r.get('rss_tree_mb_jobs'))} | "
                     f"{r['flag']} |")
    lines += markdown_rows(figures)
    return "\n".join(lines) + "\n"


def run(workdir: Path | None, sizes: Sizes, json_out: Path | None = None, md_out: Path | None = None,
        storage_only: bool = False, halves: tuple[str, ...] = HALVES) -> int:
    """Generate (or reuse) both halves, run every stage, print the figures; returns 0.

    `storage_only`: generate the `halves` named (agent, constraint) and run their storage stage
    only (`driftboard_tools.bench.storage`).

    Raises:
        UsageError: bad sizes, or `--problems` is not a readable problem set.
        DriftboardError: a verify, merge or build child failed (its log is named).
    """
    sizes.check()
    if not sys.platform.startswith("linux"):
        raise UsageError("bench scale reads /proc: it runs on Linux only")
    if sizes.problems is not None and not Path(sizes.problems).is_dir():
        raise UsageError(f"{sizes.problems}: no such problem folder")
    command = shlex.join(["driftboard", *sys.argv[1:]]) if sys.argv[1:2] == ["bench"] else "driftboard bench scale"
    workdir = (workdir or Path(tempfile.gettempdir()) / "driftboard-bench-scale").resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    bench = Bench(workdir, sizes, json_out, md_out, command)
    bench.emit("", **machine(workdir))
    bench.emit("", jobs=sizes.jobs, workdir=workdir.as_posix())
    if storage_only:
        shutil.rmtree(bench.out, ignore_errors=True)
        for name in (h for h in HALVES if h in halves):
            half = _generate(bench, name)
            storage_stage(bench, half)
            shutil.rmtree(bench.out, ignore_errors=True)
        bench.emit("", bench_total_s=round(time.perf_counter() - started),
                   load_avg_end=",".join(f"{x:.2f}" for x in os.getloadavg()))
        return 0
    agent, constraint = _generate(bench, "agent"), _generate(bench, "constraint")
    shutil.rmtree(bench.out, ignore_errors=True)
    for half in (agent, constraint):
        bench.half_stages(half)
    bench.site([agent, constraint])
    peak = max(v for k, v in bench.figures.items() if k.endswith("rss_max_mb") and isinstance(v, int | float))
    bench.emit("", bench_process_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
               bench_total_s=round(time.perf_counter() - started), load_avg_end=",".join(f"{x:.2f}" for x in os.getloadavg()))
    f = bench.figures
    click.echo(f"agent_events_per_s={f['agent_cold_j1_events_per_s']} "
               f"constraint_turns_per_s={f['constraint_cold_j1_turns_per_s']} "
               f"agent_cache_speedup={f['agent_warm_j1_cache_speedup']} "
               f"constraint_cache_speedup={f['constraint_warm_j1_cache_speedup']} peak_rss_mb={peak}")
    return 0


def _generate(bench: Bench, name: str) -> Half:
    """Generate (or reuse) one half in the workdir and print what it holds."""
    if name == "agent":
        agent = generate_agent(bench.workdir / "agent", bench.sizes)
        bench.emit("agent", submissions=len(agent.submissions), runs=len(agent.log_files), events=agent.total,
                   log_mb=round(agent.bytes / 1e6, 1), generate_s=round(agent.generate_s, 1), reused=agent.reused)
        return agent
    constraint = generate_constraint(bench.workdir / "constraint", bench.sizes)
    bench.emit("constraint", submissions=len(constraint.submissions), runs=len(constraint.log_files),
               turns=constraint.total, log_mb=round(constraint.bytes / 1e6, 1),
               generate_s=round(constraint.generate_s, 1), base_logs_s=round(constraint.extra["base_s"], 1),
               problems=constraint.extra["set_problems"], set_turns=constraint.extra["set_turns"],
               reused=constraint.reused)
    return constraint


def sizes_from_options(quick: bool, **given: Any) -> Sizes:
    """Defaults (or the `--quick` sizes) overridden by every option the user gave."""
    base = QUICK if quick else Sizes()
    given = {k: (str(v) if isinstance(v, Path) else v) for k, v in given.items() if v is not None}
    return replace(base, **given)


__all__ = ["Bench", "curve_points", "markdown", "run", "sizes_from_options"]
