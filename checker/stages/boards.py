"""Boards: which ranked table a cell belongs to (its board key) and whether it has the evidence to rank there.

One declaration per track, in one place (`TRACKS`): the track's environment fields (what makes two
rows comparable beyond track, profile and protocol), its protocol version, its evidence rule in one
sentence, and two functions — the environment of a cell, and why a cell may not rank (None: it may).
A new track plugs in by adding its `TrackBoards` here; nothing else decides a board.

The key: `track`, the environment fields, `profile`, `protocol`. Rows with different keys never
share a rank (`checker.pipeline.boards` ranks one key at a time). The verdict is stored per cell in
the results file (`CellResult.ranking`), so `driftboard verify` and `driftboard ci` say "ranked on
board K" or "not ranked: reason" before a submission is merged.

What each cell's ranked figure pools (`units`): per declared seed its all-declared value (agent: a
missing or invalid run counts as the worst value), per problem its correct turns over its turns in
every declared run (constraint: a declared run that is missing or not VALID answers nothing right).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from checker.format.boards_model import ranking_line
from checker.format.results_completion import BoardKey
from checker.format.results_model import CellRanking, CellResult, ProblemSetRef, RunResult
from checker.format.seeds import episode_parts

RANKED_PROFILE = "driftboard"
MIN_SEEDS = 5
"""Agent cells rank with at least this many declared seeds: a bootstrap over fewer seeds means nothing."""


@dataclass(frozen=True)
class CellInput:
    """What a board decision reads of one cell: the submission's rules verdict, the cell, its runs."""

    track: str
    profile: str
    submission_ranked: bool
    """The submission passed the rules (`checker.stages.rules.rank_status`)."""
    unranked_reason: str | None
    prereg_problem_set: str | None
    """The problem set digest the pre-registration declares (constraint track)."""
    cell: CellResult
    runs: Sequence[RunResult]
    """The cell's runs, whatever their verdict."""
    rank_metric: str
    turn_credit: str = "correct"
    """Constraint track: the `TurnResult` field that credits a turn in the rank metric (its declaration's `turn_credit`)."""


@dataclass(frozen=True)
class TrackBoards:
    """A track's board declaration: its key fields, protocol, evidence rule and per-cell functions."""

    track: str
    environment: tuple[str, ...]
    """The environment fields of the key (beside track, profile, protocol)."""
    protocol: str
    """The ranking protocol's version: a change of rule opens new boards, never re-ranks old ones."""
    rule: str
    """The evidence rule in one sentence, shown once per board."""
    unit: str
    """What the ranked figure pools and paired comparisons pair on."""
    environment_of: Callable[[CellInput], dict[str, str] | None]
    evidence: Callable[[CellInput], str | None]
    """Why the cell lacks the evidence to rank (None: it has it)."""
    units: Callable[[CellInput], dict[str, list[float]]]


# ----------------------------------------------------------------------------------------------- agent


def _agent_environment(x: CellInput) -> dict[str, str] | None:
    games = sorted({r.game_id for r in x.runs if r.game_id})
    return {"world": games[0]} if len(games) == 1 else None


def _agent_evidence(x: CellInput) -> str | None:
    n = x.cell.n_declared
    if n < MIN_SEEDS:
        return f"{n} declared seed{'s' * (n != 1)}; the agent board ranks cells with at least {MIN_SEEDS}"
    return None


def _agent_units(x: CellInput) -> dict[str, list[float]]:
    ad = x.cell.all_declared.get(x.rank_metric)
    if ad is None:
        return {}
    return {seed: [float(v), 1.0] for seed, v in sorted(ad.values.items()) if v is not None}


# ------------------------------------------------------------------------------------------ constraint


def _split(x: CellInput) -> ProblemSetRef | None:
    refs = {(r.problem_set.name, r.problem_set.digest) for r in x.runs if isinstance(r.problem_set, ProblemSetRef)}
    if len(refs) != 1:
        return None
    name, digest = next(iter(refs))
    return ProblemSetRef(name=name, digest=digest)


def _constraint_environment(x: CellInput) -> dict[str, str] | None:
    split = _split(x)
    return {"split": split.name, "split_digest": split.digest} if split is not None else None


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _constraint_evidence(x: CellInput) -> str | None:
    split = _split(x)
    if split is None or x.prereg_problem_set != split.digest:
        return "the pre-registration does not declare the problem set its runs answer"
    valid = [r for r in x.runs if r.verdict == "VALID"]
    if not valid:
        return "no VALID run: nothing covers the split"
    for run in valid:
        problems, problems_of = _int(run.metric("problems_covered")), _int(run.metric("problems_in_set"))
        turns, turns_of = _int(run.metric("turns")), _int(run.metric("turns_in_set"))
        if turns is None or turns_of is None or turns < turns_of:
            return (f"covers {problems or 0:,} of {problems_of or 0:,} problems ({turns or 0:,} of {turns_of or 0:,} "
                    f"turns) of {split.name}: a cell ranks on a split only when every declared run answers all of it")
    return None


def _constraint_units(x: CellInput) -> dict[str, list[float]]:
    """Problem -> [credited turns, turns] over every declared run (a run not VALID or missing answers none right).

    A turn is credited by the rank metric's `turn_credit` (`solved`: complete, readable and correct).
    """
    turns_of: dict[str, int] = {}
    correct: dict[str, int] = {}
    valid = [r for r in x.runs if r.verdict == "VALID"]
    for run in valid:
        for t in run.turns or []:
            turns_of[t.problem_id] = max(turns_of.get(t.problem_id, 0), t.turn_number)
            correct[t.problem_id] = correct.get(t.problem_id, 0) + int(getattr(t, x.turn_credit))
    runs = x.cell.n_declared or len(x.cell.seeds_reported) or 1
    return {p: [float(correct.get(p, 0)), float(n * runs)] for p, n in sorted(turns_of.items())}


