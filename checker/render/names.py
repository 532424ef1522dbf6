"""The build's identity guard: the names of every results file rendered follow the identity rules.

`verify` reports name collisions across the submissions it verifies (`checker.pipeline.report.name_collisions`),
but a build can render results verified apart (shards, merged later). The build applies the same rules
(`checker.format.names`) to every results file it renders and refuses to publish when two names are one
name or one page (near-duplicate ids are the submission check's findings): one page never silently
replaces another.
"""

from __future__ import annotations

from checker.format.names import Name, Work, identity_findings
from checker.format.results_model import ResultsFile
from checker.render.writer import SiteBuildError


def results_names(r: ResultsFile) -> tuple[list[Name], list[Work]]:
    """The submission id, cells and run ids of a results file (as `checker.format.names` compares them)."""
    where = f"results {r.submission_id}.json"
    names = [Name("submission id", r.submission_id, where)]
    names.extend(Name("cell", c.cell, where, None, r.submission_id) for c in r.cells)
    names.extend(Name("run id", str(run.run_id), run.path, 1) for run in r.runs if run.run_id is not None)
    return names, [Work(r.submission_id, where, r.title, tuple(r.authors), None)]


def refuse_collisions(names: list[Name], works: list[Work]) -> None:
    """Raise when two names are one name or one page (`works` are the submission check's, not a page clash).

    Raises:
        SiteBuildError: the findings, one per line.
    """
    found = identity_findings(names, near=False)  # shared titles and near ids are findings of the submission check
    if found:
        raise SiteBuildError("names collide, the site is not built:\n" + "\n".join(f.render() for f in found))
