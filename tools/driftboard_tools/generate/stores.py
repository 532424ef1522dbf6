"""Random native inputs for the importers: ARG store pairs and DRIFT-Bench transcripts / databases.

Hypothesis strategies (`arg_store_pair`, `drift_bench_rows`) and the writers that turn a draw
into files (`write_arg_stores`, `write_transcript`, `write_results_db`); used by the importer
fuzz targets and the importer property tests. The ARG tables are the ones `checker.importers.arg`
reads (`checker.importers.arg_events` maps them), with the columns, NOT NULL and CHECK
constraints of ARG's schema (arjmandi/ARG @ 3e15a86); the DRIFT-Bench `results` table is the
runner's (drift-spec §c). With `wild=False` every generated value conforms to the column's
declared type and constraints. `wild=True` starts from such an input and corrupts a few values
(`corrupt`): any SQLite/JSON type, non-JSON text in JSON columns, odd strings, a JSON value
nested inside another; ARG stores may also lose a table. Corrupting a few values rather than
every one lets most wild inputs get past the first check and reach the importer's deeper code.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

Column = tuple[str, str]
"""(name, kind): kind is a value family (see `_value`); `?` = nullable; `!` = nullable in the schema but
always written by ARG (conforming stores fill it, wild ones may leave it NULL)."""

ARG_STATE: dict[str, tuple[list[Column], str]] = {
    "run": ([("run_id", "rid"), ("game_id", "text"), ("backbone", "text"), ("seed", "int"), ("config_json", "config"),
             ("render_ceiling_B", "int"), ("started_at", "ts"), ("ended_at", "ts?"), ("status", "status")], "run_id"),
    "turn_record": ([("run_id", "rid"), ("turn_id", "int"), ("action", "action"), ("params_json", "params?"),
                     ("target_ref", "ref?"), ("pre_frame_hash", "hash"), ("post_frame_hash", "hash"),
                     ("raw_diff_json", "obj"), ("predicted_delta_json", "obj?"), ("observed_delta_json", "obj?"),
                     ("match", "bit?"), ("score", "int"), ("level_counter", "int"), ("state_flags", "text"),
                     ("lives", "int?"), ("commitment_step_id", "step?"),
                     ("source_stamp", "enum:COMMITMENT_STEP|PROBE|ACTUATOR_LLM|FALLBACK|RESET"), ("render_tokens", "int"),
                     ("shadow_step_id", "shadow?"), ("drift_ref", "enum?:LIVE|SHADOW")], "run_id, turn_id"),
    "locator_gridregion": ([("run_id", "rid"), ("locator_id", "loc"), ("cells_json", "cells"), ("colors_json", "obj"),
                            ("bbox_x0", "int"), ("bbox_y0", "int"), ("bbox_x1", "int"), ("bbox_y1", "int")],
                           "run_id, locator_id"),
    "referent": ([("run_id", "rid"), ("ref_id", "ref"), ("version", "ver"),
                  ("kind", "enum:percept-cluster|region|action|signal"), ("anchor_locator_id", "loc"),
                  ("signature", "text"), ("first_seen", "int"), ("provenance", "enum:OBSERVER_BIND|FISSION|MERGE"),
                  ("created_turn", "int")], "run_id, ref_id, version"),
    "goal": ([("run_id", "rid"), ("goal_id", "goal"), ("version", "ver"), ("parent_goal", "goal?"), ("statement", "text"),
              ("achievement_test_json", "obj"), ("discriminator_json", "obj"),
              ("reopen_class", "enum:MONOTONE_TERMINAL|RECORD_QUANTIFIED"), ("rejection_reason", "text?"),
              ("budget_actions", "int"), ("budget_search_calls", "int"), ("provenance", "text"),
              ("admitted_turn", "int?"), ("created_turn", "int")], "run_id, goal_id, version"),
    "goal_binding": ([("run_id", "rid"), ("goal_id", "goal"), ("goal_version", "ver"), ("ref_id", "ref")],
                     "run_id, goal_id, goal_version, ref_id"),
    "goal_edge": ([("run_id", "rid"), ("parent_goal", "goal"), ("child_goal", "goal"), ("hole_json", "obj"),
                   ("verified", "bit"), ("created_turn", "int")], "run_id, parent_goal, child_goal"),
    "rule": ([("run_id", "rid"), ("rule_id", "rule"), ("version", "ver"), ("template", "text"), ("ctx_pred_json", "obj"),
              ("effect_pattern_json", "obj"), ("scope", "enum:WITHIN_LIFE|PERSISTENT|UNKNOWN"), ("ttl_turn", "int?"),
              ("test_plan", "text?"), ("created_turn", "int")], "run_id, rule_id, version"),
    "commitment": ([("run_id", "rid"), ("commit_id", "commit"), ("version", "ver"), ("goal_id", "goal"),
                    ("compiled_turn", "int"), ("procedure_id", "text?"), ("created_turn", "int")],
                   "run_id, commit_id, version"),
    "step_premise": ([("run_id", "rid"), ("commit_id", "commit"), ("commit_version", "ver"), ("step_id", "step"),
                      ("member_kind", "enum:RULE|GOAL_BINDING|TARGET_REF"), ("member_id", "text")],
                     "run_id, commit_id, commit_version, step_id, member_kind, member_id"),
    "commitment_step": ([("run_id", "rid"), ("commit_id", "commit"), ("commit_version", "ver"), ("step_id", "step"),
                         ("step_ord", "int"), ("kind", "enum:NAVIGATE|INTERACT|PROBE"), ("target_ref", "ref?"),
                         ("action", "action?"), ("param_schema_json", "obj"), ("predicted_delta_json", "obj?"),
                         ("then_slot_step", "text?"), ("precond_json", "obj"), ("compilation_turn_id", "int"),
                         ("lease_max_beats", "int")], "run_id, commit_id, commit_version, step_id"),
    "relevance_edge": ([("run_id", "rid"), ("seq", "int"), ("turn_id", "int"), ("goal_id", "goal"),
                        ("target_kind", "enum:RULE|REFERENT"), ("target_id", "text")], "run_id, seq"),
    "deficit_stamp": ([("run_id", "rid"), ("seq", "int"), ("turn_id", "int"), ("goal_id", "goal"), ("holes_json", "holes")],
                      "run_id, seq"),
    "consequence_record": ([("run_id", "rid"), ("turn_id", "int"), ("seq", "int"), ("action", "action"),
                            ("target_ref", "ref?"), ("context_class_id", "text"), ("predicted_delta_json", "obj?"),
                            ("observed_delta_json", "obj"), ("match", "bit?"), ("predictor_id", "rule?"),
                            ("predictor_kind", "enum?:STEP|RULE|EXPERIMENT"), ("score_event", "bit"),
                            ("level_event", "bit"), ("life_event", "bit")], "run_id, turn_id, seq"),
    "write_reject": ([("run_id", "rid"), ("seq", "int"), ("turn_id", "int"), ("organ", "enum:OBSERVER|SURVEYOR|ACTUATOR"),
                      ("op_type", "text"), ("violation_class", "text"), ("retry_count", "int")], "run_id, seq"),
    "substitution_caught": ([("run_id", "rid"), ("seq", "int"), ("turn_id", "int"), ("step_target", "ref"),
                             ("landed_target", "ref?")], "run_id, seq"),
    "status_transition": ([("run_id", "rid"), ("seq", "int"), ("turn_id", "int"),
                           ("entity_kind", "enum:REFERENT_RUNG|REFERENT_CONTROLLABLE|RELATION|RULE|GOAL|PROCEDURE|"
                                           "COMMITMENT_STEP|EXPERIMENT|REFERENT_FISSION|REFERENT_LIFE"),
                           ("entity_id", "text"), ("from_status", "text?"), ("to_status", "text"), ("reason", "text?")],
                          "run_id, seq"),
}
"""ARG state-store tables the importer reads: columns and primary key."""

ARG_PROBE: dict[str, tuple[list[Column], str]] = {
    "run_config": ([("run_id", "rid"), ("card_id", "text?"), ("game_id", "text?"), ("guid", "text?"), ("cell_json", "obj?"),
                    ("baseline", "text?"), ("backbone", "text?"), ("seed", "int?"), ("config_json", "config?"),
                    ("arm", "arm?"), ("comparison_group", "text?"), ("started_at", "ts?"), ("ended_at", "ts?")], "run_id"),
    "startup_probe": ([("run_id", "rid"), ("image_receipt_ok", "bit?"), ("signal_vocab_json", "vocab?"),
                       ("action_interface_json", "obj?")], "run_id"),
    "api_log": ([("run_id", "rid"), ("turn_id", "int"), ("step_id", "int"), ("action", "action"), ("source_stamp", "text?"),
                 ("request_json", "obj?"), ("response_json", "obj?"), ("status_code", "int?"), ("game_id", "text?"),
                 ("card_id", "text?"), ("guid", "text?"), ("score", "int?"), ("levels_completed", "int?"),
                 ("state", "text?"), ("frame_received", "bit"), ("ts", "ts?")], "run_id, turn_id, step_id"),
    "llm_calls": ([("run_id", "rid"), ("seq", "int"), ("turn_id", "int"), ("organ", "organ"), ("backbone", "text?"),
                   ("call_idx", "int?"), ("retry_count", "int"), ("prompt_tokens", "int?"), ("completion_tokens", "int?"),
                   ("reasoning_tokens", "int?"), ("render_tokens", "int?"), ("ops_accepted", "int?"),
                   ("ops_rejected", "int?"), ("effort", "text?"), ("zcr_json", "obj?"), ("ts", "ts?")], "run_id, seq"),
    "render_capture": ([("run_id", "rid"), ("turn_id", "int"), ("call_idx", "int"), ("organ", "organ?"),
                        ("zone_tier", "zone?"), ("view_bytes", "text?"), ("render_tokens", "int?"), ("shadow_flag", "bit?"),
                        ("rank_snapshot", "text?")], "run_id, turn_id, call_idx, zone_tier"),
    "scorecards": ([("run_id", "rid"), ("seq", "int"), ("turn_id", "int"), ("card_id", "text?"), ("game_id", "text?"),
                    ("scorecard_json", "scorecard?"), ("captured_at", "ts?")], "run_id, seq"),
    "zcr_echo": ([("run_id", "rid"), ("seq", "int"), ("turn_id", "int"), ("organ", "organ!"), ("call_idx", "int?"),
                  ("zone_tier", "zone?"), ("nonce", "text?"), ("echoed", "bit")], "run_id, seq"),
    "zcr_salt": ([("run_id", "rid"), ("seq", "int"), ("turn_id", "int"), ("organ", "organ!"), ("call_idx", "int?"),
                  ("zone_tier", "zone?"), ("nonce", "text?")], "run_id, seq"),
}
"""ARG probe-store tables the importer reads."""

ARG_EVENT_TABLES = {
    "state": ("turn_record", "referent", "goal", "goal_binding", "goal_edge", "rule", "commitment", "commitment_step",
              "relevance_edge", "deficit_stamp", "consequence_record", "write_reject", "substitution_caught",
              "status_transition"),
    "probe": ("startup_probe", "llm_calls", "zcr_salt", "zcr_echo", "render_capture", "scorecards"),
}
"""Tables whose every row of a run becomes one event (locator_gridregion and step_premise are folded in)."""

DRIFT_BENCH_RESULTS = """CREATE TABLE results (id INTEGER PRIMARY KEY AUTOINCREMENT, model TEXT NOT NULL,
 method TEXT NOT NULL, domain TEXT NOT NULL, problem_id TEXT NOT NULL, turn_number INTEGER NOT NULL, raw_response TEXT,
 tokens_in INTEGER, tokens_out INTEGER, latency_ms REAL, finish_reason TEXT, response_truncated INTEGER DEFAULT 0,
 answer_correct INTEGER, extraction_null INTEGER, ledger_size INTEGER, ledger_json TEXT,
 constraint_extraction_success INTEGER, z3_sat INTEGER, mus_size INTEGER, mus_json TEXT, repair_attempted INTEGER,
 repair_trigger TEXT, repair_trigger_count INTEGER, repair_reason_json TEXT, z3_error INTEGER DEFAULT 0,
 timestamp TEXT DEFAULT (datetime('now')))"""
"""The DRIFT-Bench runner's `results` table (drift-spec §c)."""

