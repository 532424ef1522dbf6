"""`driftboard compress`: store a submission's plain run logs compressed (`.jsonl.zst` or `.jsonl.gz`).

For each plain log its manifest lists: write the compressed copy beside it, read it back and
check that its decompressed SHA-256 equals the plain file's (the digest results and citations
name, `checker.format.storage`), rename the entry in `submission.yaml` (the line is edited in
place: comments, order and every other byte stay), then delete the plain file. Logs already
compressed are left as they are. Nothing is changed when any log cannot be compressed.

Compress before the pull request that adds the runs: a log already merged is a published
record, and renaming it is a maintainer's change.
"""

from __future__ import annotations

import re
from pathlib import Path

import click

from checker.format.errors import UsageError
from checker.format.logio import file_sha256
from checker.format.storage import Storage, compressed_writer, log_sha256, storage_of

SUFFIX: dict[str, str] = {"zstd": ".jsonl.zst", "gzip": ".jsonl.gz"}


def _entry_pattern(rel: str) -> re.Pattern[str]:
    """A manifest line listing exactly `rel` (a YAML block-list item, quoted or not, with an optional comment)."""
    return re.compile(rf"^(\s*-\s*['\"]?){re.escape(rel)}(['\"]?\s*(?:#.*)?)$", re.MULTILINE)


def _key_pattern(rel: str) -> re.Pattern[str]:
    """A manifest line whose mapping key is exactly `rel` (`logs_sha256`), quoted or not."""
    return re.compile(rf"^(\s+['\"]?){re.escape(rel)}(['\"]?\s*:)", re.MULTILINE)


def compress_command(folder: Path, storage: Storage) -> int:
    """Compress every plain log `folder/submission.yaml` lists; returns the exit code (0, or 2 on bad usage)."""
    manifest = folder / "submission.yaml"
    if not manifest.is_file():
        raise UsageError(f"{manifest}: no submission.yaml here; give the submission folder (submissions/<id>)")
    text = manifest.read_text(encoding="utf-8")
    plain = [m.group(2) for m in re.finditer(r"^\s*-\s*(['\"]?)([^'\"#\s]+\.jsonl)\1\s*(?:#.*)?$", text, re.MULTILINE)]
    if not plain:
        click.echo(f"{manifest}: lists no plain .jsonl log; nothing to compress")
        return 0
    done: list[tuple[Path, Path]] = []
    try:
        for rel in plain:
            src = folder / rel
            if src.is_symlink() or not src.is_file():
                raise UsageError(f"{manifest}: lists {rel}, which is not a regular file in {folder}")
            dst = src.with_name(src.name + SUFFIX[storage].removeprefix(".jsonl"))
            if dst.exists():
                raise UsageError(f"{dst}: already exists; remove it or the plain log first")
            with src.open("rb") as fh, compressed_writer(dst, storage) as out:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    out.write(chunk)
            done.append((src, dst))
            if log_sha256(dst) != file_sha256(src):
                raise UsageError(f"{dst}: reads back differently from {src}; nothing changed")
            if len(_entry_pattern(rel).findall(text)) != 1:
                raise UsageError(f"{manifest}: lists {rel} more than once; fix the manifest first")
            renamed = rel + SUFFIX[storage].removeprefix(".jsonl")
            text = _entry_pattern(rel).sub(lambda m: f"{m.group(1)}{renamed}{m.group(2)}", text)  # noqa: B023 (called here)
            # its recorded digest (logs_sha256, a mapping keyed by the path) is of the lines: it stays, renamed
            text = _key_pattern(rel).sub(lambda m: f"{m.group(1)}{renamed}{m.group(2)}", text)  # noqa: B023
    except BaseException:
        for _, dst in done:
            dst.unlink(missing_ok=True)
        raise
    manifest.write_text(text, encoding="utf-8")
    before = after = 0
    for src, dst in done:
        before += src.stat().st_size
        after += dst.stat().st_size
        src.unlink()
    click.echo(f"compressed {len(done)} log(s) in {folder} as {storage}: {before:,} -> {after:,} bytes "
               f"({after / before:.1%}); submission.yaml lists the new names; check with: driftboard validate {folder}")
    return 0


__all__ = ["SUFFIX", "compress_command", "storage_of"]
