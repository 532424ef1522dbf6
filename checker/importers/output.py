"""What the importers write besides run logs: YAML documents (pre-registration, manifest) as deterministic bytes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from checker.format.errors import UsageError
from checker.format.schema.manifest import SUBMISSION_ID_PATTERN


class _NoAliasDumper(yaml.SafeDumper):
    """A safe dumper that never writes anchors/aliases (the loader refuses them)."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def yaml_bytes(data: Mapping[str, object]) -> bytes:
    """A document as UTF-8 YAML: keys in insertion order, block style, no aliases."""
    return yaml.dump(data, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False).encode("utf-8")


KEPT = ("prereg.yaml", "submission.yaml")
"""The files an import keeps in `out` (what `driftboard init` writes): the pre-registration, and the manifest's own fields."""

MANIFEST_FIELDS_KEPT = ("title", "authors", "contact", "license", "paper", "doi", "citation")
"""Fields of an existing `submission.yaml` the importers keep (the submitter's); the rest describes the runs."""


def kept_manifest(out: Path, written: dict[str, object]) -> dict[str, object]:
    """`written` with the submitter's fields (`MANIFEST_FIELDS_KEPT`) of an existing `out/submission.yaml` put back.

    A field still holding a `FILL IN` placeholder, or a manifest that is not a readable mapping, keeps nothing.
    """
    path = out / "submission.yaml"
    if not path.is_file():
        return written
    try:
        old = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return written
    if not isinstance(old, dict):
        return written
    merged = dict(written)
    for key in MANIFEST_FIELDS_KEPT:
        if key in old and "FILL IN" not in str(old[key]):
            merged[key] = old[key]
    return merged


def out_state(out: Path) -> bytes | None:
    """The bytes of an existing `out/prereg.yaml` to keep, else None (`out` may hold only the files of `KEPT`).

    Raises:
        UsageError: the folder's name is not a submission id, or it holds other files.
    """
    if not re.fullmatch(SUBMISSION_ID_PATTERN, out.name):
        raise UsageError(f"{out}: the folder name must be a submission id ({SUBMISSION_ID_PATTERN})")
    if not out.exists():
        return None
    if not out.is_dir():
        raise UsageError(f"{out}: exists and is not a folder")
    names = sorted(p.name for p in out.iterdir())
    if not set(names) <= set(KEPT):
        raise UsageError(f"{out}: already holds {', '.join(n for n in names if n not in KEPT)[:200]}; use a new "
                         "folder, or one holding only prereg.yaml and submission.yaml (what `driftboard init` writes)")
    if "prereg.yaml" in names:
        return (out / "prereg.yaml").read_bytes()
    return None


def iso_utc(ts: object) -> str:
    """An Inspect timestamp as ISO 8601 (`+00:00` written `Z`)."""
    text = str(ts).strip().replace(" ", "T")
    return text[:-6] + "Z" if text.endswith("+00:00") else text


__all__ = ["KEPT", "MANIFEST_FIELDS_KEPT", "iso_utc", "kept_manifest", "out_state", "yaml_bytes"]
