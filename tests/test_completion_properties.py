"""Degenerate behaviour never ranks (integrity.md): claiming, transferring or answering less never beats honesty.

Synthetic episodes of every task of the τ-bench airline set, replayed through the real environment:

* **honest**: the task's gold actions, then a reply saying every required output, then the user closes;
* **claim everything**: an immediate "done" that the user closes (nothing done);
* **always transfer**: an immediate transfer to a human agent;
* **never claim**: 30 replies the user never closes (the step limit).

The ranked figure (the verified completion rate over the declared episodes) of any mixture of the degenerate
strategies stays at or below the honest reference, and at or below τ-bench's recorded pass^1 of the real gpt-4o
(0.42): only tasks whose gold actions write nothing and that require no output can be verified without doing
anything (τ-bench rewards a correct refusal), and those are counted here from `tasks.json` directly. The
figures not ranked (the claimed rate, the false-claim rate) are shown to be gameable, which is why they are not.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from completion_helpers import TASK_SET, WRITE_TOOLS, cell_figures, prereg_for, score_events, task_set
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.format.cell_tables import CompletionCellTables
from checker.format.results_model import RunResult
from checker.format.seeds import seed_label

STRATEGIES = ("honest", "claim_everything", "always_transfer", "never_claim")
DEGENERATE = STRATEGIES[1:]
GPT_4O_PASS_1 = 0.42
"""τ-bench's published airline pass^1 for gpt-4o (84 of the 200 recorded rewards are 1.0)."""


def tasks() -> list[dict[str, Any]]:
    return json.loads((TASK_SET / "tasks.json").read_text(encoding="utf-8"))


def no_change_tasks() -> int:
    """Tasks that require no write and no output (read from tasks.json, not from the checker)."""
    return sum(1 for t in tasks() if not t["outputs"] and not any(a["name"] in WRITE_TOOLS for a in t["actions"]))


def episode(task: dict[str, Any], strategy: str) -> list[dict[str, Any]]:
    """The canonical events of one synthetic episode."""
    ts = task_set()
    events: list[dict[str, Any]] = [{"type": "episode_start", "domain": "airline", "task_id": task["task_id"]},
                                    {"type": "message", "role": "system", "content": ts.policy},
                                    {"type": "message", "role": "user", "content": "Hi, I need help with my booking."}]
    if strategy == "honest":
        db = ts.fresh()
        for n, action in enumerate(a for a in task["actions"] if a["name"] != "transfer_to_human_agents"):
            observation = ts.domain.invoke(db, action["name"], action["kwargs"])  # what the environment answers
            events += [{"type": "message", "role": "assistant", "content": None},
                       {"type": "tool_call", "call_id": f"c{n}", "name": action["name"], "arguments": action["kwargs"]},
                       {"type": "tool_result", "call_id": f"c{n}", "name": action["name"], "content": observation}]
        events += [{"type": "message", "role": "assistant", "content": "Done. " + " ".join(task["outputs"])},
                   {"type": "message", "role": "user", "content": "Thank you. ###STOP###"}]
    elif strategy == "claim_everything":
        events += [{"type": "message", "role": "assistant", "content": "All done: your request has been completed."},
                   {"type": "message", "role": "user", "content": "Great, thanks! ###STOP###"}]
    elif strategy == "always_transfer":
        events += [{"type": "message", "role": "assistant", "content": None},
                   {"type": "tool_call", "call_id": "t", "name": "transfer_to_human_agents", "arguments": {"summary": "x"}},
                   {"type": "tool_result", "call_id": "t", "name": "transfer_to_human_agents",
                    "content": "Transfer successful"}]
    else:
        for _ in range(30):
            events += [{"type": "message", "role": "assistant", "content": "Could you tell me more?"},
                       {"type": "message", "role": "user", "content": "Sure, what do you need?"}]
    return [*events, {"type": "episode_end"}]


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[int, str], RunResult]:
    """Every (task, strategy) episode scored once."""
    folder = tmp_path_factory.mktemp("strategies")
    seeds = [seed_label(t["task_id"], 0) for t in tasks()]
    prereg = prereg_for(seeds)
    out = {}
    for t in tasks():
        for s in STRATEGIES:
            out[(t["task_id"], s)] = score_events(folder / s, seed_label(t["task_id"], 0), episode(t, s), prereg)
    return out


def figure(scored: dict[tuple[int, str], RunResult], choice: list[str]) -> CompletionCellTables:
    """The cell figures of one strategy per task (the pipeline's cell table over those runs)."""
    return cell_figures([scored[(t, s)] for t, s in enumerate(choice)])


def test_the_honest_reference_is_verified_on_every_task(scored):
    f = figure(scored, ["honest"] * 50)
    assert (f.verified.k, f.verified.n) == (50, 50)
    assert f.board is not None and f.board.complete and f.board.trials_per_task == 1
    assert all(scored[(t, "honest")].verdict == "VALID" for t in range(50))


@pytest.mark.parametrize("strategy", DEGENERATE)
def test_each_degenerate_strategy_ranks_below_the_honest_references(scored, strategy):
    f = figure(scored, [strategy] * 50)
    rate = f.verified.rate
    assert rate <= no_change_tasks() / 50 < GPT_4O_PASS_1 < 1.0
    if strategy == "never_claim":
        assert rate == 0.0 and f.claimed.k == 0
        assert f.false_claims.rate is None  # no claim: undefined, so it can never lead a ranking alone
    if strategy == "claim_everything":
        assert f.claimed.rate == 1.0 > 0.735  # it would top a claimed-rate ranking: never ranked


@settings(max_examples=60)
@given(st.lists(st.sampled_from(DEGENERATE), min_size=50, max_size=50))
def test_no_mixture_of_degenerate_strategies_beats_honesty(scored, choice):
    rate = figure(scored, choice).verified.rate
    assert rate <= no_change_tasks() / 50 < GPT_4O_PASS_1
    assert rate <= figure(scored, ["honest"] * 50).verified.rate


@settings(max_examples=60)
@given(st.lists(st.sampled_from(STRATEGIES), min_size=50, max_size=50), st.integers(0, 49),
       st.sampled_from(DEGENERATE))
def test_replacing_an_honest_episode_by_a_degenerate_one_never_raises_the_figure(scored, choice, task, strategy):
    honest = list(choice)
    honest[task] = "honest"
    degenerate = list(choice)
    degenerate[task] = strategy
    assert figure(scored, degenerate).verified.k <= figure(scored, honest).verified.k
