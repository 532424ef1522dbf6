"""Hostile submissions, submission level (issue 9): paths, links, special files, copies, history, names, pages.

Every case asserts the documented exit code of `validate` and `verify` (and `ci` where it
applies), a finding naming the file, no traceback, and that the runs reported equal the run files
found: every `*.jsonl` entry of the folder (and every listed file) appears in verify's JSON with a
verdict, and the valid runs are still scored. Static cases that fit the golden format live in
`tests/cases/invalid/` (see `tests/cases/generate.py`); links, FIFOs, sockets and devices cannot be
committed, so they are made here, at test time.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import socket
import threading
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from bs4 import BeautifulSoup
from cases.generate import RUN, Case, chain
from conftest import CASES
from test_ci import commit, git, make_submission

from checker.cli.ci_annotations import annotation_lines, escape_data
from checker.cli.ci_summary import code, md, parse_document, render_summary
from checker.format.errors import Finding, visible
from checker.format.logio import RunLogWriter
from checker.render.citation import site_url
from checker.render.text import md_escape
from checker.stages import load

ESC = "\x1b[31m"
RLO = "\u202e"


# --------------------------------------------------------------------------- helpers


def submission(root: Path, name: str, *, runs: int = 1) -> Path:
    """A valid one- or two-run agent submission `root/name` (the golden cases' generator)."""
    c = Case(name)
    c.add_run(RUN)
    if runs > 1:
        c.add_run("runs/r2.jsonl", run_id=f"{name}-r2")
    c.write(root)
    return root / name


def run_cli(run_line, args: list[str]) -> tuple[int, str]:
    result = run_line(args)
    out = result.stdout + result.stderr
    assert "Traceback" not in out
    return result.exit_code, out


def validate(run_line, *paths: Path | str) -> tuple[int, str]:
    return run_cli(run_line, ["validate", *map(str, paths)])


def verify(run_line, *paths: Path | str, extra: tuple[str, ...] = ("--no-cache", "--no-results")) -> dict[str, Any]:
    code_, out = run_cli(run_line, ["verify", *map(str, paths), *extra, "--format", "json"])
    doc = json.loads(out)
    assert doc["exit_code"] == code_
    return doc


def problems(doc: dict[str, Any]) -> list[str]:
    return [(f"{p['path']}:{p['line']}" if p["line"] is not None else p["path"]) + f": {p['message']}"
            for p in doc["problems"]]


def reported(doc: dict[str, Any]) -> dict[str, str]:
    """Run path -> verdict, over every submission of a verify document (each run once)."""
    runs = [(r["path"], r["verdict"]) for s in doc["submissions"] for r in s["runs"]]
    assert len(runs) == len({p for p, _ in runs}), runs
    return dict(runs)


def run_files(folder: Path, shown: str) -> set[str]:
    """The run files a reader finds: every `*.jsonl` entry (any type, links not followed) and every listed file."""
    found = set()
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if name.endswith(".jsonl") and (p.is_symlink() or not p.is_dir()):
                found.add(f"{shown}/{visible(p.relative_to(folder).as_posix())}")
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) / d).is_symlink()]
    try:
        listed = yaml.safe_load((folder / "submission.yaml").read_text(encoding="utf-8")).get("files") or []
    except (OSError, ValueError, AttributeError, yaml.YAMLError):
        listed = []
    for name in listed:
        if (isinstance(name, str) and name.isascii() and name.isprintable() and ".." not in name.split("/")
                and name not in ("submission.yaml", "prereg.yaml")):  # the manifests are never run logs
            p = folder / name
            try:
                exists = not name.startswith("/") and (p.is_symlink() or p.is_file())
            except OSError:  # e.g. a name longer than the file system allows: no such file
                exists = False
            if exists:
                found.add(f"{shown}/{Path(name).as_posix()}")
    return found


class FifoWatch:
    """A FIFO, and a thread that notices if anything opens it for reading (then unblocks the reader).

    Opening the write end with O_NONBLOCK succeeds only while a reader has the FIFO open, so a
    checker that opened it would be seen (and given EOF instead of blocking the test forever).
    """

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self.opened = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.is_set():
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.01)
                continue
            self.opened = True
            os.close(fd)

    def stop(self) -> bool:
        self._stop.set()
        self._thread.join(5)
        return self.opened


