"""Errors that find the real mistake (issue 34, deliverable 4): the line to fix, and what to do.

YAML mistakes at the line where they are (an unclosed quote, a key without its ':', a field whose
':' is missing and that YAML folds into the value above), a manifest's missing run log at its line.
Expected lines are counted by hand in the texts below.
"""

from __future__ import annotations

from checker.format.schema.manifest import Submission
from checker.stages.manifest_yaml import parse_yaml

MANIFEST = """\
format_version: '1.0'
id: mylab-toy
title: A title
authors:
  - name: Ada
contact: ada@example.org
track: agent
system: harness
backbone: scripted
harness: {name: h, version: '1', commit: '0000000'}
license: CC-BY-4.0
files:
  - runs/full-s1.jsonl
"""


def _findings(text: str) -> list[str]:
    model, found = parse_yaml(text.encode(), Submission, "s/submission.yaml")
    assert model is None
    return [f.render() for f in found]


def test_the_manifest_as_written_is_valid():
    model, found = parse_yaml(MANIFEST.encode(), Submission, "s/submission.yaml")
    assert found == [] and model is not None


def test_an_unclosed_quote_on_line_3_is_reported_at_line_3():
    lines = MANIFEST.splitlines()
    lines[2] = 'title: "A title'  # line 3: the quote never closes; the parser runs to the end of the file
    (found,) = _findings("\n".join(lines) + "\n")
    assert found.startswith("s/submission.yaml:3: invalid YAML: while scanning a quoted scalar that starts here: ")


def test_a_key_without_its_colon_is_reported_at_its_line():
    lines = MANIFEST.splitlines()
    lines[5] = "contact ada@example.org"  # line 6
    (found,) = _findings("\n".join(lines) + "\n")
    assert found.startswith("s/submission.yaml:6: invalid YAML: ")


def test_a_field_folded_into_the_value_above_is_found():
    lines = [ln for ln in MANIFEST.splitlines() if not ln.startswith("license:")]
    lines.insert(6, "  license CC-BY-4.0")  # line 7, under `contact:` (line 6): YAML reads one contact, no licence
    found = _findings("\n".join(lines) + "\n")
    assert found == ["s/submission.yaml:7: 'license' reads as part of the value of 'contact' (line 6): a ':' is "
                     "missing after 'license'"]


def test_a_long_value_that_wraps_is_not_a_folded_field():
    text = MANIFEST.replace("title: A title", "title: A title that a YAML writer wrapped\n  onto a second line")
    model, found = parse_yaml(text.encode(), Submission, "s/submission.yaml")
    assert found == [] and model is not None and model.title.endswith("onto a second line")


def test_a_missing_run_log_is_reported_at_its_line_in_the_manifest(tmp_path, run_line):
    folder = tmp_path / "mylab-toy"
    folder.mkdir()
    (folder / "submission.yaml").write_text(MANIFEST + "  - runs/full-s2.jsonl\n", encoding="utf-8")
    res = run_line(["validate", str(folder)])
    assert res.exit_code == 1
    # line 13: the first item of `files:`; line 14: the second (neither log exists)
    assert f"{folder}/submission.yaml:13: files: 'runs/full-s1.jsonl' does not exist; add the log, or remove the line" \
        in res.output
    assert f"{folder}/submission.yaml:14: files: 'runs/full-s2.jsonl' does not exist" in res.output
