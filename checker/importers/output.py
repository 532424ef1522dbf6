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

def kept_manifest(out: Path, written: dict[str, object]) -> dict[str, object]:
    """The existing `out/submission.yaml` (the one the first pull request merged) with the runs appended, else `written`.

    The runs' pull request may only append to a merged manifest (`checker.cli.ci_scope`): every field of the
    existing one stays as it is (what `driftboard init` wrote and the submitter filled in), the imported logs go
    at the end of `files`, their digests into `logs_sha256`, new claims at the end of `claims`. A manifest that is
    not a readable mapping keeps nothing (`written` is returned).
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
    merged = dict(old)
    files = list(old.get("files") or [])
    merged["files"] = files + [f for f in _list(written.get("files")) if f not in files]
    claims = list(old.get("claims") or [])
    new_claims = [c for c in _list(written.get("claims")) if c not in claims]
    if claims or new_claims or "claims" in old:
        merged["claims"] = claims + new_claims
    digests = dict(old.get("logs_sha256") or {})
    written_digests = written.get("logs_sha256")
    if isinstance(written_digests, dict):
        digests.update({k: v for k, v in written_digests.items() if k not in digests})
    if digests:
        merged["logs_sha256"] = digests
    return merged


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


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


__all__ = ["KEPT", "iso_utc", "kept_manifest", "out_state", "yaml_bytes"]
