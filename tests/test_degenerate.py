"""Issue 29, principle 4: degenerate behaviour never ranks.

A property over the metric registry: every metric declared `ranked` has generators of degenerate but
well-formed behaviours of its track (`degenerate_generators.FORGERIES`); each is applied to the honest,
shipped runs of the same cells, and no forged unit (problem or seed) may score better on the ranked
metric than the honest one. A ranked metric declared without generators fails here. The named attacks
of the issue are rebuilt below with hand-counted figures.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from degenerate_generators import FORGERIES, REQUIRED, Events, Forgery, honest_answer
from test_rules_integrity import events, write_log

from checker.pipeline.metrics import get, ranked
from checker.pipeline.verify import default_problem_dirs, verify_paths

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "submissions"
LITE = "driftboard-reference-lite"


def _verify(folder: Path, out: Path) -> dict[str, Any]:
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        report = verify_paths([folder], problem_dirs=default_problem_dirs(), results_dir=out)
    assert report.exit_code in (0, 1), [f.render() for f in report.unreadable]
    return dict(json.loads((out / f"{folder.name}.json").read_text()))


def _by_problem(evs: Events) -> list[tuple[str | None, Events]]:
    """The run's events cut at each problem_start (the head before the first one under None)."""
    parts: list[tuple[str | None, Events]] = [(None, [])]
    for e in evs:
        if e["type"] == "problem_start":
            parts.append((e["problem_id"], []))
        parts[-1][1].append(e)
    return parts


