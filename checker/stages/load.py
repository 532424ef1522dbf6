"""Load stage: find submissions and run logs on disk, read manifests with line numbers.

Submissions are untrusted input: sizes are bounded, YAML anchors/aliases are refused,
duplicate keys are errors, and nothing outside a submission folder is ever read through it.

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
from typing import BinaryIO, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from checker.format.errors import Finding, UsageError, describe_char, is_invisible, visible
from checker.format.schema.manifest import Prereg, Submission
from checker.stages.rules import prereg_findings

MANIFEST = "submission.yaml"
PREREG = "prereg.yaml"
MAX_YAML_BYTES = 1 << 20
"""Largest accepted `submission.yaml` / `prereg.yaml` (1 MiB)."""
MAX_FILES = 10_000
"""Most run logs one submission may list."""
MAX_ENTRIES = 20_000
"""Most files and folders walked in one submission folder; past it the submission is not read."""
MAX_DEPTH = 8
"""Deepest folder nesting below the submission folder (`runs/` is depth 1)."""
MAX_PATH_CHARS = 255
"""Longest path a manifest may list."""
SAFE_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
"""The portable file-name characters (POSIX): the only ones allowed in a submission's file names."""
LINK_MESSAGE = "symbolic links are not allowed in a submission"
NAME_RULE = "names may use only A-Z a-z 0-9 . _ -"


class RefusedFile(Exception):
    """A path that is not a regular, singly-linked file; it was not opened (or was closed unread)."""


def refusal(st: os.stat_result) -> str | None:
    """Why a file with this `lstat` result must not be read, or None for a plain regular file."""
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return "is a symbolic link: links are not followed"
    if not stat.S_ISREG(mode):
        return f"is {_kind(mode)}, not a regular file: refused without opening it"
    if st.st_nlink > 1:
        return f"is a hard link ({st.st_nlink} names for one file): links are not allowed; not read"
    return None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "a special file"


