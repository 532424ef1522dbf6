"""Tokens and cost on the boards (issue 30, item 2): tokens derived from the logs, a price only declared.

Costs are computed by hand here: tokens × USD per million tokens / 1,000,000, from the counts the test
writes into the logs, never read from the code under test.
"""

from __future__ import annotations

import json
import math
import re
from html import unescape
from types import SimpleNamespace

import pytest
from submission_factory import make_agent_submission

from checker.format.results_io import read_results
from checker.format.results_model import CellResult, RunResult
from checker.format.schema.manifest import Submission
from checker.render.ranking import cell_cost, cell_row, columns
from checker.render.stream import light
from checker.render.table_rows import table_rows
from checker.render.tables import Table
from checker.stages.manifest_yaml import parse_yaml

MANIFEST = """format_version: "1.0"
id: s-priced
title: Priced
authors: [{name: Ada Example}]
contact: ada@example.org
track: agent
system: toy
backbone: toy
harness: {name: h, version: "1", commit: 0123abcd}
license: CC-BY-4.0
files: []
"""


def _manifest(prices: str) -> tuple[Submission | None, list[str]]:
    sub, findings = parse_yaml((MANIFEST + prices).encode(), Submission, "submission.yaml")
    return sub, [f.message for f in findings]


def test_a_declared_price_is_read() -> None:
    sub, problems = _manifest("prices:\n  vendor/model-a: {input_usd_per_mtok: 3, output_usd_per_mtok: 15.5,"
                              " source: 'https://example.org/pricing'}\n")
    assert problems == [] and sub is not None
    price = sub.prices["vendor/model-a"]
    assert (price.input_usd_per_mtok, price.output_usd_per_mtok) == (3.0, 15.5)
    assert sub.record()["prices"] == {"vendor/model-a": {"input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.5,
                                                         "source": "https://example.org/pricing"}}
    none, problems = _manifest("")
    assert problems == [] and none is not None and "prices" not in none.record()  # older results keep their bytes


@pytest.mark.parametrize("price", [
    "{input_usd_per_mtok: -1, output_usd_per_mtok: 1}",  # negative
    "{input_usd_per_mtok: .inf, output_usd_per_mtok: 1}",  # infinite
    "{input_usd_per_mtok: .nan, output_usd_per_mtok: 1}",  # not a number
    "{input_usd_per_mtok: 10001, output_usd_per_mtok: 1}",  # over the bound (10,000 USD per million)
    "{input_usd_per_mtok: '3', output_usd_per_mtok: 1}",  # a string
    "{input_usd_per_mtok: true, output_usd_per_mtok: 1}",  # a flag
    "{input_usd_per_mtok: 3}",  # one side missing
    "{input_usd_per_mtok: 3, output_usd_per_mtok: 15, tokens: 1000}",  # a declared token count is never read
    "{input_usd_per_mtok: 3, output_usd_per_mtok: 15, cost_usd: 0.5}",  # nor a declared cost
])
def test_a_price_that_is_not_a_bounded_finite_non_negative_number_is_refused(price: str) -> None:
    sub, problems = _manifest(f"prices:\n  vendor/model-a: {price}\n")
    assert sub is None and problems, price


def test_prices_are_bounded_in_number() -> None:
    many = "".join(f"  m{i}: {{input_usd_per_mtok: 1, output_usd_per_mtok: 1}}\n" for i in range(101))
    sub, problems = _manifest("prices:\n" + many)
    assert sub is None and problems
    sub, problems = _manifest("prices:\n  '': {input_usd_per_mtok: 1, output_usd_per_mtok: 1}\n")
    assert sub is None and problems  # a model needs a name


def _run(cell: str, model: str | None, tokens_in: int | None, tokens_out: int | None,
         verdict: str = "VALID") -> RunResult:
    metrics = {} if tokens_in is None else {"llm_input_tokens": tokens_in, "llm_output_tokens": tokens_out}
    return RunResult(path=f"runs/{cell}.jsonl", verdict=verdict, track="agent", cell=cell,  # type: ignore[arg-type]
                     backbone=model, metrics=metrics)


def _listing(prices: dict | None, *runs: RunResult) -> SimpleNamespace:
    return SimpleNamespace(manifest={} if prices is None else {"prices": prices}, runs=list(runs))


