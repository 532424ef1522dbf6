"""The completion track's claims channel: a hand count, forged trajectories, bad input and broken episodes.

* **Hand count.** Entries 0-9 of τ-bench's file (trial 0 of tasks 0-9), read by hand: the recorded endings
  (`info.source`, the last message), the recorded rewards and the gold actions give the figures written
  below; the figures the site shows for the fixture must equal them.
* **Forgeries** (integrity.md): the recorded reward edited, a tool result edited to show success, a write
  call removed: the verified figure never moves in the forger's favour.
* **Bad input**: the importer refuses with a finding (exit 1) or a usage error (exit 2), writes nothing, and
  never shows a traceback; canonical logs with a broken episode are INVALID or INCOMPLETE with the reason.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from completion_helpers import (
    TASK_SET,
    WRITE_TOOLS,
    counted_verified,
    prereg_for,
    score_entry,
    score_events,
    shipped_entries,
    task_set,
)

from checker.format.seeds import seed_label
from checker.importers.tau_bench import convert, import_submission
from checker.pipeline.verify import verify_paths

FIXTURE_ENTRIES = range(10)
HAND = {
    # closed as done: 0, 1, 2, 3 (its 30th step is a reply the user stops after), 5, 6, 7, 8, 9; transfer: 4
    "declared": 10, "claimed": 9, "verified": 1, "claimed_verified": 1, "false_claims": 8,
    # no write took effect: 1 (gold cancels), 8 and 9 (gold cancels and books; they only talked)
    "no_write": 3,
    # writes took effect, database wrong: 0 (booking with a bag and a card charge the task does not want), 2, 3, 5, 7
    "wrong_writes": 5, "output_missing": 0, "transfer_verified": 0, "transfer_not": 1, "step_limit": 0,
}
"""Read by hand from entries 0-9 of gpt-4o-airline.json: recorded `info.source` and last message, recorded
`reward` (1.0 for entry 6 only), and each task's gold actions against the logged write results."""
WILSON_1_OF_10 = (0.0179, 0.4042)
"""The Wilson score 95% interval of 1 success in 10 (a textbook value: Newcombe 1998, table I)."""


def fixture_file(tmp: Path, entries: list[dict[str, Any]]) -> Path:
    path = tmp / "fixture-airline.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def fixture_results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("tau-fixture")
    src = fixture_file(root, [shipped_entries()[i] for i in FIXTURE_ENTRIES])
    out = root / "tau-fixture"
    assert import_submission(src, "airline", out, TASK_SET, source_commit="7362a17") == 0
    report = verify_paths([out], problem_dirs=[TASK_SET], results_dir=root / "results")
    assert report.exit_code == 0, [f.render() for f in report.findings]
    return root / "results", json.loads((root / "results" / "tau-fixture.json").read_text(encoding="utf-8"))


def test_fixture_results_equal_the_hand_count(fixture_results):
    _, results = fixture_results
    (cell,) = results["cells"]
    t = cell["tables"]
    d = t["decomposition"]
    got = {"declared": t["episodes_declared"], "claimed": t["claimed"]["k"], "verified": t["verified"]["k"],
           "claimed_verified": d["claimed_verified"], "false_claims": d["false_claims"],
           "no_write": d["false_no_effected_write"], "wrong_writes": d["false_wrong_writes"],
           "output_missing": d["false_output_missing"], "transfer_verified": d["transfer_verified"],
           "transfer_not": d["transfer_not_verified"], "step_limit": d["step_limit"]}
    assert got == HAND
    lo, hi = t["verified"]["wilson95"]
    assert (lo, hi) == pytest.approx(WILSON_1_OF_10, abs=1e-4)
    # 10 of the set's 50 tasks: not on the τ-bench board, so no pass^k and no rank
    assert t["board"]["complete"] is False and "10 of the set's 50 tasks" in t["board"]["why"]
    assert t["pass_k"] == []
    by_seed = {r["seed"]: r["episode"] for r in results["runs"]}
    assert [w["status"] for w in by_seed["task000-trial0"]["write_calls"]] == ["error", "wrong"]
    assert [w["status"] for w in by_seed["task006-trial0"]["write_calls"]] == ["matched"]
    assert by_seed["task003-trial0"]["ending"] == "closed_as_done" and by_seed["task003-trial0"]["steps"] == 30