def open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading, never through a link and never blocking.

    The path is checked with `lstat` first, so a FIFO, socket or device is refused without being
    opened (opening a FIFO would block, opening a terminal device could make it the controlling
    terminal); it is then opened with O_NOFOLLOW | O_NONBLOCK | O_NOCTTY and checked again, so it
    cannot be swapped in between.

    Raises:
        RefusedFile: the path is a link, a hard link or not a regular file.
        OSError: the path cannot be read (missing, or a link that leads nowhere).
    """
    before = os.lstat(path)
    if stat.S_ISLNK(before.st_mode):
        os.stat(path)  # a dangling link (or a loop) cannot be read at all: OSError, as for a missing file
    problem = refusal(before)
    if problem:
        raise RefusedFile(problem)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        after = os.fstat(fd)
        if (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino) or refusal(after):
            raise RefusedFile("changed while it was being opened; not read")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _bad_char(name: str) -> str | None:
    for ch in name:
        if ch not in SAFE_NAME_CHARS:
            return describe_char(ch)
    return None


def unsafe_name(name: str) -> str | None:
    """Why one file or folder name is refused, or None (portable characters only)."""
    bad = _bad_char(name)
    return f"name contains {bad}: {NAME_RULE}" if bad else None


M = TypeVar("M", bound=BaseModel)


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
            continue
        if path.is_dir():
            if is_submission_dir(path):
                targets.append(Target(path, "submission"))
                continue
            try:
                children = sorted(p for p in path.iterdir() if not p.name.startswith("."))
            except OSError as exc:
                raise UsageError(f"{path}: cannot list folder ({exc.strerror})") from None
            subdirs = [p for p in children if p.is_dir() or p.is_symlink()]
            if not subdirs:
                targets.append(Target(path, "submission"))
            targets.extend(Target(p, "submission") for p in subdirs)
        else:
            targets.append(Target(path, "run"))
    return targets


def is_submission_dir(path: Path) -> bool:
    """True if `path` looks like one submission rather than a collection of them."""
    return any((path / name).exists() or (path / name).is_symlink() for name in (MANIFEST, PREREG, "runs"))


def read_small(path: Path, display: str, limit: int = MAX_YAML_BYTES) -> tuple[bytes | None, list[Finding]]:
    """The bytes of a small regular file (at most `limit`), or the finding that says why not."""
    try:
        with open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > limit:
                return None, [Finding(display, None, f"file is {size} bytes, larger than the {limit}-byte limit")]
            raw = fh.read(limit + 1)
    except RefusedFile as exc:
        return None, [Finding(display, None, str(exc))]
    except OSError as exc:
        return None, [Finding(display, None, f"cannot read: {exc.strerror}", unreadable=True)]
    if len(raw) > limit:
        return None, [Finding(display, None, f"file is larger than the {limit}-byte limit")]
    return raw, []


def read_yaml(path: Path, model: type[M], display: str) -> tuple[M | None, list[Finding]]:
    """Parse and validate a YAML manifest; every problem comes back as a located finding."""
    raw, problems = read_small(path, display)
    if raw is None:
        return None, problems
    return parse_yaml(raw, model, display)


def parse_yaml(raw: bytes, model: type[M], display: str) -> tuple[M | None, list[Finding]]:
    """Parse and validate the bytes of a YAML manifest (see `read_yaml`)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Finding(display, None, f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}")]
    # one pass (scan, parse, compose) in the common case; a document with an anchor, an alias or a
    # syntax error is read again the three-pass way, which says which comes first
    try:
        loader = _SinglePassLoader(text)  # the reader checks the characters here: a YAML error too
        node = loader.get_single_node()
    except (yaml.YAMLError, _AnchorSeen):
        try:
            for token in yaml.scan(text, Loader=yaml.SafeLoader):
                if isinstance(token, yaml.AnchorToken | yaml.AliasToken):
                    line = token.start_mark.line + 1
                    return None, [Finding(display, line, "YAML anchors and aliases are not allowed")]
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else None
            problem = getattr(exc, "problem", None) or str(exc)
            return None, [Finding(display, line, f"invalid YAML: {problem}")]
        loader = _SinglePassLoader(text)  # not reached for a YAML error or an anchor: the scan returned first
    if node is None:
        return None, [Finding(display, None, "empty file")]
    lines: dict[tuple[str, ...], int] = {}
    findings: list[Finding] = []
    _index_nodes(node, (), lines, findings, display)
    if findings:
        return None, findings
    try:
        data = loader.construct_document(node)  # what `yaml.safe_load(text)` builds, from the node just read
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        # a value its tag cannot build (`!!timestamp 2020-13-45`, an unhashable key): a finding, not a crash
        mark = getattr(exc, "problem_mark", None) or getattr(node, "start_mark", None)
        problem = getattr(exc, "problem", None) or str(exc)
        return None, [Finding(display, mark.line + 1 if mark is not None else None, f"invalid YAML: {problem}")]
    finally:
        loader.dispose()
    if not isinstance(data, dict):
        return None, [Finding(display, 1, "top level must be a mapping")]
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        out = []
        for err in exc.errors(include_url=False):
            loc = tuple(str(p) for p in err["loc"])
            is_key = loc[-1:] == ("[key]",)  # a mapping key (e.g. a cell name) failed, not its value
            loc = loc[:-1] if is_key else loc
            line = _line_for(loc, lines)
            fieldname = ".".join(loc)
            if is_key:
                m = err["msg"]
                msg = f"key {loc[-1]!r} of {'.'.join(loc[:-1])!r}: {m[0].lower() + m[1:]}"
            elif err["type"] == "missing":
                msg = f"missing field {fieldname!r}"
            elif err["type"] == "extra_forbidden":
                msg = f"unexpected field {fieldname!r}"
            else:
                m = err["msg"]
                msg = f"field {fieldname!r}: {m[0].lower() + m[1:]}"
            out.append(Finding(display, line, msg))
        return None, out


class _AnchorSeen(Exception):
    """An anchor or alias in a YAML document (not allowed; the three-pass read reports where)."""