@pytest.fixture
def here(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def no_raw_controls(text: str) -> None:
    """Terminal output holds no control (other than newline), bidi, zero-width or C1 character."""
    bad = [hex(ord(ch)) for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp")]
    assert not bad, bad


# --------------------------------------------------------------------------- links and special files


def test_symlink_to_a_run_log_outside(here, run_line):
    outside = submission(here / "elsewhere", "other")
    sub = submission(here, "sub")
    (sub / "runs" / "out.jsonl").symlink_to(outside / RUN)
    code_, out = validate(run_line, "sub")
    assert code_ == 1
    assert "sub/runs/out.jsonl: symbolic links are not allowed in a submission" in out
    doc = verify(run_line, "sub")
    assert doc["exit_code"] == 1
    assert reported(doc) == {"sub/runs/r1.jsonl": "VALID", "sub/runs/out.jsonl": "MALFORMED"}
    assert set(reported(doc)) == run_files(sub, "sub")


def test_symlinked_runs_folder_and_link_loops(here, run_line):
    sub = submission(here, "sub")
    shutil.move(sub / "runs", here / "real-runs")
    (sub / "runs").symlink_to(here / "real-runs", target_is_directory=True)
    (sub / "loops").mkdir()
    (sub / "loops" / "a.jsonl").symlink_to("b.jsonl")
    (sub / "loops" / "b.jsonl").symlink_to("a.jsonl")
    (sub / "loops" / "self").symlink_to(".", target_is_directory=True)
    (sub / "loops" / "dangling.jsonl").symlink_to(here / "no-such-file")
    code_, out = validate(run_line, "sub")
    assert code_ == 1
    for name in ("runs", "loops/a.jsonl", "loops/b.jsonl", "loops/self", "loops/dangling.jsonl"):
        assert f"sub/{name}: symbolic links are not allowed in a submission" in out
    doc = verify(run_line, "sub")
    assert doc["exit_code"] == 1
    runs = reported(doc)
    assert runs == {"sub/runs/r1.jsonl": "MALFORMED", "sub/loops/a.jsonl": "MALFORMED",
                    "sub/loops/b.jsonl": "MALFORMED", "sub/loops/dangling.jsonl": "MALFORMED"}
    listed = next(r for r in doc["submissions"][0]["runs"] if r["path"] == "sub/runs/r1.jsonl")
    assert listed["reasons"] == ["sub/runs/r1.jsonl: is inside 'runs', which was not read: symbolic links are not "
                                 "allowed in a submission"]


def test_symlinked_submission_folder_is_not_read(here, run_line):
    outside = submission(here / "elsewhere", "evil")
    (here / "col").mkdir()
    submission(here / "col", "good")
    (here / "col" / "evil").symlink_to(outside, target_is_directory=True)
    for target in ("col", "col/evil"):
        code_, out = validate(run_line, target)
        assert code_ == 1
        assert "col/evil: the submission folder is a symbolic link: links are not followed" in out
        doc = verify(run_line, target)
        assert doc["exit_code"] == 1
        assert not [p for p in reported(doc) if p.startswith("col/evil")]  # nothing was read through it
    assert reported(verify(run_line, "col")) == {"col/good/runs/r1.jsonl": "VALID"}


def test_symlinked_manifest_and_fifo_prereg_are_refused_and_the_runs_still_scored(here, run_line):
    sub = submission(here, "sub")
    (sub / "submission.yaml").rename(here / "manifest-elsewhere.yaml")
    (sub / "submission.yaml").symlink_to(here / "manifest-elsewhere.yaml")
    (sub / "prereg.yaml").unlink()
    watch = FifoWatch(sub / "prereg.yaml")
    try:
        code_, out = validate(run_line, "sub")
        doc = verify(run_line, "sub", extra=("--no-cache", "--out", "results"))
    finally:
        assert not watch.stop(), "the prereg.yaml FIFO was opened"
    assert code_ == 1
    assert "sub/submission.yaml: symbolic links are not allowed in a submission" in out
    assert "sub/prereg.yaml: is a FIFO (named pipe), not a regular file: refused without opening it" in out
    assert doc["exit_code"] == 1
    assert reported(doc) == {"sub/runs/r1.jsonl": "VALID"}  # no readable manifest: every *.jsonl is scored
    assert doc["submissions"][0]["submission_id"] is None


def test_hard_link_to_a_file_outside(here, run_line):
    outside = submission(here / "elsewhere", "other")
    sub = submission(here, "sub")
    os.link(outside / RUN, sub / "runs" / "r2.jsonl")
    code_, out = validate(run_line, "sub")
    assert code_ == 1
    assert ("sub/runs/r2.jsonl: is a hard link (2 names for one file): links are not allowed; not read" in out)
    doc = verify(run_line, "sub")
    assert reported(doc) == {"sub/runs/r1.jsonl": "VALID", "sub/runs/r2.jsonl": "MALFORMED"}
    assert doc["exit_code"] == 1


@pytest.mark.parametrize("listed", [True, False], ids=["listed", "unlisted"])
def test_fifo_run_log_is_refused_without_opening(here, run_line, listed):
    c = Case("sub")
    c.add_run(RUN)
    if listed:
        c.files.append("runs/pipe.jsonl")
    c.write(here)
    watch = FifoWatch(here / "sub" / "runs" / "pipe.jsonl")
    try:
        code_, out = validate(run_line, "sub")
        doc = verify(run_line, "sub")
        loose_code, loose = validate(run_line, "sub/runs/pipe.jsonl")
    finally:
        assert not watch.stop(), "the FIFO was opened"
    message = "sub/runs/pipe.jsonl: is a FIFO (named pipe), not a regular file: refused without opening it"
    assert code_ == 1 and message in out
    assert loose_code == 1 and message in loose
    assert doc["exit_code"] == 1
    assert reported(doc) == {"sub/runs/r1.jsonl": "VALID", "sub/runs/pipe.jsonl": "MALFORMED"}


def test_socket_and_device_run_logs(here, run_line):
    sub = submission(here, "sub")
    with socket.socket(socket.AF_UNIX) as s:
        s.bind("sub/runs/sock.jsonl")  # relative: socket paths are limited to about 100 bytes
    expected = {"sub/runs/r1.jsonl": "VALID", "sub/runs/sock.jsonl": "MALFORMED"}
    try:
        os.mknod(sub / "runs" / "null.jsonl", 0o644 | 0o020000, os.makedev(1, 3))  # a character device
        expected["sub/runs/null.jsonl"] = "MALFORMED"
    except PermissionError:  # not root: the device case is covered by /dev/null below
        pass
    code_, out = validate(run_line, "sub")
    assert code_ == 1
    assert "sub/runs/sock.jsonl: is a socket, not a regular file: refused without opening it" in out
    if "sub/runs/null.jsonl" in expected:
        assert "sub/runs/null.jsonl: is a character device, not a regular file: refused without opening it" in out
    doc = verify(run_line, "sub")
    assert doc["exit_code"] == 1
    assert reported(doc) == expected
    # a device given on the command line: refused by its type, never read (/dev/zero would never end)
    for dev in ("/dev/null", "/dev/zero"):
        code_, out = validate(run_line, dev)
        assert code_ == 1 and f"{dev}: is a character device, not a regular file: refused without opening it" in out
        assert reported(verify(run_line, dev)) == {dev: "MALFORMED"}


def test_too_many_files_and_too_deep_a_tree(here, run_line, monkeypatch):
    deep = submission(here, "deep")
    nested = deep / "runs" / "a" / "b" / "c" / "d" / "e" / "f" / "g" / "h"  # runs is depth 1, h is depth 9
    nested.mkdir(parents=True)
    (nested / "lost.jsonl").write_bytes(b"")
    code_, out = validate(run_line, "deep")
    assert code_ == 1
    assert "deep/runs/a/b/c/d/e/f/g/h: folder is nested more than 8 levels deep: its contents are not read" in out
    assert reported(verify(run_line, "deep")) == {"deep/runs/r1.jsonl": "VALID"}
    assert load.MAX_DEPTH == 8 and load.MAX_ENTRIES == 20_000  # the figures site/format.md documents
    monkeypatch.setattr(load, "MAX_ENTRIES", 40)  # the real limit, 20,000, takes seconds to create
    many = submission(here, "many")
    for k in range(40):
        (many / "runs" / f"extra{k}.txt").write_bytes(b"")
    code_, out = validate(run_line, "many")
    assert code_ == 1
    assert ("many: more than 40 files and folders: the submission is not read (split it, or remove what is not "
            "a run log)") in out
    doc = verify(run_line, "many")
    assert doc["exit_code"] == 1 and reported(doc) == {}


def test_hostile_file_names_on_disk(here, run_line):
    sub = submission(here, "sub")
    names = {f"e{ESC}red.jsonl": "U+001B (a control character)",
             f"r{RLO}lnosj.txt": "U+202E RIGHT-TO-LEFT OVERRIDE (a bidi or zero-width formatting character)",
             "cafe\u0301.jsonl": "U+0301 COMBINING ACUTE ACCENT (a non-ASCII character: look-alike letters and "
                                 "Unicode normalisation make such names ambiguous)"}
    for name in names:
        (sub / "runs" / name).write_bytes((sub / RUN).read_bytes())
    (sub / f"bad{RLO}dir").mkdir()
    (sub / f"bad{RLO}dir" / "inner.jsonl").write_bytes(b"{}\n")
    (sub / "runs" / "R1.jsonl").write_bytes((sub / RUN).read_bytes())
    code_, out = validate(run_line, "sub")
    assert code_ == 1
    no_raw_controls(out)
    rule = "names may use only A-Z a-z 0-9 . _ -"
    for name, what in names.items():
        assert f"sub/runs/{visible(name)}: name contains {what}: {rule}" in out
    assert f"sub/bad\\u202edir: name contains {names[f'r{RLO}lnosj.txt']}: {rule}" in out
    assert ("sub/runs/r1.jsonl: name differs only in case from 'R1.jsonl': the two collide on case-insensitive "
            "file systems") in out
    assert "sub/runs/R1.jsonl: run log is not listed in submission.yaml" in out
    doc = verify(run_line, "sub")
    assert doc["exit_code"] == 1
    runs = reported(doc)
    assert runs == {"sub/runs/r1.jsonl": "VALID", "sub/runs/R1.jsonl": "MALFORMED",
                    "sub/runs/e\\x1b[31mred.jsonl": "MALFORMED", "sub/runs/cafe\u0301.jsonl": "MALFORMED",
                    "sub/bad\\u202edir/inner.jsonl": "MALFORMED"}
    assert set(runs) == run_files(sub, "sub")


def test_invalid_or_missing_manifest_still_reports_every_run(here, run_line):
    """A manifest that cannot be read loses nothing: every *.jsonl found is verified and reported."""
    broken = submission(here, "broken", runs=2)
    text = (broken / "submission.yaml").read_text()
    (broken / "submission.yaml").write_text(text.replace("title: Toy submission\n", "title: [unclosed\n"))
    missing = submission(here, "missing")
    (missing / "submission.yaml").unlink()
    code_, out = validate(run_line, "broken", "missing")
    assert code_ == 1
    assert "missing: no submission.yaml in the submission folder" in out
    # the flow sequence opened on line 3 is still open when line 4 starts a mapping
    assert "broken/submission.yaml:4: invalid YAML: expected ',' or ']', but got ':'" in out
    doc = verify(run_line, "broken", "missing")
    assert doc["exit_code"] == 1
    # r2 logs r1's very events under another run id: a copy, which counts once (checker.stages.copies)
    assert reported(doc) == {"broken/runs/r1.jsonl": "VALID", "broken/runs/r2.jsonl": "INVALID",
                             "missing/runs/r1.jsonl": "VALID"}


def test_every_golden_case_reports_every_run_file(tmp_path, monkeypatch, run_line):
    """Runs in = runs reported over all invalid golden cases at once (one verify, one validate)."""
    for case in sorted(p for p in (CASES / "invalid").iterdir() if p.is_dir()):
        shutil.copytree(case, tmp_path / case.name, symlinks=True)
        for name in ("expected.txt", "exit_code"):
            (tmp_path / case.name / name).unlink(missing_ok=True)
    monkeypatch.chdir(tmp_path)
    doc = verify(run_line, ".")
    assert doc["exit_code"] == 1
    runs = reported(doc)
    for case in sorted(p for p in tmp_path.iterdir()):
        found = {p.removeprefix("./") for p in run_files(case, f"./{case.name}")}
        got = {p.removeprefix("./") for p in runs if p.removeprefix("./").startswith(f"{case.name}/")}
        assert got == found, case.name
    said = {line.removeprefix("./") for line in problems(doc)}
    for name in HOSTILE_CASES:  # verify reports the very findings validate prints for these cases
        expected = (CASES / "invalid" / name / "expected.txt").read_text(encoding="utf-8").splitlines()
        assert expected and set(expected) <= said, name


HOSTILE_CASES = (
    "manifest-path-backslash", "manifest-path-dot-slash-escape", "manifest-path-percent-encoded", "manifest-path-nul",
    "manifest-path-too-long", "manifest-path-unicode-normalisation", "manifest-path-homoglyph",
    "manifest-path-zero-width", "manifest-lists-manifest", "manifest-lists-folder", "manifest-path-case",
    "reserved-id-index", "reserved-id-shard", "run-id-bidi-override", "run-id-terminal-escape",
    "cell-name-zero-width", "seed-homoglyph", "prereg-cell-bidi-isolate", "prereg-seed-control-char",
    "prereg-defeater-id-homoglyph")
"""The golden cases of this issue (tests/cases/generate.py, "hostile submissions")."""


# --------------------------------------------------------------------------- one run in two submissions


def _copy_submission(src: Path, dest: Path, *, rehead: bool) -> None:
    """`dest` holds `src`'s run under its own id; with `rehead` the header names `dest` and is re-chained."""
    sid = dest.name
    shutil.copytree(src, dest)
    for name in ("submission.yaml", "prereg.yaml"):
        p = dest / name
        p.write_text(p.read_text().replace(f"id: {src.name}\n", f"id: {sid}\n"))
    # its own title: a copied title is a finding of its own (tests/test_identity.py), not the copy checks' subject
    manifest = dest / "submission.yaml"
    manifest.write_text(manifest.read_text().replace("title: Toy submission\n", f"title: Toy submission {sid}\n"))
    if rehead:
        prereg = (dest / "prereg.yaml").read_bytes()
        lines = (dest / RUN).read_bytes().splitlines()
        events = [json.loads(line) for line in lines]
        run_id = events[0]["run_id"]
        events[0].update(submission_id=sid, prereg_sha256=hashlib.sha256(prereg).hexdigest())
        body = [{k: v for k, v in e.items() if k not in ("seq", "prev")} for e in events]
        (dest / RUN).write_bytes(b"".join(line + b"\n" for line in chain(body, run_id)))


def test_same_log_bytes_in_two_submissions_flags_both(here, run_line):
    submission(here / "col", "orig")
    _copy_submission(here / "col" / "orig", here / "col" / "copy", rehead=False)
    doc = verify(run_line, "col")
    assert doc["exit_code"] == 1
    run_id = "orig-r1"
    # the copied header still names its own submission: verify refuses the copy, the original stands
    assert problems(doc) == ["col/copy/runs/r1.jsonl:1: submission_id 'orig' does not match the submission 'copy'"]
    assert reported(doc) == {"col/orig/runs/r1.jsonl": "VALID", "col/copy/runs/r1.jsonl": "MALFORMED"}
    code_, out = validate(run_line, "col")
    assert code_ == 1
    assert f"col/orig/runs/r1.jsonl:1: duplicate run id '{run_id}' (also in col/copy/runs/r1.jsonl:1)" in out
    assert "col/copy/runs/r1.jsonl:1: submission_id 'orig' does not match the submission 'copy'" in out


def test_same_run_id_after_the_cache_is_flagged_and_not_cached_away(here, run_line):
    """Results are cached per submission; the cross-submission check runs after every restore."""
    submission(here / "col", "orig")
    cache = ("--cache", "--cache-dir", "cache", "--no-results")
    first = verify(run_line, "col/orig", extra=cache)
    assert first["exit_code"] == 0 and first["cache"] == {"hits": 0, "misses": 1}
    _copy_submission(here / "col" / "orig", here / "col" / "copy", rehead=True)
    both = verify(run_line, "col", extra=cache)
    assert both["cache"] == {"hits": 1, "misses": 1}
    assert both["exit_code"] == 1
    for path, other in (("col/copy/runs/r1.jsonl", "col/orig/runs/r1.jsonl"),
                        ("col/orig/runs/r1.jsonl", "col/copy/runs/r1.jsonl")):
        assert (f"{path}:1: run id 'orig-r1' is also reported in {other}: a run may be reported once, in one "
                "submission") in problems(both)
    again = verify(run_line, "col", extra=cache)  # both cached now: still flagged
    assert again["cache"] == {"hits": 2, "misses": 0} and again["exit_code"] == 1
    assert len([p for p in problems(again) if "is also reported in" in p]) == 2
    shutil.rmtree(here / "col" / "copy")
    alone = verify(run_line, "col", extra=cache)  # the copy is gone: nothing stale comes back
    assert alone["cache"] == {"hits": 1, "misses": 0}
    assert alone["exit_code"] == 0 and problems(alone) == []


def test_ci_refuses_a_pull_request_that_copies_a_run_already_in_the_tree(tmp_path, run_line, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    make_submission(repo, "zz-orig")
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "pr")
    _copy_submission(repo / "submissions" / "zz-orig", repo / "submissions" / "aa-copy", rehead=True)
    commit(repo, "copy a run")
    monkeypatch.chdir(repo)
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    code_, out = run_cli(run_line, ["ci", "--base", "main"])
    assert code_ == 1
    no_raw_controls(out)
    assert "**❌ Failed:**" in out
    # reported on the copy already in the tree, naming the new folder: a failing problem of this pull request
    assert ("| <code>submissions/zz-orig/runs/r1.jsonl</code> | 1 | duplicate run id 'zz-orig-r1' (also in "
            "submissions/aa-copy/runs/r1.jsonl:1) |") in out


# --------------------------------------------------------------------------- a pre-registration edited after the runs


@pytest.fixture
def history(tmp_path: Path, monkeypatch) -> Iterator[tuple[Path, Path]]:
    """A git repository holding `submissions/s` with its prereg.yaml committed alone, before anything else."""
    repo = tmp_path / "repo"
    folder = submission(repo / "submissions", "s")
    runs = folder / "runs"
    shutil.move(runs, tmp_path / "runs")
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "pre-register")
    shutil.move(tmp_path / "runs", runs)
    monkeypatch.chdir(repo)
    yield repo, folder


EDITED = ("prereg.yaml was changed in 1 commit after run logs were committed: restore the prereg.yaml the runs were "
          "started with; a pre-registration is fixed before the runs and never edited after them")
"""The commit-order finding for one later edit: the fact once, then what to do."""


def _order(run_line, extra: tuple[str, ...] = ()) -> tuple[dict[str, Any], dict[str, Any]]:
    doc = verify(run_line, "submissions", extra=("--no-cache", "--out", "res", *extra))
    return doc, json.loads(Path("res/s.json").read_text())["prereg_check"]["commit_order"]


def _edit_prereg(folder: Path, *, rehead: bool) -> None:
    p = folder / "prereg.yaml"
    p.write_bytes(p.read_bytes().replace(b"horizon: 10", b"horizon: 12"))
    if rehead:  # the runs' headers follow the edit, so the digest check alone cannot see it
        prereg = p.read_bytes()
        lines = (folder / RUN).read_bytes().splitlines()
        events = [{k: v for k, v in json.loads(x).items() if k not in ("seq", "prev")} for x in lines]
        events[0]["prereg_sha256"] = hashlib.sha256(prereg).hexdigest()
        (folder / RUN).write_bytes(b"".join(x + b"\n" for x in chain(events, events[0]["run_id"])))


def test_prereg_committed_before_the_runs_and_left_alone_is_ok(history, run_line):
    repo, _folder = history
    commit(repo, "runs")
    doc, order = _order(run_line)
    assert order["status"] == "ok" and doc["exit_code"] == 0


def test_prereg_edited_before_any_run_is_committed_is_ok(history, run_line):
    repo, folder = history
    _edit_prereg(folder, rehead=True)
    git(repo, "add", "submissions/s/prereg.yaml")
    git(repo, "commit", "-qm", "fix the pre-registration before running")
    commit(repo, "runs")
    doc, order = _order(run_line)
    assert order["status"] == "ok" and doc["exit_code"] == 0


def test_prereg_edited_in_a_later_commit_with_stale_headers(history, run_line):
    repo, folder = history
    commit(repo, "runs")
    _edit_prereg(folder, rehead=False)
    commit(repo, "edit prereg")
    doc, order = _order(run_line)
    assert order["status"] == "violated"
    assert order["detail"] == EDITED
    assert doc["exit_code"] == 1
    found = problems(doc)
    assert f"submissions/s: {EDITED}" in found
    assert ("submissions/s: run s-r1: prereg digest in the header differs from prereg.yaml; prereg.yaml was changed "
            "after the run started: restore the prereg.yaml the runs were started with (a pre-registration is not "
            "edited once runs have started)") in found


def test_prereg_edited_later_with_re_chained_headers_is_caught_by_history(history, run_line):
    repo, folder = history
    commit(repo, "runs")
    _edit_prereg(folder, rehead=True)
    commit(repo, "edit prereg and forge the headers")
    doc, order = _order(run_line)
    assert doc["submissions"][0]["prereg_check"]["digest_mismatch"] == []  # the digests agree...
    assert order["status"] == "violated"  # ...but git history shows the edit
    assert doc["exit_code"] == 1
    assert f"submissions/s: {EDITED}" in problems(doc)


@pytest.mark.parametrize(("edit", "status", "edits"), [
    (True, "violated", 2),  # re-added with other bytes: the drop and the re-add are edits
    (False, "ok", None),  # a revert and its re-application leave the pre-registration in force unchanged
])
def test_prereg_deleted_and_re_added_after_the_runs(history, run_line, edit, status, edits):
    repo, folder = history
    commit(repo, "runs")
    kept = (folder / "prereg.yaml").read_bytes()
    (folder / "prereg.yaml").unlink()
    commit(repo, "drop prereg")
    (folder / "prereg.yaml").write_bytes(kept.replace(b"horizon: 10", b"horizon: 12") if edit else kept)
    commit(repo, "re-add prereg")
    doc, order = _order(run_line)
    assert order["status"] == status and (len(order["edits"]) if "edits" in order else None) == edits
    assert doc["exit_code"] == (1 if edit else 0)


def test_a_log_rewritten_under_an_edit_then_both_restored_is_caught(history, run_line):
    """The log's first commit and HEAD agree on the pre-registration, but the log was rewritten under an edit."""
    repo, folder = history
    commit(repo, "runs")
    prereg, log = (folder / "prereg.yaml").read_bytes(), (folder / RUN).read_bytes()
    _edit_prereg(folder, rehead=True)  # the edit, and the run's header following it
    commit(repo, "edit prereg, re-head the run")
    (folder / "prereg.yaml").write_bytes(prereg)
    (folder / RUN).write_bytes(log)
    commit(repo, "restore both")
    _doc, order = _order(run_line)
    assert order["status"] == "violated" and len(order["edits"]) == 1  # the restore, after the rewrite


def test_runs_committed_under_an_edit_then_reverted_are_caught(history, run_line):
    """Runs added while the pre-registration said something else were not run under the one published."""
    repo, folder = history
    commit(repo, "runs")
    kept = (folder / "prereg.yaml").read_bytes()
    _edit_prereg(folder, rehead=False)
    commit(repo, "edit prereg")
    extra = folder / "runs" / "later.jsonl"
    extra.write_bytes((folder / RUN).read_bytes())
    commit(repo, "more runs under the edit")
    (folder / "prereg.yaml").write_bytes(kept)
    commit(repo, "restore prereg")
    _doc, order = _order(run_line)
    # `later` was committed under the edit: the restore that followed is an edit of its pre-registration
    assert order["status"] == "violated" and len(order["edits"]) == 1


def test_uncommitted_prereg_edit_after_committed_runs(history, run_line):
    repo, folder = history
    commit(repo, "runs")
    _edit_prereg(folder, rehead=True)  # not committed: a local `verify` / `ci` still sees it
    doc, order = _order(run_line)
    assert order["status"] == "violated"
    assert order["detail"] == ("prereg.yaml has uncommitted changes made after run logs were committed: undo the "
                               "uncommitted edit (`git restore submissions/s/prereg.yaml`); a pre-registration is "
                               "fixed before the runs and never edited after them")
    assert doc["exit_code"] == 1


def test_prereg_and_runs_in_one_commit_is_not_after(tmp_path, run_line, monkeypatch):
    """An import commits everything at once: retrospective, but not a pre-registration edited after the runs."""
    repo = tmp_path / "repo"
    submission(repo / "submissions", "s")
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "import")
    monkeypatch.chdir(repo)
    doc, order = _order(run_line)
    # not a violation, and not "committed before the runs" either: shown as written after them (principle 8)
    assert order["status"] == "together" and doc["exit_code"] == 0
    assert json.loads(Path("res/s.json").read_text())["prereg_written_after_runs"] is True


