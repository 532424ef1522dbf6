"""A submission pull request's scope is a whitelist: every changed file is allowed by a rule, or fails the check.

`driftboard ci` judges the whole diff between the merge base and the head (and, when the head is
checked out, the uncommitted and untracked files), not only paths under `submissions/`. A
submission pull request may only

(a) **pre-register**: add a new folder `submissions/<id>/` holding exactly `submission.yaml` and
    `prereg.yaml` (nothing else: no runs, no README);
(b) **add runs** to ONE submission whose `prereg.yaml` is already on the base, byte for byte:
    new run logs under `runs/` (`*.jsonl`, `*.jsonl.zst`, `*.jsonl.gz`) and, in `submission.yaml`, new
    entries appended to `files:` and `claims:`, and added to `logs_sha256:` and `blobs:` (logs stored
    outside the repository by content address, which the check fetches like the publish job) (every
    other field, and every existing entry, unchanged; a
    `submission.yaml` may also be added there when the base holds only the `prereg.yaml`);
(c) **withdraw**: add `withdrawal.yaml` (the reason) to ONE submission already on the base.

Anything else fails with one message per file naming the file and the rule it breaks: an edit,
rename or deletion of any merged file (run logs, pre-registrations, manifests, withdrawal records,
problem sets, releases, code, docs), a file outside that one submission folder, build output, a
second submission, a symbolic link, a file in a mistyped folder (the message names the folder it
expected). Such changes are maintainers' work: `driftboard ci --maintainer` (run by the
workflow only on pull requests whose author is a maintainer of the repository, as GitHub
reports it) reports them as warnings, except an edit or deletion of a merged run log or
pre-registration, which stays an error for everyone: published records are append-only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from checker.cli.ci_git import DIFF, SUBMISSIONS, Problem, _blob, _git, _merge_base, _names
from checker.format.results_sniff import file_looks_like_results
from checker.format.storage import storage_of

MAINTAINER = "this change needs a maintainer's pull request (see CONTRIBUTING.md, \"Changing the checker or the site\")"
WHITELIST = ("a submission pull request may only add a new folder submissions/<id>/ holding submission.yaml and "
             "prereg.yaml, or add run logs (runs/*.jsonl) and their manifest entries to one submission whose "
             "prereg.yaml is already merged, or add its withdrawal.yaml")
FIRST_PR = ("a new submission's first pull request holds exactly submission.yaml and prereg.yaml (pre-registration "
            "first); the runs follow in a second pull request once it is merged")
APPEND_ONLY = "merged run logs and pre-registrations are append-only: withdraw with withdrawal.yaml, never edit or delete"
MANIFEST = "submission.yaml"
PREREG = "prereg.yaml"
WITHDRAWAL = "withdrawal.yaml"
RESULTS_HINT = ("it looks like a results file: the site publishes only results computed by the publishing job from "
                "the logs; a committed results file is never read")


@dataclass
class Scope:
    """What the whitelist found: the kind of pull request and the refused files."""

    problems: list[Problem] = field(default_factory=list)
    kind: str | None = None
    """`pre-registration`, `runs`, `withdrawal` (one submission), or None (no submission file, or refused)."""
    submission: str | None = None
    """The one submission folder the pull request touches (`submissions/<id>`), when there is one."""


def _problem(path: str, message: str, severity: str = "error") -> Problem:
    return {"path": path, "line": None, "severity": severity, "message": message}


def changed_paths(root: Path, merge_base: str, head: str, worktree: bool) -> list[str]:
    """Every path that differs between the merge base and the head, and the work tree's under `submissions/`.

    When the head is checked out, uncommitted or untracked files under `submissions/` count (a submitter checks
    before committing). Uncommitted files elsewhere (an eval's log folder, a build) are not in the pull request: only committed
    changes outside `submissions/` are judged.
    """
    names = _names(_git(root, *DIFF, merge_base, head), "diff")
    if worktree:
        local = _names(_git(root, *DIFF, head), "diff")
        local += _names(_git(root, "ls-files", "-z", "--others", "--exclude-standard"), "ls-files")
        names += [n for n in local if n.startswith("submissions/")]
    return sorted(set(names))


def _exists(tree: Path, path: str) -> bool:
    p = tree / path
    return p.is_symlink() or p.exists()


def _near(word: str, target: str) -> bool:
    """`word` is a likely misspelling of `target` (case, one or two letters, singular)."""
    w = word.casefold()
    if w == target or w.rstrip("s") == target.rstrip("s"):
        return True
    if abs(len(w) - len(target)) > 2:
        return False
    prev = list(range(len(target) + 1))
    for i, a in enumerate(w, 1):
        cur = [i]
        for j, b in enumerate(target, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a != b)))
        prev = cur
    return prev[-1] <= 2


def _mistyped(path: str) -> str | None:
    """The folder a misplaced submission file was meant for, or None when it does not look like one."""
    parts = path.split("/")
    name = parts[-1]
    if parts[0] == SUBMISSIONS and len(parts) == 2:
        stem = re.sub(r"\.(ya?ml|jsonl?)$", "", name) or "<id>"
        return f"{SUBMISSIONS}/{stem}/ (a submission is a folder holding submission.yaml and prereg.yaml)"
    if parts[0] != SUBMISSIONS and _near(parts[0], SUBMISSIONS):
        return f"{SUBMISSIONS}/{'/'.join(parts[1:2]) or '<id>'}/ (the folder is spelled `{SUBMISSIONS}`)"
    if name in (MANIFEST, PREREG, WITHDRAWAL) or name.lower().endswith(".jsonl"):
        return f"{SUBMISSIONS}/<id>/ (submission files live in a submission folder)"
    return None


def _looks_like_results(tree: Path, path: str) -> bool:
    """The file parses as one of our results documents (any name: `checker.format.results_sniff`)."""
    return file_looks_like_results(tree / path)


def _outside(tree: Path, path: str, status: str) -> str:
    """The message for a changed file outside any submission folder."""
    expected = _mistyped(path)
    if expected is not None and status != "deleted":
        return (f"{path} is not inside a submission folder: expected it under {expected}; move it there "
                f"(rule: {WHITELIST})")
    first = path.split("/")[0]
    what = {"problems": "problem sets define the benchmark: the submission check does not accept changes under "
                        "problems/ (a maintainer changes them in a separate pull request)",
            "releases": "release files record what the site published: the submission check does not accept "
                        "changes under releases/ (a maintainer makes a release with `driftboard release`)",
            "build": "build output is computed by the publishing job, never committed"}.get(first)
    if what is None:
        what = f"{status} outside submissions/<id>/: {WHITELIST}"
    if status != "deleted" and _looks_like_results(tree, path):
        what += f"; {RESULTS_HINT}"
    return f"{path}: {what}; {MAINTAINER}"


def _merged_change(path: str, rel: str, status: str) -> str:
    """The message for an edit, rename or deletion of a merged file of a submission."""
    verb = "deletes (or renames)" if status == "deleted" else "changes"
    if rel in (PREREG, WITHDRAWAL) or rel.lower().endswith(".jsonl"):
        return f"{path}: this pull request {verb} a merged file; {APPEND_ONLY}; {MAINTAINER}"
    return f"{path}: this pull request {verb} a merged file: merged files are fixed ({WHITELIST}); {MAINTAINER}"


def manifest_append_only(root: Path, merge_base: str, tree: Path, folder: str) -> str | None:
    """Why the head's `submission.yaml` is not the merged one with entries appended to `files`/`claims` (None: it is)."""
    from checker.format.schema.manifest import Submission
    from checker.stages.manifest_yaml import parse_yaml, read_small

    shown = f"{folder}/{MANIFEST}"
    before_raw = _blob(root, merge_base, shown)
    after_raw, _ = read_small(tree / shown, shown)
    if before_raw is None or after_raw is None:
        return None  # added (allowed in an existing folder) or unreadable (verify reports it)
    before, _ = parse_yaml(before_raw, Submission, shown)
    after, _ = parse_yaml(after_raw, Submission, shown)
    if before is None or after is None:
        return None if after is None else f"{shown}: the merged manifest does not parse; {MAINTAINER}"
    old, new = before.model_dump(mode="json"), after.model_dump(mode="json")
    changed = sorted(k for k in old.keys() | new.keys()
                     if k not in ("files", "claims", "logs_sha256", "blobs") and old.get(k) != new.get(k))
    for key in ("files", "claims"):
        if new[key][:len(old[key])] != old[key]:
            changed.append(f"{key} (existing entries must stay, in order; new ones go at the end)")
    # the digests recorded for the logs (a mapping): those of merged logs stay, new logs add theirs
    if any(new["logs_sha256"].get(k) != v for k, v in old["logs_sha256"].items()):
        changed.append("logs_sha256 (the digests of merged logs must stay)")
    # logs stored by reference: a merged entry is a merged log (its digest, size and url stay), new ones are appended
    if any(new["blobs"].get(k) != v for k, v in old["blobs"].items()):
        changed.append("blobs (the entries of merged logs stored by reference must stay)")
    if not changed:
        return None
    return (f"{shown}: this pull request changes the merged manifest's {', '.join(changed)}: a submission pull request "
            f"may only append entries to files:, claims:, logs_sha256: and blobs:; {MAINTAINER}")


@dataclass
class _Folder:
    """One submission folder's changed files: relative path -> (status, existed on the base)."""

    path: str
    files: dict[str, tuple[str, bool]] = field(default_factory=dict)

    def new_on_base(self, root: Path, merge_base: str) -> bool:
        return _git(root, "cat-file", "-e", f"{merge_base}:{self.path}").returncode != 0


def _file_problem(root: Path, merge_base: str, tree: Path, folder: _Folder, rel: str) -> str | None:
    """Why one changed file of a submission folder breaks the whitelist (None: allowed)."""
    path = f"{folder.path}/{rel}"
    status, existed = folder.files[rel]
    if (tree / path).is_symlink():
        return f"{path}: a symbolic link: submission files are regular files ({WHITELIST})"
    if status != "deleted" and not (tree / path).is_file():
        return f"{path}: not a regular file (a submodule or a special file): submission files are regular files"
    if existed:
        if rel == MANIFEST and status != "deleted":
            return manifest_append_only(root, merge_base, tree, folder.path)
        return _merged_change(path, rel, status)
    if folder.new_on_base(root, merge_base):
        if rel in (MANIFEST, PREREG):
            return None
        hint = f"; {RESULTS_HINT}" if _looks_like_results(tree, path) else ""
        return f"{path}: {FIRST_PR}{hint}"
    if rel in (MANIFEST, WITHDRAWAL) or (rel.startswith("runs/") and storage_of(rel) is not None):
        return _runs_problem(root, merge_base, tree, folder.path, path, rel) or _too_large(tree, path)
    hint = f"; {RESULTS_HINT}" if _looks_like_results(tree, path) else ""
    return f"{path}: not a file a submission pull request may add ({WHITELIST}){hint}"


MAX_PLAIN_LOG_BYTES = 50 << 20
"""Largest plain `.jsonl` run log a pull request may add (50 MiB): GitHub warns at 50 MB and refuses files over
100 MB, and every pull-request check clones the repository. A larger log is committed compressed (`.jsonl.zst`,
`driftboard compress`: 4-15x smaller, results unchanged); the repository budget is in CONTRIBUTING.md."""


def _too_large(tree: Path, path: str) -> str | None:
    """A plain run log over `MAX_PLAIN_LOG_BYTES`, with what to do (None: within it, or compressed)."""
    if storage_of(path) != "plain":
        return None
    size = (tree / path).stat().st_size
    if size <= MAX_PLAIN_LOG_BYTES:
        return None
    return (f"{path}: a plain run log of {size:,} bytes, over the {MAX_PLAIN_LOG_BYTES:,}-byte limit for plain logs: "
            f"compress it (driftboard compress {path.rsplit('/runs/', 1)[0]}) and commit the .jsonl.zst instead")


def _runs_problem(root: Path, merge_base: str, tree: Path, folder: str, path: str, rel: str) -> str | None:
    """Adding runs or a withdrawal needs the merged, unchanged pre-registration; runs, no withdrawal on the base."""
    merged = _blob(root, merge_base, f"{folder}/{PREREG}")
    if merged is None:
        return (f"{path}: {folder}/{PREREG} is not on the base branch: the pre-registration lands first, in a pull "
                "request of its own; the runs follow in a later one (see How to submit)")
    if rel != WITHDRAWAL and _blob(root, merge_base, f"{folder}/{WITHDRAWAL}") is not None:
        return f"{path}: {folder} is withdrawn ({folder}/{WITHDRAWAL} is merged): no runs may be added"
    return None


def _group(root: Path, merge_base: str, tree: Path, paths: Iterable[str]) -> tuple[dict[str, _Folder], list[Problem]]:
    """Changed paths by submission folder; problems for the ones outside every submission folder."""
    base_files = set(_names(_git(root, "ls-tree", "-r", "-z", "--name-only", merge_base), "ls-tree"))
    folders: dict[str, _Folder] = {}
    outside: list[Problem] = []
    for path in paths:
        existed, exists = path in base_files, _exists(tree, path)
        if existed == exists and not existed:
            continue  # added and removed again in the work tree
        status = "deleted" if not exists else "modified" if existed else "added"
        parts = path.split("/")
        if parts[0] != SUBMISSIONS or len(parts) < 3:
            outside.append(_problem(path, _outside(tree, path, status)))
            continue
        folder = folders.setdefault("/".join(parts[:2]), _Folder("/".join(parts[:2])))
        folder.files["/".join(parts[2:])] = (status, existed)
    return folders, outside


def scope_check(root: Path, base: str, head: str, tree: Path, worktree: bool, maintainer: bool = False) -> Scope:
    """The whitelist over the whole diff (see the module's docstring); one problem per refused file.

    `maintainer`: the author is a maintainer; refusals become warnings, except edits and deletions
    of merged run logs and pre-registrations.
    """
    merge_base = _merge_base(root, base, head)
    if merge_base is None:
        return Scope()
    folders, problems = _group(root, merge_base, tree, changed_paths(root, merge_base, head, worktree))
    scope = Scope(problems)
    for folder in folders.values():
        for rel in sorted(folder.files):
            why = _file_problem(root, merge_base, tree, folder, rel)
            if why is not None:
                scope.problems.append(_problem(f"{folder.path}/{rel}", why))
    if len(folders) > 1:
        named = ", ".join(sorted(folders))
        refused = {p["path"] for p in scope.problems}
        scope.problems += [_problem(f"{f.path}/{rel}", f"{f.path}/{rel}: this pull request touches {len(folders)} "
                                    f"submission folders ({named}): one submission per pull request ({WHITELIST})")
                           for f in sorted(folders.values(), key=lambda f: f.path) for rel in sorted(f.files)
                           if f"{f.path}/{rel}" not in refused]
    elif len(folders) == 1 and not scope.problems:
        scope.submission, scope.kind = _kind(root, merge_base, next(iter(folders.values())))
    if maintainer:
        scope.problems = [p if _append_only(p) else {**p, "severity": "warning",
                                                      "message": f"maintainer's change: {p['message']}"}
                          for p in scope.problems]
    scope.problems.sort(key=lambda p: p["path"])
    return scope


def _append_only(problem: Problem) -> bool:
    return APPEND_ONLY in problem["message"]


def _kind(root: Path, merge_base: str, folder: _Folder) -> tuple[str, str]:
    """(the folder, what the pull request does to it): a pre-registration, runs or a withdrawal."""
    if folder.new_on_base(root, merge_base):
        return folder.path, "pre-registration"
    if WITHDRAWAL in folder.files:
        return folder.path, "withdrawal"
    return folder.path, "runs"


def scope_line(scope: Scope) -> str | None:
    """The summary's line for an allowed pull request (None when nothing to say)."""
    if scope.kind == "pre-registration":
        return f"`{scope.submission}`: pre-registered; awaiting runs (the runs follow in a second pull request)."
    if scope.kind == "withdrawal":
        return f"`{scope.submission}`: withdrawal recorded (the pre-registration stays listed, as withdrawn)."
    return None


__all__ = ["Scope", "changed_paths", "manifest_append_only", "scope_check", "scope_line"]


def first_parent_rewrites(root: Path, head_sha: str, since_sha: str | None) -> list[Problem]:
    """Merged run logs, pre-registrations and withdrawal records deleted or rewritten on the first-parent history.

    Each first-parent commit is compared with its first parent (a merged pull request is one such
    commit): a deletion, edit or type change of a `runs/*.jsonl`, `prereg.yaml` or `withdrawal.yaml`
    under `submissions/` breaks the append-only rule, whoever made it.
    """
    rev_range = head_sha if since_sha is None else f"{since_sha}..{head_sha}"
    log = _git(root, "rev-list", "--first-parent", "--reverse", rev_range)
    out: list[Problem] = []
    for commit in log.stdout.decode().split():
        parent = _git(root, "rev-parse", "--verify", "--quiet", f"{commit}^1")
        if parent.returncode != 0:
            continue
        diff = _git(root, *DIFF, "--diff-filter=DMT", parent.stdout.decode().strip(), commit, "--", f"{SUBMISSIONS}/")
        for path in _names(diff, "diff"):
            name = path.rsplit("/", 1)[-1]
            if path.count("/") >= 2 and (name in (PREREG, WITHDRAWAL) or name.lower().endswith(".jsonl")):
                gone = _blob(root, commit, path) is None
                out.append(_problem(path, f"commit {commit[:12]} {'deletes' if gone else 'rewrites'} the merged file "
                                          f"{path}: {APPEND_ONLY}"))
    return out


DATA_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml", ".txt", ".csv", ".html")
"""Files searched for committed results documents (source code and Markdown may name the keys)."""
RECORDS = ("releases/",)
"""Maintainers' records of what the site published (`driftboard release`): results-like by design."""


def committed_results_in_tree(root: Path, rev: str) -> list[Problem]:
    """Every results-looking data file committed at `rev` (any name, anywhere but `releases/`): one finding each.

    Run logs (`submissions/<id>/runs/*.jsonl`) are validated as logs and not searched. The blobs are
    read by one `git cat-file --batch`; only each file's first 64 KiB is looked at.
    """
    import subprocess

    from checker.format.results_sniff import SNIFF_BYTES, looks_like_results

    names = [n for n in _names(_git(root, "ls-tree", "-r", "-z", "--name-only", rev), "ls-tree")
             if n.lower().endswith(DATA_SUFFIXES) and not n.startswith(RECORDS)
             and not (n.startswith(f"{SUBMISSIONS}/") and "/runs/" in n and n.lower().endswith(".jsonl"))
             and "\n" not in n]
    if not names:
        return []
    batch = subprocess.run(["git", "-C", str(root), "cat-file", "--batch"], capture_output=True, check=False,
                           input="".join(f"{rev}:{n}\n" for n in names).encode())
    out, data, at = [], batch.stdout, 0
    for name in names:
        end = data.find(b"\n", at)
        header = data[at:end].split()
        if len(header) != 3 or header[1] != b"blob":
            at = end + 1
            continue
        size = int(header[2])
        if looks_like_results(data[end + 1:end + 1 + min(size, SNIFF_BYTES)]):
            out.append(_problem(name, f"{name}: a results-looking file committed in the tree ({rev[:12]}): "
                                      f"{RESULTS_HINT}; remove it ({MAINTAINER})"))
        at = end + 1 + size + 1
    return out