def _forge(forgery: Forgery, dest: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the submission with the generators applied round-robin; unit -> generator name."""
    folder = dest / forgery.submission
    shutil.copytree(SHIPPED / forgery.submission, folder)
    names = sorted(forgery.generators)
    used: dict[str, str] = {}
    k = 0
    for log in sorted((folder / "runs").glob("*.jsonl")):
        evs = events(log)
        if evs[0].get("comparator"):
            continue
        if forgery.unit == "problem":
            out: Events = []
            for pid, part in _by_problem(evs):
                if pid is not None:
                    name = names[k % len(names)]
                    part = forgery.generators[name](part)
                    used[f"{evs[0]['cell']}|{pid}"] = name
                    k += 1
                out += part
        else:
            name = names[k % len(names)]
            out = forgery.generators[name](evs)
            used[f"{evs[0]['cell']}|{evs[0]['seed']}"] = name
            k += 1
        write_log(log, out)
    return folder, used


def _units(doc: dict[str, Any], metric: str, unit: str) -> dict[str, float | None]:
    """`cell|problem` -> credited turns (constraint), or `cell|seed` -> the seed's all-declared value."""
    decl = get(metric)
    assert decl is not None
    out: dict[str, float | None] = {}
    if unit == "problem":
        for run in doc["runs"]:
            for t in run["turns"] or []:
                credit = (t["parse"] and t["complete"] and t["correct"]) if decl.turn_credit == "solved" \
                    else t[decl.turn_credit or "correct"]
                key = f"{run['cell']}|{t['problem_id']}"
                out[key] = (out.get(key) or 0.0) + float(credit) * (run["verdict"] == "VALID")
        return out
    for cell in doc["cells"]:
        ad = cell["all_declared"].get(metric)
        for seed, value in (ad["values"] if ad else {}).items():
            out[f"{cell['cell']}|{seed}"] = value
    return out


def _not_better(metric: str, forged: float | None, honest: float | None) -> bool:
    decl = get(metric)
    assert decl is not None and decl.worst is not None
    if forged is None:  # an undefined unit drops out of a mean: only as good as an undefined honest one
        return honest is None
    if honest is None:
        return forged == decl.worst
    return forged <= honest if decl.higher_is_better else forged >= honest


RANKED = [m.name for m in ranked()]


def test_every_ranked_metric_has_its_tracks_generators():
    assert sorted(RANKED) == ["complete_accuracy", "drift_total", "verified"]  # one per track
    for m in ranked():
        assert m.name in FORGERIES, f"ranked metric {m.name} has no degenerate-behaviour generator"
        assert REQUIRED[m.track] <= set(FORGERIES[m.name].generators), m.name
        assert m.degenerate_worst and m.worst is not None and m.higher_is_better is not None


def test_every_ranked_metric_says_on_its_track_page_why_degenerate_behaviour_is_worst():
    for m in ranked():
        page = (REPO / "site" / "tracks" / f"{m.track}.md").read_text(encoding="utf-8")
        assert f"`{m.name}`: {m.degenerate_worst}" in " ".join(page.split()), m.name


@pytest.mark.slow
@pytest.mark.parametrize("metric", RANKED)
def test_degenerate_behaviour_never_scores_above_the_honest_run(metric, tmp_path, shipped_results):
    forgery = FORGERIES.get(metric)
    if forgery is None:
        pytest.fail(f"ranked metric {metric} is declared without degenerate-behaviour generators")
    folder, used = _forge(forgery, tmp_path / "forged")
    assert set(used.values()) == set(forgery.generators)  # every generator was applied to some unit
    forged_doc = _verify(folder, tmp_path / "results")
    honest_doc = json.loads((shipped_results / f"{forgery.submission}.json").read_text())
    forged, honest = _units(forged_doc, metric, forgery.unit), _units(honest_doc, metric, forgery.unit)
    assert set(used) <= set(honest)
    better = {k: (used[k], honest.get(k), forged.get(k)) for k in used if not _not_better(metric, forged.get(k), honest.get(k))}
    assert better == {}, f"{metric}: degenerate units score above the honest run: {better}"
    for cell in honest_doc["cells"]:  # and so the ranked figure of no cell moves up
        if cell["comparator"]:
            continue
        h = cell["all_declared"][metric]["value"]
        f = next(c for c in forged_doc["cells"] if c["cell"] == cell["cell"])["all_declared"][metric]["value"]
        assert _not_better(metric, f, h), (cell["cell"], h, f)


# --------------------------------------------------------------------------- the named attacks (constraint)


def _lite_turns(name: str) -> Events:
    return events(SHIPPED / LITE / "runs" / f"{name}-0.jsonl")


def _board_rows(out: Path) -> dict[str, dict[str, Any]]:
    boards = json.loads((out / "boards.json").read_text())["boards"]
    board = next(b for b in boards if b["id"].startswith("constraint:c97c5fc3c39e"))
    assert board["metric"] == "complete_accuracy"
    return {r["result_id"].split("/", 1)[1]: r for r in board["rows"]}


def _attack(tmp_path: Path, transform) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    folder = tmp_path / LITE
    shutil.copytree(SHIPPED / LITE, folder)
    log = folder / "runs" / "lossy-ledger-0.jsonl"
    write_log(log, transform(events(log)))
    doc = _verify(folder, tmp_path / "results")
    run = next(r for r in doc["runs"] if r["cell"] == "scripted/lossy-ledger")
    return run, _board_rows(tmp_path / "results")


def test_one_variable_per_turn_is_credited_by_the_reference_code_but_never_ranks(tmp_path):
    evs = _lite_turns("lossy-ledger")
    turns = [e for e in evs if e["type"] == "turn"]
    honest_correct = sum(t["answer_correct"] for t in turns)  # the log's recorded labels: 250 of 882
    assert (honest_correct, len(turns)) == (250, 882)

    def one_variable(es: Events) -> Events:
        out = []
        for e in es:
            if e["type"] == "turn":
                name, value = next(iter(honest_answer(e["raw_response"]).items()))
                e = {**e, "raw_response": json.dumps({"solution": {name: value}}), "answer_correct": None}
            out.append(e)
        return out

    run, rows = _attack(tmp_path, one_variable)
    assert run["verdict"] == "VALID"
    m = run["metrics"]
    assert m["turn_accuracy"] > 2 * honest_correct / len(turns)  # the reference's partial credit rewards it
    assert (m["complete_rate"], m["solved_turns"], m["complete_accuracy"]) == (0.0, 0, 0.0)
    lossy, greedy, oracle = rows["scripted/lossy-ledger"], rows["scripted/greedy-repair"], rows["scripted/oracle"]
    assert lossy["figure"] == 0.0 < honest_correct / len(turns)  # ranked figure: below the honest run's
    assert lossy["rank_best"] > max(greedy["rank_worst"], oracle["rank_worst"])


def test_clock_times_for_slot_indices_pin_nothing_and_never_rank(tmp_path):
    evs = _lite_turns("lossy-ledger")
    domains = {e["problem_id"]: e["domain"] for e in evs if e["type"] == "problem_start"}
    turns = [e for e in evs if e["type"] == "turn"]
    kept = sum(t["answer_correct"] for t in turns if domains[t["problem_id"]] != "scheduling")

    def clock(es: Events) -> Events:
        out = []
        for e in es:
            if e["type"] == "turn" and domains[e["problem_id"]] == "scheduling":
                ans = honest_answer(e["raw_response"])
                ans = {k: {**v, "start": f"{8 + v['start']}:00 AM"} for k, v in ans.items()}
                e = {**e, "raw_response": json.dumps({"solution": ans}), "answer_correct": None}
            out.append(e)
        return out

    run, rows = _attack(tmp_path, clock)
    m = run["metrics"]
    # the reader drops every start, the durations left extend to a solution: partial credit goes up ...
    assert m["turn_accuracy"] > 250 / 882
    # ... but a scheduling answer with unreadable values is not complete: only the other domains' turns count
    assert m["solved_turns"] == kept
    assert rows["scripted/lossy-ledger"]["figure"] == pytest.approx(kept / 882)
    assert kept / 882 < 250 / 882  # below the honest run's ranked figure


def test_a_thinner_ledger_is_unverifiable_never_consistent(tmp_path):
    evs = _lite_turns("recency-k")
    turns = [e for e in evs if e["type"] == "turn"]
    folder = tmp_path / LITE
    shutil.copytree(SHIPPED / LITE, folder)
    thinned = [{**e, "ledger": [], "z3_sat": None, "mus": None} if e["type"] == "turn" else e for e in evs]
    write_log(folder / "runs" / "recency-k-0.jsonl", thinned)
    doc = _verify(folder, tmp_path / "results")
    run = next(r for r in doc["runs"] if r["cell"] == "scripted/recency-k")
    # an empty ledger is SAT and every answer satisfies it; turn 1 of every problem states constraints,
    # so no turn's ledger states what the dialogue stated: none is consistent
    assert all(t["channel"] == "unverifiable" for t in run["turns"])
    assert (run["metrics"]["consistent"], run["metrics"]["unverifiable"]) == (0, len(turns))
    assert run["metrics"]["ledger_missing"] == 0  # the ledger is there, just thinner
    assert _board_rows(tmp_path / "results")["scripted/recency-k"]["figure"] == pytest.approx(
        sum(t["answer_correct"] for t in turns) / len(turns))  # the ranked figure never read the ledger


# --------------------------------------------------------------------------- the rule per turn (hypothesis)

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from checker.constraint.problems import load_problems  # noqa: E402
from checker.constraint.scorer import checker_for, score_turn  # noqa: E402
from checker.format.schema.constraint import Turn  # noqa: E402

_LITE_PROBLEMS = sorted(load_problems([REPO / "problems" / "drift-bench-v1-lite"], check_gold=False)[0],
                        key=lambda p: p.problem_id)
_BY_DOMAIN = {d: [p for p in _LITE_PROBLEMS if p.domain == d][:4] for d in ("seating", "scheduling", "logic_grid")}


def _scored(problem, turn_number: int, answer: object, ledger=None) -> Any:
    turn = Turn.model_validate({"seq": 1, "prev": "0" * 64, "type": "turn", "problem_id": problem.problem_id,
                                "turn_number": turn_number,
                                "user_message": problem.turns[turn_number - 1].user_message,
                                "raw_response": json.dumps({"solution": answer}), "ledger": ledger})
    return score_turn(checker_for("lite", problem), turn, 1, stated=True).result()


def _blur(domain: str, value: object) -> object:
    """A value of the answer the domain cannot read."""
    if domain == "scheduling":
        return {**value, "start": f"{value['start']}:00 PM"} if isinstance(value, dict) else f"{value}:00 PM"
    if domain == "seating":
        return f"seat {value}"
    return {c: [v] for c, v in value.items()}  # a logic-grid value that is not a scalar


@st.composite
def _degenerate(draw):
    domain = draw(st.sampled_from(sorted(_BY_DOMAIN)))
    problem = draw(st.sampled_from(_BY_DOMAIN[domain]))
    k = draw(st.integers(1, len(problem.turns)))
    gold = dict(problem.turns[k - 1].gold_solution)
    names = list(gold)
    how = draw(st.sampled_from(["subset", "blur", "twice"]))
    if how == "subset":  # answer less: any strict subset, the empty one included
        kept = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names) - 1))
        answer = {n: gold[n] for n in kept}
    elif how == "blur":  # one value or more the reader cannot read, the rest gold
        blurred = draw(st.lists(st.sampled_from(names), unique=True, min_size=1))
        answer = {n: _blur(domain, gold[n]) if n in blurred else gold[n] for n in names}
    else:  # an entity named twice, the first spelling with another entity's value
        n = draw(st.sampled_from(names))
        other = names[(names.index(n) + 1) % len(names)]
        answer = {n: gold[other], **{m: gold[m] for m in names if m != n}, f" {n.upper()} ": gold[n]}
    return problem, k, gold, answer


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_degenerate())
def test_an_answer_that_says_less_than_the_gold_solution_is_never_solved(case):
    problem, k, gold, answer = case
    assert _scored(problem, k, gold).solved  # the full gold answer is (the problem set's own solution)
    assert not _scored(problem, k, answer).solved


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.sampled_from(_LITE_PROBLEMS[:40]), st.data())
def test_a_ledger_missing_a_stated_constraint_is_never_consistent(problem, data):
    k = data.draw(st.integers(1, len(problem.turns)))
    stated = [{"id": f"C{i:03d}", **{f: c[f] for f in ("type", "args")}, "nl": "", "source_turn": 1}
              for i, c in enumerate(problem.turns[k - 1].cumulative_constraints)]
    gold = problem.turns[k - 1].gold_solution
    assert _scored(problem, k, gold, stated).channel == "consistent"
    drop = data.draw(st.integers(0, len(stated) - 1))
    thinner = stated[:drop] + stated[drop + 1:]
    assert _scored(problem, k, gold, thinner).channel == "unverifiable"