_NOT_NULL_TYPES = {"int": "INTEGER", "bit": "INTEGER", "ver": "INTEGER"}


def ddl(table: str, spec: tuple[list[Column], str]) -> str:
    """CREATE TABLE for a spec: declared type, NOT NULL unless nullable, CHECK for enums, primary key."""
    cols = []
    for name, kind in spec[0]:
        nullable = "?" in kind or "!" in kind
        base = kind.replace("?", "").replace("!", "")
        sql_type = _NOT_NULL_TYPES.get(base, "TEXT")
        col = f"{name} {sql_type}" + ("" if nullable else " NOT NULL")
        if base.startswith("enum:"):
            values = ", ".join(f"'{v}'" for v in base[5:].split("|"))
            col += f" CHECK ({name} IN ({values}))"
        cols.append(col)
    return f"CREATE TABLE {table} ({', '.join(cols)}, PRIMARY KEY ({spec[1]}))"


_IDS = {
    "ref": ["R0001", "R0002", "R0003"], "goal": ["G1", "G2"], "commit": ["C1", "C2"], "step": ["C1-S1", "C1-S2", "C2-S1"],
    "rule": ["RU1", "RU2"], "loc": ["L1", "L2", "L3"],
    "action": ["RESET", "ACTION1", "ACTION2", "ACTION5", "ACTION6"],
    "organ": ["observer", "surveyor", "actuator", "OBSERVER"], "zone": ["1", "2", "T1"],
    "status": ["RUNNING", "COMPLETED", "ABORTED", "FAILED"], "arm": ["FULL,r1", "A0,r2", "baseline", "J0", ""],
    "shadow": ["G1|ACTION6|R0001|RU1", "-|-|-|-", "G2|ACTION1|-|-"],
}
_TEXT = st.text(st.characters(codec="utf-8"), max_size=10)  # the utf-8 codec excludes lone surrogates
_WILD_SCALAR = st.one_of(
    st.none(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=True, allow_infinity=True), _TEXT,
    st.binary(max_size=8), st.sampled_from(["[1, 2]", "[[1]]", '"x"', "5", "{}", "[" * 2000, "null", "NaN", "1e999",
                                            "\ud800", "a\udfffb", "\x85", "\u2028"]),
)
_JSON_ANY = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 50), st.floats(-1e3, 1e3), _TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_TEXT, inner, max_size=3)), max_leaves=6,
)
_GATES = ("join", "agenda", "seeds", "goals", "search", "conseq", "retain", "flat", "triggers", "split", "fission")


