"""Completion-track scorer: replay one episode, recompute its reward, and read its claim.

A run is one episode of one task (`episode_start.task_id`) of the task set its header names
(`run_start.problem_set`, by digest). The seed label names the episode: `task<id>-trial<n>` (the
task id zero-padded to three digits, e.g. `task007-trial2`), and must name the task the episode logs.

Facts (`checker.stages.verdict`): INVALID when the log's structure is not one episode
(`checker.completion.episode`), the system prompt is not the task set's policy, the task or domain
is not the set's, the seed label names another task, a logged tool result differs from the
recomputed one, the dialogue goes on after the episode ended, or the task set is not the one the
pre-registration names; INCOMPLETE when the log stops before the episode ends (or has no `run_end`,
or ended ABORTED/FAILED). What the harness recorded about the episode (`episode_end`: its reward,
gold data hash, outputs check, what ended it) is never read to score: each disagreement with the
recomputation is listed as a mismatch and reported as a warning.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from checker.completion.claims import closing_claim, database_evidence, false_claim_kind, write_accounting
from checker.completion.episode import Episode, read_episode
from checker.completion.metrics import cell_table, run_metrics, run_rates
from checker.completion.replay import Replayed, replay
from checker.completion.statements import MAX_STATEMENTS, stated_completions
from checker.completion.tasks import TaskSet
from checker.format.cell_tables import CompletionCellTables
from checker.format.errors import MissingInputError
from checker.format.results_completion import BoardKey, EpisodeResult
from checker.format.results_model import FactKind, RunResult
from checker.format.results_model import VerdictFact as Fact
from checker.format.schema.manifest import Prereg
from checker.format.seeds import parse_seed
from checker.stages.tracks import RunRecord, VerifyContext, incomplete_reason
from checker.stages.verdict import judged_run

MAX_PROBLEMS = 20
"""Structural problems listed per run (the rest counted in one more reason)."""
MAX_SHOWN = 300
"""Characters of a logged or recomputed tool result shown in a mismatch."""
SOURCES = {"closed_as_done": "user", "transfer": "transfer_to_human_agents"}
"""The `episode_end.source` τ-bench records for an ending (a step-limit episode records its last tool or `user`)."""


@dataclass(frozen=True)
class Condition:
    """A condition every completion run must meet to count: its name, what it checks, and the fact a failure records."""

    name: str
    kind: FactKind
    """`invalid` (the run is not one faithful episode of the set) or `incomplete` (it did not finish)."""
    checks: str


CONDITIONS: tuple[Condition, ...] = (
    Condition("task_set", "invalid", "the run names a task set by digest, the one the pre-registration names"),
    Condition("structure", "invalid", "the log is one episode in order: episode_start, the system prompt, the user's "
                                      "first message, then assistant turns each answered by its tool_result or by a user "
                                      "message; no event of another track, nothing after episode_end"),
    Condition("policy", "invalid", "the system prompt is the task set's policy, byte for byte"),
    Condition("task", "invalid", "the domain and the task are the set's, and the seed label names the episode's task"),
    Condition("tool_results", "invalid", "every logged tool result equals the environment's answer to the call replayed "
                                         "on the task's database"),
    Condition("recorded_outcome", "invalid", "what the log records about the episode's outcome (episode_end: reward, "
                                             "outputs check, gold data hash, ending) is there and equals the "
                                             "recomputation: a recorded outcome the log's own dialogue does not "
                                             "produce means the dialogue or the record was edited"),
    Condition("ends_once", "invalid", "the dialogue stops at the episode's end (closing reply, transfer, step limit)"),
    Condition("finished", "incomplete", "the episode reaches its end, and the log its run_end (COMPLETED)"),
)
"""The completion track's validity conditions, declared once: the scorer records a failure only through them
(`fact`), and the track definition lists them."""
_CONDITIONS = {c.name: c for c in CONDITIONS}


def fact(condition: str, reason: str) -> Fact:
    """The verdict fact of a failed condition (its declared kind), with the reason a reader sees."""
    return Fact(_CONDITIONS[condition].kind, reason)


def board_key(task_set: TaskSet, prereg: Prereg | None, cell: str) -> BoardKey:
    """The board a cell belongs on: the task set, and how the pre-registration declares the cell's episodes."""
    spec = prereg.cells.get(cell) if prereg is not None else None
    seeds = tuple(s for s in spec.seeds if s not in spec.withdrawn) if spec is not None else None
    key = (task_set.digest, seeds)
    found = _BOARDS.get(key)
    if found is None:
        found = _BOARDS[key] = _board_key(task_set, seeds)
        while len(_BOARDS) > 64:  # one per cell being verified: a few
            _BOARDS.pop(next(iter(_BOARDS)))
    return found


