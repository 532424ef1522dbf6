"""Documentation that cannot drift: commands and thresholds are documented."""

from __future__ import annotations

import click
import pytest
from conftest import REPO

from checker.cli.main import cli
from checker.format.schema.manifest import Thresholds


def _commands(group: click.Group, prefix: str = "") -> list[str]:
    out = []
    for name, cmd in sorted(group.commands.items()):
        out.append(f"{prefix}{name}")
        if isinstance(cmd, click.Group):
            out += _commands(cmd, f"{prefix}{name} ")
    return out


@pytest.mark.parametrize("field", sorted(Thresholds.model_fields))
def test_every_threshold_is_documented(field):
    assert f"`{field}`" in (REPO / "site" / "format.md").read_text()


def test_top_level_commands_appear_in_readme_or_docs():
    text = (REPO / "README.md").read_text() + "".join(p.read_text() for p in (REPO / "site").rglob("*.md"))
    missing = [c for c in _commands(cli) if " " not in c and f"driftboard {c}" not in text]
    assert missing == []