def test_the_site_shows_the_hand_count(fixture_results, tmp_path):
    from checker.render.site import build_site

    results_dir, _ = fixture_results
    out = tmp_path / "site"
    assert build_site(results_dir, out) == 0
    sub = BeautifulSoup((out / "submissions" / "tau-fixture" / "index.html").read_text(encoding="utf-8"), "html.parser")
    table = next(t for t in sub.select("table")
                 if t.select_one("caption").get_text(" ", strip=True).startswith("Claimed vs verified"))
    heads = [th.get_text(" ", strip=True) for th in table.select("thead th")]
    (row,) = [dict(zip(heads, (td.get_text(" ", strip=True) for td in tr.select("td")), strict=True))
              for tr in table.select("tbody tr")]
    shown = {"declared": row["declared episodes"], "claimed": row["claimed (closed as done)"],
             "verified": row["verified"], "claimed_verified": row["claimed and verified"],
             "false_claims": row["false completion claims"], "no_write": row["false: database wrong, nothing written"],
             "wrong_writes": row["false: database wrong after writes"],
             "output_missing": row["false: required output not said"], "transfer_verified": row["transfer, verified"],
             "transfer_not": row["transfer, not verified"], "step_limit": row["step limit"]}
    assert shown == {k: str(v) for k, v in HAND.items()}
    assert row["Wilson 95%"] == "[0.018, 0.404]"
    board = BeautifulSoup((out / "leaderboards" / "completion" / "index.html").read_text(encoding="utf-8"),
                          "html.parser")
    assert "not ranked: the cell declares 10 of the set's 50 tasks" in board.get_text(" ", strip=True)


# ------------------------------------------------------------------------------------------- forgeries


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Any]:
    """Every shipped trajectory scored as it is (entry -> run result)."""
    folder = tmp_path_factory.mktemp("honest")
    return {i: score_entry(folder, e, i) for i, e in enumerate(shipped_entries())}


def test_honest_scoring_counts_84_verified(honest):
    assert counted_verified(list(honest.values())) == 84


def test_an_edited_recorded_reward_makes_the_run_invalid(honest, tmp_path):
    """The record is never read to score, and a record the dialogue does not produce fails the run (never a warning
    beside an unchanged figure: integrity.md, "a check that can only decorate the report is not a defence")."""
    entries = shipped_entries()
    forged = {}
    for i, e in enumerate(entries):
        if e["reward"] == 0.0:
            e["reward"] = 1.0
            if e["info"].get("reward_info"):
                e["info"]["reward_info"]["reward"] = 1.0
            forged[i] = score_entry(tmp_path, e, i)
    assert len(forged) == 116
    assert counted_verified(list(forged.values())) == 0  # not one of them becomes verified
    assert counted_verified([forged.get(i, r) for i, r in honest.items()]) == 84
    for r in forged.values():
        assert [m.field for m in r.mismatches] == ["reward"]
        assert r.verdict == "INVALID"
        assert [x for x in r.reasons if "recorded reward 1.0 differs from the recomputed 0.0" in x], r.reasons


def _write_results(entry: dict[str, Any]) -> list[int]:
    """Indexes of the tool messages answering a write call."""
    traj = entry["traj"]
    return [j + 1 for j, m in enumerate(traj) if m["role"] == "assistant" and m.get("tool_calls")
            and m["tool_calls"][0]["function"]["name"] in WRITE_TOOLS]