def _json_text(kind: str) -> st.SearchStrategy[str]:
    small = st.integers(0, 30)
    if kind == "config":
        gates = st.dictionaries(st.sampled_from(_GATES), st.booleans(), max_size=6)
        value: st.SearchStrategy[Any] = st.fixed_dictionaries(
            {}, optional={"gates": gates, "max_actions": st.integers(1, 200), "baseline": st.sampled_from(["bcache", "bare"])})
    elif kind == "params":
        value = st.fixed_dictionaries({"x": small, "y": small})
    elif kind == "cells":
        value = st.lists(st.tuples(small, small), max_size=4)
    elif kind == "holes":
        value = st.one_of(st.lists(st.dictionaries(_TEXT, _JSON_ANY, max_size=2), max_size=2),
                          st.dictionaries(_TEXT, _JSON_ANY, max_size=2))
    elif kind == "vocab":
        value = st.one_of(st.lists(_TEXT, max_size=3), st.dictionaries(_TEXT, _JSON_ANY, max_size=3))
    elif kind == "scorecard":
        value = st.fixed_dictionaries({}, optional={"levels_completed": small, "score": small})
    else:
        value = st.dictionaries(_TEXT, _JSON_ANY, max_size=3)
    return value.map(lambda v: json.dumps(v, ensure_ascii=False))