# ------------------------------------------------------------------------------------------ completion


def _completion_board(x: CellInput) -> BoardKey | None:
    tables = x.cell.completion_tables
    return tables.board if tables is not None else None


def _completion_environment(x: CellInput) -> dict[str, str] | None:
    board = _completion_board(x)
    if board is None:
        return None
    return {"task_set": str(board.task_set), "task_set_digest": board.task_set_digest,
            "trials": str(board.trials_per_task)}


def _completion_evidence(x: CellInput) -> str | None:
    board = _completion_board(x)
    if board is None:
        return "its runs name no task set"
    if not board.complete:
        return board.why or "the pre-registration does not declare every task of the set the same number of times"
    return None


def _completion_units(x: CellInput) -> dict[str, list[float]]:
    """Task -> [verified episodes, declared episodes] (a missing or not-VALID episode is not verified)."""
    ad = x.cell.all_declared.get(x.rank_metric)
    if ad is None:
        return {}
    out: dict[str, list[float]] = {}
    for seed, v in sorted(ad.values.items()):
        unit = out.setdefault(episode_parts(seed)[0], [0.0, 0.0])
        unit[0] += float(v or 0.0)
        unit[1] += 1.0
    return out


TRACKS: dict[str, TrackBoards] = {
    "agent": TrackBoards(
        track="agent", environment=("world",), protocol="1", unit="seed",
        rule=(f"A cell ranks with at least {MIN_SEEDS} declared seeds, every declared seed counted (a missing, "
              "incomplete or invalid run at the worst value)."),
        environment_of=_agent_environment, evidence=_agent_evidence, units=_agent_units),
    "constraint": TrackBoards(
        track="constraint", environment=("split", "split_digest"), protocol="1", unit="problem",
        rule=("A cell ranks on a split only when its pre-registration declares that split and every declared run "
              "answers all of it (a missing or invalid run counts every turn wrong)."),
        environment_of=_constraint_environment, evidence=_constraint_evidence, units=_constraint_units),
    "completion": TrackBoards(
        track="completion", environment=("task_set", "task_set_digest", "trials"), protocol="1", unit="task",
        rule=("A cell ranks when its pre-registration declares every task of the task set the same number of times; "
              "every declared episode counts (a missing or invalid one as not verified)."),
        environment_of=_completion_environment, evidence=_completion_evidence, units=_completion_units),
}
"""Every track's board declaration, by track name: the one place boards are defined."""


def _environment(key: dict[str, str]) -> list[tuple[str, str]]:
    """The key's environment fields in the order its track declares them (a key read back from JSON is sorted)."""
    decl = TRACKS.get(key["track"])
    names = decl.environment if decl is not None else tuple(sorted(set(key) - {"track", "profile", "protocol"}))
    return [(k, key[k]) for k in names if k in key]


def is_label(field: str, key: dict[str, str]) -> bool:
    """A name beside the digest of what it names (a split's name beside its digest): shown, never part of the id.

    The runs declare names; only the digest says which problems or tasks they are. Two cells on the same
    problems share a board whatever they call them, so a new name never opens a board of its own.
    """
    return f"{field}_digest" in key


def board_id(key: dict[str, str]) -> str:
    """The board's id: `track:environment…:profile:p<protocol>` (a digest shortened to 12 hex digits; names left out)."""
    env = [v[:12] if k.endswith("_digest") else v for k, v in _environment(key) if not is_label(k, key)]
    return ":".join([key["track"], *env, key["profile"], "p" + key["protocol"]])


def board_label(key: dict[str, str]) -> str:
    """The key in words, for every row, cell page and citation."""
    parts = [f"{key['track']} track"]
    parts += [f"{k.replace('_', ' ')} {v[:12] + '…' if k.endswith('_digest') else v}" for k, v in _environment(key)]
    return " · ".join([*parts, f"profile {key['profile']}", f"protocol {key['protocol']}"])


def cell_ranking(x: CellInput) -> CellRanking:
    """The cell's board and whether it ranks there, with the reason when it does not."""
    decl = TRACKS.get(x.track)
    if decl is None:
        return CellRanking(board=None, ranked=False, reason=f"no board is declared for track {x.track}")
    env = decl.environment_of(x)
    key = {"track": x.track, **(env or {}), "profile": x.profile, "protocol": decl.protocol} if env else {}
    board = board_id(key) if key else None

    def unranked(reason: str) -> CellRanking:
        return CellRanking(board=board, key=key, ranked=False, reason=reason)

    if x.cell.comparator:
        return unranked("comparator cell (a reference point, not a drift result)")
    if not x.submission_ranked:
        return unranked(x.unranked_reason or "excluded by the integrity rules")
    if x.profile != RANKED_PROFILE:
        return unranked(f"scored under profile {x.profile}; boards rank profile {RANKED_PROFILE} only")
    if board is None:
        return unranked("its runs do not name one environment (world or problem set), so it has no board")
    why = decl.evidence(x)
    if why is not None:
        return unranked(why)
    ad = x.cell.all_declared.get(x.rank_metric)
    if ad is None or ad.value is None:
        return unranked(f"{x.rank_metric} is undefined over the declared runs")
    return CellRanking(board=board, key=key, ranked=True, unit=decl.unit, units=decl.units(x))



__all__ = ["MIN_SEEDS", "TRACKS", "CellInput", "TrackBoards", "board_id", "board_label", "cell_ranking",
           "ranking_line"]
