"""`driftboard init` (scaffold a submission folder) and `driftboard problems digest` (a problem set's digest).

`init` writes `submissions/<id>/prereg.yaml` and `submission.yaml` for one track, under the ranked
profile (`checker.stages.rules.RANKED_PROFILE`), with a comment above each field saying what it
means. Both files validate as written (`Prereg`, `Submission`); the manifest lists the run files the
documented path will write (the Inspect importer's names on the constraint track, the example
harness's on the agent track), and the importer or harness rewrites that list when the runs arrive.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from checker.format.errors import UsageError

RANKED_PROFILE = "driftboard"
"""`checker.stages.rules.RANKED_PROFILE` (not imported at start-up: the command line starts lean; a test checks it)."""

DEFAULT_SPLIT = Path("problems/drift-bench-v1-lite")
"""The constraint split `init` declares by default: the lite split, which a ranked run can afford."""
AGENT_SEEDS = ("s1", "s2", "s3", "s4", "s5")
"""Agent seeds `init` declares by default: as many as a cell needs to rank (`checker.stages.boards.MIN_SEEDS`)."""


def split_sets(folder: Path) -> list[tuple[str, str, int, int]]:
    """(name, digest, problems, turns) of the problem set in `folder`, and of each of its splits.

    Raises:
        UsageError: the folder is missing, holds no problem, or holds invalid problems.
    """
    from checker.constraint.problems import load_problems, sets_of

    loaded, errors = load_problems([folder])
    if errors:
        raise UsageError(f"{folder}: {len(errors)} problem(s) refused:\n" + "\n".join(errors[:20]))
    if not loaded:
        raise UsageError(f"{folder}: no problem (*.json) in this folder; give a problem-set folder such as {DEFAULT_SPLIT}")
    name = folder.resolve().name or "problems"
    return [(s.name, s.digest, len(s.problems), s.n_turns) for s in sets_of(loaded, name)]


def digest_command(folder: Path) -> int:
    """Print the digest of the problem set in `folder` (and of each split), as `prereg.yaml`'s `problem_set` wants."""
    sets = split_sets(folder)
    for name, digest, problems, turns in sets:
        click.echo(f"{digest}  {name} ({problems:,} problems, {turns:,} turns)")
    return 0


def _constraint_prereg(sid: str, model: str, method: str, seeds: Sequence[str], split: Path) -> str:
    (name, digest, problems, turns), *_ = split_sets(split)
    return f"""\
# Pre-registration of {sid}: the rules your runs are judged by, fixed BEFORE you run.
# Commit it and get it merged first (site/submit.md, step 2); every run log carries its SHA-256.
# Every field: site/format-reference/manifests.md#prereg-yaml
format_version: '1.0'       # the canonical format's version
submission_id: {sid}        # the folder name; every run log repeats it
track: constraint           # constraint | agent | completion
# Only profile {RANKED_PROFILE} is ranked; arg-v1.0 and drift-bench-v1 reproduce the reference systems (unranked).
profile: {RANKED_PROFILE}
cells:                      # one cell per (model, method): Inspect's model name, then the method
  {model}/{method}:
    seeds: [{", ".join(seeds)}]   # one label per run you will report (Inspect: one per epoch, epoch1, epoch2, ...)
# The problem set the runs will answer, by digest: {name} ({problems:,} problems, {turns:,} turns).
# `driftboard problems digest {split.as_posix()}` prints it. A cell ranks only when every run answers all of it.
problem_set: {digest}
"""


def _agent_prereg(sid: str, cell: str, seeds: Sequence[str], horizon: int) -> str:
    return f"""\
# Pre-registration of {sid}: the rules your runs are judged by, fixed BEFORE you run.
# Commit it and get it merged first (site/submit.md, step 2); every run log carries its SHA-256.
# Every field: site/format-reference/manifests.md#prereg-yaml
format_version: '1.0'       # the canonical format's version
submission_id: {sid}        # the folder name; every run log repeats it
track: agent                # constraint | agent | completion
# Only profile {RANKED_PROFILE} is ranked; arg-v1.0 and drift-bench-v1 reproduce the reference systems (unranked).
profile: {RANKED_PROFILE}
cells:                      # one cell per harness condition (FULL, J0, A0, J0A0; BARE is a comparator)
  {cell}:
    seeds: [{", ".join(seeds)}]   # one label per run you will report; a cell ranks with at least 5
horizon: {horizon}                # actions per run; events past it do not count
# Gate thresholds you leave out take ARG's published values; you may tighten them, never loosen them.
defeaters:                  # results that would defeat your claim, checked on the runs
  - id: zero-completions
    text: "~0 completions across all valid runs"
    metric: completions
    op: "<="
    value: 0
"""