def _value(kind: str, run_ids: Sequence[str]) -> st.SearchStrategy[Any]:
    """A column value conforming to the column."""
    nullable = "?" in kind
    base = kind.replace("?", "").replace("!", "")
    if base == "rid":
        good: st.SearchStrategy[Any] = st.sampled_from(list(run_ids))
    elif base in ("int",):
        good = st.integers(0, 40)
    elif base == "ver":
        good = st.integers(1, 3)
    elif base == "bit":
        good = st.integers(0, 1)
    elif base == "ts":
        good = st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-02 10:00:00", "2025-12-31T23:59:59Z"])
    elif base == "hash":
        good = st.text("0123456789abcdef", min_size=16, max_size=16)
    elif base.startswith("enum:"):
        good = st.sampled_from(base[5:].split("|"))
    elif base in _IDS:
        good = st.sampled_from(_IDS[base])
    elif base in ("config", "params", "cells", "obj", "holes", "vocab", "scorecard"):
        good = _json_text(base)
    else:
        good = st.one_of(_TEXT.filter(bool), st.sampled_from(["x", "R0001", "G1", "RU1"]))
    if nullable:
        good = st.one_of(good, st.none())
    return good


WILD_VALUES = st.one_of(_WILD_SCALAR, _JSON_ANY.map(lambda v: json.dumps(v)), _JSON_ANY)
"""What a corrupted value becomes (JSON values are stored as text in SQLite)."""


