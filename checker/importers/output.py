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


def out_state(out: Path) -> bytes | None:
    """The bytes of an existing `out/prereg.yaml` to keep (the only file allowed in `out`), else None.

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
    if not names:
        return None
    if names == ["prereg.yaml"]:
        return (out / "prereg.yaml").read_bytes()
    raise UsageError(f"{out}: already holds {', '.join(names[:5])}; use a new folder, or one holding only prereg.yaml")


def iso_utc(ts: object) -> str:
    """An Inspect timestamp as ISO 8601 (`+00:00` written `Z`)."""
    text = str(ts).strip().replace(" ", "T")
    return text[:-6] + "Z" if text.endswith("+00:00") else text


__all__ = ["iso_utc", "out_state", "yaml_bytes"]