def _manifest(sid: str, track: str, model: str, files: Sequence[str], harness: str) -> str:
    listed = ", ".join(files)
    return f"""\
# Manifest of {sid}: who sent it, what produced the runs, and the run files. Every field:
# site/format-reference/manifests.md#submission-yaml
format_version: '1.0'
id: {sid}                   # the folder name
title: "{model} on the {track} track"   # shown on the leaderboard
authors:                    # at least one; affiliation and orcid are optional
  - name: "FILL IN: your name"
contact: "FILL IN: e-mail or URL"
track: {track}
system: "{harness}"         # what produced the runs
backbone: "{model}"         # the model
harness:                    # the code that ran it: name, version, and a commit (7-64 hex digits)
  name: "{harness}"
  version: "1.0"
  commit: "0000000"
license: "CC-BY-4.0"        # the licence of the run logs
# The run logs, relative to this folder. Empty in the first pull request (the pre-registration:
# "pre-registered; awaiting runs"); the importer or the harness lists them when the runs arrive,
# in the second pull request: {listed}
files: []
claims: []                  # figures you computed yourself: the checker recomputes each and fails on a mismatch
"""


def init_command(sid: str, track: str, out: Path, model: str | None, seeds: str | None, split: Path,
                 method: str, horizon: int) -> int:
    """Write `out/<sid>/prereg.yaml` and `submission.yaml` for `track`, under the ranked profile.

    Raises:
        UsageError: a bad id, an existing non-empty folder, or an unreadable split.
    """
    import re

    import yaml

    from checker.format.schema.manifest import SUBMISSION_ID_PATTERN, Prereg, Submission
    from checker.importers.naming import slug

    if not re.fullmatch(SUBMISSION_ID_PATTERN, sid):
        raise UsageError(f"{sid!r} is not a submission id: lower-case letters, digits, '.', '_' and '-' "
                         f"({SUBMISSION_ID_PATTERN})")
    folder = out / sid
    if folder.exists() and any(folder.iterdir()):
        raise UsageError(f"{folder} already holds files; choose another id or remove them first")
    labels = [s.strip() for s in (seeds or "").split(",") if s.strip()]
    if track == "constraint":
        model = model or "driftboard/scripted"
        labels = labels or ["epoch1"]
        prereg = _constraint_prereg(sid, model, method, labels, split)
        files = [f"runs/{slug(model)[:50]}--{slug(method)[:30]}--{slug(s)}.jsonl" for s in labels]
        manifest = _manifest(sid, track, model, files, "driftboard/constraint on inspect_ai")
    else:
        model = model or "scripted"
        labels = labels or list(AGENT_SEEDS)
        prereg = _agent_prereg(sid, "FULL", labels, horizon)
        manifest = _manifest(sid, track, model, [f"runs/full-{slug(s)}.jsonl" for s in labels], "examples/agent_harness.py")
    Prereg.model_validate(yaml.safe_load(prereg))  # the template is valid as written (a failure is a bug here)
    Submission.model_validate(yaml.safe_load(manifest))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "prereg.yaml").write_text(prereg, encoding="utf-8")
    (folder / "submission.yaml").write_text(manifest, encoding="utf-8")
    click.echo(f"wrote {folder}/prereg.yaml and {folder}/submission.yaml (profile {RANKED_PROFILE}, ranked); "
               "fill in the FILL IN fields, commit both, and open the first pull request before running")
    return 0


@click.command("init")
@click.argument("submission_id")
@click.option("--track", type=click.Choice(["constraint", "agent"]), required=True, help="The track of the runs.")
@click.option("--model", default=None, help="The model: Inspect's name on the constraint track (default "
              "driftboard/scripted, the offline scripted model); the backbone on the agent track (default scripted).")
@click.option("--seeds", default=None, help="Comma-separated run labels to declare (default: epoch1 on the constraint "
              "track, s1..s5 on the agent track).")
@click.option("--split", type=click.Path(path_type=Path), default=DEFAULT_SPLIT, show_default=True,
              help="Constraint track: the problem-set folder the runs will answer (its digest is declared).")
@click.option("--method", type=click.Choice(["direct", "cot", "ledger_only"]), default="ledger_only",
              show_default=True, help="Constraint track: the method of the declared cell.")
@click.option("--horizon", type=click.IntRange(1, 100_000), default=150, show_default=True,
              help="Agent track: actions per run.")
@click.option("--out", type=click.Path(path_type=Path), default=Path("submissions"), show_default=True,
              help="Folder the submission folder is created in.")
def init(submission_id: str, track: str, model: str | None, seeds: str | None, split: Path, method: str,
         horizon: int, out: Path) -> None:
    """Scaffold submissions/SUBMISSION_ID: prereg.yaml and submission.yaml, ranked profile, every field commented.

    \b
    Example:
        driftboard init mylab-toy --track constraint --model openai/gpt-4o-mini --seeds epoch1
        driftboard init mylab-agent --track agent --horizon 30
    """
    from checker.cli.main import run_stage

    run_stage(lambda: init_command(submission_id, track, out, model, seeds, split, method, horizon))


@click.group("problems")
def problems() -> None:
    """Problem sets of the constraint track."""


@problems.command("digest")
@click.argument("folder", type=click.Path(path_type=Path))
def digest(folder: Path) -> None:
    """Print the digest of the problem set in FOLDER (and of each split): prereg.yaml's `problem_set`.

    \b
    Example:
        driftboard problems digest problems/drift-bench-v1-lite
    """
    from checker.cli.main import run_stage

    run_stage(lambda: digest_command(folder))


__all__ = ["init", "problems"]