@st.composite
def corrupt(draw: st.DrawFn, records: list[dict[str, Any]], max_values: int = 3) -> list[dict[str, Any]]:
    """Copies of `records` with one to `max_values` values replaced by `WILD_VALUES` or NULL.

    A value is a top-level field, or a field one level down in a list of objects.
    """
    out = [dict(r) for r in records]
    if not out:
        return out
    for _ in range(draw(st.integers(1, max_values))):
        rec = draw(st.sampled_from(out))
        if not rec:
            continue
        key = draw(st.sampled_from(sorted(rec)))
        inner = rec[key]
        if isinstance(inner, list) and inner and all(isinstance(x, dict) and x for x in inner) and draw(st.booleans()):
            item = dict(draw(st.sampled_from(inner)))
            item[draw(st.sampled_from(sorted(item)))] = draw(st.one_of(st.none(), WILD_VALUES))
            rec[key] = [item if x is inner[0] else x for x in inner]
        else:
            rec[key] = draw(st.one_of(st.none(), WILD_VALUES))
    return out


@st.composite
def arg_store_pair(draw: st.DrawFn, wild: bool = False) -> dict[str, Any]:
    """A spec `{"state": {table: [rows]}, "probe": {...}, "missing": [tables]}` for `write_arg_stores`."""
    rid = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)
    if wild:
        rid = st.one_of(rid, rid, rid, st.sampled_from(["a/b", "../x", "argraw-1", "argbare-1", "é" * 3, "a b"]))
    run_ids = draw(st.lists(rid, min_size=1, max_size=3, unique=True))
    spec: dict[str, Any] = {"state": {}, "probe": {}, "missing": []}
    for store, tables in (("state", ARG_STATE), ("probe", ARG_PROBE)):
        for table, (cols, _) in tables.items():
            most = 2 if table in ("run", "run_config", "startup_probe") else 3
            least = 1 if table == "run" else 0
            row = st.fixed_dictionaries({name: _value(kind, run_ids) for name, kind in cols})
            spec[store][table] = draw(st.lists(row, min_size=least, max_size=most))
    if wild:
        for _ in range(draw(st.integers(1, 3))):
            store = draw(st.sampled_from(["state", "probe"]))
            table = draw(st.sampled_from(sorted(spec[store])))
            if draw(st.integers(0, 9)) == 0:
                spec["missing"].append(table)
            else:
                spec[store][table] = draw(corrupt(spec[store][table], max_values=2))
    return spec


