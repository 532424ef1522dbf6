"""Publication computes, never reads: a results folder is published only when it is bound to the tree and the code.

`verify --out DIR` (a shard or a whole verification) and `merge --out DIR` write `DIR/binding.json`
beside the results files they wrote:

* `job`: the job that computed them (`--job`, else `$DRIFTBOARD_JOB`; the publish workflow sets it
  to the workflow run's id and attempt, so a shard output of another run is refused);
* `checker_version` and `checker_code`: the digest of the code that decides numbers
  (`checker.pipeline.cache.checker_code_digest`);
* `inputs`: per submission, its folder, the SHA-256 of its `prereg.yaml` and of every run log read;
* `files`: the SHA-256 of every file written (results files, `index.json`, `boards.json` and the
  comparisons files it names, `comparisons-*.csv`);
* `cached`: the results files restored from the verification cache rather than computed now.

`check_binding` is what `merge` (each shard) and `build` (the results folder) run before they read
a results file: the binding must be there and of this job and this code; every results-looking
`.json` in the folder must be listed with the bytes the binding names; each results file must be
internally consistent (its content digest) and its recorded inputs must be those of the binding
and, recomputed now, of the tree (log and prereg digests). Anything else is refused with a
finding: a results file found in `build/`, in an artifact, in a shard output or committed in the
tree is never taken on trust. Without a secret a forger who controls the whole folder and the
tree could forge a consistent folder; what this stops is any results file that did not come from
a `verify` of these very logs by this very code in this job.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from checker import __version__
from checker.format.boards_model import comparison_files, read_boards
from checker.format.errors import Finding
from checker.format.logio import file_sha256
from checker.format.results_io import BINDING, BOARDS, INDEX, canonical_json, content_digest, is_results_name
from checker.format.results_sniff import file_looks_like_results
from checker.format.storage import LogStorageError, log_sha256
from checker.pipeline.cache import checker_code_digest
from checker.pipeline.report import SubmissionResult

BINDING_FORMAT = "1.0"
JOB_ENV = "DRIFTBOARD_JOB"
MAX_BINDING_BYTES = 64 << 20
"""Largest binding file read (it lists digests only)."""


def current_job(job: str | None = None) -> str | None:
    """The job id: the one given, else `$DRIFTBOARD_JOB`, else None."""
    return job if job is not None else (os.environ.get(JOB_ENV) or None)


def _sha(path: Path) -> str | None:
    try:
        return file_sha256(path)
    except OSError:
        return None


def _log_sha(path: Path) -> str | None:
    """A run log's digest as results record it: of its lines (decompressed when it is stored compressed)."""
    try:
        return log_sha256(path)
    except (OSError, LogStorageError):
        return None


@dataclass
class Bound:
    """What a results file's binding says of it: its submission's folder, prereg digest and log digests."""

    folder: str
    prereg: str | None
    logs: dict[str, str]


def inputs_of(data: dict[str, Any]) -> Bound:
    """The inputs a results file records (folder from `reproduce`, prereg digest, log digests)."""
    folder = str(data.get("reproduce", "")).removeprefix("driftboard verify ").strip()
    logs = {str(log.get("path")): str(log.get("sha256")) for log in data.get("logs", []) if isinstance(log, dict)}
    prereg = data.get("prereg_sha256")
    return Bound(folder, prereg if isinstance(prereg, str) else None, logs)


def write_binding(results_dir: Path, names: list[str], cached: set[str], job: str | None,
                  shard: str | None = None, inputs: dict[str, Bound] | None = None) -> Path:
    """Write `binding.json` for the files `names` of `results_dir` (they were just written by this process).

    `inputs`: per results file name, its inputs (read from the file itself when not given).
    """
    files: dict[str, str] = {}
    bound: dict[str, dict[str, Any]] = {}
    for name in sorted(set(names)):
        path = results_dir / name
        data = path.read_bytes()
        files[name] = hashlib.sha256(data).hexdigest()
        if is_results_name(name):
            b = (inputs or {}).get(name) or inputs_of(json.loads(data))
            bound[name] = {"folder": b.folder, "prereg": b.prereg, "logs": dict(sorted(b.logs.items()))}
    doc = {"binding_format": BINDING_FORMAT, "job": current_job(job), "shard": shard, "checker_version": __version__,
           "checker_code": checker_code_digest(), "files": files, "inputs": bound, "cached": sorted(cached & set(files))}
    out = results_dir / BINDING
    out.write_text(canonical_json(doc), encoding="utf-8")
    return out


