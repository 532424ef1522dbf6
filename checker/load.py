"""Load stage: find submissions and run logs on disk, read manifests with line numbers.

Submissions are untrusted input: sizes are bounded, YAML anchors/aliases are refused,
duplicate keys are errors, and nothing outside a submission folder is ever read through it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from checker.errors import Finding, UsageError
from checker.schema.manifest import Prereg, Submission

MANIFEST = "submission.yaml"
PREREG = "prereg.yaml"
MAX_YAML_BYTES = 1 << 20
"""Largest accepted `submission.yaml` / `prereg.yaml` (1 MiB)."""
MAX_FILES = 10_000
"""Most run logs one submission may list."""

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Target:
    """Something the user asked to check: a submission folder or a lone run log."""

    path: Path
    kind: str
    """`submission` or `run`."""


def discover(paths: Iterable[Path]) -> list[Target]:
    """Expand command-line paths into submission folders and run files, in sorted order.

    A folder holding `submission.yaml`, `prereg.yaml` or `runs/` is a submission; any other
    folder is a collection whose sub-folders are submissions (an empty one is reported as
    an empty submission). A file is a run log.

    Raises:
        UsageError: a path does not exist or cannot be listed.
    """
    targets: list[Target] = []
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise UsageError(f"{path}: no such file or directory")
        if path.is_dir() and not path.is_symlink():
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


def read_yaml(path: Path, model: type[M], display: str) -> tuple[M | None, list[Finding]]:
    """Parse and validate a YAML manifest; every problem comes back as a located finding."""
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES:
            return None, [Finding(display, None, f"file is {size} bytes, larger than the {MAX_YAML_BYTES}-byte limit")]
        raw = path.read_bytes()
    except OSError as exc:
        return None, [Finding(display, None, f"cannot read: {exc.strerror}", unreadable=True)]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Finding(display, None, f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start}")]
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
    if node is None:
        return None, [Finding(display, None, "empty file")]
    lines: dict[tuple[str, ...], int] = {}
    findings: list[Finding] = []
    _index_nodes(node, (), lines, findings, display)
    if findings:
        return None, findings
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        return None, [Finding(display, 1, "top level must be a mapping")]
    try:
        return model.model_validate(data), []
    except ValidationError as exc:
        out = []
        for err in exc.errors(include_url=False):
            loc = tuple(str(p) for p in err["loc"])
            line = _line_for(loc, lines)
            fieldname = ".".join(loc)
            if err["type"] == "missing":
                msg = f"missing field {fieldname!r}"
            elif err["type"] == "extra_forbidden":
                msg = f"unexpected field {fieldname!r}"
            else:
                m = err["msg"]
                msg = f"field {fieldname!r}: {m[0].lower() + m[1:]}"
            out.append(Finding(display, line, msg))
        return None, out


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
    findings: list[Finding] = field(default_factory=list)


def load_submission(root: Path, display_root: str) -> SubmissionFiles:
    """Read the manifest and pre-registration and resolve the run files they list, safely."""
    out = SubmissionFiles(root)
    entries = _walk(root, display_root, out.findings)
    if not entries and not out.findings:
        out.findings.append(Finding(display_root, None, "empty submission folder (no submission.yaml)"))
        return out
    manifest_path = root / MANIFEST
    if not manifest_path.exists():
        out.findings.append(Finding(display_root, None, f"no {MANIFEST} in the submission folder"))
    elif not manifest_path.is_symlink():
        out.manifest, problems = read_yaml(manifest_path, Submission, f"{display_root}/{MANIFEST}")
        out.findings.extend(problems)
    prereg_path = root / PREREG
    if not prereg_path.exists():
        out.findings.append(Finding(display_root, None, f"no {PREREG} in the submission folder"))
    elif not prereg_path.is_symlink():
        out.prereg, problems = read_yaml(prereg_path, Prereg, f"{display_root}/{PREREG}")
        out.findings.extend(problems)
    if out.manifest is not None:
        _check_manifest(out, entries, display_root)
    return out


def _walk(root: Path, display_root: str, findings: list[Finding]) -> set[str]:
    """Relative paths of every regular file; links anywhere in the folder are findings."""
    found: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        base = Path(dirpath)
        for name in sorted(dirnames + filenames):
            p = base / name
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                findings.append(Finding(f"{display_root}/{rel}", None, "symbolic links are not allowed in a submission"))
            elif p.is_file():
                found.add(rel)
        dirnames[:] = [d for d in dirnames if not (base / d).is_symlink()]
    return found


def _check_manifest(out: SubmissionFiles, entries: set[str], display_root: str) -> None:
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
    if len(manifest.files) > MAX_FILES:
        out.findings.append(Finding(mpath, None, f"lists {len(manifest.files)} files, more than the limit of {MAX_FILES}"))
        return
    listed: set[str] = set()
    for name in manifest.files:
        problem = unsafe_path(name)
        if problem:
            out.findings.append(Finding(mpath, None, f"files: {name!r} {problem}"))
            continue
        norm = Path(name).as_posix()
        if norm in listed:
            out.findings.append(Finding(mpath, None, f"files: {name!r} is listed twice"))
            continue
        listed.add(norm)
        if _has_link(out.root, norm):
            continue  # already reported by the walk
        if norm not in entries:
            out.findings.append(Finding(mpath, None, f"files: {name!r} does not exist"))
            continue
        out.run_paths.append(out.root / norm)
    for rel in sorted(entries):
        if rel.endswith(".jsonl") and rel not in listed:
            out.findings.append(Finding(f"{display_root}/{rel}", None, f"run log is not listed in {MANIFEST}"))


def unsafe_path(name: str) -> str | None:
    """Why a manifest path is unsafe, or None: absolute paths and `..` escape the folder."""
    if not name or "\x00" in name or "\\" in name:
        return "is not a plain relative path"
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "is absolute (paths must be relative to the submission folder)"
    parts = Path(name).parts
    if ".." in parts:
        return "escapes the submission folder"
    return None


def _has_link(root: Path, rel: str) -> bool:
    p = root
    for part in Path(rel).parts:
        p = p / part
        if p.is_symlink():
            return True
    return False