def write_arg_stores(spec: Mapping[str, Any], state_db: Path, probe_db: Path) -> None:
    """Create the two SQLite stores of a spec; rows that break a constraint (primary key, CHECK) are skipped."""
    for path, store, tables in ((state_db, "state", ARG_STATE), (probe_db, "probe", ARG_PROBE)):
        con = sqlite3.connect(path)
        try:
            con.execute("PRAGMA journal_mode=OFF")
            con.execute("PRAGMA synchronous=OFF")
            for table, tspec in tables.items():
                if table in spec["missing"]:
                    continue
                con.execute(ddl(table, tspec))
                names = [c for c, _ in tspec[0]]
                sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
                for row in spec[store].get(table, []):
                    values = [json.dumps(v) if isinstance(v, dict | list) else v for v in (row[n] for n in names)]
                    try:
                        con.execute(sql, values)
                    except (sqlite3.IntegrityError, OverflowError, UnicodeEncodeError):
                        continue
            con.commit()
        finally:
            con.close()


# ----------------------------------------------------------------------------- DRIFT-Bench
def _ledger_entry(entities: Sequence[str]) -> st.SearchStrategy[Any]:
    arg = st.one_of(st.sampled_from(list(entities)), st.integers(-1, 8), st.sampled_from(["x", "3.0", "color", "Red"]))
    entry = st.fixed_dictionaries(
        {"type": st.sampled_from(["at_position", "adjacent", "not_adjacent", "left_of", "separated_by", "before",
                                  "at_time", "within", "duration", "gap", "assign", "different", "ordered", "bogus"]),
         "args": st.lists(arg, max_size=3)},
        optional={"id": st.sampled_from(["C001", "C002", "C003"]), "nl": _TEXT, "source_turn": st.integers(1, 4)},
    )
    return entry


def _answer_text(entities: Sequence[str]) -> st.SearchStrategy[str]:
    answer = st.dictionaries(st.sampled_from(list(entities)), st.one_of(st.integers(0, 8), _TEXT), max_size=len(entities))
    return st.one_of(
        answer.map(lambda a: json.dumps({"solution": a})), answer.map(json.dumps), _TEXT,
        answer.map(lambda a: "<think>hmm</think>```json\n" + json.dumps(a) + "\n```"),
    )


