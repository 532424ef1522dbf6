"""What the importers write besides run logs: YAML documents (pre-registration, manifest) as deterministic bytes."""

from __future__ import annotations

from collections.abc import Mapping

import yaml


class _NoAliasDumper(yaml.SafeDumper):
    """A safe dumper that never writes anchors/aliases (the loader refuses them)."""

    def ignore_aliases(self, data: object) -> bool:
        return True


def yaml_bytes(data: Mapping[str, object]) -> bytes:
    """A document as UTF-8 YAML: keys in insertion order, block style, no aliases."""
    return yaml.dump(data, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False).encode("utf-8")


__all__ = ["yaml_bytes"]
