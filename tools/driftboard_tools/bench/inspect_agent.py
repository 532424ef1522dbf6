"""`driftboard bench inspect-agent`: the cost of `driftboard/agent` with the scripted model, per beat and per game.

Three figures per condition, on one game for `horizon` actions (the scripted model `follow`):

* **harness**: the episode played in-process with the scripted model called directly (no
  Inspect): CPU per beat of the harness alone (the model's own replies timed and subtracted),
  and the model calls and tokens of the game;
* **inspect**: `inspect eval driftboard/agent` through Inspect's Python API in this process
  (after a warm-up eval): CPU per beat of the whole eval (Inspect's machinery, the harness, the scripted model, the
  log writer), and the log's size per 1,000 beats in both formats (`.eval`, zip-compressed, and
  `.json`);
* **import**: `driftboard import inspect` of those logs: CPU per beat of the replay.

Needs the `inspect` extra. The figures are for the machine they ran on; it prints its load.
"""

from __future__ import annotations

import gc
import io
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any

from checker.harness.baselines.common import run_sync
from checker.harness.inspect_task.agent_harness import Episode, Reply
from checker.harness.inspect_task.agent_protocol import CONDITIONS, Messages
from checker.harness.inspect_task.scripted import reply, usage


@contextmanager
def _cpu() -> Iterator[list[float]]:
    """CPU seconds (all threads of this process) spent in the block, in `out[0]`."""
    out = [0.0]
    t0 = time.process_time()
    yield out
    out[0] = time.process_time() - t0


def harness_only(condition: str, game: str, horizon: int) -> dict[str, Any]:
    """CPU per beat of the harness with the scripted model called directly; the game's calls and tokens."""
    model_s = [0.0]
    calls = {"n": 0, "in": 0, "out": 0}

    async def call(organ: str, messages: Messages) -> Reply:
        t0 = time.process_time()
        text = reply("follow", messages)
        tokens_in, tokens_out = usage(messages, text)
        model_s[0] += time.process_time() - t0
        calls["n"] += 1
        calls["in"] += tokens_in
        calls["out"] += tokens_out
        return Reply(text, tokens_in, tokens_out)

    events: list[dict[str, object]] = []
    with _cpu() as cpu:
        run_sync(Episode(condition, game, 1, horizon, "bench", events.append, call).run())
    return {"harness_ms_per_beat": 1000 * (cpu[0] - model_s[0]) / horizon, "model_ms_per_beat": 1000 * model_s[0] / horizon,
            "calls": calls["n"], "tokens_in": calls["in"], "tokens_out": calls["out"], "events": len(events)}


def through_inspect(workdir: Path, game: str, horizon: int) -> dict[str, dict[str, Any]]:
    """Per condition: CPU per beat of the eval, log sizes per 1,000 beats, CPU per beat of the import."""
    from inspect_ai import eval as inspect_eval

    import driftboard._registry
    from checker.importers.inspect import import_logs

    # warm-up: the first eval of a process pays Inspect's imports and registry loading
    inspect_eval(driftboard._registry.agent(condition="FULL", games=game, horizon=2), model="driftboard/scripted",
                 log_dir=str(workdir / "warm-up"), display="none", log_realtime=False)
    out: dict[str, dict[str, Any]] = {}
    for condition in CONDITIONS:
        row: dict[str, Any] = {}
        for fmt in ("eval", "json"):
            logs = workdir / f"{condition.lower()}-{fmt}"
            task = driftboard._registry.agent(condition=condition, games=game, horizon=horizon)
            gc.collect()
            with _cpu() as cpu:
                (result,) = inspect_eval(task, model="driftboard/scripted", log_dir=str(logs), display="none",
                                         log_realtime=False, log_format=fmt)
            log = Path(result.location)
            row[f"{fmt}_kb_per_1000_beats"] = log.stat().st_size / 1024 * 1000 / horizon
            if fmt == "eval":
                row["inspect_ms_per_beat"] = 1000 * cpu[0] / horizon
                with _cpu() as cpu, redirect_stdout(io.StringIO()):
                    import_logs([log], None, workdir / f"import-{condition.lower()}")
                row["import_ms_per_beat"] = 1000 * cpu[0] / horizon
        out[condition] = row
    return out


def run(workdir: Path | None, game: str, horizon: int) -> int:
    """Print the figures; returns 0."""
    import tempfile

    print(f"driftboard/agent, scripted model `follow`, game {game}, {horizon} actions; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'condition':9} {'harness ms/beat':>15} {'model calls':>11} {'tokens in/out':>15} "
          f"{'inspect ms/beat':>15} {'.eval KB/1k beats':>17} {'.json KB/1k beats':>17} {'import ms/beat':>14}")
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        rows = through_inspect(Path(tmp), game, horizon)
        for condition, row in rows.items():
            h = harness_only(condition, game, horizon)
            print(f"{condition:9} {h['harness_ms_per_beat']:15.2f} {h['calls']:11d} "
                  f"{h['tokens_in']:>7,}/{h['tokens_out']:<7,} {row['inspect_ms_per_beat']:15.1f} "
                  f"{row['eval_kb_per_1000_beats']:17.0f} {row['json_kb_per_1000_beats']:17.0f} "
                  f"{row['import_ms_per_beat']:14.1f}")
    return 0


__all__ = ["harness_only", "run", "through_inspect"]