# --------------------------------------------------------------------------- control characters in output


def test_findings_never_print_raw_control_characters(here, run_line):
    c = Case("sub")
    lines = c.add_run(RUN)
    c.runs[RUN] = [*lines[:3], lines[3].replace(b'"kind":"percept-cluster"', b'"kind":"x\\u001b[2J\\u009b\\u202e"'),
                   *lines[4:]]
    c.title = json.dumps(f"Title {ESC}{RLO} \u2066x\u2069 \u200b\u0085")
    c.write(here)
    (here / "sub" / "runs" / f"x{ESC}.jsonl").write_bytes(b"not json\n")
    outputs = [validate(run_line, "sub")[1], run_cli(run_line, ["validate", "sub", "--format", "json"])[1],
               run_cli(run_line, ["verify", "sub", "--no-cache", "--out", "res"])[1],
               run_cli(run_line, ["verify", "sub", "--no-cache", "--no-results", "--format", "json"])[1],
               run_cli(run_line, ["cite", "sub", "--results", "res"])[1]]
    for out in outputs:
        no_raw_controls(out)
    assert "sub/runs/x\\x1b[31m.jsonl: name contains U+001B (a control character)" in outputs[0]
    doc = json.loads(outputs[3])
    assert "sub/runs/x\\x1b[31m.jsonl" in reported(doc)
    assert "Title \\x1b[31m\\u202e \\u2066x\\u2069 \\u200b\\x85" in outputs[4]  # the title, spelled out
    assert json.loads(outputs[1])["problems"][0]["message"].startswith("name contains U+001B")


