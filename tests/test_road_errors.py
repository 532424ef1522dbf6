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


# --------------------------------------------------------------------------- cite: stale results


def _verified(tmp_path, run_line):
    from submission_factory import make_agent_submission

    folder = make_agent_submission(tmp_path / "subs", "s-stale", {"FULL": ["s1", "s2"]})
    results = tmp_path / "results"
    done = run_line(["verify", str(folder), "--no-cache", "--out", str(results)])
    assert done.exit_code == 0, done.output
    return folder, results


def test_cite_of_a_fresh_tree_prints_the_citation(tmp_path, run_line):
    _, results = _verified(tmp_path, run_line)
    res = run_line(["cite", "s-stale/FULL", "--results", str(results)])
    assert res.exit_code == 0 and res.output.startswith("@misc{"), res.output


def test_cite_refuses_when_a_log_changed_after_verify(tmp_path, run_line):
    folder, results = _verified(tmp_path, run_line)
    log = sorted((folder / "runs").glob("*.jsonl"))[0]
    lines = log.read_text().splitlines()
    lines[-1] = lines[-1].replace('"COMPLETED"', '"FAILED"')  # an edited last line (run_end status)
    log.write_text("\n".join(lines) + "\n")
    res = run_line(["cite", "s-stale/FULL", "--results", str(results)])
    assert res.exit_code == 1
    assert "changed since it was verified): its title, figures and reproduce commit may not be the tree's; run " \
           "`driftboard verify submissions/` first, then cite" in res.output
    assert log.name in res.output and "@misc" not in res.output


def test_cite_refuses_when_the_manifest_changed_after_verify(tmp_path, run_line):
    folder, results = _verified(tmp_path, run_line)
    manifest = folder / "submission.yaml"
    manifest.write_text(manifest.read_text().replace("title: ", "title: Renamed ", 1))
    res = run_line(["cite", "s-stale", "--results", str(results)])
    assert res.exit_code == 1 and "submission.yaml changed since it was verified" in res.output


# --------------------------------------------------------------------------- the wrong working directory


def test_cite_serve_build_from_the_wrong_folder_name_the_project_root(tmp_path, run_line, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no mkdocs.yml, no build/, no submissions/ here
    expected = {
        ("cite", "x"): "build/results: not found, and {cwd} holds no mkdocs.yml: run `driftboard cite` from the "
                       "project root (the folder holding mkdocs.yml), or pass --results DIR",
        ("serve",): "build/site: not found, and {cwd} holds no mkdocs.yml: run `driftboard serve` from the project "
                    "root (the folder holding mkdocs.yml), or pass --out DIR",
        ("build",): "submissions: not found, and {cwd} holds no mkdocs.yml: run `driftboard build` from the project "
                    "root (the folder holding mkdocs.yml), or pass --project DIR and --submissions DIR",
    }
    for args, line in expected.items():
        res = run_line(list(args))
        assert res.exit_code == 2, res.output
        assert res.output == f"Error: {line.format(cwd=tmp_path)}\n"


# --------------------------------------------------------------------------- validate: an edited last line


def test_validate_finds_an_edited_last_line_through_the_recorded_digest(tmp_path, run_line):
    import hashlib
    import subprocess
    import sys

    from conftest import REPO

    done = subprocess.run([sys.executable, str(REPO / "examples" / "agent_harness.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    folder = tmp_path / "example-agent"
    assert run_line(["validate", str(folder)]).exit_code == 0
    log = folder / "runs" / "full-s1.jsonl"
    recorded = hashlib.sha256(log.read_bytes()).hexdigest()
    lines = log.read_text().splitlines()
    assert '"type":"run_end"' in lines[-1].replace(" ", "") and '"COMPLETED"' in lines[-1]
    lines[-1] = lines[-1].replace('"COMPLETED"', '"FAILED"')  # the run_end status: no hash chain covers it
    log.write_text("\n".join(lines) + "\n")
    digest = hashlib.sha256(log.read_bytes()).hexdigest()
    manifest_line = next(n for n, text in enumerate((folder / "submission.yaml").read_text().splitlines(), 1)
                         if text.strip().startswith("runs/full-s1.jsonl:"))
    res = run_line(["validate", str(folder)])
    assert res.exit_code == 1, res.output
    assert (f"{folder}/runs/full-s1.jsonl: its SHA-256 is {digest[:12]}…, not the {recorded[:12]}… that "
            f"submission.yaml:{manifest_line} records: the log changed after it was written") in res.output


def test_a_digest_for_a_file_not_listed_is_reported(tmp_path, run_line):
    folder = tmp_path / "mylab-toy"
    (folder / "runs").mkdir(parents=True)
    (folder / "runs" / "full-s1.jsonl").write_text("")
    (folder / "submission.yaml").write_text(MANIFEST + "logs_sha256:\n  runs/other.jsonl: " + "ab" * 32 + "\n")
    res = run_line(["validate", str(folder)])
    assert f"{folder}/submission.yaml:15: logs_sha256: 'runs/other.jsonl' is not one of `files`" in res.output


def test_a_missing_declared_seed_is_reported_at_its_line_of_the_preregistration(tmp_path, run_line):
    from submission_factory import make_agent_submission

    folder = make_agent_submission(tmp_path / "subs", "s-seed", {"FULL": ["s1", "s2"]})
    manifest = folder / "submission.yaml"
    listed = [p for p in sorted((folder / "runs").glob("*.jsonl")) if "s2" in p.name]
    assert len(listed) == 1
    listed[0].unlink()
    rel = f"runs/{listed[0].name}"
    manifest.write_text("\n".join(ln for ln in manifest.read_text().splitlines() if rel not in ln) + "\n")
    prereg_lines = (folder / "prereg.yaml").read_text().splitlines()
    line = next(n for n, text in enumerate(prereg_lines, 1) if "s2" in text and ("seeds" in text or "- " in text))
    res = run_line(["verify", str(folder), "--no-cache", "--no-results"])
    assert res.exit_code == 1
    assert f"{folder}/prereg.yaml:{line}: cell FULL, seed s2: declared in prereg.yaml but no readable run log" \
        in res.output


# --------------------------------------------------------------------------- not ranked, and why


def test_verify_and_the_ci_summary_say_not_ranked_with_the_reason(tmp_path, run_line):
    """Runs that name no world have no board: the text and the pull request's summary give the reason."""
    from submission_factory import make_agent_submission

    folder = make_agent_submission(tmp_path / "subs", "s-two", {"FULL": ["s1", "s2"]})
    text = run_line(["verify", str(folder), "--no-cache", "--no-results"])
    assert text.exit_code == 0, text.output
    reason = "not ranked: its runs do not name one environment (world or problem set), so it has no board"
    assert f"   FULL: {reason}" in text.output
    doc = run_line(["verify", str(folder), "--no-cache", "--no-results", "--format", "json"])
    (tmp_path / "verify.json").write_text(doc.output)
    summary = run_line(["ci-summary", str(tmp_path / "verify.json"), "--no-annotations"])
    assert reason in summary.output, summary.output