@st.composite
def drift_bench_rows(draw: st.DrawFn, problems: Sequence[Mapping[str, Any]], wild: bool = False) -> list[dict[str, Any]]:
    """Model turns over `problems` (dicts with problem_id, domain, entities, turns): one dict per row.

    Conforming rows reference an existing problem and turn, and no (model, method, problem, turn)
    repeats; wild rows are conforming rows with a few values corrupted (`corrupt`).
    """
    def row(problem: Mapping[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        ents = [str(e) for e in problem["entities"]]
        n = len(problem["turns"])
        bit = st.one_of(st.none(), st.integers(0, 1))
        fields: dict[str, st.SearchStrategy[Any]] = {
            "model": st.sampled_from(["m-a", "m/b"]), "method": st.sampled_from(["direct", "mus_repair", "ledger_only"]),
            "problem_id": st.just(problem["problem_id"]), "domain": st.just(problem["domain"]),
            "turn_number": st.integers(1, n), "raw_response": st.one_of(st.none(), _answer_text(ents)),
            "ledger": st.one_of(st.none(), st.lists(_ledger_entry(ents), max_size=3)),
            "z3_sat": bit, "answer_correct": bit, "extraction_null": bit, "z3_error": bit,
            "mus": st.one_of(st.none(), st.lists(st.sampled_from(["C001", "C002"]), max_size=2)),
            "repair_events": st.lists(st.fixed_dictionaries(
                {"attempt": st.integers(1, 3), "codes": st.lists(st.sampled_from(["answer_ledger_conflict", "unsat"]),
                                                                 max_size=2)},
                optional={"candidate_is_sat": st.booleans(), "mus_size": st.integers(0, 3), "reasons": _JSON_ANY}),
                max_size=2),
            "finish_reason": st.one_of(st.none(), st.sampled_from(["stop", "length"])),
            "tokens_in": st.one_of(st.none(), st.integers(0, 5000)), "tokens_out": st.one_of(st.none(), st.integers(0, 5000)),
            "timestamp": st.sampled_from(["2026-04-01 10:00:00", "2026-04-02T09:00:00Z"]),
        }
        return st.fixed_dictionaries(fields)

    rows = draw(st.lists(st.sampled_from(list(problems)).flatmap(row), min_size=1, max_size=6))
    seen: set[tuple[Any, ...]] = set()
    unique = []
    for r in rows:
        key = (r["model"], r["method"], r["problem_id"], r["turn_number"])
        if key not in seen:
            seen.add(key)
            unique.append(r)
    return draw(corrupt(unique)) if wild else unique


def write_transcript(rows: Sequence[Mapping[str, Any]], problems: Sequence[Mapping[str, Any]], path: Path,
                     ascii_only: bool = False) -> None:
    """A transcript JSONL: per problem a `problem_intro`, then its rows as `model_trace` lines (with their method).

    `ascii_only` escapes every non-ASCII character (lone surrogates can only be written that way).
    """
    by_id = {p["problem_id"]: p for p in problems}
    lines = []
    for pid in dict.fromkeys(str(r.get("problem_id")) for r in rows):
        p = by_id.get(pid, {"domain": "seating", "entities": [], "turns": []})
        lines.append({"type": "problem_intro", "problem_id": pid, "domain": p["domain"], "entities": p["entities"],
                      "n_turns": len(p["turns"])})
        for r in rows:
            if str(r.get("problem_id")) != pid:
                continue
            trace = {"type": "model_trace", "model": r.get("model"), "turn_number": r.get("turn_number"),
                     "response_snippet": r.get("raw_response"), "ledger": r.get("ledger"), "z3_sat": r.get("z3_sat"),
                     "answer_correct": r.get("answer_correct"), "mus": r.get("mus"),
                     "repair_events": r.get("repair_events"), "finish_reason": r.get("finish_reason"),
                     "tokens_out": r.get("tokens_out"), "method": r.get("method")}
            lines.append(trace)
    path.write_text("".join(json.dumps(x, ensure_ascii=ascii_only, default=repr) + "\n" for x in lines),
                    encoding="utf-8", errors="surrogatepass")


def write_results_db(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    """The runner's results database with one `results` row per model turn."""
    con = sqlite3.connect(path)
    try:
        con.execute(DRIFT_BENCH_RESULTS)
        for r in rows:
            def text(v: Any) -> Any:
                return v if v is None or isinstance(v, str | int | float | bytes) else json.dumps(v, default=repr)

            values = [text(r.get("model")), text(r.get("method")), text(r.get("domain")), text(r.get("problem_id")),
                      text(r.get("turn_number")), text(r.get("raw_response")), text(r.get("tokens_in")),
                      text(r.get("tokens_out")), text(r.get("finish_reason")), text(r.get("answer_correct")),
                      text(r.get("extraction_null")),
                      None if r.get("ledger") is None else text(json.dumps(r.get("ledger"), default=repr)),
                      text(r.get("z3_sat")), None if r.get("mus") is None else json.dumps(r.get("mus"), default=repr),
                      json.dumps(r.get("repair_events"), default=repr), text(r.get("z3_error")), text(r.get("timestamp"))]
            try:
                con.execute(
                    "INSERT INTO results (model, method, domain, problem_id, turn_number, raw_response, tokens_in,"
                    " tokens_out, finish_reason, answer_correct, extraction_null, ledger_json, z3_sat, mus_json,"
                    " repair_reason_json, z3_error, timestamp) VALUES (" + ", ".join("?" * 17) + ")", values)
            except (sqlite3.IntegrityError, OverflowError, UnicodeEncodeError):
                continue
        con.commit()
    finally:
        con.close()


__all__ = [
    "ARG_EVENT_TABLES", "ARG_PROBE", "ARG_STATE", "DRIFT_BENCH_RESULTS", "arg_store_pair", "ddl", "drift_bench_rows",
    "write_arg_stores", "write_results_db", "write_transcript",
]