def test_finding_render_and_summary_escapes():
    f = Finding(f"a{ESC}b.jsonl", 3, f"bad {RLO}value\nsecond line")
    assert f.render() == "a\\x1b[31mb.jsonl:3: bad \\u202evalue\\x0asecond line"
    assert md(f"x{ESC}|y{RLO}") == "x\\\\x1b\\[31m\\|y\\\\u202e"
    assert code(f"r{RLO}1") == "<code>r&#92;u202e1</code>"
    assert escape_data(f"a{ESC}\nb") == "a\\x1b[31m%0Ab"
    assert str(md_escape(f"t{RLO}\u200bx")) == "t&#92;u202e&#92;u200bx"


# --------------------------------------------------------------------------- HTML / Markdown injection in pages


PIECES = ("<script>alert(1)</script>", "<img src=x onerror=alert(2)>", "[x](javascript:alert(3))",
          "![y](http://evil.example/y.png)", '<a href="http://evil.example/">e</a>', "{{ 7*7 }}", "{% raw %}",
          "| a | b |", "<!--", "`tick`", "](http://evil.example/)", "\n# heading", f"{RLO}{ESC}\u2066\u200b")


def payload(marker: str) -> str:
    return f"{marker} " + " ".join(PIECES) + f" end-{marker}"