_BOARDS: dict[tuple[str, tuple[str, ...] | None], BoardKey] = {}
"""(task-set digest, declared seeds) -> board key: every run of a cell reads the same declaration."""


def _board_key(task_set: TaskSet, declared: tuple[str, ...] | None) -> BoardKey:
    spec = declared
    seeds = list(declared or ())
    per_task: Counter[int] = Counter()
    bad = []
    for s in seeds:
        parsed = parse_seed(s)
        if parsed is None or parsed[0] not in task_set.tasks:
            bad.append(s)
        else:
            per_task[parsed[0]] += 1
    counts = set(per_task.values())
    why = None
    if spec is None:
        why = "no pre-registration declares the cell"
    elif bad:
        why = (f"{len(bad)} declared seed(s) do not name a task of the set as task<id>-trial<n> "
               f"(first: {bad[0]!r})")
    elif set(per_task) != set(task_set.tasks):
        why = f"the cell declares {len(per_task)} of the set's {len(task_set.tasks)} tasks"
    elif len(counts) != 1:
        why = "the cell declares the tasks different numbers of times"
    trials = next(iter(counts)) if why is None else None
    return BoardKey(benchmark=task_set.benchmark, domain=task_set.domain.name, task_set=task_set.name,
                    task_set_digest=task_set.digest, tasks=len(task_set.tasks), trials_per_task=trials,
                    episodes_declared=len(seeds), complete=why is None, why=why)


def _cut(text: str | None) -> str | None:
    if text is None:
        return None
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + f"… ({len(text)} characters)"


def _structure_facts(run: RunRecord, ep: Episode, task_set: TaskSet) -> list[Fact]:
    facts = [fact("structure", f"{run.path}:{line}: {what}") for line, what in ep.problems[:MAX_PROBLEMS]]
    if len(ep.problems) > MAX_PROBLEMS:
        facts.append(fact("structure", f"{run.path}: {len(ep.problems) - MAX_PROBLEMS} more structural problem(s) "
                                       "not listed"))
    if ep.start is not None and ep.start.domain != task_set.domain.name:
        facts.append(fact("task", f"{run.path}:{ep.start_line}: episode of domain {ep.start.domain!r}, the task set "
                                     f"{task_set.name!r} is {task_set.domain.name!r}"))
    if ep.start is not None and ep.system != task_set.policy:
        where = ep.system_line or ep.start_line
        what = "logs no system prompt" if ep.system is None else "logs a system prompt that is not the task set's policy"
        facts.append(fact("policy", f"{run.path}:{where}: the episode {what}: the agent must be given the policy "
                                     "the task set defines (its tasks are judged by it)"))
    return facts


