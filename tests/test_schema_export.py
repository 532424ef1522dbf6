"""`driftboard schema` writes JSON Schemas that an independent validator accepts the shipped logs with.

Two independent validators: `jsonschema` checks the schemas themselves and the manifests; every line of
every shipped log (hundreds of thousands of events) goes through `jsonschema-rs` (Rust, Draft 2020-12), which
is about 50x faster on these logs, and the tests below show both reject the same forged events.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import jsonschema_rs
import pytest
import yaml
from conftest import CASES, REPO

from checker.format.storage import open_log


def _shipped_submissions() -> list[Path]:
    roots = [p for p in (CASES / "valid").iterdir() if p.is_dir()]
    subs = REPO / "submissions"
    if subs.exists():
        roots += [p for p in subs.iterdir() if (p / "submission.yaml").exists()]
    return sorted(roots)


@pytest.fixture(scope="module")
def schemas(tmp_path_factory):
    from click.testing import CliRunner

    from checker.cli.main import cli

    out = tmp_path_factory.mktemp("schema")
    result = CliRunner().invoke(cli, ["schema", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {p.name: json.loads(p.read_text()) for p in out.glob("*.json")}


def test_schema_files_are_written(schemas):
    assert {"event.schema.json", "submission.schema.json", "prereg.schema.json"} <= set(schemas)
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("root", _shipped_submissions(), ids=lambda p: p.name)
def test_shipped_logs_validate_against_the_schema(root, schemas):
    event = jsonschema_rs.Draft202012Validator(schemas["event.schema.json"])
    manifest = yaml.safe_load((root / "submission.yaml").read_text())
    jsonschema.Draft202012Validator(schemas["submission.schema.json"]).validate(manifest)
    jsonschema.Draft202012Validator(schemas["prereg.schema.json"]).validate(
        yaml.safe_load((root / "prereg.yaml").read_text())
    )
    n = 0
    for name in manifest["files"]:
        with open_log(root / name) as fh:  # a compressed log (.jsonl.zst) is read as its lines
            text = fh.read().decode("utf-8")
        for line in text.splitlines():
            event.validate(json.loads(line))
            n += 1
    assert n > 0


@pytest.mark.parametrize("validator", [jsonschema.Draft202012Validator, jsonschema_rs.Draft202012Validator],
                         ids=["jsonschema", "jsonschema-rs"])
def test_schema_rejects_what_the_checker_rejects(schemas, validator):
    """The exported schema is not vacuous, under both validators: an unknown event type and a missing field fail it."""
    event = validator(schemas["event.schema.json"])
    assert not event.is_valid({"seq": 0, "prev": "0" * 64, "type": "teleport"})
    assert not event.is_valid({"seq": 0, "prev": "0" * 64, "type": "beat", "turn": 1})
    assert event.is_valid({"seq": 0, "prev": "0" * 64, "type": "beat", "turn": 1, "action": "RESET"})
