"""`driftboard reference`: store a submission's run logs outside the repository, by content address.

For each log `submission.yaml` lists that is committed in the folder (plain or compressed, as it
is: compress first with `driftboard compress` to upload fewer bytes): record its SHA-256 and size
(of the stored bytes, the file as it is) and its URL (`--url-base` + the file's name) under
`blobs:` in `submission.yaml`, and move the file to `--upload-dir`, the folder whose files the
submitter then uploads to that URL base (a GitHub release's assets, for instance). Only the
`blobs:` block is added at the end of the manifest; every other byte stays. Nothing is changed when
any log cannot be moved.

The files keep their names: `runs/a.jsonl.zst` is served at `<url-base>a.jsonl.zst`.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import click

from checker.format.errors import UsageError
from checker.format.logio import file_sha256
from checker.format.storage import storage_of


def reference_command(folder: Path, url_base: str, upload_dir: Path) -> int:
    """Move every committed log of `folder` to `upload_dir` and record it under `blobs:`; 0, or UsageError."""
    from checker.stages.fetch import url_problem

    manifest = folder / "submission.yaml"
    if not manifest.is_file():
        raise UsageError(f"{manifest}: no submission.yaml here; give the submission folder (submissions/<id>)")
    if not url_base.endswith("/"):
        raise UsageError(f"--url-base {url_base}: end it with / (each log is served at the base + its file name)")
    problem = url_problem(url_base + "x")
    if problem is not None:
        raise UsageError(f"--url-base {url_base} {problem}")
    text = manifest.read_text(encoding="utf-8")
    if re.search(r"^blobs:", text, re.MULTILINE):
        raise UsageError(f"{manifest}: already has a blobs: block; add new entries to it by hand "
                         "(sha256sum and the size of each file, and its url)")
    listed = [m.group(2) for m in re.finditer(r"^\s*-\s*(['\"]?)([^'\"#\s]+)\1\s*(?:#.*)?$",
                                              text.split("\nclaims:", 1)[0], re.MULTILINE)]
    logs = [rel for rel in listed if storage_of(rel) is not None and (folder / rel).is_file()
            and not (folder / rel).is_symlink()]
    if not logs:
        click.echo(f"{manifest}: lists no committed run log; nothing to move")
        return 0
    names = [Path(rel).name for rel in logs]
    if len(set(names)) != len(names):
        raise UsageError(f"{manifest}: two listed logs share a file name; rename one first")
    upload_dir.mkdir(parents=True, exist_ok=True)
    clash = [n for n in names if (upload_dir / n).exists()]
    if clash:
        raise UsageError(f"{upload_dir / clash[0]}: already exists; empty --upload-dir first")
    block = ["blobs:"]
    for rel in logs:
        path = folder / rel
        block += [f"  {rel}:", f"    sha256: {file_sha256(path)}", f"    size: {path.stat().st_size}",
                  f"    url: {url_base}{path.name}"]
    manifest.write_text(text.rstrip("\n") + "\n" + "\n".join(block) + "\n", encoding="utf-8")
    total = 0
    for rel in logs:
        total += (folder / rel).stat().st_size
        shutil.move(folder / rel, upload_dir / Path(rel).name)
    click.echo(f"moved {len(logs)} log(s), {total:,} bytes, to {upload_dir}; submission.yaml records them under "
               f"blobs:. Upload every file of {upload_dir} to {url_base}, then check with: driftboard verify {folder}")
    return 0


__all__ = ["reference_command"]