def _recorded(run: RunRecord, ep: Episode, done: Replayed) -> tuple[list[dict[str, Any]], list[Fact]]:
    """Mismatches between what `episode_end` records and the recomputation, and the fact each one records.

    The record is never read to score; it is checked: an outcome the dialogue does not produce means one of
    the two was edited (a write call removed with its result leaves a consistent dialogue whose database
    may now be the gold one, and a record that still says reward 0). A field the log does not record is
    not checked: whoever can delete a record can rewrite it, so demanding one would add no defence; what
    does is `checker.completion.statements`.
    """
    end = ep.end
    if end is None:
        return [], []
    line = ep.end_line
    out: list[dict[str, Any]] = []

    def add(field: str, recorded: Any, recomputed: Any, reason: str) -> None:
        out.append({"line": line, "field": field, "recorded": recorded, "recomputed": recomputed, "reason": reason})

    if end.reward is not None and end.reward != done.reward:
        add("reward", end.reward, done.reward,
            "the reward recomputed from the database (and required outputs) differs from the recorded one")
    gold_hash = done.gold.data_hash if done.gold is not None else None
    if end.data_hash is not None and gold_hash is not None and end.data_hash != gold_hash:
        add("data_hash", end.data_hash, gold_hash, "the data hash of the task's gold database differs from the recorded one")
    if end.outputs is not None and done.reward_computed and end.outputs != done.outputs:
        add("outputs", end.outputs, done.outputs,
            "the required-outputs check recomputed from the replies differs from the recorded one")
    expected = SOURCES.get(done.ending)
    if end.source is not None and expected is not None and end.source != expected:
        add("source", end.source, expected, f"the log's structure ends the episode as {done.ending}")
    facts = [fact("recorded_outcome", f"{run.path}:{m['line']}: recorded {m['field']} {m['recorded']!r} differs from "
                                      f"the recomputed {m['recomputed']!r}: {m['reason']}") for m in out]
    return out, facts


