"""The registry of pre-registrations: every submission folder of the tree, computed at build time.

Like a trial registry, the site lists every study from the day its pre-registration is merged:
its declared cells and seeds, the split (problem or task set) or horizon, predictions and
defeaters, the date it was registered and its age, and its status: awaiting runs, runs
submitted, or withdrawn (`withdrawal.yaml`, with its reason). Nothing here is read from a results
file: the entries are computed from the tree's `submission.yaml`, `prereg.yaml` and
`withdrawal.yaml` (read by the load stage: bounded, safe), and every date comes from the
first-parent history of the branch being built (a merged pull request is dated by its merge
commit), never from a date a submitter wrote or from their own commits. Outside git the dates
are None (shown as "—").
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from checker.format.errors import Finding
from checker.format.registry_model import RegisteredCell, Registry, RegistryEntry
from checker.format.schema.manifest import Prereg
from checker.format.schema.withdrawal import Withdrawal
from checker.pipeline.provenance import git_output
from checker.stages.load import is_submission_dir, load_submission
from checker.stages.manifest_yaml import read_yaml

WITHDRAWAL = "withdrawal.yaml"


def first_parent_date(root: Path, path: Path, what: str = "A") -> str | None:
    """Date (YYYY-MM-DD, committer's) of the earliest first-parent commit adding `path` (`what` = A) (None: none)."""
    out = git_output(root, "log", "--first-parent", f"--diff-filter={what}", "--format=%cI", "--", str(path))
    return out.splitlines()[-1][:10] if out else None


def _age(since: str | None, until: str | None) -> int | None:
    if since is None or until is None:
        return None
    return max(0, (date.fromisoformat(until) - date.fromisoformat(since)).days)


def _entry(folder: Path, prereg: Prereg, title: str | None, runs: int, as_of: str | None,
           findings: list[Finding]) -> RegistryEntry:
    root = folder.resolve()
    registered = first_parent_date(root, root / "prereg.yaml")
    withdrawn = withdrawn_on = None
    if (folder / WITHDRAWAL).is_file() and not (folder / WITHDRAWAL).is_symlink():
        record, found = read_yaml(folder / WITHDRAWAL, Withdrawal, f"{folder.as_posix()}/{WITHDRAWAL}")
        findings.extend(found)
        if record is not None:
            withdrawn, withdrawn_on = record.reason, first_parent_date(root, root / WITHDRAWAL)
    cells = tuple(RegisteredCell(name, tuple(c.seeds), tuple(sorted(c.withdrawn)), c.comparator)
                  for name, c in prereg.cells.items())
    predictions = tuple(p.text for p in prereg.predictions)
    defeaters = tuple(d.text for d in prereg.defeaters)
    return RegistryEntry(prereg.submission_id, folder.as_posix(), title, prereg.track, prereg.profile,
                         prereg.problem_set, prereg.horizon, cells, predictions, defeaters, prereg.written_after_runs,
                         runs, registered, _age(registered, as_of), withdrawn, withdrawn_on)


def registry(submissions: Path) -> Registry:
    """The registry of the submission folders under `submissions` (sorted by id); an unreadable prereg is a finding."""
    out = Registry()
    if not submissions.is_dir():
        return out
    head = git_output(submissions.resolve(), "log", "-1", "--first-parent", "--format=%cI")
    out.as_of = head[:10] if head else None
    for folder in sorted(p for p in submissions.iterdir() if p.is_dir() and not p.is_symlink()):
        if not is_submission_dir(folder):
            continue
        loaded = load_submission(folder, folder.as_posix())
        if loaded.prereg is None:
            out.findings.extend(loaded.findings)
            continue
        manifest = loaded.manifest
        out.entries.append(_entry(folder, loaded.prereg, manifest.title if manifest else None,
                                  len(manifest.files) if manifest else 0, out.as_of, out.findings))
    out.entries.sort(key=lambda e: e.submission_id)
    return out