CELL = CellResult(result_id="s/FULL", cell="FULL", runs=3, valid_runs=2)
PRICES = {"a": {"input_usd_per_mtok": 3.0, "output_usd_per_mtok": 15.0},
          "b": {"input_usd_per_mtok": 0.25, "output_usd_per_mtok": 1.25}}


def test_cost_is_derived_tokens_times_the_declared_price() -> None:
    r = _listing(PRICES, _run("FULL", "a", 1_000_000, 200_000), _run("FULL", "b", 400_000, 80_000),
                 _run("FULL", "a", 9_000_000, 9_000_000, verdict="INVALID"), _run("OTHER", "a", 5, 5))
    # by hand: a: 1.0 M in × $3 + 0.2 M out × $15 = 3 + 3 = 6; b: 0.4 × 0.25 + 0.08 × 1.25 = 0.1 + 0.1 = 0.2;
    # the INVALID run and the other cell's run are not counted (the tokens column counts valid runs only)
    cost, why = cell_cost(r, CELL)  # type: ignore[arg-type]
    assert why is None and cost is not None and math.isclose(cost, 6.2, abs_tol=1e-9)


@pytest.mark.parametrize(("prices", "runs", "why"), [
    (None, [_run("FULL", "a", 10, 10)], "no price declared"),
    ({"b": PRICES["b"]}, [_run("FULL", "a", 10, 10)], "no price declared for a"),
    (PRICES, [_run("FULL", "a", None, None)], "tokens not derived from the logs"),
    (PRICES, [_run("FULL", None, 10, 10)], "a run names no model"),
    (PRICES, [_run("FULL", "a", 10, 10, verdict="INVALID")], "no valid run"),
])
def test_no_cost_says_why(prices: dict | None, runs: list[RunResult], why: str) -> None:
    assert cell_cost(_listing(prices, *runs), CELL) == (None, why)  # type: ignore[arg-type]


def _cells(html: str) -> list[str]:
    """Each cell's content, entities decoded (the page escapes parentheses and angle brackets alike)."""
    return [unescape(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", html)]


def test_the_cost_column_shows_the_declared_price_mark_or_the_reason() -> None:
    cost = next(c for c in columns("agent", "drift_total") if c.key == "cost")
    rows = [{"cost": 6.2, "cost_note": "(declared price)", "cost_why": None},
            {"cost": None, "cost_note": None, "cost_why": "no price declared for <b>"}]
    html = str(table_rows(Table("t", "", [cost], rows), [], ""))
    assert _cells(html) == ['$6.2 <span class="db-note">(declared price)</span>',
                            '— <span class="db-note">no price declared for <b></span>']
    assert "<b>" not in html  # a submitted model name is escaped


def test_a_verified_submission_shows_its_cost(tmp_path, run_line) -> None:
    """Five runs, each 4 LLM calls of 500 prompt and 50 completion tokens (`make_agent_submission`), model `toy`."""
    make_agent_submission(tmp_path / "subs", "s-priced", {"FULL": [f"s{i}" for i in range(1, 6)]},
                          prices={"toy": {"input_usd_per_mtok": 3, "output_usd_per_mtok": 15}})
    result = run_line(["verify", str(tmp_path / "subs"), "--out", str(tmp_path / "res"), "--no-cache"])
    assert result.exit_code == 0, result.output
    r = light(read_results(tmp_path / "res" / "s-priced.json"))
    assert {(run.backbone, run.metric("llm_input_tokens"), run.metric("llm_output_tokens")) for run in r.runs} == {
        ("toy", 2000, 200)}  # 4 × 500 in, 4 × 50 out: derived from the logs' llm_call events
    [cell] = r.cells
    row = cell_row(r, cell, "drift_total")
    # by hand: 5 runs × (2,000 × $3 + 200 × $15) / 1,000,000 = 5 × (0.006 + 0.003) = $0.045
    assert row["tokens"] == 5 * 2200
    assert row["cost"] is not None and math.isclose(row["cost"], 0.045, abs_tol=1e-12)
    assert (row["cost_note"], row["cost_why"]) == ("(declared price)", None)
    stored = json.loads((tmp_path / "res" / "s-priced.json").read_text())["manifest"]["prices"]
    assert stored == {"toy": {"input_usd_per_mtok": 3, "output_usd_per_mtok": 15, "source": None}}