def shown(text: str) -> str:
    """How a page shows a submitted string (md_escape): newlines as spaces, invisible characters escaped."""
    return visible(text.replace("\n", " "))


HEAD = "<script>alert(1)</script> <img src=x onerror=alert(2)> [x](javascript:alert(3))"
"""The part of every payload that survives JSON quoting unchanged (fields shown as JSON)."""


def _hostile_site(root: Path) -> tuple[Path, dict[str, str], dict[str, Any]]:
    """Verify a submission whose every free-text field holds a payload, build the site; return it and the payloads."""
    sid = "hostile"
    folder = root / "submissions" / sid
    (folder / "runs").mkdir(parents=True)
    p = {name: payload(name) for name in (
        "title", "author", "affiliation", "orcid", "contact", "system", "backbone", "harness-name",
        "harness-version", "harness-url", "license", "paper", "doi", "claim-cell", "claim-metric", "claim-source",
        "defeater-text", "defeater-metric", "prediction-text", "prediction-metric", "prediction-cell",
        "prediction-versus", "cell-description", "flag-key", "flag-value", "run-backbone", "game", "end-reason",
        "event-type")}
    p["title"] = p["title"][:300]
    p["description"] = payload("description") + " " + "long " * 4000  # a 20 kB string
    prereg = {"format_version": "1.0", "submission_id": sid, "track": "agent", "profile": "driftboard",
              "cells": {"FULL": {"seeds": ["s1"], "flags": {p["flag-key"]: p["flag-value"]},
                                 "description": p["cell-description"]}},
              "horizon": 10,
              "defeaters": [{"id": "d1", "text": p["defeater-text"], "metric": p["defeater-metric"], "op": "<=",
                             "value": 0}],
              "predictions": [{"id": "p1", "text": p["prediction-text"], "metric": p["prediction-metric"],
                               "cell": p["prediction-cell"], "op": ">", "versus": p["prediction-versus"]}]}
    prereg_bytes = yaml.safe_dump(prereg, allow_unicode=True).encode()
    (folder / "prereg.yaml").write_bytes(prereg_bytes)
    manifest = {"format_version": "1.0", "id": sid, "title": p["title"],
                "authors": [{"name": p["author"], "affiliation": p["affiliation"], "orcid": p["orcid"]}],
                "contact": p["contact"], "track": "agent", "system": p["system"], "backbone": p["backbone"],
                "harness": {"name": p["harness-name"], "version": p["harness-version"], "commit": "0123abcd",
                            "url": p["harness-url"]},
                "license": p["license"], "paper": p["paper"], "doi": p["doi"], "description": p["description"],
                "files": ["runs/r1.jsonl", "runs/r2.jsonl"],
                "claims": [{"cell": p["claim-cell"], "metric": p["claim-metric"], "value": 0.5,
                            "source": p["claim-source"]}]}
    (folder / "submission.yaml").write_text(yaml.safe_dump(manifest, allow_unicode=True), encoding="utf-8")
    start = {"run_id": f"{sid}-r1", "submission_id": sid, "track": "agent", "cell": "FULL", "seed": "s1",
             "flags": {p["flag-key"]: p["flag-value"]}, "backbone": p["run-backbone"], "game_id": p["game"],
             "prereg_sha256": hashlib.sha256(prereg_bytes).hexdigest(), "started_at": "2026-11-01T00:00:00Z",
             "horizon": 10}
    with RunLogWriter(folder / "runs" / "r1.jsonl", start) as log:
        log.write({"type": "startup_probe", "turn": 0, "image_receipt_ok": None})
        log.write({"type": "beat", "turn": 0, "action": "RESET", "drift_ref": "LIVE", "source_stamp": "RESET"})
        log.end("COMPLETED", p["end-reason"])
    events = [{**start, "type": "run_start", "run_id": f"{sid}-r2", "seed": "s2", "format_version": "1.0"},
              {"type": p["event-type"], "turn": 0}, {"type": "run_end", "status": "COMPLETED"}]
    (folder / "runs" / "r2.jsonl").write_bytes(b"".join(x + b"\n" for x in chain(events, f"{sid}-r2")))
    doc = verify_in(root, ["verify", "submissions", "--no-cache", "--out", "results", "--format", "json"])
    assert doc["exit_code"] == 1  # a claim that disagrees, an undeclared seed, a malformed run: all reported
    from checker.render.site import build_site

    assert build_site(root / "results", root / "site") == 0
    return root / "site", p, doc


