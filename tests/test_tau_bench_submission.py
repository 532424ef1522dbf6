"""The shipped submission `tau-bench-gpt-4o-airline` (issue 33): the first language model ranked on Driftboard.

* it is exactly what its one documented import command writes (re-run here, every byte compared);
* the data it needs is in the project with its licence and a README citing the source, and `tasks.json`
  is what the shipped trajectories embed (re-derived here);
* it verifies with no option, as real runs with a pre-registration written after them, and its claim
  (τ-bench's recorded pass rate) agrees with the recomputation;
* the built site ranks gpt-4o on the completion board with its interval and n, the home page names it
  among the ranked language models, the cell page shows the claimed / verified decomposition first and
  the run viewer shows the closing claim next to the database diff;
* its cell page lists the 200 episodes as one row per task, every episode reachable (issue 31).

The site built here is the whole shipped site (`make site`), so this module also guards what needs all of it (issue
31): every page under the page-weight budget in one load (about 3 s more), and the constraint leaderboard's
accuracy by depth drawing its ranked rows.

Expected counts are τ-bench's recorded rewards and the specification's (`tau-airline-spec.md` §8.1).
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from completion_helpers import SHIPPED, SUBMISSION, TASK_SET, shipped_entries
from conftest import REPO

from checker.format.cell_tables import CompletionCellTables
from checker.format.results_io import canonical_json, read_results
from checker.importers.tau_bench import git_blob, tasks_json

SID = "tau-bench-gpt-4o-airline"
SOURCE_SHA256 = "e9e6c0297660c537f83d4fd9c476ce7a9a86ecd2784874b7bfc13be598e37bfa"
"""τ-bench's `historical_trajectories/gpt-4o-airline.json` (the shared data's README)."""
SOURCE_BLOB = "a5f0d91569e740b949b37a181993b3f1822a86f4"


def documented_command() -> list[str]:
    description = yaml.safe_load((SUBMISSION / "submission.yaml").read_text(encoding="utf-8"))["description"]
    found = re.findall(r"`(driftboard import tau-bench [^`]+)`", description)
    assert len(found) == 1, description
    return shlex.split(found[0])


def test_the_documented_command_reproduces_every_byte(tmp_path, run_line, monkeypatch):
    args = documented_command()
    assert args[args.index("--out") + 1] == f"submissions/{SID}"
    args[args.index("--out") + 1] = str(tmp_path / SID)
    monkeypatch.chdir(REPO)
    res = run_line(args[1:])
    assert res.exit_code == 0, res.output
    shipped = {p.relative_to(SUBMISSION).as_posix(): p.read_bytes() for p in sorted(SUBMISSION.rglob("*")) if p.is_file()}
    made = {p.relative_to(tmp_path / SID).as_posix(): p.read_bytes() for p in sorted((tmp_path / SID).rglob("*"))
            if p.is_file()}
    assert sorted(made) == sorted(shipped)
    assert made == shipped


def test_the_data_is_the_upstream_file_with_its_licence_and_source():
    import hashlib

    data = SHIPPED.read_bytes()
    assert hashlib.sha256(data).hexdigest() == SOURCE_SHA256 and git_blob(data) == SOURCE_BLOB
    for folder in (SHIPPED.parent, TASK_SET):
        assert "MIT License" in (folder / "LICENSE").read_text(encoding="utf-8")
        assert "Copyright (c) 2024 Sierra" in (folder / "LICENSE").read_text(encoding="utf-8")
        readme = (folder / "README.md").read_text(encoding="utf-8")
        assert "sierra-research/tau-bench" in readme and "7362a17" in readme and "2406.12045" in readme


def test_tasks_json_is_what_the_trajectories_embed():
    assert (TASK_SET / "tasks.json").read_bytes() == tasks_json(shipped_entries())
    tasks = json.loads((TASK_SET / "tasks.json").read_text(encoding="utf-8"))
    assert len(tasks) == 50 and sum(1 for t in tasks if t["outputs"]) == 4  # tasks 2, 8, 9, 44 (spec §6.3)


def test_manifest_and_prereg_say_what_the_runs_are():
    manifest = yaml.safe_load((SUBMISSION / "submission.yaml").read_text(encoding="utf-8"))
    prereg = yaml.safe_load((SUBMISSION / "prereg.yaml").read_text(encoding="utf-8"))
    assert manifest["synthetic"] is False and manifest["license"] == "MIT" and manifest["backbone"] == "gpt-4o"
    assert manifest["track"] == prereg["track"] == "completion" and prereg["profile"] == "driftboard"
    assert prereg["written_after_runs"] is True
    seeds = prereg["cells"]["gpt-4o/tool-calling"]["seeds"]
    assert len(seeds) == 200 and seeds[:2] == ["task000-trial0", "task000-trial1"] and seeds[-1] == "task049-trial3"
    first = json.loads((SUBMISSION / "runs" / "task007-trial2.jsonl").read_text(encoding="utf-8").split("\n")[0])
    details = first["source"]["details"]
    assert first["source"]["files"] == {"gpt-4o-airline.json": SOURCE_SHA256}
    assert (details["repository"], details["commit"], details["model"], details["task_id"], details["trial"]) == (
        "https://github.com/sierra-research/tau-bench", "7362a1708d720a4d697d042f21fd8637ea144c3b", "gpt-4o", 7, 2)


@pytest.fixture(scope="module")
def verified(shipped_results: Path) -> Path:
    """Every shipped submission verified as `make site` does it (`conftest.shipped_results`: once per session)."""
    return shipped_results


@pytest.fixture(scope="module")
def results(verified: Path) -> dict:
    return json.loads((verified / f"{SID}.json").read_text(encoding="utf-8"))


def test_verifies_ranked_with_the_recorded_pass_rate_recomputed(results):
    assert results["track"] == "completion" and results["ranked"] is True and results["synthetic"] is False
    assert results["prereg_written_after_runs"] is True
    assert results["null_results"]["headline"] == (
        "84 of 200 valid episodes verified; 147 closed as done, 49 of them verified (98 false completion claims)")
    assert [(c["metric"], c["claimed"], c["agrees"]) for c in results["claims"]] == [("verified", 0.42, True)]
    (cell,) = results["cells"]
    assert cell["all_declared"]["verified"]["value"] == pytest.approx(0.42)
    t = cell["tables"]
    assert t["board"]["complete"] is True and t["board"]["trials_per_task"] == 4 and t["board"]["tasks"] == 50
    assert (t["claimed"]["k"], t["false_claims"]["k"], t["false_claims"]["n"]) == (147, 98, 147)
    lo, hi = t["verified"]["wilson95"]
    assert lo == pytest.approx(0.3537, abs=5e-4) and hi == pytest.approx(0.4893, abs=5e-4)  # Wilson, 84 of 200


def test_the_cell_tables_are_read_typed_and_written_back_byte_for_byte(verified):
    """The results file's completion tables read as `CompletionCellTables` and serialise to the same JSON."""
    data = json.loads((verified / f"{SID}.json").read_text(encoding="utf-8"))
    r = read_results(verified / f"{SID}.json")
    (cell,) = r.cells
    t = cell.completion_tables
    assert isinstance(t, CompletionCellTables) and cell.agent_tables is None and cell.constraint_tables is None
    assert (t.verified.k, t.verified.n, t.decomposition.false_claims, len(t.pass_k)) == (84, 200, 98, 4)
    assert t.model_dump(mode="json") == data["cells"][0]["tables"]
    assert canonical_json(r.model_dump(mode="json")) == (verified / f"{SID}.json").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def site(verified: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from checker.render.site import build_site

    out = tmp_path_factory.mktemp("tau-site") / "site"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        assert build_site(verified, out, logs_root=Path(".")) == 0
    return out


def page(site: Path, url: str) -> BeautifulSoup:
    return BeautifulSoup((site / url / "index.html").read_text(encoding="utf-8"), "html.parser")


def table_rows(doc: BeautifulSoup, caption_start: str) -> list[dict[str, str]]:
    for table in doc.select("table"):
        caption = table.select_one("caption")
        if caption is not None and caption.get_text(" ", strip=True).startswith(caption_start):
            heads = [th.get_text(" ", strip=True) for th in table.select("thead th")]
            return [dict(zip(heads, (td.get_text(" ", strip=True) for td in tr.select("td")), strict=True))
                    for tr in table.select("tbody tr")]
    raise AssertionError(f"no table captioned {caption_start!r}")


def test_the_completion_board_ranks_gpt_4o_with_interval_and_n(site):
    doc = page(site, "leaderboards/completion")
    (row,) = table_rows(doc, "Ranked by verified")
    assert (row["#"], row["cell"], row["backbone"], row["data"]) == ("1", "gpt-4o/tool-calling", "gpt-4o", "real")
    assert (row["verified ↑ all declared"], row["Wilson 95%"], row["declared episodes"]) == ("0.42", "[0.354, 0.489]", "200")
    assert row["false / claimed"] == "98 of 147"
    assert "50 tasks × 4 trials" in row["board: benchmark · task set · trials"]


def test_the_home_page_says_which_language_models_are_ranked(site):
    text = page(site, "").select_one("#ranked-models").get_text(" ", strip=True)
    assert text == "Language models ranked: gpt-4o."


def test_the_cell_page_shows_the_claimed_verified_decomposition_first(site):
    links = [a["href"] for a in page(site, f"submissions/{SID}").select("a") if a.get_text(strip=True) == "gpt-4o/tool-calling"]
    doc = BeautifulSoup((site / "submissions" / SID / links[0] / "index.html").resolve().read_text(encoding="utf-8"),
                        "html.parser")
    headings = [h.get_text(" ", strip=True).rstrip("¶").strip() for h in doc.select("article h2")]
    assert headings[0] == "Claimed vs verified"
    (row,) = table_rows(doc, "Claimed vs verified")
    assert (row["verified"], row["claimed (closed as done)"], row["claimed and verified"],
            row["false completion claims"]) == ("84", "147", "49", "98")
    assert (row["false: database wrong, nothing written"], row["false: database wrong after writes"],
            row["false: required output not said"], row["false: states a write never made"]) == ("19", "77", "2", "0")


def test_the_run_viewer_puts_the_closing_claim_next_to_the_database_diff(site):
    doc = page(site, f"runs/{SID}/{SID}--task000-trial0")
    text = doc.get_text(" ", strip=True)
    assert "false completion claim: wrong writes" in text
    assert "has been successfully booked" in doc.select_one(".db-closing-claim").get_text(" ", strip=True)
    wrong = table_rows(doc, "Where the episode's database differs from the gold one")
    # the agent paid 55 by card with one non-free bag; the task wanted 5 and no non-free bag (the trajectory's own gold)
    assert {(r["record"], r["field"], r["gold"], r["this episode"]) for r in wrong} == {
        ("HATHAT", "payment_history.1.amount", "5", "55"), ("HATHAT", "nonfree_baggages", "0", "1")}
    dialogue = table_rows(doc, "The dialogue as logged")
    assert [r["who"] for r in dialogue[:3]] == ["system", "user", "assistant"]
    assert any(r[""] == "closing claim" for r in dialogue)


def test_the_cell_page_lists_one_row_per_task_and_every_episode_stays_reachable(site):
    """Issue 31: the 200 episodes as 50 task rows (counts hand-read from τ-bench's trajectories), each task linked to
    its first trial, whose page links every trial of the task; the per-episode download names every run page."""
    cell = f"results/{SID}/gpt-4o-tool-calling-3429ab"
    doc = page(site, cell)
    rows = table_rows(doc, "Episodes by task")
    assert len(rows) == 50 and rows[0]["task"] == "task000" and rows[-1]["task"] == "task049"
    by_task = {r["task"]: r for r in rows}
    keys = ("trials", "verified", "claimed (closed as done)", "false claims", "transfers",
            "other (step limit, error, not counted)")
    # task000: four trials closed as done, none verified; task001: trial 1 verified, trial 2 a transfer not verified
    assert [by_task["task000"][k] for k in keys] == ["4", "0", "4", "4", "0", "0"]
    assert [by_task["task001"][k] for k in keys] == ["4", "1", "3", "2", "1", "0"]
    # the cell's totals (its headline: 84 of 200 verified, 147 closed as done, 98 false completion claims)
    assert [sum(int(r[k]) for r in rows) for k in keys[:4]] == [200, 84, 147, 98]
    assert doc.select_one("#table-runs") is None, "the per-episode table is a download only"
    link = doc.select_one("#table-tasks tbody tr a")["href"]
    assert link.endswith(f"runs/{SID}/{SID}--task000-trial0/")
    first = page(site, f"runs/{SID}/{SID}--task001-trial2")
    nav = first.select_one("nav[aria-label='Trials of this task']")
    assert nav.get_text(" ", strip=True) == ("Trials of this task: trial0 (false claim) · trial1 (claimed, verified) · "
                                             "trial2 (transfer, not verified) · trial3 (false claim)")
    assert [a["href"].rsplit("--", 1)[1] for a in nav.select("a")] == ["task001-trial0/", "task001-trial1/",
                                                                       "task001-trial3/"]
    csv_link = next(a["href"] for a in doc.select("p.db-downloads a") if a["href"].endswith("/runs.csv"))
    episodes = (site / cell / csv_link).resolve().read_text(encoding="utf-8").splitlines()
    assert len(episodes) == 201 and episodes[0].split(",")[-1] == "run_href"
    assert all((site / line.rsplit(",", 1)[1] / "index.html").is_file() for line in episodes[1:])


def test_every_page_of_the_shipped_site_is_under_the_page_weight_budget(site):
    """Issue 31: one load of every page `make site` builds, charts included, stays under the budget.

    `tests/test_site_weight.py` measures the fixture site (and checks this disk measure against Chromium); this is
    the shipped site, built once for this module (the weighing adds about 3 s).
    """
    from checker.render.weight import PAGE_WEIGHT_BUDGET, site_weights

    weights = site_weights(site)
    assert len(weights) > 2000, "the whole shipped site"
    over = [f"/{url} {total / 1000:.1f} KB" for url, total, _charts in weights if total >= PAGE_WEIGHT_BUDGET]
    assert over == [], f"over {PAGE_WEIGHT_BUDGET / 1000:.0f} KB in one load: {over}"


def test_the_constraint_leaderboard_draws_its_ranked_rows_and_lists_every_cell(site):
    """Issue 31: the accuracy by depth draws the 8 ranked rows (of 16 cells), in the ranked table's order; its table
    shows those, one row per cell (a column per turn), and its downloads hold all 16; the channel chart's shares
    are the board tables' share columns, pointed to."""
    doc = page(site, "leaderboards/constraint")
    ranked = [(tr.select("td")[2].get_text(strip=True), tr.select_one("a[href*='submissions/']").get_text(strip=True))
              for tr in doc.select("#table-leaderboard tbody tr")]
    assert len(ranked) == 8 and ranked[0] == ("scripted/oracle", "driftboard-reference-lite")
    fig = doc.select_one("#chart-depth")
    lines = [g.select_one("title").get_text() for g in fig.select("svg > g[fill]")]
    assert lines == [f"{cell} · {sid}" for cell, sid in ranked]
    assert "8 of the 16 cells" in fig.select_one("figcaption").get_text()
    wide = doc.select_one("#table-depth-wide")
    assert [[td.get_text() for td in tr.select("td")][:2] for tr in wide.select("tbody tr")] == [
        [sid, cell] for cell, sid in ranked]
    assert wide.select_one("p.db-more").get_text() == "The first 8 of 16 rows; the CSV and JSON downloads below hold all 16."
    assert len(wide.select("thead th")) == 2 + 10, "a column per turn, 1 to 10"
    downloads = site / "downloads" / "leaderboards" / "constraint"
    assert len(json.loads((downloads / "depth-wide.json").read_text(encoding="utf-8"))["rows"]) == 16
    assert len(json.loads((downloads / "depth.json").read_text(encoding="utf-8"))["rows"]) == 132
    channels = doc.select_one("#chart-channels").find_next_sibling("details")
    assert channels.select_one("table") is None
    assert [a["href"] for a in channels.select("p a")][:2] == ["#table-leaderboard", "#table-leaderboard-unranked"]
