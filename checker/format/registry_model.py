"""The registry of pre-registrations as the Pre-registered page reads it (computed by `checker.pipeline.registry`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from checker.format.errors import Finding


@dataclass(frozen=True)
class RegisteredCell:
    """A declared cell: its seeds, the ones withdrawn before they ran, and whether it is a comparator."""

    name: str
    seeds: tuple[str, ...]
    withdrawn: tuple[str, ...]
    comparator: bool


@dataclass(frozen=True)
class RegistryEntry:
    """One pre-registered study as the Pre-registered page lists it."""

    submission_id: str
    folder: str
    title: str | None
    track: str
    profile: str
    split: str | None
    """The problem or task set digest the prereg fixes (None: none named)."""
    horizon: int | None
    cells: tuple[RegisteredCell, ...]
    predictions: tuple[str, ...]
    defeaters: tuple[str, ...]
    written_after_runs: bool
    runs: int
    """Run logs the manifest lists (0: awaiting runs)."""
    registered: str | None
    """Date (YYYY-MM-DD) of the first first-parent commit that added `prereg.yaml` (None outside git)."""
    age_days: int | None
    """Days from `registered` to the date of the tree's commit (None outside git)."""
    withdrawn: str | None = None
    """The withdrawal's reason (None: not withdrawn)."""
    withdrawn_on: str | None = None
    """Date the withdrawal record was merged (first-parent history)."""

    @property
    def status(self) -> str:
        """`withdrawn`, `awaiting runs` or `runs submitted`."""
        if self.withdrawn is not None:
            return "withdrawn"
        return "runs submitted" if self.runs else "awaiting runs"


@dataclass
class Registry:
    """Every pre-registration of the tree, by submission id, and the date it is computed as of."""

    entries: list[RegistryEntry] = field(default_factory=list)
    as_of: str | None = None
    """Date of the tree's commit (the one the ages are counted to; None outside git)."""
    findings: list[Finding] = field(default_factory=list)