def verify_in(cwd: Path, args: list[str]) -> dict[str, Any]:
    from click.testing import CliRunner

    from checker.cli.main import cli

    old = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
    finally:
        os.chdir(old)
    assert "Traceback" not in result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> tuple[Path, dict[str, str], dict[str, Any]]:
    return _hostile_site(tmp_path_factory.mktemp("hostile-site"))


def _pages(site: Path) -> list[tuple[Path, BeautifulSoup]]:
    return [(page, BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")) for page in sorted(site.rglob("*.html"))]


@pytest.mark.slow
def test_no_payload_becomes_markup_anywhere_in_the_site(hostile_site):
    site, _, _ = hostile_site
    local_assets = {p.relative_to(site).as_posix() for p in site.rglob("*.js")}
    for page, doc in _pages(site):
        for script in doc.find_all("script"):
            src = script.get("src")
            if src:  # the theme's and the vendored scripts only, all local files
                base = site if src.startswith("/") else page.parent  # 404.html links from the site root
                if src.startswith(urlsplit(site_url()).path):  # ... under the site URL's path (/driftboard/)
                    src = "/" + src[len(urlsplit(site_url()).path):]
                target = (base / src.split("?")[0].lstrip("/")).resolve()
                assert target.is_relative_to(site.resolve()), (page, src)
                assert target.relative_to(site.resolve()).as_posix() in local_assets, (page, src)
            else:
                assert "alert(" not in script.get_text() and "evil.example" not in script.get_text(), page
        for el in doc.find_all(True):
            for attr, value in el.attrs.items():
                assert not attr.lower().startswith("on"), (page, el.name, attr)
                values = value if isinstance(value, list) else [value]
                for v in values:
                    text = "".join(ch for ch in str(v) if ch.isprintable() and not ch.isspace()).lower()
                    if attr in ("href", "src", "action", "formaction", "data", "poster", "srcset"):
                        assert not text.startswith("javascript:"), (page, el.name, v)
                        assert "evil.example" not in text, (page, el.name, v)
        for tag in ("img", "iframe", "object", "embed", "form", "base"):
            for el in doc.find_all(tag):
                assert "evil" not in str(el) and "onerror" not in str(el), (page, tag)
        assert "<" not in doc.title.get_text(), page
        for table in doc.select("div.db-table table"):
            width = len(table.select("thead th"))
            assert all(len(row.find_all("td")) == width for row in table.select("tbody tr")), (page, table.caption)
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    for entry in index["docs"]:  # search results are inserted as HTML: the index holds escaped text only
        snippet = BeautifulSoup(entry["text"] + entry.get("title", ""), "html.parser")
        assert not snippet.find_all(["script", "img", "a", "iframe"]), entry["location"]
        assert not [a for el in snippet.find_all(True) for a in el.attrs if a.lower().startswith("on")]


@pytest.mark.slow
def test_every_payload_is_shown_as_text(hostile_site):
    site, p, _ = hostile_site
    page = BeautifulSoup((site / "submissions" / "hostile" / "index.html").read_text(encoding="utf-8"), "html.parser")
    assert page.select_one(".db-title").get_text() == shown(p["title"])
    assert page.select_one(".db-authors").get_text() == shown(p["author"])
    manifest = {dt.get_text(): dd.get_text() for dt, dd in zip(page.select(".db-manifest dt"),
                                                                page.select(".db-manifest dd"), strict=True)}
    for key in ("contact", "system", "backbone", "license", "paper", "doi", "description"):
        assert manifest[key] == shown(p[key]), key
    for key in ("affiliation", "orcid", "harness-name", "harness-version", "harness-url"):  # shown as JSON
        field = "authors" if key in ("affiliation", "orcid") else "harness"
        assert f"{key} {HEAD}" in manifest[field], key

    def column(table: str, label: str) -> list[str]:
        t = page.select_one(f"#table-{table} table")
        header = [th.get_text() for th in t.select("thead th")]
        return [row.find_all("td")[header.index(label)].get_text() for row in t.select("tbody tr")]

    assert column("claims", "cell") == [shown(p["claim-cell"])]
    assert column("claims", "metric") == [shown(p["claim-metric"])]
    assert column("claims", "source") == [shown(p["claim-source"])]
    assert column("defeaters", "defeater") == [shown(p["defeater-text"])]
    assert column("defeaters", "metric") == [shown(p["defeater-metric"])]
    assert column("predictions", "prediction") == [shown(p["prediction-text"])]
    assert column("predictions", "metric") == [shown(p["prediction-metric"])]
    assert column("predictions", "cell") == [shown(p["prediction-cell"])]
    assert column("cells", "flags") == [shown(f"{p['flag-key']}={p['flag-value']}")]
    assert any(f"unknown event type {p['event-type'][:12]!r}"[:-1] in m for m in column("findings", "message"))
    text = page.get_text()
    assert "{{ 7*7 }}" in text and "{% raw %}" in text  # never evaluated as a template


@pytest.mark.slow
def test_the_job_summary_of_the_hostile_submission_is_inert(hostile_site):
    """The same verify document as the pull-request check sees it: Markdown and annotations stay inert."""
    _, p, raw = hostile_site
    doc = parse_document(raw, "verify.json")
    summary = render_summary(doc)
    no_raw_controls(summary)
    for raw in ("<script", "<img", "<a ", "<!--"):
        assert raw not in summary
    assert not re.search(r"(?<!\\)\]\(", summary)  # no `](` that Markdown would read as a link
    assert not [line for line in summary.splitlines() if line.startswith("::") or line.startswith("# ")]
    assert md(p["claim-source"]) in summary  # the claim's source, shown as escaped text
    for line in annotation_lines(doc):
        no_raw_controls(line)
        assert line.startswith(("::error ", "::warning ", "::notice ")) and "\n" not in line


@pytest.mark.parametrize(("late", "edits", "dirty", "expected"), [
    (2, 0, False, "prereg.yaml was first committed after 2 run logs: commit prereg.yaml before any run log "
                  "(pre-register, then run)"),
    (1, 2, True, "prereg.yaml was first committed after 1 run log, was changed in 2 commits after run logs were "
                 "committed and has uncommitted changes: commit prereg.yaml before any run log (pre-register, then "
                 "run); restore the prereg.yaml the runs were started with; undo the uncommitted edit "
                 "(`git restore s/prereg.yaml`)"),
])
def test_commit_order_detail_names_prereg_once_and_says_what_to_do(late, edits, dirty, expected):
    from checker.stages.preregistration import order_detail

    detail = order_detail(late, edits, dirty, "s/prereg.yaml")
    assert detail == expected + "; a pre-registration is fixed before the runs and never edited after them"
    assert detail.count("prereg.yaml ") == 1 + (late > 0) + (edits > 0)  # the subject once, plus the remedies
