"""`driftboard bench agent` and `bench cli`: smoke tests of what they print (not timings).

The benchmarks read ARG's conformance cases from the shared data (DRIFTBOARD_SHARED_DATA,
default ../shared/data); without it they must say so and exit 2. Two cases are linked into a
temporary folder so the smoke test stays short.
"""

from __future__ import annotations

import pytest
from conftest import shared_data

CASES = shared_data() / "arg" / "cases"
SMALL = ("t_zcr_zcr-echo", "t_chain2_g2-test")

needs_cases = pytest.mark.skipif(
    not all((CASES / name / "state.db").is_file() for name in SMALL),
    reason=f"ARG conformance cases not found under {CASES} (shared data absent; set DRIFTBOARD_SHARED_DATA)")


def _figures(line: str) -> dict[str, float]:
    return {k: float(v) for k, v in (item.split("=", 1) for item in line.split())}


@pytest.fixture
def small_cases(tmp_path):
    folder = tmp_path / "cases"
    folder.mkdir()
    for name in SMALL:
        (folder / name).symlink_to(CASES / name, target_is_directory=True)
    return folder


@pytest.mark.shared_data
@needs_cases
def test_bench_agent_reports_per_beat_figures_and_start_up(run_line, small_cases, tmp_path):
    result = run_line(["bench", "agent", "--cases", str(small_cases), "--repeats", "1", "--startup-runs", "1",
                       "--workdir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("machine: ") and "cores" in lines[0]
    figures = _figures(lines[-1])
    assert set(figures) == {"score_ms_per_beat", "verify_ms_per_beat", "import_verify_ms_per_beat", "score_vs_arg",
                            "import_verify_vs_arg", "startup_verify_s", "startup_validate_s"}
    assert all(v > 0 for v in figures.values())
    # ratios are against ARG's probes at 0.27 ms/beat (issue 21)
    assert figures["score_vs_arg"] == pytest.approx(figures["score_ms_per_beat"] / 0.27, abs=0.01)
    # both cases, with their beats (truth.json: 7 and 13 actions), and the stages beside the baselines
    assert any(line.split()[:3] == ["t_zcr_zcr-echo", "1", "7"] for line in lines)
    assert any(line.split()[:3] == ["t_chain2_g2-test", "1", "13"] for line in lines)
    text = result.output
    for what in ("replay + gate + metrics", "validate (one pass", "baseline: json.loads per line",
                 "inherent: SHA-256 per line (chain)", "inherent: validating parse (validate_json)", "import + verify",
                 "driftboard verify", "driftboard validate", "python -c pass (baseline)"):
        assert what in text
    assert "goals: replay + gate + metrics <= 1x ARG's probes" in text


@pytest.mark.shared_data
@needs_cases
def test_bench_cli_reports_start_up(run_line, small_cases, tmp_path):
    result = run_line(["bench", "cli", "--cases", str(small_cases), "--runs", "1", "--workdir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    figures = _figures(result.output.splitlines()[-1])
    assert set(figures) == {"startup_verify_s", "startup_validate_s", "startup_help_s", "python_s", "startup_verify_cpu_s"}
    # a command cannot start faster than the bare interpreter
    assert figures["startup_verify_s"] > figures["python_s"] > 0


def test_bench_without_cases_says_where_they_come_from(run_line, tmp_path):
    for command in (["bench", "agent"], ["bench", "cli"]):
        result = run_line([*command, "--cases", str(tmp_path / "absent")])
        assert result.exit_code == 2
        assert "DRIFTBOARD_SHARED_DATA" in result.output and "Traceback" not in result.output


def test_bench_agent_generated_reports_the_ratio_to_json_loads(run_line, tmp_path):
    # no shared data needed: the workload is bench scale's generator (4 runs of about 300 events here)
    result = run_line(["bench", "agent", "--generated", "--generated-runs", "4", "--generated-events", "300",
                       "--repeats", "1", "--workdir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("machine: ") and "load average" in lines[0]
    last = lines[-1].split()
    figures = {k: float(v) for k, v in (item.split("=", 1) for item in last)}
    assert set(figures) == {"ratio_vs_json_loads", "verify_us_per_event", "json_loads_us_per_event", "events",
                            "peak_rss_mb", "load_avg"}
    assert 4 * 250 <= figures["events"] <= 4 * 350  # beats_for() lands within a beat's events of 300 per run
    # the ratio is the baseline's time over verify's, as printed beside it
    assert figures["ratio_vs_json_loads"] == pytest.approx(
        figures["json_loads_us_per_event"] / figures["verify_us_per_event"], rel=0.02)
    for what in ("validate (chain, parse, canonical, payload, kept)", "of which evidence",
                 "slow path: verify, every line strict parse + models", "baseline: json.loads per line",
                 "inherent floor"):
        assert what in result.output


def test_bench_agent_generated_refuses_tiny_sizes(run_line, tmp_path):
    result = run_line(["bench", "agent", "--generated", "--generated-runs", "2", "--workdir", str(tmp_path)])
    assert result.exit_code == 2 and "--generated-runs" in result.output and "Traceback" not in result.output