@dataclass
class Checked:
    """What `check_binding` found: the results files it accepts (by name) and why it refused the rest."""

    accepted: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    binding: dict[str, Any] = field(default_factory=dict)


def _read_binding(results_dir: Path, out: Checked) -> dict[str, Any] | None:
    path = results_dir / BINDING
    if not path.is_file() or path.is_symlink():
        out.problems.append(f"{path}: missing: these results were not written by `driftboard verify --out` or "
                            "`driftboard merge` in this job; publication computes, never reads a results file "
                            "(run `driftboard verify`)")
        return None
    try:
        if path.stat().st_size > MAX_BINDING_BYTES:
            raise ValueError("too large")
        doc = json.loads(path.read_bytes())
        if not isinstance(doc, dict) or doc.get("binding_format") != BINDING_FORMAT:
            raise ValueError("not a binding")
    except (OSError, ValueError) as exc:
        out.problems.append(f"{path}: unreadable binding ({exc}); run `driftboard verify` again")
        return None
    return doc


def _header_problems(results_dir: Path, doc: dict[str, Any], job: str | None) -> list[str]:
    where = results_dir / BINDING
    out = []
    if job is not None and doc.get("job") != job:
        out.append(f"{where}: written by job {doc.get('job')!r}, not by this job ({job!r}): results of another run "
                   "are never published")
    if job is not None and doc.get("cached"):
        out.append(f"{where}: {len(doc['cached'])} results file(s) restored from a verification cache: a publishing "
                   "job publishes only results it computed (verify with --no-cache)")
    if doc.get("checker_code") != checker_code_digest() or doc.get("checker_version") != __version__:
        out.append(f"{where}: computed by other checker code (code digest {str(doc.get('checker_code'))[:12]}, this "
                   f"checker's {checker_code_digest()[:12]}): verify again with this checker")
    return out


def _file_problems(results_dir: Path, name: str, doc: dict[str, Any], tree: Path) -> list[str]:
    """Why one results file of the folder is not bound to this verification of the tree (empty: it is)."""
    path = results_dir / name
    listed = doc.get("files", {}).get(name)
    if listed is None:
        return [f"{path}: not written by the verification that wrote {BINDING} (a results file found, not "
                "computed): refused; a stale file of another tree? empty the folder and run `driftboard verify` again"]
    raw = path.read_bytes()
    if hashlib.sha256(raw).hexdigest() != listed:
        return [f"{path}: changed after it was written (its SHA-256 is not the one {BINDING} records): refused"]
    try:
        data = json.loads(raw)
    except ValueError:
        return [f"{path}: not JSON: refused"]
    if not isinstance(data, dict) or data.get("digest") != content_digest(data):
        return [f"{path}: its content digest does not match its content: refused"]
    recorded, bound = inputs_of(data), doc.get("inputs", {}).get(name)
    if bound != {"folder": recorded.folder, "prereg": recorded.prereg, "logs": dict(sorted(recorded.logs.items()))}:
        return [f"{path}: its recorded inputs differ from those {BINDING} records: refused"]
    return _tree_problems(path, recorded, tree)


def _tree_problems(path: Path, recorded: Bound, tree: Path) -> list[str]:
    """The recorded inputs, recomputed from the tree now: every log and the prereg must have the recorded digest."""
    out = []
    for log, sha in sorted(recorded.logs.items()):
        now = _log_sha(tree / log)
        if now != sha:
            out.append(f"{path}: run log {log} is {'missing from' if now is None else 'not the same in'} this tree "
                       "(recorded digest differs): results of other logs are never published; verify this tree")
    if recorded.prereg is not None and _sha(tree / recorded.folder / "prereg.yaml") != recorded.prereg:
        out.append(f"{path}: {recorded.folder}/prereg.yaml in this tree is not the one these results were computed "
                   "from: verify this tree")
    return out