def score_run(run: RunRecord, ctx: VerifyContext) -> RunResult:
    """Replay and judge one completion episode.

    Raises:
        MissingInputError: the run names a task set that no `--problems` folder provides.
    """
    start = run.start
    native = start.source.native_run_id if start.source is not None else None
    result: dict[str, Any] = {
        "end_status": run.end.status if run.end is not None else None,
        "path": run.path, "log_sha256": run.sha256, "prereg_sha256": start.prereg_sha256, "comparator": start.comparator,
        "run_id": start.run_id, "native_run_id": native, "track": "completion", "cell": start.cell, "seed": start.seed,
        "method": start.method, "backbone": start.backbone, "metrics": {}, "mismatches": [],
        "problem_set": start.problem_set.model_dump() if start.problem_set else None,
    }
    facts: list[Fact] = []
    if (why := incomplete_reason(run)) is not None:
        facts.append(fact("finished", why))
    if start.problem_set is None:
        facts.append(fact("task_set", "run_start names no problem_set (the task set): the episode cannot be recomputed"))
        return judged_run(facts, **result)
    digest = start.problem_set.digest
    task_sets: Mapping[str, TaskSet] = ctx.task_sets
    task_set = task_sets.get(digest)
    if task_set is None:
        raise MissingInputError(f"run {start.run_id!r} uses task set {start.problem_set.name!r} (digest {digest}); no "
                                "--problems folder provides it (a completion task set is a folder with taskset.json)")
    if ctx.prereg is not None and ctx.prereg.problem_set is not None and ctx.prereg.problem_set != digest:
        facts.append(fact("task_set", f"run uses task set {digest[:12]}…, the pre-registration names "
                                     f"{ctx.prereg.problem_set[:12]}…"))
    ep = read_episode(run.events, run.lines)
    facts.extend(_structure_facts(run, ep, task_set))
    task = task_set.tasks.get(ep.start.task_id) if ep.start is not None else None
    if ep.start is not None and task is None:
        facts.append(fact("task", f"{run.path}:{ep.start_line}: task {ep.start.task_id} is not in the task set "
                                     f"{task_set.name!r} ({len(task_set.tasks)} tasks)"))
    parsed = parse_seed(start.seed)
    if parsed is None:
        facts.append(fact("task", f"seed label {start.seed!r} does not name an episode as task<id>-trial<n> "
                                     "(e.g. task007-trial2)"))
    elif ep.start is not None and parsed[0] != ep.start.task_id:
        facts.append(fact("task", f"seed label {start.seed!r} names task {parsed[0]}, the episode is of task "
                                     f"{ep.start.task_id}: a seed reports its own task's episode"))
    if task is None:
        return judged_run(facts, **result)
    done = replay(task_set, task, ep)
    for call in done.mismatched:
        facts.append(fact("tool_results", f"{run.path}:{call.line}: the logged result of {call.name} differs from what the "
                                     "environment returns when the call is replayed on the task's database"))
        result["mismatches"].append({"line": call.line, "field": "tool_result", "recorded": _cut(call.logged),
                                     "recomputed": _cut(call.observation),
                                     "reason": f"replaying {call.name} with the logged arguments gives another observation"})
    if done.past_end is not None:
        facts.append(fact("ends_once", f"{run.path}:{done.past_end}: the dialogue goes on after the episode ended "
                                     f"({done.ending.replace('_', ' ')})"))
    if done.ending == "unfinished":
        facts.append(fact("finished", f"{run.path}: the log stops before the episode ends (no closing user reply, "
                                        "transfer or step limit)"))
    recorded, recorded_facts = _recorded(run, ep, done)
    result["mismatches"].extend(recorded)
    facts.extend(recorded_facts)
    stated = stated_completions(ep, done)
    gold = done.gold or task_set.gold(task.task_id)
    changed, required, wrong, cut = database_evidence(task_set.fresh(), done.db, gold.db)
    claimed = done.ending == "closed_as_done"
    closing = ep.steps[done.ending_step] if claimed and done.ending_step is not None else None
    spec = ctx.prereg.cells.get(start.cell) if ctx.prereg is not None else None
    episode = EpisodeResult(
        task_id=task.task_id, trial=start.seed, ending=done.ending, claimed=claimed,
        transferred=done.ending == "transfer", ran_out=done.ending == "step_limit",
        verified=done.reward == 1.0 and all(x.backed for x in stated),
        reward=done.reward, reward_computed=done.reward_computed, database_matches=done.database_matches,
        outputs=done.outputs, data_hash=done.data_hash, gold_data_hash=gold.data_hash,
        false_claim=false_claim_kind(claimed, done, unbacked=not all(x.backed for x in stated)),
        closing_claim=closing_claim(closing.content if closing is not None else None),
        closing_line=closing.line if closing is not None else None,
        steps=(done.ending_step + 1) if done.ending_step is not None else len(ep.steps), tool_calls=len(done.calls),
        write_calls=write_accounting(task_set, done.calls, gold.writes), changed=changed, required=required,
        wrong=wrong, changes_cut=cut, stated=stated[:MAX_STATEMENTS], tool_result_mismatches=len(done.mismatched),
        declared=spec is not None and start.seed in spec.seeds and start.seed not in spec.withdrawn,
        board=board_key(task_set, ctx.prereg, start.cell),
    )
    result["episode"] = episode
    result["metrics"] = run_metrics(episode)
    result["rates"] = run_rates(result["metrics"])
    return judged_run(facts, **result)


def cell_tables(run_results: list[RunResult]) -> dict[str, CompletionCellTables]:
    """Per cell: the completion figures over its declared episodes (`checker.completion.metrics.cell_table`)."""
    cells: dict[str, list[RunResult]] = {}
    for r in run_results:
        if r.track == "completion" and r.cell is not None:
            cells.setdefault(r.cell, []).append(r)
    return {cell: cell_table(cell, runs) for cell, runs in sorted(cells.items())}


def release() -> None:
    """Drop the board keys kept for one submission's cells (`TrackScorer.release`: verify calls it when it is done).

    The task sets stay loaded: like the problem sets, they belong to the verify call (`checker.completion.tasks`).
    """
    _BOARDS.clear()
