"""`withdrawal.yaml`: the record that withdraws a pre-registration (it is never deleted).

Merged run logs and pre-registrations are append-only. A submitter who gives up a study adds this
file to the submission folder in a pull request of its own; the study stays listed on the
Pre-registered page, as withdrawn, with this reason and the date the record was merged (from the
published branch's history, never from a date the submitter writes). No run may be added after it.
"""

from __future__ import annotations

from pydantic import Field

from checker.format.schema.base import Model


class Withdrawal(Model):
    """Why a pre-registered study is withdrawn."""

    format_version: str = Field(default="1.0", pattern=r"^\d+\.\d+$")
    """Format version `MAJOR.MINOR` (currently `1.0`)."""
    reason: str = Field(min_length=1, max_length=2000)
    """Why the study is withdrawn, in words (shown on the Pre-registered page)."""
