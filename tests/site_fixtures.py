"""Results files for the site tests: synthetic submissions plus hostile and undefined cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from driftboard_tools.generate.results import ranked, synthetic_results, write_results_dir

from checker.format.results_model import ResultsFile

XSS_TITLE = "<script>alert(1)</script> Injection test"
XSS_AUTHOR = "<img src=x onerror=alert(2)>"
XSS_REASON = "[click me](javascript:alert(3)) <b>bold</b> | pipe"
XSS_CELL = "<i>evil</i> cell"
REAL_BACKBONE = "acme-chat-7b"
"""The model the hostile (non-synthetic) submission's logs record calls to: its rows are `real`."""


def fixture_results() -> list[ResultsFile]:
    """Four synthetic submissions (agent + constraint), one hostile, one with an all-undefined cell."""
    base = synthetic_results(4, seed=11)
    hostile = base[0].model_dump(mode="json")
    hostile["submission_id"] = "zz-hostile"
    hostile["title"] = XSS_TITLE
    hostile["authors"] = [XSS_AUTHOR]
    hostile["synthetic"] = False
    hostile["runs"][0]["reasons"] = [XSS_REASON]
    hostile["runs"][0]["mismatches"] = [{"line": 3, "field": "<script>alert(4)</script>", "recorded": "<x>",
                                         "recomputed": None, "reason": XSS_REASON}]
    hostile["cells"][1]["cell"] = XSS_CELL
    for cell in hostile["cells"]:
        cell["result_id"] = f"zz-hostile/{cell['cell']}"
    for run in hostile["runs"]:
        run["backbone"] = REAL_BACKBONE
        if run["cell"] == "J0":
            run["cell"] = XSS_CELL
    hostile["claims"][0]["source"] = XSS_REASON
    undefined = base[1].model_dump(mode="json")
    undefined["submission_id"] = "undefined-case"
    undefined["title"] = "No reference beats anywhere"
    for cell in undefined["cells"]:
        for key in ("gds_bind", "gds_abandon", "gds_aligned", "drift_total"):
            if key in cell["metrics"]:
                agg: dict[str, Any] = cell["metrics"][key]
                agg.update(values={s: None for s in agg["values"]}, mean=None, min=None, max=None, ci95=None,
                           n_defined=0)
        for key, ad in cell["all_declared"].items():
            ad.update(value=None, n_undefined=ad["n_declared"] - ad["n_worst"],
                      values={s: (None if v != ad["worst"] or key == "completions" else v) for s, v in ad["values"].items()})
    for run in undefined["runs"]:
        if run["verdict"] == "VALID" and "drift_ref_beats" in run["metrics"]:
            run["metrics"]["drift_ref_beats"] = 0
    for cell in undefined["cells"]:
        cell["result_id"] = f"undefined-case/{cell['cell']}"
    return [*base, ranked(ResultsFile.model_validate(hostile)), ranked(ResultsFile.model_validate(undefined))]


def build_fixture_site(root: Path) -> Path:
    """Write `fixture_results` into `root/results` and build their site into `root/site`; returns the site folder.

    The tests read one build of it per session: `conftest.fixture_site`.
    """
    from checker.render.site import build_site

    results = write_results_dir(fixture_results(), root / "results")
    assert build_site(results, root / "site") == 0
    return root / "site"
