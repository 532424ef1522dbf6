"""Shared fixtures: a CliRunner wrapper, paths to the golden cases and to the shared data."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import settings

from checker.cli import cli

# Property tests are deterministic in CI: a fixed derandomised profile, no example database.
# `HYPOTHESIS_PROFILE=explore` draws fresh random examples (for local bug hunting).
settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile("explore", database=None, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

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
