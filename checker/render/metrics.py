"""Every metric the site shows: its definition and its undefined case (rendered on `metrics.md`).

Metric names are the scorers' keys. A metric that appears in results but is missing here is
listed on the page as "not yet documented", so the page cannot silently fall behind the scorers
(`tests/test_metric_docs.py` verifies the shipped submissions and fails on any such metric).

Sources: `checker/score/agent.py`, `agent_metrics.py`, `gds.py`, `grounding.py`, `milestones.py`,
`checker/gate.py` (agent track), `checker/score/constraints.py` (constraint track) and
`checker/aggregate.py` (efficiency per level); they agree with `site/tracks/agent.md` and
`site/tracks/constraint.md`. An entry with `names` covers a family of keys (one per depth).
"""

from __future__ import annotations

from checker.render.context import MetricDoc

_A = "agent"
_C = "constraint"
_ALL = "both"
MAX_DEPTH = 10
"""Per-depth accuracy keys run from 1 to this (`checker.score.constraints.MAX_DEPTH`)."""

# Shared wording.
_NEVER = "Never undefined (a count; 0 when there is nothing to count)."
_OLD_STORE = ("Undefined when the run was imported from an older ARG store without the table it counts "
              "(`run_start.source.absent_tables`), as ARG reports it; otherwise a count (0 when there is nothing).")
_LANDING = ("The landing of a click is the recorded `target_ref` in profile `arg-v1.0` and the landing recomputed "
            "from geometry (smallest current, non-dormant referent whose anchor cells contain the click; none = "
            "background) in profile `driftboard`.")
_BOTH_UNDEF = "Undefined in both profiles (ARG also reports None there)."
_REF = ("No reference beat (n_ref = 0), in both profiles; 0 (defined) when there are reference beats and "
        "none is in the class.")
_RESID = ("Residual decomposition (drift-spec §b.6): wrong turns (correct = false) split by the recomputed "
          "`ledger_sat` of the turn. ")
_SHARE = " Counted among turns that have a channel (`channel_turns`), so the four shares sum to 1."

