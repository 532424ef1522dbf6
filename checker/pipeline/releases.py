"""Dated releases: the immutable record of what the site published at a commit, and what changed between them.

`driftboard release` turns the results `verify` wrote for the tree at a commit into
`releases/<date>-<commit7>.json` (`make_release`); a maintainer commits it. The site renders an
archived page per release from the release file alone (never from the current results, so a later
verification cannot rewrite what an older release published), and the results changelog as the
difference between consecutive releases and between the newest release and the current results
(`diff`). A citation names the first release that published exactly the cited cell
(`cited_release`).

What is defended: a release file is read as untrusted input (size bound, pydantic model, id, file
name and date cross-checked, `digest` recomputed), so an edit that does not recompute the digest is
refused; and when the file is tracked by git, its bytes must equal those of the commit that added
it (`published`), so an edit that recomputes the digest is refused too unless history is
rewritten. What is not: whoever adds a release file chooses its figures (nothing recomputes them
from the logs at build time; `git checkout COMMIT && driftboard verify` does), and a rewritten
history carries a rewritten release (the published site and citations made from it are the record).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from checker import __version__
from checker.format.errors import DriftboardError, UsageError, visible
from checker.format.release_model import ReleaseCell, ReleaseFile, ReleaseSubmission, Withdrawal
from checker.format.results_io import canonical_json, canonical_with_digest, combined_log_digest, content_digest
from checker.format.results_model import CellResult, ResultsFile, ResultsSummary
from checker.pipeline.provenance import git_output

RELEASES_DIR = "releases"
"""Where release files live, relative to the repository root."""
MAX_RELEASE_BYTES = 16_000_000
"""A release file larger than this is refused (200 submissions of a few cells are about 0.5 MB)."""
MAX_RELEASES = 10_000
"""More release files than this in the folder is refused (one a publish: years of daily releases)."""
MAX_LOCATED_BYTES = 4_000_000
"""Malformed release files up to this size get line numbers in their messages (larger ones: line 1)."""
MAX_MESSAGES = 20
"""Validation problems listed per malformed release file."""


class ReleaseError(DriftboardError):
    """A release cannot be made from this tree (uncommitted changes, results not of this commit, ...)."""


# ---------------------------------------------------------------- git


@dataclass(frozen=True)
class Commit:
    """A commit as a release names it: full id, commit date (committer zone) and UTC commit time."""

    sha: str
    date: str
    committed_at: str

    @property
    def release_id(self) -> str:
        """`<date>-<sha[:7]>`."""
        return f"{self.date}-{self.sha[:7]}"


def commit_of(root: Path, rev: str = "HEAD") -> Commit:
    """The commit `rev` names in the repository at `root` (from git, never the clock).

    Raises:
        UsageError: not a git repository, or `rev` names no commit.
    """
    line = git_output(root, "log", "-1", "--format=%H %cI %ct", rev, "--")
    if not line:
        raise UsageError(f"{root}: cannot read commit {rev!r} (not a git repository, or no such commit)")
    sha, iso, ts = line.split(" ")
    at = datetime.fromtimestamp(int(ts), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Commit(sha=sha, date=iso[:10], committed_at=at)


# ---------------------------------------------------------------- making a release


RankMetric = Callable[[str], str]
"""Track -> the metric its leaderboard ranks by (`checker.pipeline.metrics.RANK_BY`, passed in: the renderer reads
the registry through `checker.render.metrics` only)."""


def _cell_entry(r: ResultsSummary, c: CellResult, rank_metric: RankMetric) -> ReleaseCell:
    metric = None if c.comparator else rank_metric(r.track)
    ad = c.all_declared.get(metric) if metric else None
    agg = c.metrics.get(metric) if metric else None
    withdrawn = {o.seed: o.reason or "" for o in c.declared if o.status == "WITHDRAWN"}
    return ReleaseCell(result_id=c.result_id, metric=metric, figure=ad.value if ad is not None else None,
                       valid_only=agg.mean if agg is not None else None, n_valid=c.valid_runs,
                       n_declared=c.n_declared, runs=c.runs, logs=len(c.log_sha256),
                       logs_sha256=combined_log_digest(c.log_sha256), log_sha256=sorted(c.log_sha256), digest=c.digest,
                       comparator=c.comparator,
                       withdrawn_seeds=withdrawn)


def submission_entry(r: ResultsSummary, rank_metric: RankMetric) -> ReleaseSubmission:
    """What a release records of one results file."""
    return ReleaseSubmission(track=r.track, title=r.title, ranked=r.ranked, checker_version=r.checker_version,
                             profile=r.profile, verified=r.provenance.verified, commit=r.provenance.commit,
                             results_digest=r.digest, cells={c.cell: _cell_entry(r, c, rank_metric) for c in r.cells})


def entries(results: Sequence[ResultsSummary], rank_metric: RankMetric) -> dict[str, ReleaseSubmission]:
    """Submission id -> its release entry, for a set of results (the current results, unreleased)."""
    return {r.submission_id: submission_entry(r, rank_metric) for r in sorted(results, key=lambda x: x.submission_id)}


def make_release(results: list[ResultsFile], commit: Commit, previous: ReleaseFile | None,
                 rank_metric: RankMetric) -> tuple[ReleaseFile, str]:
    """(the release of `results` at `commit`, its file text). Same inputs, same bytes.

    `previous`: the release before this one (what it published and this one does not is recorded
    as withdrawn).
    """
    subs = entries(results, rank_metric)
    withdrawn: list[Withdrawal] = []
    if previous is not None:
        why = f"no longer in the repository at commit {commit.sha[:7]}"
        for sid, old in sorted(previous.submissions.items()):
            if sid not in subs:
                withdrawn.append(Withdrawal(submission=sid, cell=None, reason=why, last_release=previous.release))
                continue
            withdrawn += [Withdrawal(submission=sid, cell=cell, reason=f"cell {why}", last_release=previous.release)
                          for cell in sorted(old.cells) if cell not in subs[sid].cells]
    data: dict[str, Any] = {
        "release_format": "1.0", "release": commit.release_id, "date": commit.date,
        "committed_at": commit.committed_at, "commit": commit.sha, "checker_version": __version__,
        "submissions": {k: v.model_dump(mode="json") for k, v in subs.items()},
        "withdrawn": [w.model_dump(mode="json") for w in withdrawn],
    }
    text = canonical_with_digest(json.loads(canonical_json(data)))
    return ReleaseFile.model_validate_json(text), text


# ---------------------------------------------------------------- reading releases (untrusted input)


def _lines_of(text: str) -> dict[tuple[str, ...], int]:
    """Location (keys and list indices) -> 1-based line, from the JSON text read as YAML nodes."""
    lines: dict[tuple[str, ...], int] = {}
    if len(text) > MAX_LOCATED_BYTES:  # the pure-Python YAML composer is slow on big inputs: say line 1
        return lines
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return lines
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, loc = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = (*loc, str(key.value))
                lines[sub] = key.start_mark.line + 1
                stack.append((value, sub))
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                sub = (*loc, str(i))
                lines[sub] = item.start_mark.line + 1
                stack.append((item, sub))
    return lines


def _problems(display: str, text: str, exc: ValidationError) -> list[str]:
    lines = _lines_of(text)
    out = []
    for err in exc.errors(include_url=False)[:MAX_MESSAGES]:
        loc = tuple(str(p) for p in err["loc"])
        line = next((lines[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in lines), 1)
        where = ".".join(loc) or "(top level)"
        msg = "missing field" if err["type"] == "missing" else err["msg"]
        out.append(f"{display}:{line}: {visible(where)}: {msg}")
    return out


def read_release(path: Path, display: str | None = None) -> ReleaseFile:
    """Read and check one release file (untrusted: bounded, validated, its id, name and digest cross-checked).

    Raises:
        UsageError: unreadable, too large, malformed, or inconsistent; every message is `path:line: problem`.
    """
    shown = display or path.as_posix()
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_RELEASE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read release file ({exc.strerror})") from None
    if len(raw) > MAX_RELEASE_BYTES:
        raise UsageError(f"{shown}: release file is larger than the {MAX_RELEASE_BYTES}-byte limit")
    try:
        text = raw.decode("utf-8")
        data = json.loads(text)
    except UnicodeDecodeError as exc:
        raise UsageError(f"{shown}: not valid UTF-8 (byte offset {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{shown}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise UsageError(f"{shown}:1: not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise UsageError(f"{shown}:1: a release file is a JSON object")
    try:
        release = ReleaseFile.model_validate(data)
    except ValidationError as exc:
        raise UsageError("\n".join(_problems(shown, text, exc))) from None
    lines = _lines_of(text)
    problems = []
    if path.stem != release.release:
        problems.append(f"{shown}:{lines.get(('release',), 1)}: release {release.release!r} is not named by its file "
                        f"(expected {release.release}.json)")
    if release.release != f"{release.date}-{release.commit[:7]}":
        problems.append(f"{shown}:{lines.get(('release',), 1)}: release id must be <date>-<commit[:7]> "
                        f"({release.date}-{release.commit[:7]})")
    if content_digest(data) != release.digest:
        problems.append(f"{shown}:{lines.get(('digest',), 1)}: digest does not match the file's content "
                        "(the release was edited after it was written)")
    for sid, sub in release.submissions.items():
        for name, cell in sub.cells.items():
            if cell.result_id != f"{sid}/{name}":
                problems.append(f"{shown}:{lines.get(('submissions', sid, 'cells', name), 1)}: "
                                f"result_id {visible(cell.result_id)!r} is not {visible(sid)}/{visible(name)}")
    if problems:
        raise UsageError("\n".join(problems[:MAX_MESSAGES]))
    return release


def published(folder: Path) -> dict[str, tuple[str, str]]:
    """Release file name -> (commit that first added it, git blob id of the bytes it added); {} outside git.

    One `git log --raw` over the folder's history (the blob ids are in it), whatever the number of releases.
    """
    parent = folder.resolve().parent
    if not parent.is_dir():
        return {}
    log = git_output(parent, "log", "--diff-filter=A", "--raw", "--no-abbrev", "--no-renames", "--format=commit %H",
               "--relative", "--", f"{folder.name}/")
    if not log:
        return {}
    prefix = f"{folder.name}/"
    first: dict[str, tuple[str, str]] = {}
    commit = ""
    for line in log.splitlines():  # newest first: the last entry seen for a name is its first addition
        if line.startswith("commit "):
            commit = line.removeprefix("commit ").strip()
        elif line.startswith(":") and "\t" in line:
            meta, _, name = line.partition("\t")
            fields = meta.split()
            rel = name.strip().removeprefix(prefix)
            if len(fields) >= 4 and name.strip().startswith(prefix) and "/" not in rel and rel.endswith(".json"):
                first[rel] = (commit, fields[3])
    return first


def blob_id(data: bytes, like: str) -> str:
    """The git blob id of `data`, in the object format of `like` (SHA-1: 40 hex digits, else SHA-256)."""
    algorithm = "sha1" if len(like) == 40 else "sha256"
    return hashlib.new(algorithm, b"blob %d\0" % len(data) + data).hexdigest()


def read_releases(folder: Path, check_history: bool = True) -> list[ReleaseFile]:
    """Every release in `folder` (`*.json`), checked, oldest first (by commit time, then id); [] without a folder.

    Raises:
        UsageError: a release file is malformed, edited after it was published, or two name one commit.
    """
    history = published(folder) if check_history else {}
    removed = sorted(name for name in history if not (folder / name).is_file())
    if not folder.is_dir():
        if removed:
            raise UsageError(f"{folder}: {len(removed)} published release(s) removed ({', '.join(removed[:5])}); a "
                             "release is never removed (restore them from git history)")
        return []
    paths = sorted(folder.glob("*.json"))
    if len(paths) > MAX_RELEASES:
        raise UsageError(f"{folder}: more than {MAX_RELEASES} release files")
    out: list[ReleaseFile] = []
    problems: list[str] = []
    for path in paths:
        try:
            out.append(read_release(path))
        except UsageError as exc:
            problems.append(str(exc))
            continue
        if path.name in history:
            commit, blob = history[path.name]
            if blob_id(path.read_bytes(), blob) != blob:
                problems.append(f"{path.as_posix()}:1: release file differs from the one published in commit "
                                f"{commit[:7]}; a release is never edited (make a new release instead)")
    problems += [f"{(folder / name).as_posix()}: release was published and then removed; a release is never "
                 "removed (restore it from git history)" for name in removed]
    if problems:
        raise UsageError("\n".join(problems))
    return sorted(out, key=lambda x: (x.committed_at, x.release))


def previous_release(releases: list[ReleaseFile], commit: Commit) -> ReleaseFile | None:
    """The newest release made before `commit` (by commit time), or None."""
    before = [x for x in releases if (x.committed_at, x.release) < (commit.committed_at, commit.release_id)]
    return before[-1] if before else None


# ---------------------------------------------------------------- what changed


@dataclass
class Change:
    """One line of the results changelog."""

    submission: str
    cell: str | None
    what: str
    """For a change: `old → new` of each differing field; for an addition or withdrawal: a summary or the reason."""
    reasons: list[str] = field(default_factory=list)
    """Why a figure changed, where derivable (re-verified with another checker, logs changed, ...)."""


@dataclass
class Diff:
    """What one release (or the current results) added, changed and withdrew against the one before."""

    added: list[Change] = field(default_factory=list)
    changed: list[Change] = field(default_factory=list)
    withdrawn: list[Change] = field(default_factory=list)

    def empty(self) -> bool:
        """Nothing was added, changed or withdrawn."""
        return not (self.added or self.changed or self.withdrawn)


def _shown(v: float | int | None) -> str:
    from checker.format.numbers import fmt

    return fmt(v, "value")


def _cell_changes(old_sub: ReleaseSubmission, new_sub: ReleaseSubmission, old: ReleaseCell,
                  new: ReleaseCell) -> tuple[list[str], list[str]]:
    what: list[str] = []
    for label, a, b in (("figure", old.figure, new.figure), ("valid only", old.valid_only, new.valid_only)):
        if a != b:
            what.append(f"{label} {_shown(a)} → {_shown(b)}")
    for label, i, j in (("valid", old.n_valid, new.n_valid), ("declared", old.n_declared, new.n_declared),
                        ("runs", old.runs, new.runs)):
        if i != j:
            what.append(f"{label} {i} → {j}")
    if old.logs_sha256 != new.logs_sha256:
        what.append(f"logs SHA-256 {old.logs_sha256[:12]}… → {new.logs_sha256[:12]}…")
    if old.digest != new.digest and not what:
        what.append(f"result digest {old.digest[:12]}… → {new.digest[:12]}…")
    reasons: list[str] = []
    if old_sub.checker_version != new_sub.checker_version:
        reasons.append(f"re-verified with checker {new_sub.checker_version} (was {old_sub.checker_version})")
    if old.logs_sha256 != new.logs_sha256:
        gone, came = set(old.log_sha256) - set(new.log_sha256), set(new.log_sha256) - set(old.log_sha256)
        detail = f": {len(gone)} log(s) replaced or removed, {len(came)} added" if old.log_sha256 and new.log_sha256 else ""
        reasons.append(f"run logs changed{detail}")
    newly = sorted(set(new.withdrawn_seeds) - set(old.withdrawn_seeds))
    if newly:
        reasons.append("seed(s) withdrawn: " + ", ".join(f"{s} ({new.withdrawn_seeds[s]})" for s in newly))
    if old_sub.profile != new_sub.profile:
        reasons.append(f"profile {old_sub.profile} → {new_sub.profile}")
    if old_sub.commit != new_sub.commit and new_sub.commit and not reasons:
        reasons.append(f"submission folder changed in commit {new_sub.commit[:7]}")
    return what, reasons


def diff(old: dict[str, ReleaseSubmission], new: dict[str, ReleaseSubmission],
         withdrawals: list[Withdrawal] | None = None) -> Diff:
    """What `new` added, changed and withdrew against `old` (release entries; `entries()` for current results).

    `withdrawals`: the reasons the new release recorded (otherwise "no longer published").
    """
    reasons = {(w.submission, w.cell): w.reason for w in withdrawals or []}
    out = Diff()
    for sid in sorted(set(old) | set(new)):
        a, b = old.get(sid), new.get(sid)
        if a is None and b is not None:
            cells = [c for c, e in sorted(b.cells.items()) if not e.comparator]
            out.added.append(Change(sid, None, f"{len(b.cells)} cell(s): {', '.join(sorted(b.cells))}"
                                    + (f" ({len(b.cells) - len(cells)} comparator)" if len(cells) < len(b.cells) else "")))
            continue
        if b is None and a is not None:
            out.withdrawn.append(Change(sid, None, reasons.get((sid, None), "no longer published")))
            continue
        assert a is not None and b is not None
        if a.ranked != b.ranked:
            out.changed.append(Change(sid, None, "ranked → not ranked" if a.ranked else "not ranked → ranked",
                                      [f"profile {a.profile} → {b.profile}"] if a.profile != b.profile else []))
        for cell in sorted(set(a.cells) | set(b.cells)):
            x, y = a.cells.get(cell), b.cells.get(cell)
            if x is None and y is not None:
                out.added.append(Change(sid, cell, f"figure {_shown(y.figure)}, valid {y.n_valid} of {y.n_declared} declared"))
            elif y is None:
                out.withdrawn.append(Change(sid, cell, reasons.get((sid, cell), "no longer published")))
            elif x is not None:
                what, why = _cell_changes(a, b, x, y)
                newly = sorted(set(y.withdrawn_seeds) - set(x.withdrawn_seeds))
                out.withdrawn += [Change(sid, cell, f"seed {s} withdrawn: {y.withdrawn_seeds[s]}") for s in newly]
                if what:
                    out.changed.append(Change(sid, cell, "; ".join(what), why))
    return out


# ---------------------------------------------------------------- citing a release


def cited_release(releases: list[ReleaseFile], submission: str, cell: str, digest: str,
                  logs_sha256: str) -> ReleaseFile | None:
    """The first release (oldest) that published exactly this cell result (same digest and logs), or None."""
    for rel in releases:
        sub = rel.submissions.get(submission)
        entry = sub.cells.get(cell) if sub is not None else None
        if entry is not None and entry.digest == digest and entry.logs_sha256 == logs_sha256:
            return rel
    return None


_PLAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.]*(-[A-Za-z0-9_.]+)*$")


def anchor(submission: str, cell: str) -> str:
    """The id of a cell's row on a release page: stable across releases, unique per (submission, cell).

    `<submission>--<cell>` when both are plain names (letters, digits, `_`, `.`, single `-`; neither
    holds `--`, so the pair reads back unambiguously); otherwise `r-` + the first 16 hex digits of
    the SHA-256 of the pair (ids and cell names may hold any character).
    """
    if _PLAIN_NAME.match(submission) and _PLAIN_NAME.match(cell):
        return f"{submission}--{cell}"
    return "r-" + hashlib.sha256(f"{submission}\x00{cell}".encode()).hexdigest()[:16]


def release_path(release_id: str) -> str:
    """The archived page of a release, relative to the docs root."""
    return f"releases/{release_id}.md"
