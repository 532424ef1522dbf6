"""Render `driftboard verify --format json` as a Markdown job summary and GitHub annotations.

Everything in a verify document is untrusted: run ids, cell names, messages and reasons come
from submitted files. Every such string goes through `md()` (Markdown table cells) or
`escape_data()` / `escape_property()` (workflow commands), so a submission can neither break a
table nor start a line of output with `::` (which the Actions runner would obey as a command).
Every line that carries submitted text starts with a character this module chose (`#`, `|`,
`-` or `::` followed by a command it wrote).

The document is read defensively: a missing key renders as "—" or skips its section, so the
summary keeps working while the verify output grows new fields.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from checker.errors import UsageError, visible
from checker.validate import INCOMPLETE_MESSAGE

DASH = "—"
MAX_ROWS = 100
"""Rows shown per table; the rest are counted."""
MAX_CELL_CHARS = 300
"""Longest table cell; longer text is cut with an ellipsis."""
MAX_ANNOTATIONS = 10
"""Per kind (error, warning, notice): GitHub shows at most 10 of each per step."""
MAX_SUMMARY_BYTES = 900_000
"""GitHub refuses job summaries over 1 MiB; the Markdown is cut (with a note) before that."""
CELLS_PER_TABLE = 8
"""Per-cell figures: columns (cells) per table before the table is split."""
STATUS = {"PASS": "✅ PASS", "FAIL": "❌ FAIL", "NOT_APPLICABLE": "n/a"}
VERDICTS = ("VALID", "INVALID", "INCOMPLETE", "COMPARATOR", "UNVERIFIED", "MALFORMED")


# --------------------------------------------------------------------------- escaping


def md(value: Any) -> str:
    """One Markdown table cell from untrusted text: one line, `|` and HTML escaped, bounded."""
    if value is None:
        return DASH
    text = value if isinstance(value, str) else fmt_value(value)
    text = visible(" ".join(text.replace("\r", "\n").split("\n")).strip())
    if len(text) > MAX_CELL_CHARS:
        text = text[: MAX_CELL_CHARS - 1] + "…"
    for raw, safe in (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\\", "\\\\"), ("|", "\\|"),
                      ("`", "\\`"), ("[", "\\["), ("]", "\\]"), ("*", "\\*")):
        text = text.replace(raw, safe)
    return text or DASH


def code(value: Any) -> str:
    """Untrusted text shown as inline code (paths, ids), safe inside a table cell."""
    if value is None:
        return DASH
    text = visible(" ".join(str(value).replace("\r", "\n").split("\n")).strip())
    if len(text) > MAX_CELL_CHARS:
        text = text[: MAX_CELL_CHARS - 1] + "…"
    # `<code>` rather than backticks: a backtick in the text cannot end it, and `|` stays escapable.
    # Markdown still applies inside an inline `<code>` tag, so link, emphasis and code-span
    # characters become character references too (`[x](url)` must not turn into a link).
    text = text.replace("&", "&amp;")
    for raw in "<>|\\`*_[]~":
        text = text.replace(raw, f"&#{ord(raw)};")
    return f"<code>{text}</code>" if text else DASH


def escape_data(text: str) -> str:
    """Escape the message of a workflow command (GitHub's rules: `%`, CR, LF; other controls spelled out)."""
    return visible(text, keep="\r\n").replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow-command property value (`%`, CR, LF, `:` and `,`)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(kind: str, message: str, file: str | None = None, line: int | None = None,
                     title: str | None = None) -> str:
    """`::kind file=F,line=L,title=T::message`, every part escaped."""
    props = []
    if file:
        props.append(f"file={escape_property(file)}")
    if file and isinstance(line, int) and not isinstance(line, bool) and line > 0:
        props.append(f"line={line}")
    if title:
        props.append(f"title={escape_property(title)}")
    head = f"::{kind} {','.join(props)}" if props else f"::{kind}"
    return f"{head}::{escape_data(message)}"


def fmt_value(value: Any) -> str:
    """A number or value as shown in the summary (None → "—", floats to 4 significant digits)."""
    if value is None:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        return f"{value:.4g}"
    if isinstance(value, int | str):
        return str(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# --------------------------------------------------------------------------- reading the document


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _line(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def is_failing_problem(problem: Mapping[str, Any]) -> bool:
    """A problem fails the check unless it is a warning or merely says a run is INCOMPLETE."""
    return problem.get("severity", "error") != "warning" and problem.get("message") != INCOMPLETE_MESSAGE


def disagreeing_claims(sub: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Claimed figures of a submission whose recomputed value disagrees."""
    return [c for c in _dicts(sub.get("claims")) if c.get("agrees") is False]


@dataclass
class Outcome:
    """What a verify document means for the check."""

    problems: list[dict[str, Any]] = field(default_factory=list)
    """Failing format / chain / manifest problems."""
    claims: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """(submission path, claim) for every claimed figure that disagrees."""
    verdicts: dict[str, int] = field(default_factory=dict)
    runs: int = 0
    submissions: int = 0
    unreadable: bool = False
    """The document's own exit code was 2 (input that could not be read)."""

    @property
    def failed(self) -> bool:
        """True when the check must fail."""
        return bool(self.problems or self.claims or self.unreadable)


def outcome(doc: Mapping[str, Any]) -> Outcome:
    """Classify a verify (or validate) document: failing problems, disagreeing claims, verdict counts."""
    out = Outcome(problems=[p for p in _dicts(doc.get("problems")) if is_failing_problem(p)])
    out.unreadable = doc.get("exit_code") == 2
    for sub in _dicts(doc.get("submissions")):
        out.submissions += 1
        out.claims.extend((str(sub.get("path", "")), c) for c in disagreeing_claims(sub))
        for run in _dicts(sub.get("runs")):
            out.runs += 1
            verdict = str(run.get("verdict", "UNKNOWN"))
            out.verdicts[verdict] = out.verdicts.get(verdict, 0) + 1
    return out


def verdict_counts(counts: Mapping[str, int]) -> str:
    """`3 VALID, 1 INVALID` in the canonical verdict order, then any other verdict."""
    order = [v for v in VERDICTS if counts.get(v)] + sorted(v for v in counts if v not in VERDICTS)
    return ", ".join(f"{counts[v]} {md(v)}" for v in order) or "no runs"


# --------------------------------------------------------------------------- Markdown


def table(header: Sequence[str], rows: Iterable[Sequence[str]], total: int | None = None) -> list[str]:
    """A Markdown table (cells already escaped), at most MAX_ROWS rows, then a count of the rest."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    shown = 0
    for row in rows:
        if shown == MAX_ROWS:
            break
        out.append("| " + " | ".join(row) + " |")
        shown += 1
    if total is not None and total > shown:
        out.append("")
        out.append(f"> {total - shown} more not shown; run `driftboard verify --format json` for all of them.")
    out.append("")
    return out


def problems_section(problems: list[dict[str, Any]], heading: str) -> list[str]:
    """The failing problems as a `file | line | message` table."""
    if not problems:
        return []
    rows = ([code(p.get("path")), md(_line(p.get("line"))), md(p.get("message"))] for p in problems)
    return [f"### {heading} ({len(problems)})", "", *table(["file", "line", "message"], rows, len(problems))]


def runs_section(runs: list[dict[str, Any]]) -> list[str]:
    """Per run: id, cell, seed, verdict and the reasons behind it."""
    if not runs:
        return ["No run was scored.", ""]

    def row(run: dict[str, Any]) -> list[str]:
        reasons = run.get("reasons")
        text = "; ".join(str(r) for r in reasons) if isinstance(reasons, list) else None
        verdict = run.get("verdict")
        shown = f"**{md(verdict)}**" if verdict in ("INVALID", "MALFORMED") else md(verdict)
        return [code(run.get("run_id") or run.get("path")), md(run.get("cell")), md(run.get("seed")), shown, md(text)]

    return ["#### Runs", "", *table(["run", "cell", "seed", "verdict", "reasons"], map(row, runs), len(runs))]


def gate_section(runs: list[dict[str, Any]]) -> list[str]:
    """The validity gate: one row per gated run, one column per condition."""
    gated = [r for r in runs if _dict(r.get("gate"))]
    if not gated:
        return []
    conditions: list[str] = []
    for run in gated:
        conditions.extend(c for c in _dict(run.get("gate")) if c not in conditions)

    def row(run: dict[str, Any]) -> list[str]:
        gate = _dict(run.get("gate"))
        cells = []
        for name in conditions:
            status = _dict(gate.get(name)).get("status")
            cells.append(STATUS.get(str(status), md(status)) if status is not None else DASH)
        return [code(run.get("run_id")), md(run.get("gate_verdict") or run.get("verdict")), *cells]

    header = ["run", "gate", *(md(c) for c in conditions)]
    return ["#### Validity gate", "", *table(header, map(row, gated), len(gated))]


def _figure(value: Any) -> str | None:
    """A per-cell figure: a number, `mean (n_defined/n)`, `k/n`; None if the value is not a figure."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return md(value)
    if isinstance(value, dict):
        if "mean" in value:
            mean = md(value.get("mean"))
            if isinstance(value.get("n_defined"), int) and isinstance(value.get("n"), int):
                return f"{mean} ({value['n_defined']}/{value['n']})"
            return mean
        if isinstance(value.get("k"), int) and isinstance(value.get("n"), int):
            return f"{value['k']}/{value['n']}"
    return None


def _cell_items(cells: Any) -> list[tuple[str, dict[str, Any]]]:
    """Cells as (name, body): verify gives a list of cell results; older output a name -> table dict."""
    if isinstance(cells, dict):
        return [(str(k), _dict(v)) for k, v in cells.items()]
    return [(str(c.get("cell", DASH)), c) for c in _dicts(cells)]


def cells_section(cells: Any) -> list[str]:
    """Per-cell figures: rows are figures, columns are cells (split every CELLS_PER_TABLE cells).

    The track's headline figures (the keys of the cell's `tables`, or its top-level figures)
    come first; every other metric is listed in a collapsed block below.
    """
    items = _cell_items(cells)
    counts: dict[str, dict[str, str]] = {}
    headline: dict[str, dict[str, str]] = {}
    rest: dict[str, dict[str, str]] = {}
    for cell, body in items:
        valid = body.get("valid_runs", body.get("valid"))
        for name, value in (("runs", body.get("runs")), ("valid runs", valid)):
            if isinstance(value, int) and not isinstance(value, bool):
                counts.setdefault(name, {})[cell] = md(value)
        if _dict(body.get("verdicts")):
            counts.setdefault("verdicts", {})[cell] = verdict_counts(_dict(body.get("verdicts")))
        metrics = _dict(body.get("metrics"))
        chosen = _dict(body.get("tables")) or {k: v for k, v in body.items() if k not in ("runs", "valid")}
        for name, value in chosen.items():
            if name in ("runs", "valid", "valid_runs"):
                continue
            shown = _figure(metrics.get(name, value))
            if shown is not None:
                headline.setdefault(str(name), {})[cell] = shown
        for name, value in metrics.items():
            shown = _figure(value)
            if shown is not None and str(name) not in headline:
                rest.setdefault(str(name), {})[cell] = shown
    if not (counts or headline or rest):
        return []
    names = [cell for cell, _ in items]
    out = ["#### Per-cell figures", "",
           "Means over the cell's VALID runs; (n defined / n) counts the seeds where a figure is defined; "
           "— means undefined, never zero.", ""]
    for start in range(0, len(names), CELLS_PER_TABLE):
        chunk = names[start:start + CELLS_PER_TABLE]
        main = {**counts, **headline}
        rows = ([md(name), *(by_cell.get(c, DASH) for c in chunk)] for name, by_cell in main.items())
        out.extend(table(["figure", *(code(c) for c in chunk)], rows, len(main)))
        if rest:
            out += [f"<details><summary>All other metrics ({len(rest)})</summary>", ""]
            rows = ([md(name), *(by_cell.get(c, DASH) for c in chunk)] for name, by_cell in rest.items())
            out.extend(table(["metric", *(code(c) for c in chunk)], rows, len(rest)))
            out += ["</details>", ""]
    return out


def null_results_section(sub: Mapping[str, Any]) -> list[str]:
    """Null results first: the headline, triggered defeaters."""
    null = _dict(sub.get("null_results"))
    out = []
    if null.get("headline"):
        out.append(f"- null results: **{md(null.get('headline'))}**")
    for d in _dicts(sub.get("defeaters")):
        state = {True: "**TRIGGERED**", False: "not triggered", None: "undefined"}.get(d.get("triggered"), DASH)
        out.append(f"- defeater {code(d.get('id'))}: {state} ({md(d.get('metric'))} = {md(d.get('value'))}, "
                   f"declared {md(d.get('op'))} {md(d.get('threshold'))})")
    return [*out, ""] if out else []


def prereg_section(sub: Mapping[str, Any]) -> list[str]:
    """Pre-registration: missing and undeclared runs, digest mismatches, commit order."""
    check = _dict(sub.get("prereg_check"))
    out = []
    for m in _dicts(check.get("missing")):
        out.append(f"- declared {code(m.get('cell'))} / {code(m.get('seed'))}: {md(m.get('status') or 'missing')}")
    for u in _dicts(check.get("undeclared")):
        out.append(f"- undeclared run {code(u.get('run_id'))} ({code(u.get('cell'))} / {code(u.get('seed'))})")
    for m in _dicts(check.get("digest_mismatch")):
        out.append(f"- {code(m.get('path'))}: header names pre-registration {code(m.get('header'))}, "
                   f"prereg.yaml is {code(m.get('prereg_yaml'))}")
    order = _dict(check.get("commit_order"))
    if order.get("status") not in (None, "ok"):
        out.append(f"- commit order: {md(order.get('status'))} ({md(order.get('detail'))})")
    return ["#### Pre-registration", "", *out, ""] if out else []


def claims_section(claims: list[dict[str, Any]]) -> list[str]:
    """Claimed vs recomputed figures; a disagreement fails the check."""
    if not claims:
        return []

    def row(c: dict[str, Any]) -> list[str]:
        agrees = c.get("agrees")
        mark = "✅ agrees" if agrees is True else "❌ **disagrees**" if agrees is False else DASH
        return [code(c.get("cell")), md(c.get("metric")), md(c.get("claimed")), md(c.get("recomputed")), mark,
                md(c.get("source"))]

    header = ["cell", "metric", "claimed", "recomputed", "", "source"]
    return ["#### Claimed vs recomputed", "", *table(header, map(row, claims), len(claims))]


def mismatches_section(runs: list[dict[str, Any]]) -> list[str]:
    """Recorded labels the checker recomputed differently (reported; they do not fail the check)."""
    found = [(run, m) for run in runs for m in _dicts(run.get("mismatches"))]
    if not found:
        return []
    rows = ([code(run.get("path")), md(_line(m.get("line"))), md(m.get("field")), md(m.get("recorded")),
             md(m.get("recomputed")), md(m.get("reason"))] for run, m in found)
    header = ["file", "line", "field", "recorded", "recomputed", "reason"]
    return ["#### Label mismatches (reported, not failing)", "",
            "The log recorded these labels; the checker recomputed them from the log and uses its own value.", "",
            *table(header, rows, len(found))]


def submission_section(sub: Mapping[str, Any]) -> list[str]:
    """Everything about one submission."""
    runs = _dicts(sub.get("runs"))
    counts: dict[str, int] = {}
    for run in runs:
        counts[str(run.get("verdict"))] = counts.get(str(run.get("verdict")), 0) + 1
    title = code(sub.get("path") or sub.get("submission_id"))
    out = [f"### {title}", "", f"- profile: {md(sub.get('profile'))}; {len(runs)} run(s): {verdict_counts(counts)}"]
    out += null_results_section(sub) or [""]
    out += runs_section(runs)
    out += gate_section(runs)
    out += cells_section(sub.get("cells"))
    out += prereg_section(sub)
    out += claims_section(_dicts(sub.get("claims")))
    out += mismatches_section(runs)
    return out


def headline(result: Outcome, what: str) -> list[str]:
    """The one-line verdict of the check, then what made it fail."""
    if not result.failed:
        head = f"**✅ Passed.** {what}: {result.submissions} submission(s), {verdict_counts(result.verdicts)}."
        note = "INVALID and INCOMPLETE runs are results: they are published with their reasons, not failures."
        if result.verdicts.get("INVALID") or result.verdicts.get("INCOMPLETE"):
            return [head, "", f"> {note}", ""]
        return [head, ""]
    parts = []
    if result.problems:
        parts.append(f"{len(result.problems)} problem(s)")
    if result.claims:
        parts.append(f"{len(result.claims)} claimed figure(s) disagreeing with the recomputed value")
    if result.unreadable:
        parts.append("unreadable input")
    return [f"**❌ Failed:** {', '.join(parts)}. {what}: {result.submissions} submission(s), "
            f"{verdict_counts(result.verdicts)}.", ""]


def render_summary(doc: Mapping[str, Any], heading: str = "Driftboard verification",
                   preamble: Sequence[str] = ()) -> str:
    """The whole Markdown summary of a verify document (bounded to MAX_SUMMARY_BYTES)."""
    result = outcome(doc)
    lines = [f"## {heading}", "", *headline(result, "Verified"), *preamble]
    lines += problems_section(result.problems, "Problems that fail the check")
    warnings = [p for p in _dicts(doc.get("problems")) if not is_failing_problem(p)]
    lines += problems_section(warnings, "Notes (not failing)")
    for sub in _dicts(doc.get("submissions")):
        lines += submission_section(sub)
    text = "\n".join(lines).rstrip("\n") + "\n"
    return truncate(text)


def truncate(text: str) -> str:
    """Cut a summary at a line boundary below MAX_SUMMARY_BYTES, saying so."""
    if len(text.encode()) <= MAX_SUMMARY_BYTES:
        return text
    cut = text.encode()[:MAX_SUMMARY_BYTES].decode(errors="ignore")
    cut = cut[: cut.rfind("\n") + 1]
    return cut + "\n> Summary cut at the 1 MiB job-summary limit; run `driftboard verify --format json` for all.\n"


# --------------------------------------------------------------------------- annotations


def annotation_lines(doc: Mapping[str, Any], extra_problems: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """GitHub annotations for a verify document, at most MAX_ANNOTATIONS of each kind.

    Errors on failing problems and disagreeing claims, warnings on label mismatches, notices on
    the log lines behind failed gate conditions.
    """
    errors: list[str] = []
    warnings: list[str] = []
    notices: list[str] = []
    seen: set[tuple[Any, ...]] = set()
    for p in [*extra_problems, *_dicts(doc.get("problems"))]:
        key = (p.get("path"), p.get("line"), p.get("message"))
        if key in seen:
            continue
        seen.add(key)
        bucket = errors if is_failing_problem(p) else warnings
        path = str(p.get("path") or "")
        file = path if path and not path.startswith("(") else None  # "(checker)", "(run files)": no file
        bucket.append(workflow_command("error" if bucket is errors else "warning", str(p.get("message", "")),
                                       file, _line(p.get("line"))))
    for sub in _dicts(doc.get("submissions")):
        path = str(sub.get("path") or "")
        manifest = f"{path}/submission.yaml" if path and not path.startswith("(") else None
        said = {str(p.get("message", "")) for p in _dicts(doc.get("problems")) if p.get("path") == path}
        for c in disagreeing_claims(sub):
            if any(m.startswith(f"claim {c.get('cell')}/{c.get('metric')}:") for m in said):
                continue  # verify already reported this claim as a problem (annotated above)
            msg = (f"claimed {fmt_value(c.get('metric'))} = {fmt_value(c.get('claimed'))} for cell "
                   f"{fmt_value(c.get('cell'))}, recomputed {fmt_value(c.get('recomputed'))}")
            errors.append(workflow_command("error", msg, manifest, title="Claimed figure disagrees"))
        for run in _dicts(sub.get("runs")):
            file = str(run.get("path") or "") or None
            for m in _dicts(run.get("mismatches")):
                msg = (f"{fmt_value(m.get('field'))}: recorded {fmt_value(m.get('recorded'))}, recomputed "
                       f"{fmt_value(m.get('recomputed'))}" + (f" ({m['reason']})" if m.get("reason") else ""))
                warnings.append(workflow_command("warning", msg, file, _line(m.get("line")), "Label mismatch"))
            for name, cond in _dict(run.get("gate")).items():
                cond = _dict(cond)
                if cond.get("status") != "FAIL":
                    continue
                lines = cond.get("lines") if isinstance(cond.get("lines"), list) else []
                first = _line(lines[0]) if lines else None
                msg = f"gate condition {name} failed: run {fmt_value(run.get('run_id'))} is INVALID (a result)"
                notices.append(workflow_command("notice", msg, file, first, "Validity gate"))
    return errors[:MAX_ANNOTATIONS] + warnings[:MAX_ANNOTATIONS] + notices[:MAX_ANNOTATIONS]


# --------------------------------------------------------------------------- command


def load_document(path: Path) -> dict[str, Any]:
    """Read a verify JSON document.

    Raises:
        UsageError: the file cannot be read or is not a JSON object.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{path}: not JSON ({exc}); expected `driftboard verify --format json` output") from None
    if not isinstance(doc, dict):
        raise UsageError(f"{path}: expected a JSON object from `driftboard verify --format json`")
    return doc


def ci_summary_command(verify_json: Path, annotations: bool) -> int:
    """`driftboard ci-summary`: Markdown on stdout, annotations on stderr; 1 if the check fails.

    Annotations go to stderr so that `driftboard ci-summary v.json >> "$GITHUB_STEP_SUMMARY"`
    keeps them out of the summary; the Actions runner reads workflow commands from both streams.
    """
    doc = load_document(verify_json)
    click.echo(render_summary(doc), nl=False)
    if annotations:
        for line in annotation_lines(doc):
            click.echo(line, err=True)
    return 1 if outcome(doc).failed else 0
