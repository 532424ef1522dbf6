"""Load stage: find submissions and run logs on disk, walk each submission, read and check its manifests.

Submissions are untrusted input: sizes are bounded, nothing outside a submission folder is ever
read through it, files are opened the safe way (`checker.stages.files`) and manifests are read
with line numbers, without anchors or duplicate keys (`checker.stages.manifest_yaml`).

The folder is walked once, without following links (`_walk`): every entry is either a regular
file with one name and a portable name, or a folder, or it is refused with a finding and never
opened (symbolic and hard links, FIFOs, sockets, devices, names with control, bidi, zero-width or
non-ASCII characters). Every `*.jsonl` file found, and every file the manifest lists, becomes a
run of the submission: scored when it can be read, otherwise reported with the reason it was
not (so the runs reported always equal the run files found).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from checker.format.errors import Finding, UsageError, is_invisible, visible
from checker.format.schema.manifest import Prereg, Submission
from checker.format.storage import LogStorageError, open_stream, storage_of
from checker.stages.fetch import BlobError, BlobStore
from checker.stages.files import LINK_MESSAGE, NAME_RULE, RefusedFile, bad_char, open_regular, refusal, unsafe_name
from checker.stages.manifest_yaml import MAX_YAML_BYTES, node_lines, parse_yaml, read_small, read_yaml
from checker.stages.rules import prereg_findings

MANIFEST = "submission.yaml"
PREREG = "prereg.yaml"
MAX_FILES = 10_000
"""Most run logs one submission may list."""
MAX_ENTRIES = 20_000
"""Most files and folders walked in one submission folder; past it the submission is not read."""
MAX_DEPTH = 8
"""Deepest folder nesting below the submission folder (`runs/` is depth 1)."""
MAX_PATH_CHARS = 255
"""Longest path a manifest may list."""


@dataclass(frozen=True)
class Target:
    """Something the user asked to check: a submission folder or a lone run log."""

    path: Path
    kind: str
    """`submission` or `run`."""


def _as_typed_under_cwd(path: Path) -> Path:
    """An absolute path under the working directory, relative to it (`$PWD/submissions/x` -> `submissions/x`).

    Results record the paths their runs were read from; written as the reader typed them, the same
    submission verified as `submissions/x` and as `$PWD/submissions/x` would give different bytes
    (and a machine's home folder in a published file). Paths outside the working directory stay as given.
    """
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd())
        except (ValueError, OSError):
            return path
    return path


def discover(paths: Iterable[Path]) -> list[Target]:
    """Expand command-line paths into submission folders and run files, in sorted order.

    A folder holding `submission.yaml`, `prereg.yaml` or `runs/` is a submission; any other
    folder is a collection whose sub-folders are submissions (an empty one is reported as
    an empty submission). A file is a run log.

    Raises:
        UsageError: a path does not exist or cannot be listed.
    """
    targets: list[Target] = []
    for path in map(_as_typed_under_cwd, paths):
        if not path.exists() and not path.is_symlink():
            raise UsageError(f"{path}: no such file or directory")
        if path.is_symlink():  # refused when loaded, with a finding (links are never followed)
            targets.append(Target(path, "submission" if path.is_dir() else "run"))
        elif path.is_dir():
            targets.extend(_folder_targets(path))
        else:
            targets.append(Target(path, "run"))
    return targets


def _folder_targets(path: Path) -> list[Target]:
    """A submission folder, or the submissions of a collection (itself, when it holds none)."""
    if is_submission_dir(path):
        return [Target(path, "submission")]
    try:
        children = sorted(p for p in path.iterdir() if not p.name.startswith("."))
    except OSError as exc:
        raise UsageError(f"{path}: cannot list folder ({exc.strerror})") from None
    subdirs = [p for p in children if p.is_dir() or p.is_symlink()]
    return [Target(p, "submission") for p in subdirs] if subdirs else [Target(path, "submission")]


def is_submission_dir(path: Path) -> bool:
    """True if `path` looks like one submission rather than a collection of them."""
    return any((path / name).exists() or (path / name).is_symlink() for name in (MANIFEST, PREREG, "runs"))


@dataclass
class SubmissionFiles:
    """What the load stage found in one submission folder."""

    root: Path
    manifest: Submission | None = None
    prereg: Prereg | None = None
    run_paths: list[Path] = field(default_factory=list)
    """Run logs to validate and score: the listed ones (every `*.jsonl` found when the manifest is unreadable)."""
    refused_runs: list[tuple[str, str]] = field(default_factory=list)
    """(path relative to the folder, reason) of every run file found that is not scored."""
    findings: list[Finding] = field(default_factory=list)
    manifest_sha256: str | None = None
    prereg_sha256: str | None = None
    """SHA-256 of the `prereg.yaml` bytes as read (None when it is missing or was refused)."""
    manifest_lines: dict[tuple[str, ...], int] = field(default_factory=dict)
    """Where each value of `submission.yaml` is (keys and list indexes -> 1-based line), for findings."""
    fetched: dict[Path, str] = field(default_factory=dict)
    """Run logs stored by reference (`blobs:`) and fetched: their path in the blob store -> the listed name."""
    unfetched: list[tuple[str, str]] = field(default_factory=list)
    """(listed name, why) of every referenced log that could not be fetched or is not the declared bytes."""

    def rel(self, path: Path) -> str:
        """The listed name of a run path (`runs/x.jsonl`), whether it is in the folder or fetched."""
        return self.fetched.get(path) or path.relative_to(self.root).as_posix()


@dataclass
class Tree:
    """What one walk of a submission folder found (paths relative to the folder, POSIX)."""

    files: set[str] = field(default_factory=set)
    """Regular files with one name and a portable name: the only ones ever read (unless they are
    inside a refused folder, see `refused_reason`)."""
    dirs: set[str] = field(default_factory=set)
    refused: dict[str, str] = field(default_factory=dict)
    """Every other entry -> why it is not read (its finding is already reported)."""
    complete: bool = True
    """False when a limit stopped the walk (the submission is then not read at all)."""

    def refused_reason(self, rel: str) -> str | None:
        """Why `rel`, or a folder it is inside, was not read (None if nothing on its way was refused)."""
        parts = rel.split("/")
        for n in range(1, len(parts) + 1):
            prefix = "/".join(parts[:n])
            if prefix in self.refused:
                reason = self.refused[prefix]
                return reason if prefix == rel else f"is inside {prefix!r}, which was not read: {reason}"
        return None


def is_run_name(rel: str) -> bool:
    """A file that is a run log by its name (`*.jsonl`, `*.jsonl.gz`, `*.jsonl.zst`: `checker.format.storage`)."""
    return storage_of(rel) is not None


def load_submission(root: Path, display_root: str, blobs: BlobStore | None = None) -> SubmissionFiles:
    """Read the manifest and pre-registration and resolve the run files they list, safely.

    Logs the manifest stores by reference (`blobs:`) are fetched into `blobs`, checked there, and
    read from it (`checker.stages.fetch`); None: they are not fetched, and not among the runs.
    """
    out = SubmissionFiles(root)
    refused = _refused_folder(root, display_root)
    if refused is not None:
        out.findings.append(refused)
        return out
    tree = _walk(root, display_root, out.findings)
    if not tree.complete:
        return out
    if not (tree.files or tree.dirs or tree.refused) and not out.findings:
        out.findings.append(Finding(display_root, None, "empty submission folder (no submission.yaml)"))
        return out
    _read_manifest(out, tree, display_root)
    _read_prereg(out, tree, display_root)
    listed = _check_manifest(out, tree, display_root) if out.manifest is not None else None
    _collect_runs(out, tree, listed, display_root)
    if listed is not None:
        _fetch_blobs(out, tree, listed, blobs, display_root)
    return out


def _fetch_blobs(out: SubmissionFiles, tree: Tree, listed: set[str], store: BlobStore | None,
                 display_root: str) -> None:
    """Fetch every listed log stored by reference (and not committed): into `fetched`, or `unfetched` with why."""
    assert out.manifest is not None
    for rel in sorted(listed & out.manifest.blobs.keys()):
        if rel in tree.files or tree.refused_reason(rel) or storage_of(rel) is None:
            continue  # committed too, or not a run log's name: a finding of `_check_manifest`
        if store is None:
            continue  # this reader does not read logs (the registry) or leaves them to `verify` (ci's validate-all)
        ref = out.manifest.blobs[rel]
        suffix = next(s for s in (".jsonl.gz", ".jsonl.zst", ".jsonl") if rel.lower().endswith(s))
        try:
            path = store.get(ref, suffix)
        except BlobError as exc:
            out.unfetched.append((rel, str(exc)))
            continue
        out.fetched[path] = rel
        if rel in out.manifest.logs_sha256:  # the digest of its lines, when recorded too, must agree
            out.findings.extend(_digest_differs(out, rel, out.manifest.logs_sha256[rel], display_root, path))
    out.run_paths.extend(out.fetched)
    out.run_paths.sort(key=out.rel)


def _refused_folder(root: Path, display_root: str) -> Finding | None:
    """Why the submission folder itself is not read (a link, or a name with an invisible character), or None."""
    if root.is_symlink():
        return Finding(display_root, None, "the submission folder is a symbolic link: links are not followed")
    bad = unsafe_name(root.name)
    if bad and any(is_invisible(ch) for ch in root.name):
        return Finding(visible(display_root), None, f"submission folder {bad}; not read")
    return None


def _manifest_bytes(out: SubmissionFiles, tree: Tree, display_root: str, name: str) -> bytes | None:
    """The bytes of `submission.yaml` or `prereg.yaml` as walked, or None (with the finding, if any, recorded)."""
    if name not in tree.files:
        if name in tree.dirs:
            out.findings.append(Finding(f"{display_root}/{name}", None, "is a folder, not a file"))
        elif name not in tree.refused:
            out.findings.append(Finding(display_root, None, f"no {name} in the submission folder"))
        return None
    raw, problems = read_small(out.root / name, f"{display_root}/{name}")
    out.findings.extend(problems)
    return raw


def _read_manifest(out: SubmissionFiles, tree: Tree, display_root: str) -> None:
    raw = _manifest_bytes(out, tree, display_root, MANIFEST)
    if raw is not None:
        out.manifest_sha256 = hashlib.sha256(raw).hexdigest()
        out.manifest, problems = parse_yaml(raw, Submission, f"{display_root}/{MANIFEST}")
        out.findings.extend(problems)
        if out.manifest is not None:
            out.manifest_lines = node_lines(raw)


def _read_prereg(out: SubmissionFiles, tree: Tree, display_root: str) -> None:
    raw = _manifest_bytes(out, tree, display_root, PREREG)
    if raw is not None:
        out.prereg_sha256 = hashlib.sha256(raw).hexdigest()
        out.prereg, problems = parse_yaml(raw, Prereg, f"{display_root}/{PREREG}")
        if out.prereg is not None:  # rules fixed before the runs: no loosened thresholds, no stray comparator
            problems = problems + prereg_findings(out.prereg, f"{display_root}/{PREREG}")
        out.findings.extend(problems)


def _walk(root: Path, display_root: str, findings: list[Finding]) -> Tree:
    """Classify every entry under `root` without following links; refused entries are findings.

    Iterative (no recursion limit), in sorted order (deterministic), bounded by MAX_ENTRIES
    and MAX_DEPTH.
    """
    tree = Tree()
    pending: list[tuple[str, int]] = [("", 0)]
    count = 0
    while pending:
        rel_dir, depth = pending.pop()
        entries = _listing(root, rel_dir, display_root, findings, tree)
        folded: dict[str, str] = {}
        subdirs: list[str] = []
        for entry in entries:
            count += 1
            if count > MAX_ENTRIES:
                findings.append(Finding(display_root, None, f"more than {MAX_ENTRIES} files and folders: "
                                        "the submission is not read (split it, or remove what is not a run log)"))
                tree.complete = False
                return tree
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if _classify(entry, rel, depth, f"{display_root}/{visible(rel)}", findings, tree, folded):
                subdirs.append(rel)
        pending.extend((d, depth + 1) for d in reversed(subdirs))
    return tree


def _listing(root: Path, rel_dir: str, display_root: str, findings: list[Finding], tree: Tree) -> list[os.DirEntry[str]]:
    """The entries of one folder, sorted by name; none (with a finding) when it cannot be listed."""
    try:
        with os.scandir(root / rel_dir if rel_dir else root) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError as exc:
        where = f"{display_root}/{visible(rel_dir)}" if rel_dir else display_root
        findings.append(Finding(where, None, f"cannot list folder: {exc.strerror}", unreadable=True))
        if rel_dir:
            tree.refused[rel_dir] = "could not be listed"
        return []


def _classify(entry: os.DirEntry[str], rel: str, depth: int, shown: str, findings: list[Finding], tree: Tree,
              folded: dict[str, str]) -> bool:
    """Record one entry in `tree` (a file, a folder, or refused with a finding); True when the walk descends into it."""
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError as exc:
        findings.append(Finding(shown, None, f"cannot read: {exc.strerror}", unreadable=True))
        tree.refused[rel] = "could not be read"
        return False
    descend = stat.S_ISDIR(st.st_mode)
    problem, descend = _entry_problem(entry.name, st, depth, descend)
    if problem is not None:
        findings.append(Finding(shown, None, problem))
        tree.refused[rel] = problem
        return descend
    first = folded.setdefault(entry.name.casefold(), entry.name)
    if first != entry.name:
        findings.append(Finding(shown, None, f"name differs only in case from {first!r}: the two collide on "
                                "case-insensitive file systems"))
    if stat.S_ISDIR(st.st_mode):
        tree.dirs.add(rel)
        return True
    tree.files.add(rel)
    return False


def _entry_problem(name: str, st: os.stat_result, depth: int, is_dir: bool) -> tuple[str | None, bool]:
    """(why an entry is refused or None, whether the walk still descends into it)."""
    if stat.S_ISLNK(st.st_mode):
        return LINK_MESSAGE, False
    if is_dir and depth + 1 > MAX_DEPTH:
        return f"folder is nested more than {MAX_DEPTH} levels deep: its contents are not read", False
    if is_dir:
        return unsafe_name(name), True  # still walked, so the run files inside are reported
    return refusal(st) or unsafe_name(name), False


def _shown(name: str) -> str:
    """A listed name for a finding: its repr, cut when very long."""
    return repr(name) if len(name) <= 120 else f"{name[:100]!r}... ({len(name)} characters)"


def _check_manifest(out: SubmissionFiles, tree: Tree, display_root: str) -> set[str]:
    """Manifest checks; returns the normalised paths of the listed run files that are safe names."""
    manifest = out.manifest
    assert manifest is not None
    mpath = f"{display_root}/{MANIFEST}"
    if manifest.id != out.root.name:
        out.findings.append(Finding(mpath, None, f"id {manifest.id!r} does not match the folder name {out.root.name!r}"))
    if out.prereg is not None:
        out.findings.extend(_prereg_mismatches(out.prereg, manifest, f"{display_root}/{PREREG}"))
    listed: set[str] = set()
    if len(manifest.files) > MAX_FILES:
        out.findings.append(Finding(mpath, None, f"lists {len(manifest.files)} files, more than the limit of {MAX_FILES}"))
        return listed
    lower = {rel.casefold(): rel for rel in tree.files}
    for i, name in enumerate(manifest.files):
        line = out.manifest_lines.get(("files", str(i)))
        problem = unsafe_path(name)
        if problem:
            out.findings.append(Finding(mpath, line, f"files: {_shown(name)} {problem}"))
            continue
        norm = PurePosixPath(name).as_posix()
        if norm in listed:
            out.findings.append(Finding(mpath, line, f"files: {name!r} is listed twice"))
            continue
        listed.add(norm)
        if norm in manifest.blobs:
            out.findings.extend(_blob_problems(out, norm, tree, mpath))
            continue
        missing = _missing_listed(name, norm, tree, lower)
        if missing is not None:
            fix = "; add the log, or remove the line" if missing.startswith("does not exist") else ""
            out.findings.append(Finding(mpath, line, f"files: {name!r} {missing}{fix}"))
        elif name in manifest.logs_sha256 and norm in tree.files:
            out.findings.extend(_digest_differs(out, name, manifest.logs_sha256[name], display_root))
    out.findings.extend(Finding(mpath, out.manifest_lines.get(("logs_sha256", name)),
                                f"logs_sha256: {_shown(name)} is not one of `files`")
                        for name in sorted(set(manifest.logs_sha256) - set(manifest.files)))
    out.findings.extend(Finding(mpath, out.manifest_lines.get(("blobs", name)),
                                f"blobs: {_shown(name)} is not one of `files`; list it under files:, or remove it")
                        for name in sorted(set(manifest.blobs) - set(manifest.files)))
    return listed


def _blob_problems(out: SubmissionFiles, name: str, tree: Tree, mpath: str) -> list[Finding]:
    """A log listed under `blobs:` that is also committed, or whose name is not a run log's."""
    line = out.manifest_lines.get(("blobs", name))
    if storage_of(name) is None:
        return [Finding(mpath, line, f"blobs: {_shown(name)} is not a run log's name (.jsonl, .jsonl.zst or .jsonl.gz)")]
    if name in tree.files or tree.refused_reason(name):
        return [Finding(mpath, line, f"blobs: {_shown(name)} is committed and also stored by reference: keep one "
                                     "(remove the file, or its blobs: entry)")]
    return []


def _digest_differs(out: SubmissionFiles, name: str, recorded: str, display_root: str,
                    path: Path | None = None) -> list[Finding]:
    """The finding for a listed log whose SHA-256 is not the one the manifest records (none when it is).

    `path`: where the log is read (a fetched blob's place in the store; default: the folder's file).
    """
    try:
        sha = hashlib.sha256()
        raw = open_regular(path or out.root / name)
        # the digest of the log's lines: of the decompressed bytes when it is stored compressed
        with open_stream(raw, storage_of(name) or "plain", name, os.fstat(raw.fileno()).st_size) as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                sha.update(chunk)
        digest = sha.hexdigest()
    except (OSError, RefusedFile, LogStorageError):
        return []  # refused, unreadable or a broken stream: reported where the log is read
    if digest == recorded:
        return []
    line = out.manifest_lines.get(("logs_sha256", name))
    return [Finding(f"{display_root}/{visible(name)}", None,
                    f"its SHA-256 is {digest[:12]}…, not the {recorded[:12]}… that {MANIFEST}"
                    f"{f':{line}' if line else ''} records: the log changed after it was written (an edited line, "
                    "the last one included, which no hash chain covers); restore the log as written, or run again")]


def _prereg_mismatches(prereg: Prereg, manifest: Submission, ppath: str) -> list[Finding]:
    """A pre-registration that names another submission or track than the manifest."""
    found = []
    if prereg.submission_id != manifest.id:
        found.append(Finding(
            ppath, None, f"submission_id {prereg.submission_id!r} does not match the manifest id {manifest.id!r}"))
    if prereg.track != manifest.track:
        found.append(Finding(ppath, None, f"track {prereg.track!r} differs from the manifest's {manifest.track!r}"))
    return found


def _missing_listed(name: str, norm: str, tree: Tree, lower: dict[str, str]) -> str | None:
    """What is wrong with a listed path that is not a file the walk found (None: read below, or already refused)."""
    if norm in tree.files or tree.refused_reason(norm):
        return None  # read below, or refused with a finding by the walk
    if norm in tree.dirs:
        return "is a folder, not a run log"
    if norm.casefold() in lower:
        return f"does not exist (names are case-sensitive: there is {lower[norm.casefold()]!r})"
    return "does not exist"


def _collect_runs(out: SubmissionFiles, tree: Tree, listed: set[str] | None, display_root: str) -> None:
    """Every run file found or listed, once: scored (run_paths) or refused with its reason.

    With no readable manifest (`listed` is None), every `*.jsonl` file found is taken as listed, so
    its runs are still verified and reported.
    """
    for rel in sorted(_run_names(tree, listed)):
        reason = tree.refused_reason(rel)
        if reason is None and listed is not None and rel not in listed:
            out.findings.append(Finding(f"{display_root}/{visible(rel)}", None, f"run log is not listed in {MANIFEST}"))
            reason = f"not listed in {MANIFEST}: not scored"
        if reason is None:
            out.run_paths.append(out.root / rel)
        else:
            out.refused_runs.append((visible(rel), reason))


def _run_names(tree: Tree, listed: set[str] | None) -> set[str]:
    """Every `*.jsonl` file found (read or refused), and every listed path the walk found."""
    names = {rel for rel in tree.files | tree.refused.keys() if is_run_name(rel)}
    if listed is not None:
        names |= {rel for rel in listed if rel in tree.files or tree.refused_reason(rel)}
    return names


def unsafe_path(name: str) -> str | None:
    """Why a manifest path is refused, or None.

    Absolute paths and `..` escape the folder; backslashes and NUL are not plain paths; every
    name must use portable characters only (so `%2e%2e`, control, bidi, zero-width and look-alike
    characters are refused, not decoded); the manifest and pre-registration are not run logs.
    """
    shape = _not_relative(name)
    if shape is not None:
        return shape
    parts = PurePosixPath(name).parts
    if ".." in parts:
        return "escapes the submission folder"
    if len(name) > MAX_PATH_CHARS:
        return f"is {len(name)} characters long, longer than the {MAX_PATH_CHARS}-character limit"
    return _bad_part(parts) or (
        "is the manifest or the pre-registration, not a run log" if PurePosixPath(name).as_posix() in (MANIFEST, PREREG)
        else None)


def _not_relative(name: str) -> str | None:
    """Why a path is not a plain relative one (empty, NUL, backslash, absolute), or None."""
    if not name or "\x00" in name or "\\" in name:
        return "is not a plain relative path"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "is absolute (paths must be relative to the submission folder)"
    return None


def _bad_part(parts: tuple[str, ...]) -> str | None:
    for part in parts:
        bad = bad_char(part)
        if bad:
            return f"has {bad} in {part!r}: {NAME_RULE}"
    return None


__all__ = [
    "MANIFEST", "MAX_DEPTH", "MAX_ENTRIES", "MAX_FILES", "MAX_PATH_CHARS", "MAX_YAML_BYTES", "PREREG", "RefusedFile",
    "SubmissionFiles", "Target", "Tree", "discover", "is_run_name", "is_submission_dir", "load_submission",
    "open_regular", "parse_yaml", "read_small", "read_yaml", "unsafe_path",
]