def test_a_tool_result_edited_to_show_success_makes_the_run_invalid(honest, tmp_path):
    entries = shipped_entries()
    ts = task_set()
    forged = {}
    for i, e in enumerate(entries):
        for j in _write_results(e):
            if e["traj"][j]["content"].startswith("Error"):
                reservation = json.loads(e["traj"][j - 1]["tool_calls"][0]["function"]["arguments"]).get("reservation_id")
                record = ts.fresh().get("reservations", reservation) if isinstance(reservation, str) else None
                f = copy.deepcopy(e)
                f["traj"][j]["content"] = json.dumps(record or {"reservation_id": "HATHAT", "status": "confirmed"})
                forged[(i, j)] = score_entry(tmp_path, f, i)
    assert len(forged) == 73  # every refused write (spec §3.2: 30 bookings, 42 flight changes, 1 bag update)
    assert all(r.verdict == "INVALID" for r in forged.values())
    assert all(any(m.field == "tool_result" for m in r.mismatches) for r in forged.values())
    # and in a verified episode, any edited result takes the episode out of the figure
    verified = [i for i, r in honest.items() if r.verdict == "VALID" and r.episode.verified and _write_results(entries[i])]
    for i in verified[:10]:
        f = copy.deepcopy(entries[i])
        f["traj"][_write_results(f)[0]]["content"] = "Done."
        assert score_entry(tmp_path, f, i).verdict == "INVALID"


def test_a_removed_write_call_never_raises_the_verified_figure(honest, tmp_path):
    ts = task_set()
    raised = []
    for i, e in enumerate(shipped_entries()):
        ep, problems = convert(e, i, ts, "fixture")
        assert ep is not None, problems
        calls = [k for k, ev in enumerate(ep.events) if ev["type"] == "tool_call" and ev["name"] in WRITE_TOOLS]
        for k in calls:
            events = ep.events[:k] + ep.events[k + 1:]
            forged = score_events(tmp_path, seed_label(ep.task_id, ep.trial), events)
            # the result answers no call: never counted (INVALID; INCOMPLETE when it was the episode's last step)
            assert forged.verdict in ("INVALID", "INCOMPLETE"), (i, k)
            assert any("a tool_result that answers no tool_call" in x for x in forged.reasons), (i, k)
            if forged.verdict == "VALID" and forged.episode.verified and not honest[i].episode.verified:
                raised.append((i, k))
    assert raised == []


