"""The fast paths of issue 21 give what the slow ones gave, and commands load only what they use.

* verify reads a log once: the events validation keeps are the events `read_run` reads;
* a log too large to replay is not kept (memory stays bounded) and takes the streamed path;
* a manifest read in one YAML pass gives the findings of the three-pass read, and a value its
  tag cannot build is a finding, not a traceback;
* `verify` and `validate` of an agent submission, run from the repository root (where the
  default `problems/` folder is), import neither Z3 nor pandas nor numpy.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from checker.format.logio import REPLAY_CONTAINER_BYTES
from checker.format.schema.manifest import Submission
from checker.pipeline.run_log import kept_record, read_run
from checker.stages.load import parse_yaml
from checker.stages.validate import KeptLog, ValidationReport, validate_run_file

AGENT = REPO / "submissions" / "driftboard-microworld-agent"
LOGS = sorted((AGENT / "runs").glob("*.jsonl"))


@pytest.mark.parametrize("log", LOGS[:4], ids=lambda p: p.name)
def test_kept_events_are_the_events_read_run_reads(log):
    kept = KeptLog(max_weight=1 << 40, container_bytes=REPLAY_CONTAINER_BYTES)
    report = ValidationReport()
    validate_run_file(log, log.name, report, kept)
    assert report.ok and kept.complete
    fast, slow = kept_record(kept, log.name), read_run(log, log.name)
    assert fast.sha256 == slow.sha256 == hashlib.sha256(log.read_bytes()).hexdigest()
    assert (fast.start, fast.end, fast.lines, fast.content_sha256) == (slow.start, slow.end, slow.lines, slow.content_sha256)
    assert fast.events == slow.events
    # every line but run_start and run_end is an event
    assert len(fast.events) == len(log.read_bytes().splitlines()) - 1 - (fast.end is not None)


def test_a_log_over_the_replay_bound_is_not_kept():
    log = LOGS[0]
    data = log.read_bytes()
    weight = len(data) + REPLAY_CONTAINER_BYTES * (data.count(b"{") + data.count(b"["))
    kept = KeptLog(max_weight=weight - 1, container_bytes=REPLAY_CONTAINER_BYTES)
    report = ValidationReport()
    validate_run_file(log, log.name, report, kept)
    assert report.ok  # still validated, streaming
    assert not kept.complete and kept.events == [] and kept.lines == []
    exact = KeptLog(max_weight=weight, container_bytes=REPLAY_CONTAINER_BYTES)
    validate_run_file(log, log.name, ValidationReport(), exact)
    assert exact.complete  # the bound is inclusive, as `over_replay_limit` counts it


@pytest.mark.parametrize(("text", "line", "message"), [
    (b"a: &x 1\nb: *x\n", 1, "YAML anchors and aliases are not allowed"),
    (b"id: x\nid: y\n", 2, "duplicate key 'id'"),
    (b"- a\nb: 1 &x\n", 2, "invalid YAML: expected <block end>, but found '?'"),
    (b"a: 1\n---\nb: 2\n", 2, "invalid YAML: but found another document"),
    (b"[1]\n", 1, "top level must be a mapping"),
    # a value its tag cannot build: a finding (it used to escape as a traceback)
    (b"id: x\ncreated: !!timestamp 2020-13-45\n", 1, "invalid YAML: month must be in 1..12"),
    (b"{[1]: 2}\n", 1, "invalid YAML: found unhashable key"),
    # a character the reader refuses (found by `driftboard bench fuzz`: the one-pass reader checks it on creation)
    (b"id: x\x07\n", None, 'invalid YAML: unacceptable character #x0007: special characters are not allowed\n'
                            '  in "<unicode string>", position 5'),
])
def test_manifest_yaml_findings(text, line, message):
    parsed, findings = parse_yaml(text, Submission, "s.yaml")
    assert parsed is None
    assert [(f.line, f.message) for f in findings] == [(line, message)]


def test_a_manifest_reads_the_same_in_one_pass():
    import yaml

    raw = (AGENT / "submission.yaml").read_bytes()
    parsed, findings = parse_yaml(raw, Submission, "submission.yaml")
    assert findings == []
    assert parsed == Submission.model_validate(yaml.safe_load(raw))


def _modules_after(args: list[str], tmp_path: Path) -> set[str]:
    code = ("import sys\nfrom checker.cli.main import cli\ntry:\n    cli.main(sys.argv[1:], standalone_mode=False)\n"
            "finally:\n    print(json.dumps(sorted(sys.modules)))\n")
    proc = subprocess.run([sys.executable, "-c", "import json\n" + code, *args], cwd=REPO, capture_output=True,
                          text=True, check=False, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin",
                                                       "DRIFTBOARD_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(json.loads(proc.stdout.splitlines()[-1]))


@pytest.mark.parametrize("command", [["verify", "--no-cache", "--out", "{tmp}/results"], ["validate"]])
def test_agent_commands_load_no_z3_pandas_or_numpy(command, tmp_path):
    assert (REPO / "problems").is_dir()  # the default problem sets are there: they must not be loaded
    args = [command[0], str(AGENT), *(a.format(tmp=tmp_path) for a in command[1:])]
    modules = _modules_after(args, tmp_path)
    assert "checker.cli.main" in modules
    assert not {m.split(".")[0] for m in modules} & {"z3", "pandas", "numpy"}