METRICS: list[MetricDoc] = [
    # ------------------------------------------------------------ agent: GDS (arg-spec §c.2)
    {"name": "drift_ref_beats", "track": _A,
     "definition": "n_ref, the number of reference beats: acted (non-RESET) beats whose `step_id` names a plan step "
                   "found in the log (**live**; a live beat whose step is absent is not a reference beat), else whose "
                   "`shadow_step_id` splits on `|` into at least 3 fields (**shadow**: action = field 2, target = "
                   "field 3, `-` = none).",
     "undefined": _NEVER},
    {"name": "gds_bind", "track": _A,
     "definition": "r3(bind / n_ref). A reference beat is **bind** when it is on plan (no reference action, or the "
                   "beat's action equals it), the step names a target, the action is aimed (has parameters) and it "
                   "landed elsewhere than the target (background included). " + _LANDING,
     "undefined": _REF},
    {"name": "gds_aligned", "track": _A,
     "definition": "r3(aligned / n_ref): every live reference beat that is not bind, and every shadow reference beat "
                   "that is neither bind nor abandon.",
     "undefined": _REF},
    {"name": "gds_abandon", "track": _A,
     "definition": "r3(abandon / n_ref): shadow reference beats that are not bind and are off plan (action differs "
                   "from the reference action) or landed off the step's target. A live beat is never abandon, so "
                   "abandon is 0 when every reference beat is live. " + _LANDING,
     "undefined": _REF},
    {"name": "drift_total", "track": _A,
     "definition": "r3((bind + abandon) / n_ref), computed from the counts (it can differ by 0.001 from the sum of "
                   "the two rounded rates).",
     "undefined": _REF},
    {"name": "attribution_mismatches", "track": _A,
     "definition": "Acted beats whose recorded `target_ref` differs from the landing recomputed from geometry "
                   "(each is listed in the run's `mismatches` with the reason). Computed in both profiles.",
     "undefined": _NEVER},
    # ------------------------------------------------------------ agent: counts (§c.1)
    {"name": "completions", "track": _A,
     "definition": "Levels completed: the maximum `level_counter` over all beats (the environment's cumulative "
                   "levels completed after the beat), 0 with no beat. Shown first: a cell with 0 completions is a "
                   "null result whatever its mechanism numbers.",
     "undefined": "Never undefined for a run that counts (VALID, or COMPARATOR in a comparator cell)."},
    {"name": "actions", "track": _A,
     "definition": "|T|, the number of beats, RESET beats included (every other per-action figure uses A, the "
                   "non-RESET beats).",
     "undefined": _NEVER},
    {"name": "referents", "track": _A, "definition": "Distinct referent ids in the log.", "undefined": _NEVER},
    {"name": "decision_mix", "track": _A,
     "definition": "Per-run table (not aggregated per cell): beats per `source_stamp` (`UNSTAMPED` when absent).",
     "undefined": "Never undefined (empty with no beat)."},
    # ------------------------------------------------------------ agent: grounding, hypotheses (§c.3)
    {"name": "rung_distribution", "track": _A,
     "definition": "Per-run table (not aggregated per cell): referents by their latest REFERENT_RUNG status.",
     "undefined": "Never undefined (empty with no rung row)."},
    {"name": "grounding_rate_all", "track": _A,
     "definition": "r3((#ENGAGED + #CHARACTERIZED) / N): referents whose latest REFERENT_RUNG status is ENGAGED or "
                   "CHARACTERIZED, over N = referents with any REFERENT_RUNG row. Not the same as RGR.",
     "undefined": "N = 0: undefined in profile `driftboard`; 0.0 in profile `arg-v1.0` (ARG divides by max(N, 1))."},
    {"name": "goal_bound_referents", "track": _A,
     "definition": "|Bd|, Bd = distinct `ref_id` of every goal binding (all goals, all versions).",
     "undefined": _NEVER},
    {"name": "RGR", "track": _A,
     "definition": "Grounding of goal-bound referents: r3(#{b ∈ Bd : latest rung = CHARACTERIZED} / "
                   "|Bd|) (CHARACTERIZED, as logged by the agent: referenced by a TESTED rule whose pre-registered "
                   "prediction matched). The paper labels it \"grounding rate\"; it is not `grounding_rate_all`.",
     "undefined": "Bd empty (no goal binding): undefined in profile `driftboard`; 0.0 in profile `arg-v1.0` "
                  "(ARG's value, which means \"no goal-bound referent\", not a measured zero)."},
    {"name": "GA", "track": _A,
     "definition": "r3(#{t ∈ A : landing(t) ∈ Bd} / |A|), the share of acted beats "
                   "that landed on a goal-bound referent. " + _LANDING,
     "undefined": "A or Bd empty, in both profiles (normally undefined in agenda-off cells, which write no goal "
                  "binding)."},
    {"name": "hypothesis_formed", "track": _A,
     "definition": "Per-run yes/no (shown per cell as k of n seeds, not averaged): at least one rule version whose "
                   "effect has `score_event` = 1 or `level_event` = 1 (an effect-linked rule).",
     "undefined": "Never undefined (no)."},
    {"name": "effect_rules", "track": _A,
     "definition": "Distinct rule ids with an effect-linked version (effect `score_event` = 1 or `level_event` = 1).",
     "undefined": _NEVER},
    {"name": "targeted_effect_rules", "track": _A,
     "definition": "Effect-linked rules (see `effect_rules`) whose context names a target referent.",
     "undefined": _NEVER},
    # ------------------------------------------------------------ agent: agenda, lifecycle (§c.4)
    {"name": "steps_written", "track": _A, "definition": "Plan-step (`commitment_step`) events in the log.",
     "undefined": _NEVER},
    {"name": "steps_consumed", "track": _A,
     "definition": "Steps whose latest COMMITMENT_STEP status is CONSUMED.", "undefined": _NEVER},
    {"name": "ICR", "track": _A,
     "definition": "r3(steps_consumed / steps_written), the share of written plan "
                   "steps that were consumed.",
     "undefined": "steps_written = 0. " + _BOTH_UNDEF},
    {"name": "FBR", "track": _A,
     "definition": "Rule demotions per 100 acted beats: r3(#RULE→DEMOTED transitions / (max(|A|, 1) / 100)).",
     "undefined": "|A| = 0: undefined in profile `driftboard`; in profile `arg-v1.0` ARG's value with denominator "
                  "max(|A|, 1) / 100 (0.0 unless a demotion was logged)."},
    {"name": "FCR", "track": _A,
     "definition": "r3(#GOAL→REOPENED transitions / #GOAL→ACCEPTED transitions), a plain ratio as in ARG (the design "
                   "says per 100 acceptances).",
     "undefined": "No GOAL→ACCEPTED transition. " + _BOTH_UNDEF},
    {"name": "FSN", "track": _A,
     "definition": "Referent fission checks per 100 acted beats: r3(#REFERENT_FISSION transitions / "
                   "(max(|A|, 1) / 100)) (counts fission-check firings, not executed splits).",
     "undefined": "|A| = 0: undefined in profile `driftboard`; in profile `arg-v1.0` ARG's value with denominator "
                  "max(|A|, 1) / 100 (0.0 unless a fission row was logged)."},
    {"name": "APR", "track": _A,
     "definition": "r3(#{t ∈ A : the goal of t's plan step's commitment ∈ NV} / |A|), NV = goals with any "
                   "GOAL→REJECTED transition with reason NEVER_VALIDATED: the share of acted beats spent on goals "
                   "that were rejected as never validated.",
     "undefined": "|A| = 0. " + _BOTH_UNDEF},
    {"name": "DTL", "track": _A,
     "definition": "Mean, over referents with a REFERENT relevance edge, of (turn of the first receipt on the "
                   "referent at or after t0) − t0, t0 = the referent's first edge turn; rounded to 2 places.",
     "undefined": "No sample (no referent with a relevance edge and a later receipt). " + _BOTH_UNDEF},
    {"name": "SCL", "track": _A,
     "definition": "Mean, over COMMITMENT_STEP→BLOCKED transitions with reason \"premise demoted\", of (block turn − "
                   "latest RULE→DEMOTED turn at or before it among the step's RULE premises); rounded to 2 places.",
     "undefined": "No sample. " + _BOTH_UNDEF},
    {"name": "rules_tested", "track": _A, "definition": "Rules whose latest status is TESTED.", "undefined": _NEVER},
    {"name": "goal_status", "track": _A,
     "definition": "Per-run table (not aggregated per cell): goals by their latest GOAL status.",
     "undefined": "Never undefined (empty with no goal)."},
    # ------------------------------------------------------------ agent: write path (§c.5)
    {"name": "WER", "track": _A,
     "definition": "Write error rate, all organs: r3(Σrej / (Σrej + Σacc)), rej = write rejects (profile "
                   "`driftboard`: per organ max(reject rows, Σ `ops_rejected` of its calls) + its MISSING_CANARY rows, "
                   "at least its deaf salted calls), acc = Σ "
                   "`ops_accepted` of the LLM calls. The gate's `write_error_rate` condition uses the per-organ "
                   "rates instead (only organs with at least `wer_min_ops` ops; FAIL above `wer_floor`).",
     "undefined": "No write op: undefined in profile `driftboard`; 0.0 in profile `arg-v1.0` (ARG's value)."},
    {"name": "wer_per_organ", "track": _A,
     "definition": "Per-run table (not aggregated per cell): r3(rej_o / (rej_o + acc_o)) for OBSERVER, SURVEYOR and "
                   "ACTUATOR (no minimum-ops guard here, unlike the gate).",
     "undefined": "An organ with no op is undefined, in both profiles."},
    {"name": "write_rejects", "track": _A, "definition": "Σrej: write-reject events.", "undefined": _NEVER},
    {"name": "DPR", "track": _A,
     "definition": "r3(#write rejects with retry_count ≥ 1 / (Σrej + Σacc)): rejected writes on a corrective retry, "
                   "per write op.",
     "undefined": "No write op. " + _BOTH_UNDEF},
    {"name": "SRR", "track": _A,
     "definition": "r3(#SURVEYOR write rejects with op ABORT_STEP or RANK_TIEBREAK / #SURVEYOR LLM calls, retries "
                   "included).",
     "undefined": "No Surveyor call. " + _BOTH_UNDEF},
    {"name": "ECR", "track": _A,
     "definition": "Write rejects of class UNCONTAINED_PARAM, OUT_OF_SCHEMA or DANGLING_REF per 100 LLM calls: "
                   "r3(count / (#calls / 100)).",
     "undefined": "No LLM call. " + _BOTH_UNDEF},
    # ------------------------------------------------------------ agent: chain (§c.6)
    {"name": "deficit_stamps", "track": _A, "definition": "Deficit-stamp events.", "undefined": _OLD_STORE},
    {"name": "deficit_goals", "track": _A, "definition": "Distinct goals named by deficit stamps.",
     "undefined": _OLD_STORE},
    {"name": "edges_verified", "track": _A, "definition": "Goal edges with `verified` true.", "undefined": _OLD_STORE},
    {"name": "edges_unverified", "track": _A, "definition": "Goal edges with `verified` false.",
     "undefined": _OLD_STORE},
    {"name": "milestone_goals", "track": _A, "definition": "Goals with a version of provenance DEFICIT.",
     "undefined": _NEVER},
    {"name": "milestone_accepted", "track": _A,
     "definition": "Milestone goals (provenance DEFICIT) whose latest GOAL status is ACCEPTED.", "undefined": _NEVER},
    {"name": "milestone_conversion", "track": _A,
     "definition": "r3(milestone_accepted / milestone_goals).",
     "undefined": "No milestone goal. " + _BOTH_UNDEF},
    # ------------------------------------------------------------ agent: render, tokens (§c.7)
    {"name": "max_render_tokens", "track": _A,
     "definition": "Largest `render_tokens` over all beats and LLM calls, and in profile `driftboard` render "
                   "captures too (0 with none).", "undefined": _NEVER},
    {"name": "render_ceiling_B", "track": _A,
     "definition": "The render ceiling B in tokens applied to the run: the pre-registered `render_ceiling_B`, else "
                   "ARG's default (6000). A threshold, not a measurement.",
     "undefined": "Never undefined."},
    {"name": "R9_ok", "track": _A,
     "definition": "Per-run yes/no (not aggregated per cell): max_render_tokens ≤ B (the gate's `render_ceiling` "
                   "condition fails on any render strictly above B).",
     "undefined": "Never undefined."},
    {"name": "llm_calls", "track": _A, "definition": "LLM calls recorded in the log (retries included).",
     "undefined": _NEVER},
    {"name": "llm_tokens", "track": _A,
     "definition": "Σ prompt tokens + Σ completion tokens over the LLM calls (reasoning tokens not added).",
     "undefined": _NEVER},
    {"name": "tokens_vs_beat_slope", "track": _A,
     "definition": "Ordinary least-squares slope of prompt + completion tokens against the call's turn, over all "
                   "LLM calls (organs pooled); rounded to 4 places.",
     "undefined": "Fewer than 3 LLM calls, or all calls on the same turn (zero x-variance). " + _BOTH_UNDEF},
    {"name": "bins", "track": _A,
     "definition": "Per-run table (not aggregated per cell): acted beats in bins \"1-50\", \"51-150\", \"151+\" by "
                   "beat number, each with `n`, `decision_accuracy` (share of match 1 among beats with a match and a "
                   "plan step), `match_rate` (share of match 1 among beats with a match) and `GA` (share of the bin's "
                   "beats landing in Bd).",
     "undefined": "An empty bin is undefined; a field is undefined when no beat qualifies (GA: Bd empty)."},
    # ------------------------------------------------------------ agent: claimed vs verified milestones
    {"name": "milestone_claims", "track": _A, "definition": "`milestone_claim` events (a claim is not an event).",
     "undefined": _NEVER},
    {"name": "milestones_verified", "track": _A,
     "definition": "Claims with deterministic evidence in their window: beat number between the claimed step's "
                   "start (`step_started_turn`, else the first beat that executed the step, else 0) and the claim's "
                   "beat, on an earlier log line than the claim. Only irreversible evidence counts: a `level` event, "
                   "a rise of the level counter or score, a receipt whose pre-registered prediction matched, an "
                   "irreversible `evidence` event (`exit_code` only when 0, `file_digest` only when changed).",
     "undefined": _NEVER},
    {"name": "milestones_declared_only", "track": _A,
     "definition": "milestone_claims − milestones_verified: claims with no such evidence.", "undefined": _NEVER},
    {"name": "milestone_verified_ratio", "track": _A,
     "definition": "r3(milestones_verified / milestone_claims).",
     "undefined": "No milestone claim (every imported ARG run). " + _BOTH_UNDEF},
    # ------------------------------------------------------------ constraint track (drift-spec §b)
    {"name": "turns", "track": _C, "definition": "Turns scored in the run (recomputed with Z3).",
     "undefined": _NEVER},
    {"name": "correct_turns", "track": _C,
     "definition": "Turns whose answer is correct: SAT(base axioms ∧ gold cumulative constraints of the turn ∧ "
                   "Φ(answer)); a partial answer counts when it extends to a solution; false when unparsed or on "
                   "a solver error.",
     "undefined": _NEVER},
    {"name": "turn_accuracy", "track": _C,
     "definition": "correct_turns / turns (a micro mean over turns, as the paper's headline).",
     "undefined": "turns = 0."},
    {"name": "accuracy_depth_<d>", "track": _C,
     "names": [f"accuracy_depth_{d}" for d in range(1, MAX_DEPTH + 1)],
     "definition": f"Accuracy at turn depth d (d = 1..{MAX_DEPTH}): correct turns / turns with `turn_number` = d. "
                   "Cell tables add the reference's bins 1-3, 4-6 and 7-10 (everything past 6 falls in 7-10).",
     "undefined": "No turn at depth d."},
    {"name": "parse_rate", "track": _C,
     "definition": "Share of turns from whose raw response a non-empty answer was extracted (the reference's "
                   "`extract_answer`).",
     "undefined": "turns = 0."},
    {"name": "complete_rate", "track": _C,
     "definition": "Share of turns whose answer is complete (reference `Complete()`: every entity seated, every "
                   "event started, every entity given every category).",
     "undefined": "turns = 0."},
    {"name": "problems_covered", "track": _C,
     "definition": "Distinct problems of the named problem set that the run answers.", "undefined": _NEVER},
    {"name": "turn_coverage", "track": _C,
     "definition": "Scored turns / gold turns of the whole named problem set: a run may cover only part of the set "
                   "(e.g. one imported transcript), and its accuracy is then about that part only.",
     "undefined": "The problem set has no turn."},
    {"name": "ledger_turns", "track": _C,
     "definition": "Turns that log a ledger (0 for methods `direct` and `cot`).", "undefined": _NEVER},
    {"name": "channel_turns", "track": _C,
     "definition": "Turns that have a channel: turns with a ledger, plus turns without one on which the solver "
                   "failed (channel other).", "undefined": _NEVER},
    {"name": "consistent", "track": _C,
     "definition": "Turns in channel **consistent**: the answer satisfies the ledger (SAT(base ∧ ledger ∧ "
                   "Φ(answer))). Channels are decided in order: contradiction (ledger known UNSAT), other "
                   "(solver error), none (no ledger), other (unparsed answer), consistent, drift.",
     "undefined": _NEVER},
    {"name": "drift", "track": _C,
     "definition": "Turns in channel **drift**: the ledger is SAT, the answer parses and violates the ledger.",
     "undefined": _NEVER},
    {"name": "contradiction", "track": _C,
     "definition": "Turns in channel **contradiction**: the ledger is UNSAT (the turn's MUS is listed).",
     "undefined": _NEVER},
    {"name": "other", "track": _C,
     "definition": "Turns in channel **other**: a solver error (also on a turn without a ledger), or a ledger that is "
                   "not UNSAT with an answer that cannot be parsed.",
     "undefined": _NEVER},
    {"name": "consistent_share", "track": _C, "definition": "consistent / channel_turns." + _SHARE,
     "undefined": "channel_turns = 0."},
    {"name": "drift_share", "track": _C, "definition": "drift / channel_turns." + _SHARE,
     "undefined": "channel_turns = 0."},
    {"name": "contradiction_share", "track": _C, "definition": "contradiction / channel_turns." + _SHARE,
     "undefined": "channel_turns = 0."},
    {"name": "other_share", "track": _C,
     "definition": "other / channel_turns." + _SHARE,
     "undefined": "channel_turns = 0."},
    {"name": "total_residual", "track": _C, "definition": "Wrong turns: turns − correct_turns.",
     "undefined": _NEVER},
    {"name": "residual_drift", "track": _C,
     "definition": _RESID + "Wrong turns whose ledger is SAT. Measured against gold, so it includes parse and "
                   "completeness failures under a SAT ledger.",
     "undefined": _NEVER},
    {"name": "residual_contradiction", "track": _C, "definition": _RESID + "Wrong turns whose ledger is UNSAT.",
     "undefined": _NEVER},
    {"name": "residual_other", "track": _C,
     "definition": _RESID + "Wrong turns whose ledger satisfiability is unknown (no ledger, or a solver error before "
                   "it was decided).",
     "undefined": _NEVER},
    {"name": "drift_rate", "track": _C,
     "definition": "residual_drift / total_residual: the share of **wrong** turns whose ledger is SAT (not a share "
                   "of all turns).",
     "undefined": "total_residual = 0 (no wrong turn)."},
    {"name": "contradiction_rate", "track": _C,
     "definition": "residual_contradiction / total_residual: the share of wrong turns whose ledger is UNSAT.",
     "undefined": "total_residual = 0 (no wrong turn)."},
    {"name": "other_rate", "track": _C,
     "definition": "residual_other / total_residual: the share of wrong turns whose ledger satisfiability is unknown.",
     "undefined": "total_residual = 0 (no wrong turn)."},
    {"name": "unsat_upper_bound", "track": _C,
     "definition": "Turns whose ledger is UNSAT, correct or not.", "undefined": _NEVER},
    {"name": "solver_errors", "track": _C,
     "definition": "Turns with a solver error (Z3 `unknown` after the timeout, or an unusable problem context).",
     "undefined": _NEVER},
    {"name": "mismatches", "track": _C,
     "definition": "Recorded labels that disagree with the recomputation: a recorded `z3_sat` ≠ the recomputed "
                   "ledger satisfiability, or a recorded `answer_correct` ≠ the recomputed correctness (each listed "
                   "with its reason).",
     "undefined": _NEVER},
    # ------------------------------------------------------------ both tracks (checker/aggregate.py)
    {"name": "actions_per_level", "track": _ALL,
     "definition": "actions / completions per run (beats, RESET included, per completed level), added to every "
                   "counted run before cells are aggregated.",
     "undefined": "completions absent or 0, in both profiles: always undefined on the constraint track (no "
                  "completions) and for agent runs that completed no level."},
    {"name": "tokens_per_level", "track": _ALL,
     "definition": "llm_tokens / completions per run (LLM tokens per completed level).",
     "undefined": "completions absent or 0 (as `actions_per_level`); always undefined on the constraint track."},
]


def documented() -> set[str]:
    """Metric keys with an entry in `METRICS` (an entry with `names` covers each of them)."""
    out: set[str] = set()
    for m in METRICS:
        out.update(m.get("names") or [m["name"]])
    return out