def _without_write(events: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    """The episode with the assistant turn of the write call at `k` removed whole: its message, call and result."""
    assert events[k - 1]["type"] == "message" and events[k - 1]["role"] == "assistant"
    assert events[k + 1]["type"] == "tool_result" and events[k + 1]["call_id"] == events[k]["call_id"]
    return events[: k - 1] + events[k + 2:]


@pytest.fixture(scope="module")
def removals(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[int, int, list[dict[str, Any]], Any]]:
    """Every write turn removed whole from every trajectory whose honest reward is 0, when the dialogue left then
    recomputes to reward 1: (entry, event index, forged events, the forged run scored with the record as logged)."""
    folder = tmp_path_factory.mktemp("removals")
    out = []
    for i, e in enumerate(shipped_entries()):
        if e["reward"] == 1.0:
            continue
        ep, problems = convert(e, i, task_set(), "fixture")
        assert ep is not None, problems
        for k, ev in enumerate(ep.events):
            if ev["type"] == "tool_call" and ev["name"] in WRITE_TOOLS:
                events = _without_write(ep.events, k)
                r = score_events(folder, seed_label(ep.task_id, ep.trial), events)
                if r.episode is not None and r.episode.reward == 1.0:
                    out.append((i, k, events, r))
    return out


def test_removing_a_write_turn_whole_is_caught_by_the_record(removals):
    """26 of the 250 write turns, removed whole (message, call, result), leave a dialogue whose database is the gold
    one (counted on the shipped file; the same count by hand: the forged replays below recompute reward 1). The
    record still says reward 0: every one is INVALID, none counted."""
    assert len(removals) == 26
    for i, k, _, r in removals:
        assert r.verdict == "INVALID", (i, k)
        assert any("recorded reward 0.0 differs from the recomputed 1.0" in x for x in r.reasons), (i, k, r.reasons)
    assert counted_verified([r for *_, r in removals]) == 0


def test_removing_a_write_turn_and_rewriting_the_record_is_caught_by_the_replies(removals, tmp_path):
    """The same 26 forgeries with `episode_end` rewritten to what the forged dialogue gives. 3 still change a
    logged result (a later call's result shows the write); 20 leave a reply stating a write the log no longer
    effects (spec §8.3: the statement is unbacked, the episode is not verified). 3 get through: entries 28, 128 and
    178 (task 28) list four cancellations in one statement, and removing one of them leaves the statement backed
    by the other three. The track definition says so; the imported run's source digest still exposes the edit."""
    through = []
    caught = {"tool_result": 0, "unbacked": 0}
    for i, _k, events, r in removals:
        forged = [dict(ev, reward=r.episode.reward) if ev["type"] == "episode_end" else ev for ev in events]
        f = score_events(tmp_path, seed_label(r.episode.task_id, int(r.seed.split("trial")[1])), forged)
        if f.verdict == "INVALID":
            assert any(m.field == "tool_result" for m in f.mismatches), (i, f.reasons)
            caught["tool_result"] += 1
        elif not f.episode.verified:
            assert f.episode.false_claim in ("unbacked_statement", None) and not all(s.backed for s in f.episode.stated)
            caught["unbacked"] += 1
        else:
            through.append(i)
    assert caught == {"tool_result": 3, "unbacked": 20}
    assert through == [28, 128, 178]


def test_stated_completions_match_the_specification_counts(honest):
    """tau-airline-spec.md §8.2-8.3: 101 claimed-done episodes state a completion (exactly those with an effected
    write), 3 have an unbacked statement (entries 3, 5 and 153, all reward 0): the verified count stays 84."""
    claimed = {i for i, r in honest.items() if r.episode.claimed}
    stating = {i for i in claimed if honest[i].episode.stated}
    effected = {i for i in claimed if any(w.status in ("matched", "wrong", "extra") for w in honest[i].episode.write_calls)}
    assert len(claimed) == 147 and len(stating) == 101 and stating == effected
    unbacked = {i for i, r in honest.items() if not all(s.backed for s in r.episode.stated)}
    assert unbacked == {3, 5, 153}
    assert all(honest[i].episode.reward == 0.0 for i in unbacked)
    assert [s.clause for s in honest[3].episode.stated if not s.backed] == [
        "Additionally, one checked bag has been added to your reservation."]


# ----------------------------------------------------------------------------------------- bad input


def _import(run_line, tmp_path: Path, data: Any, raw: bytes | None = None) -> tuple[Any, Path]:
    src = tmp_path / "bad-airline.json"
    src.write_bytes(raw if raw is not None else json.dumps(data).encode())
    out = tmp_path / "bad-import"
    res = run_line(["import", "tau-bench", str(src), "--domain", "airline", "--problems", str(TASK_SET),
                    "--source-commit", "7362a17", "--out", str(out)])
    return res, out


def test_a_file_that_is_not_json_is_a_usage_error(run_line, tmp_path):
    res, out = _import(run_line, tmp_path, None, raw=b"[{\"task_id\": 0,")
    assert res.exit_code == 2 and "not valid JSON" in res.output and not out.exists()
    res, out = _import(run_line, tmp_path, {"task_id": 0})
    assert res.exit_code == 2 and "expected a JSON array" in res.output and not out.exists()


def _first_call(entry: dict[str, Any]) -> dict[str, Any]:
    """The `function` of the trajectory's first tool call."""
    return next(m for m in entry["traj"] if m.get("tool_calls"))["tool_calls"][0]["function"]


@pytest.mark.parametrize(("edit", "expected"), [
    (lambda e: _first_call(e).__setitem__("name", "teleport"), "unknown tool 'teleport'"),
    (lambda e: _first_call(e).__setitem__("arguments", "{\"user_id\": "), "malformed arguments for"),
    (lambda e: _first_call(e).__setitem__("arguments", "[1, 2]"), "is not a JSON object"),
    (lambda e: e.__setitem__("traj", "not a list"), "traj is empty or not a list"),
    (lambda e: e.pop("task_id"), "task_id and trial must be non-negative integers"),
    (lambda e: e["traj"].__setitem__(2, "oops"), "not a message with a role"),
    (lambda e: e["info"]["task"].__setitem__("outputs", ["999"]), "differs from task 0 of the task set"),
])
def test_a_bad_trajectory_is_a_finding_and_nothing_is_written(run_line, tmp_path, edit, expected):
    entries = [shipped_entries()[0], shipped_entries()[1]]
    edit(entries[0])
    res, out = _import(run_line, tmp_path, entries)
    assert res.exit_code == 1, res.output
    assert "entry 0" in res.output and expected in res.output and "nothing was written" in res.output
    assert "Traceback" not in res.output
    assert not out.exists()


# ------------------------------------------------------------------------------------ broken episodes


def _events(index: int = 6) -> tuple[str, list[dict[str, Any]]]:
    ep, _ = convert(shipped_entries()[index], index, task_set(), "fixture")
    assert ep is not None
    return seed_label(ep.task_id, ep.trial), ep.events


def test_the_honest_episode_is_valid_and_verified(tmp_path):
    seed, events = _events()
    r = score_events(tmp_path, seed, events, prereg_for([seed]))
    assert (r.verdict, r.episode.ending, r.episode.verified, r.episode.declared) == ("VALID", "closed_as_done", True, True)


@pytest.mark.parametrize(("mutate", "verdict", "reason"), [
    (lambda ev: [e for e in ev if e["type"] != "tool_call" or e["name"] != "update_reservation_flights"],
     "INVALID", "a tool_result that answers no tool_call"),
    (lambda ev: [*ev, {"type": "message", "role": "assistant", "content": "one more thing"}],
     "INVALID", "after episode_end"),
    (lambda ev: [{**e, "content": "You may do anything."} if e["type"] == "message" and e["role"] == "system" else e
                 for e in ev], "INVALID", "not the task set's policy"),
    (lambda ev: [{**e, "task_id": 7} if e["type"] == "episode_start" else e for e in ev],
     "INVALID", "names task 6, the episode is of task 7"),
    (lambda ev: ev[:-3], "INCOMPLETE", "stops before the episode ends"),
    (lambda ev: [e for e in ev if e["type"] != "episode_start"], "INVALID", "no episode_start"),
])
def test_a_broken_episode_is_not_counted(tmp_path, mutate, verdict, reason):
    seed, events = _events()
    r = score_events(tmp_path, seed, mutate(copy.deepcopy(events)), prereg_for([seed]))
    assert r.verdict == verdict
    assert any(reason in x for x in r.reasons), r.reasons


def test_dialogue_after_the_user_closed_it_is_invalid(tmp_path):
    seed, events = _events()
    end = events.pop()
    events += [{"type": "message", "role": "assistant", "content": "Anything else?"},
               {"type": "message", "role": "user", "content": "no"}, end]
    r = score_events(tmp_path, seed, events, prereg_for([seed]))
    assert r.verdict == "INVALID" and any("goes on after the episode ended" in x for x in r.reasons)


def test_an_unknown_tool_in_a_canonical_log_is_replayed_as_the_environment_answers(tmp_path):
    seed, events = _events()
    at = next(k for k, e in enumerate(events) if e["type"] == "message" and e["role"] == "assistant")
    extra = [{"type": "message", "role": "assistant", "content": None},
             {"type": "tool_call", "call_id": "c1", "name": "teleport", "arguments": {}},
             {"type": "tool_result", "call_id": "c1", "name": "teleport", "content": "Unknown action teleport"}]
    r = score_events(tmp_path, seed, events[:at] + extra + events[at:], prereg_for([seed]))
    assert r.verdict == "VALID" and r.episode.verified and r.metrics["writes_effected"] == 1


def test_the_track_definition_lists_every_condition():
    from conftest import REPO

    from checker.completion.scorer import CONDITIONS

    page = (REPO / "site" / "tracks" / "completion.md").read_text(encoding="utf-8")
    for c in CONDITIONS:
        assert f"| `{c.name}` | {'INVALID' if c.kind == 'invalid' else 'INCOMPLETE'} |" in page, c.name


def test_a_huge_episode_costs_what_its_30_steps_cost(tmp_path):
    """Bounded cost: 20,000 calls of the costliest tool are parsed, only the first 30 steps are replayed."""
    import time

    seed, events = _events()
    head = [e for e in events if e["type"] in ("episode_start",) or (e["type"] == "message" and e["role"] != "assistant")][:3]
    calls = []
    for n in range(20_000):
        calls += [{"type": "message", "role": "assistant", "content": None},
                  {"type": "tool_call", "call_id": f"c{n}", "name": "search_onestop_flight",
                   "arguments": {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"}},
                  {"type": "tool_result", "call_id": f"c{n}", "name": "search_onestop_flight", "content": "[]"}]
    t0 = time.perf_counter()
    r = score_events(tmp_path, seed, [*head, *calls, {"type": "episode_end"}], prereg_for([seed]))
    assert time.perf_counter() - t0 < 30
    assert r.episode.ending == "step_limit" and r.episode.steps == 30
    assert r.verdict == "INVALID"  # the results differ ("[]"), and the dialogue goes on past the step limit
    assert any("goes on after the episode ended" in x for x in r.reasons)


def test_structural_problems_are_listed_up_to_a_bound(tmp_path):
    seed, events = _events()
    orphans = [{"type": "tool_result", "call_id": f"x{n}", "name": "think", "content": ""} for n in range(500)]
    r = score_events(tmp_path, seed, [*events[:-1], *orphans, events[-1]], prereg_for([seed]))
    assert r.verdict == "INVALID"
    assert len(r.reasons) <= 25 and any("more structural problem(s) not listed" in x for x in r.reasons)


@pytest.mark.parametrize(("clause", "says", "tools"), [
    ("Your reservation has been successfully cancelled.", True, {"cancel_reservation"}),
    ("Your flight on May 17 has been cancelled.", True, {"cancel_reservation"}),  # the month is not a hedge
    ("Has your reservation been cancelled?", False, set()),
    ("It has not been cancelled yet.", False, set()),
    ("If you confirm, it will have been booked.", False, set()),
    ("Once confirmed, the reservation is confirmed.", False, set()),
    ("I've issued a $50 certificate to you as compensation.", True, {"send_certificate"}),
    ("You are now booked on HAT088.", True, {"book_reservation", "update_reservation_flights"}),
    ("One checked bag has been added.", True, {"update_reservation_baggages"}),
    ("The passenger details have been updated.", True, {"update_reservation_passengers"}),
    ("The cabin has been upgraded to business.", True, {"update_reservation_flights"}),
    ("Everything has been updated.", True, set()),  # no object: any effected write backs it
])
def test_stated_completion_clauses(clause: str, says: bool, tools: set[str]) -> None:
    """Spec §8.2's phrases and hedges, §8.3's mapping to the write tool that would carry the statement out."""
    from checker.completion.statements import backing_tools, stated

    assert stated(clause) is says
    if says:
        assert backing_tools(clause) == tools


def test_stated_completions_cost_grows_linearly_with_the_reply() -> None:
    """A hostile reply (every word "reservation", no punctuation) at n and 4n characters: CPU time ratio at most 6."""
    import time

    from checker.completion.statements import statements

    def cost(n: int) -> float:
        text = ("reservation booking " * (n // 20))[:n] + " is confirmed"
        best = float("inf")
        for _ in range(3):
            t = time.process_time()
            statements([(0, 1, text)] * 20)
            best = min(best, time.process_time() - t)
        return best

    small, large = cost(5_000), cost(20_000)
    assert large <= 6 * max(small, 1e-3), (small, large)


def test_one_rule_names_an_episodes_task_for_the_boards_and_the_pages():
    """`task007-trial2` -> task `task007`, trial `trial2`, split at the last `-trial`; a seed without one is its own task."""
    from checker.format.seeds import episode_parts, parse_seed

    assert episode_parts("task007-trial2") == ("task007", "trial2")
    assert episode_parts("a-trial1-trial3") == ("a-trial1", "trial3")
    assert episode_parts("seed-1") == ("seed-1", "")
    assert (parse_seed("task007-trial2"), parse_seed("task7-trial2"), parse_seed("task007-trial02")) == ((7, 2), None, None)
