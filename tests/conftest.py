"""Shared fixtures: a CliRunner wrapper, paths to the golden cases and to the shared data."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from checker.cli import cli

REPO = Path(__file__).resolve().parent.parent
# tests never read or write the user's verification cache
os.environ["DRIFTBOARD_CACHE_DIR"] = tempfile.mkdtemp(prefix="driftboard-test-cache-")
CASES = REPO / "tests" / "cases"


def shared_data() -> Path:
    """`DRIFTBOARD_SHARED_DATA`, else `../shared/data` next to the repository."""
    return Path(os.environ.get("DRIFTBOARD_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture
def run_line():
    """Invoke the CLI in-process; exceptions propagate so a crash is a test failure, not exit 1."""

    def run(args: list[str], **kwargs) -> Result:
        return CliRunner().invoke(cli, args, catch_exceptions=False, **kwargs)

    return run