def check_binding(results_dir: Path, job: str | None = None, tree: Path | None = None,
                  strays: bool = True) -> Checked:
    """Accept the results files of `results_dir` bound to this job, this code and the tree at `tree` (default: cwd).

    `strays`: refuse results-looking files the binding does not list (False: leave them out silently,
    for a folder a local `verify` wrote over an older one).
    """
    out = Checked()
    doc = _read_binding(results_dir, out)
    if doc is None:
        return out
    out.binding = doc
    out.problems += _header_problems(results_dir, doc, current_job(job))
    root = tree or Path(".")
    for path in sorted(results_dir.iterdir()):
        name = path.name
        if name == BINDING or path.is_dir():
            continue
        listed = name in doc.get("files", {})
        if not listed and not strays:
            continue
        if not is_results_name(name) or not name.endswith(".json"):
            if not listed and file_looks_like_results(path):
                out.problems.append(f"{path}: a results-looking file not written by this verification: refused")
            elif listed and _sha(path) != doc["files"][name]:
                out.problems.append(f"{path}: changed after it was written: refused")
            continue
        found = _file_problems(results_dir, name, doc, root)
        if found:
            out.problems += found
        else:
            out.accepted.append(name)
    for name in sorted(doc.get("files", {})):
        if not (results_dir / name).is_file():
            out.problems.append(f"{results_dir / name}: listed in {BINDING} but missing: refused")
    return out


def bind_report(subs: list[SubmissionResult], results_dir: Path, shard: tuple[int, int] | None,
                job: str | None = None) -> Path:
    """`binding.json` for what `verify` just wrote into `results_dir`.

    Results files; unless a shard, the index, the boards and the boards' comparisons files too.
    """
    names, cached, inputs = [], set(), {}
    for sub in subs:
        if sub.results is None:
            continue
        s = sub.results.summary
        name = f"{s.submission_id}.json"
        if not (results_dir / name).is_file():
            continue
        names.append(name)
        if sub.cached:
            cached.add(name)
        inputs[name] = Bound(s.reproduce.removeprefix("driftboard verify ").strip(), s.prereg_sha256,
                             {log.path: log.sha256 for log in s.logs})
    if shard is None:
        names += [n for n in (INDEX, BOARDS) if (results_dir / n).is_file()]
        if (results_dir / BOARDS).is_file():  # each board's comparisons file, as boards.json names it
            names += comparison_files(read_boards(results_dir))
    results_dir.mkdir(parents=True, exist_ok=True)
    return write_binding(results_dir, names, cached, job, None if shard is None else f"{shard[0]}/{shard[1]}", inputs)


def cache_entry_problem(path: Path | None, prereg_sha256: str | None, logs: tuple[tuple[Path, str], ...]) -> str | None:
    """Why a cached results file is not this tree's results (None: it is consistent with the tree).

    Its content digest must match its content, its prereg digest the tree's, and its log digests
    exactly the tree's logs (`logs`: (path, display path), hashed now).
    """
    if path is None:
        return None
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return f"cache entry {path.name}: unreadable; ignored, recomputed"
    if not isinstance(data, dict) or data.get("digest") != content_digest(data):
        return f"cache entry {path.name}: its content digest does not match its content (edited?); ignored, recomputed"
    recorded = inputs_of(data)
    tree = {shown: _log_sha(p) for p, shown in logs}
    if (recorded.prereg != prereg_sha256 or any(recorded.logs.get(shown) != sha for shown, sha in tree.items())
            or set(recorded.logs) - set(tree)):
        return f"cache entry {path.name}: its recorded inputs are not this tree's logs; ignored, recomputed"
    return None


MAX_SCANNED = 10_000
"""Most files looked at in one submission folder when searching for committed results files."""


def committed_results(root: Path, display: str) -> list[Finding]:
    """A results-looking file committed in a submission folder, under any name, is a finding (never read).

    Every regular file that is not a run log (`*.jsonl`, read and validated as a log) is sniffed
    (`checker.format.results_sniff`, first 64 KiB); links are not followed; at most `MAX_SCANNED` files.
    """
    out: list[Finding] = []
    seen = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            seen += 1
            if seen > MAX_SCANNED:
                return out
            path = Path(folder) / name
            if name.lower().endswith(".jsonl") or not file_looks_like_results(path):
                continue
            shown = f"{display}/{path.relative_to(root).as_posix()}"
            out.append(Finding(shown, None, "a results-looking file committed in the tree: publication computes, "
                                            "never reads (the site shows only results computed from the logs by the "
                                            "publishing job); remove it"))
    return out