class _SinglePassLoader(yaml.SafeLoader):
    """PyYAML's safe loader, stopping at the first anchor or alias instead of resolving it."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _AnchorSeen
        return super().compose_node(parent, index)


def _index_nodes(
    node: yaml.Node, loc: tuple[str, ...], lines: dict[tuple[str, ...], int], findings: list[Finding], display: str
) -> None:
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = str(key.value)
            if name in seen:
                findings.append(Finding(display, key.start_mark.line + 1, f"duplicate key {name!r}"))
            seen.add(name)
            _index_nodes(value, (*loc, name), lines, findings, display)
            lines[(*loc, name)] = key.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index_nodes(item, (*loc, str(i)), lines, findings, display)


def _line_for(loc: tuple[str, ...], lines: dict[tuple[str, ...], int]) -> int | None:
    for n in range(len(loc), -1, -1):
        if loc[:n] in lines:
            return lines[loc[:n]]
    return None


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
    """A file that is a run log by its name (`*.jsonl`)."""
    return rel.lower().endswith(".jsonl")


def load_submission(root: Path, display_root: str) -> SubmissionFiles:
    """Read the manifest and pre-registration and resolve the run files they list, safely."""
    out = SubmissionFiles(root)
    if root.is_symlink():
        out.findings.append(Finding(display_root, None, "the submission folder is a symbolic link: links are not followed"))
        return out
    bad = unsafe_name(root.name)
    if bad and any(is_invisible(ch) for ch in root.name):
        out.findings.append(Finding(visible(display_root), None, f"submission folder {bad}; not read"))
        return out
    tree = _walk(root, display_root, out.findings)
    if not tree.complete:
        return out
    if not (tree.files or tree.dirs or tree.refused) and not out.findings:
        out.findings.append(Finding(display_root, None, "empty submission folder (no submission.yaml)"))
        return out
    for name, model in ((MANIFEST, Submission), (PREREG, Prereg)):
        if name not in tree.files:
            if name in tree.dirs:
                out.findings.append(Finding(f"{display_root}/{name}", None, "is a folder, not a file"))
            elif name not in tree.refused:
                out.findings.append(Finding(display_root, None, f"no {name} in the submission folder"))
            continue
        raw, problems = read_small(root / name, f"{display_root}/{name}")
        if raw is not None:
            digest = hashlib.sha256(raw).hexdigest()
            parsed, problems = parse_yaml(raw, model, f"{display_root}/{name}")
            if name == MANIFEST:
                out.manifest, out.manifest_sha256 = parsed, digest  # type: ignore[assignment]
            else:
                out.prereg, out.prereg_sha256 = parsed, digest  # type: ignore[assignment]
                if out.prereg is not None:  # rules fixed before the runs: no loosened thresholds, no stray comparator
                    problems = problems + prereg_findings(out.prereg, f"{display_root}/{name}")
        out.findings.extend(problems)
    listed = _check_manifest(out, tree, display_root) if out.manifest is not None else None
    _collect_runs(out, tree, listed, display_root)
    return out


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
        try:
            with os.scandir(root / rel_dir if rel_dir else root) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            where = f"{display_root}/{visible(rel_dir)}" if rel_dir else display_root
            findings.append(Finding(where, None, f"cannot list folder: {exc.strerror}", unreadable=True))
            if rel_dir:
                tree.refused[rel_dir] = "could not be listed"
            continue
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
            shown = f"{display_root}/{visible(rel)}"
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                findings.append(Finding(shown, None, f"cannot read: {exc.strerror}", unreadable=True))
                tree.refused[rel] = "could not be read"
                continue
            descend = stat.S_ISDIR(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                problem: str | None = LINK_MESSAGE
            elif descend and depth + 1 > MAX_DEPTH:
                problem = f"folder is nested more than {MAX_DEPTH} levels deep: its contents are not read"
                descend = False
            elif descend:
                problem = unsafe_name(entry.name)  # still walked, so the run files inside are reported
            else:
                problem = refusal(st) or unsafe_name(entry.name)
            if problem is not None:
                findings.append(Finding(shown, None, problem))
                tree.refused[rel] = problem
                if descend:
                    subdirs.append(rel)
                continue
            first = folded.setdefault(entry.name.casefold(), entry.name)
            if first != entry.name:
                findings.append(Finding(shown, None, f"name differs only in case from {first!r}: the two collide on "
                                        "case-insensitive file systems"))
            if stat.S_ISDIR(st.st_mode):
                tree.dirs.add(rel)
                subdirs.append(rel)
            else:
                tree.files.add(rel)
        pending.extend((d, depth + 1) for d in reversed(subdirs))
    return tree


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
        ppath = f"{display_root}/{PREREG}"
        if out.prereg.submission_id != manifest.id:
            out.findings.append(Finding(
                ppath, None, f"submission_id {out.prereg.submission_id!r} does not match the manifest id {manifest.id!r}"))
        if out.prereg.track != manifest.track:
            out.findings.append(Finding(
                ppath, None, f"track {out.prereg.track!r} differs from the manifest's {manifest.track!r}"))
    listed: set[str] = set()
    if len(manifest.files) > MAX_FILES:
        out.findings.append(Finding(mpath, None, f"lists {len(manifest.files)} files, more than the limit of {MAX_FILES}"))
        return listed
    lower = {rel.casefold(): rel for rel in tree.files}
    for name in manifest.files:
        problem = unsafe_path(name)
        if problem:
            out.findings.append(Finding(mpath, None, f"files: {_shown(name)} {problem}"))
            continue
        norm = PurePosixPath(name).as_posix()
        if norm in listed:
            out.findings.append(Finding(mpath, None, f"files: {name!r} is listed twice"))
            continue
        listed.add(norm)
        if norm in tree.files or tree.refused_reason(norm):
            continue  # read below, or refused with a finding by the walk
        if norm in tree.dirs:
            out.findings.append(Finding(mpath, None, f"files: {name!r} is a folder, not a run log"))
        elif norm.casefold() in lower:
            out.findings.append(Finding(mpath, None, f"files: {name!r} does not exist (names are case-sensitive: "
                                        f"there is {lower[norm.casefold()]!r})"))
        else:
            out.findings.append(Finding(mpath, None, f"files: {name!r} does not exist"))
    return listed


def _collect_runs(out: SubmissionFiles, tree: Tree, listed: set[str] | None, display_root: str) -> None:
    """Every run file found or listed, once: scored (run_paths) or refused with its reason.

    With no readable manifest (`listed` is None), every `*.jsonl` file found is taken as listed, so
    its runs are still verified and reported.
    """
    names = {rel for rel in tree.files | tree.refused.keys() if is_run_name(rel)}
    if listed is not None:
        names |= {rel for rel in listed if rel in tree.files or tree.refused_reason(rel)}
    for rel in sorted(names):
        reason = tree.refused_reason(rel)
        if reason is None and listed is not None and rel not in listed:
            out.findings.append(Finding(f"{display_root}/{visible(rel)}", None, f"run log is not listed in {MANIFEST}"))
            reason = f"not listed in {MANIFEST}: not scored"
        if reason is None:
            out.run_paths.append(out.root / rel)
        else:
            out.refused_runs.append((visible(rel), reason))


def unsafe_path(name: str) -> str | None:
    """Why a manifest path is refused, or None.

    Absolute paths and `..` escape the folder; backslashes and NUL are not plain paths; every
    name must use portable characters only (so `%2e%2e`, control, bidi, zero-width and look-alike
    characters are refused, not decoded); the manifest and pre-registration are not run logs.
    """
    if not name or "\x00" in name or "\\" in name:
        return "is not a plain relative path"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "is absolute (paths must be relative to the submission folder)"
    parts = PurePosixPath(name).parts
    if ".." in parts:
        return "escapes the submission folder"
    if len(name) > MAX_PATH_CHARS:
        return f"is {len(name)} characters long, longer than the {MAX_PATH_CHARS}-character limit"
    for part in parts:
        bad = _bad_char(part)
        if bad:
            return f"has {bad} in {part!r}: {NAME_RULE}"
    if PurePosixPath(name).as_posix() in (MANIFEST, PREREG):
        return "is the manifest or the pre-registration, not a run log"
    return None
