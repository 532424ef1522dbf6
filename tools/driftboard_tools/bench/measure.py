"""Measuring a child process and describing the machine, for the benchmarks that run commands.

`measure(cmd, cwd, log)` runs a command with its output to a log file and returns a `Measured`:
wall time, CPU time (user + system, of the process and the workers it reaped: `os.wait4`), and
peak memory two ways: `rss_max_mb`, the largest resident set of any single process of the tree
(exact; on Linux a child started by `subprocess` starts from its parent's peak resident set, so keep
the measuring process small: build large inputs in another child first), and `rss_tree_mb`, the
largest *sum* of proportional set sizes (PSS) over the process
and its descendants, sampled from /proc every `SAMPLE_S` seconds (Linux only). `machine` says
what the figures were measured on. Used by `bench scale` and `bench site`.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from checker import __version__

SAMPLE_S = 0.05
"""Seconds between two samples of the process tree's PSS."""


def machine(workdir: Path) -> dict[str, Any]:
    """CPU model, cores, RAM, Python, OS, the workdir's disk, and the load when the bench started."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    usage = shutil.disk_usage(workdir)
    return {
        "cpu": cpu, "cores": os.cpu_count(), "ram_gib": ram,
        "python": platform.python_version(), "os": f"{platform.system()} {platform.release()}",
        "disk": f"{_mount_of(workdir)}, {usage.total / 1e9:.0f} GB, {usage.free / 1e9:.0f} GB free",
        "load_avg": ",".join(f"{x:.2f}" for x in os.getloadavg()),
        "checker_version": __version__,
    }


def _mount_of(path: Path) -> str:
    """`device fstype` of the mount holding `path` (from /proc/mounts), or "unknown"."""
    best, found = "", "unknown"
    target = str(path.resolve())
    try:
        for line in Path("/proc/mounts").read_text().splitlines():
            dev, mnt, fstype = line.split()[:3]
            if (target == mnt or target.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                best, found = mnt, f"{dev} ({fstype}) at {mnt}"
    except (OSError, ValueError):
        pass
    return found


@dataclass
class Measured:
    """One child-process measurement."""

    wall_s: float
    rss_max_mb: float
    """Largest resident set of any single process of the tree (`wait4`, exact)."""
    rss_tree_mb: float
    """Largest sum of PSS over the process and its descendants (sampled every `SAMPLE_S`)."""
    code: int
    hits: int | None = None
    misses: int | None = None
    cpu_s: float | None = None
    """User + system CPU time of the process and the workers it reaped (`wait4`): on a shared
    machine the figure that other jobs' load does not inflate."""


class _TreeSampler(threading.Thread):
    """Samples the summed PSS of a process and its descendants from /proc (`smaps_rollup`).

    PSS (proportional set size) splits each shared page between the processes sharing it, so
    copy-on-write pages of forked workers (and of a process forking a short-lived `git`) are
    counted once, not once per process as a sum of RSS would.
    """

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0
        self.halt = threading.Event()

    def _tree(self) -> Iterator[int]:
        todo = [self.pid]
        while todo:
            pid = todo.pop()
            yield pid
            try:
                for task in os.listdir(f"/proc/{pid}/task"):
                    todo += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
            except OSError:
                continue

    def run(self) -> None:
        """Sample until halted."""
        while not self.halt.is_set():
            total = 0
            for pid in self._tree():
                try:
                    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                        if line.startswith("Pss:"):
                            total += int(line.split()[1]) * 1024
                            break
                except (OSError, IndexError, ValueError):
                    continue
            self.peak = max(self.peak, total)
            self.halt.wait(SAMPLE_S)


def measure(cmd: list[str], cwd: Path, log: Path, env: dict[str, str] | None = None) -> Measured:
    """Run `cmd` with stdout+stderr to `log`; wall time, peak RSS (both ways), exit code."""
    with log.open("wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
        sampler = _TreeSampler(proc.pid)
        sampler.start()
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        sampler.halt.set()
        sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024
    m = Measured(wall, usage.ru_maxrss / scale, sampler.peak / 2**20, proc.returncode,
                 cpu_s=usage.ru_utime + usage.ru_stime)
    text = tail(log)
    found = re.search(r"cache (\d+) hit\(s\), (\d+) miss\(es\)", text)
    if found:
        m.hits, m.misses = int(found[1]), int(found[2])
    return m


def tail(path: Path, size: int = 4096) -> str:
    """The last `size` bytes of a log file, as text (for an error message that quotes it)."""
    with path.open("rb") as fh:
        fh.seek(max(0, path.stat().st_size - size))
        return fh.read().decode("utf-8", "replace")
