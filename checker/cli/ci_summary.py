"""Render `driftboard verify --format json` as a Markdown job summary (annotations: `checker.cli.ci_annotations`).

Everything in a verify document is untrusted: run ids, cell names, messages and reasons come
from submitted files. Every such string goes through `md()` (Markdown table cells) or
`escape_data()` / `escape_property()` (workflow commands), so a submission can neither break a
table nor start a line of output with `::` (which the Actions runner would obey as a command).
Every line that carries submitted text starts with a character this module chose (`#`, `|`,
`-` or `::` followed by a command it wrote).

The document is read into the typed records the checker writes (`checker.format.verify_document.VerifyDocument`):
a document of another shape is refused (exit 2) with the first field that does not fit. Unknown
top-level keys are ignored. Every number goes through the one formatter (`checker.format.numbers.fmt`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from checker.format.errors import UsageError, visible
from checker.format.gate_results import STATUS_LABELS, GateConditions
from checker.format.numbers import DASH, fmt
from checker.format.results_model import (
    CellResult,
    ClaimCheck,
    FindingRecord,
    MetricAggregate,
    RunResult,
)
from checker.format.verify_document import SubmissionReport, VerifyDocument
from checker.pipeline.metrics import HEADLINE, RANK_BY, header, show
from checker.stages.boards import ranking_line
from checker.stages.validate import INCOMPLETE_MESSAGE

MAX_ROWS = 100
"""Rows shown per table; the rest are counted."""
MAX_CELL_CHARS = 300
"""Longest table cell; longer text is cut with an ellipsis."""
MAX_SUMMARY_BYTES = 900_000
"""GitHub refuses job summaries over 1 MiB; the Markdown is cut (with a note) before that."""
CELLS_PER_TABLE = 8
"""Per-cell figures: columns (cells) per table before the table is split."""
STATUS = {"PASS": "✅ PASS", "FAIL": "❌ FAIL", "NOT_APPLICABLE": STATUS_LABELS["NOT_APPLICABLE"]}
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


def fmt_value(value: Any) -> str:
    """A value as shown in the summary: the one formatter (`checker.format.numbers.fmt`; None → "—")."""
    if isinstance(value, dict | list):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return fmt(value)


# --------------------------------------------------------------------------- reading the document


def is_failing_problem(problem: FindingRecord) -> bool:
    """A problem fails the check unless it is a warning or merely says a run is INCOMPLETE."""
    return problem.severity != "warning" and problem.message != INCOMPLETE_MESSAGE


def disagreeing_claims(sub: SubmissionReport) -> list[ClaimCheck]:
    """Claimed figures of a submission whose recomputed value disagrees."""
    return [c for c in sub.claims or [] if not c.agrees]


@dataclass
class Outcome:
    """What a verify document means for the check."""

    problems: list[FindingRecord] = field(default_factory=list)
    """Failing format / chain / manifest problems."""
    claims: list[tuple[str, ClaimCheck]] = field(default_factory=list)
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


def outcome(doc: VerifyDocument) -> Outcome:
    """Classify a verify (or validate) document: failing problems, disagreeing claims, verdict counts."""
    out = Outcome(problems=[p for p in doc.problems if is_failing_problem(p)])
    out.unreadable = doc.exit_code == 2
    for sub in doc.submissions:
        out.submissions += 1
        out.claims.extend((sub.path, c) for c in disagreeing_claims(sub))
        for run in sub.runs:
            out.runs += 1
            out.verdicts[run.verdict] = out.verdicts.get(run.verdict, 0) + 1
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


def problems_section(problems: list[FindingRecord], heading: str) -> list[str]:
    """The failing problems as a `file | line | message` table."""
    if not problems:
        return []
    rows = ([code(p.path), md(p.line), md(p.message)] for p in problems)
    return [f"### {heading} ({len(problems)})", "", *table(["file", "line", "message"], rows, len(problems))]


def runs_section(runs: list[RunResult]) -> list[str]:
    """Per run: id, cell, seed, verdict and the reasons behind it."""
    if not runs:
        return ["No run was scored.", ""]

    def row(run: RunResult) -> list[str]:
        shown = f"**{md(run.verdict)}**" if run.verdict in ("INVALID", "MALFORMED") else md(run.verdict)
        return [code(run.run_id or run.path), md(run.cell), md(run.seed), shown, md("; ".join(run.reasons) or None)]

    return ["#### Runs", "", *table(["run", "cell", "seed", "verdict", "reasons"], map(row, runs), len(runs))]


def gate_section(runs: list[RunResult]) -> list[str]:
    """The validity gate: one row per gated run, one column per condition (its status and note)."""
    gated = [r for r in runs if r.gate is not None]
    if not gated:
        return []
    conditions = list(GateConditions.model_fields)

    def row(run: RunResult) -> list[str]:
        cells = [f"{STATUS[c.status]} ({md(c.note)})" for _name, c in run.gate.items()] if run.gate else []
        return [code(run.run_id), md(run.gate_verdict or run.verdict), *cells]

    header = ["run", "gate", *(md(c) for c in conditions)]
    return ["#### Validity gate", "", *table(header, map(row, gated), len(gated))]


def _figure(name: str, agg: MetricAggregate) -> str:
    """A per-cell figure: `mean (n_defined/n)`, at the metric's declared precision."""
    return f"{md(show(name, agg.mean))} ({agg.n_defined}/{agg.n})"


Figures = dict[str, dict[str, str]]
"""Figure (a row of the per-cell table) -> cell -> the shown value."""


def _counts(cells: list[CellResult], rank: str | None) -> Figures:
    """Runs, valid runs, verdicts, valid of declared and the ranked all-declared figure, per cell."""
    counts: Figures = {"runs": {}, "valid runs": {}, "verdicts": {}}
    ranked = f"{header(rank)} all declared" if rank else ""
    for c in cells:
        counts["runs"][c.cell] = md(c.runs)
        counts["valid runs"][c.cell] = md(c.valid_runs)
        counts["verdicts"][c.cell] = verdict_counts(c.verdicts)
        if c.declared:
            counts.setdefault("valid of declared", {})[c.cell] = f"{c.valid_runs} of {c.n_declared}"
        a = c.all_declared.get(rank) if rank else None
        if rank and a is not None:
            counts.setdefault(ranked, {})[c.cell] = f"{md(show(rank, a.value))} ({a.n_worst} worst)"
    return counts


def _metrics(cells: list[CellResult], first: Sequence[str]) -> tuple[Figures, Figures]:
    """(the track's headline metrics, every other metric), per cell."""
    headline: Figures = {header(n): {} for n in first}
    rest: Figures = {}
    for c in cells:
        for name, agg in c.metrics.items():
            (headline if name in first else rest).setdefault(header(name), {})[c.cell] = _figure(name, agg)
    return headline, rest


def _figures_table(label: str, figures: Figures, chunk: list[str]) -> list[str]:
    rows = ([md(name), *(by_cell.get(c, DASH) for c in chunk)] for name, by_cell in figures.items())
    return table([label, *(code(c) for c in chunk)], rows, len(figures))


def cells_section(cells: list[CellResult], track: str | None) -> list[str]:
    """Per-cell figures: rows are figures, columns are cells (split every CELLS_PER_TABLE cells).

    The track's headline metrics (from the metric registry, with their direction arrows) come
    first; every other metric is listed in a collapsed block below.
    """
    if not cells:
        return []
    headline, rest = _metrics(cells, HEADLINE.get(track or "", ()))
    main = {**_counts(cells, RANK_BY.get(track or "")), **headline}
    names = [c.cell for c in cells]
    out = ["#### Per-cell figures", "",
           "Means over the cell's VALID runs; (n defined / n) counts the seeds where a figure is defined; "
           "— means undefined, never zero; ↑ higher is better, ↓ lower is better. \"All declared\" counts every "
           "declared run, a missing, incomplete or invalid one as the worst value (the ranked figure).", ""]
    for start in range(0, len(names), CELLS_PER_TABLE):
        chunk = names[start:start + CELLS_PER_TABLE]
        out += _figures_table("figure", main, chunk)
        if rest:
            out += [f"<details><summary>All other metrics ({len(rest)})</summary>", "",
                    *_figures_table("metric", rest, chunk), "</details>", ""]
    return out


def null_results_section(sub: SubmissionReport) -> list[str]:
    """Null results first: the headline, triggered defeaters."""
    out = []
    if sub.null_results is not None:
        out.append(f"- null results: **{md(sub.null_results.headline)}**")
    for d in sub.defeaters or []:
        state = {True: "**TRIGGERED**", False: "not triggered", None: "undefined"}[d.triggered]
        out.append(f"- defeater {code(d.id)}: {state} ({md(d.metric)} = {md(show(d.metric, d.value))}, "
                   f"declared {md(d.op)} {md(d.threshold)})")
    return [*out, ""] if out else []


def prereg_section(sub: SubmissionReport) -> list[str]:
    """Pre-registration: missing and undeclared runs, digest mismatches, commit order."""
    check = sub.prereg_check
    if check is None:
        return []
    out = []
    for m in check.missing:
        out.append(f"- declared {code(m.get('cell'))} / {code(m.get('seed'))}: {md(m.get('status') or 'missing')}")
    for u in check.undeclared:
        out.append(f"- undeclared run {code(u.get('run_id'))} ({code(u.get('cell'))} / {code(u.get('seed'))})")
    for m in check.digest_mismatch:
        out.append(f"- {code(m.get('path'))}: header names pre-registration {code(m.get('header'))}, "
                   f"prereg.yaml is {code(m.get('prereg_yaml'))}")
    order = check.commit_order
    if order.get("status") not in (None, "ok"):
        out.append(f"- commit order: {md(order.get('status'))} ({md(order.get('detail'))})")
    return ["#### Pre-registration", "", *out, ""] if out else []


def claims_section(claims: list[ClaimCheck]) -> list[str]:
    """Claimed vs recomputed figures; a disagreement fails the check."""
    if not claims:
        return []

    def row(c: ClaimCheck) -> list[str]:
        mark = "✅ agrees" if c.agrees else "❌ **disagrees**"
        return [code(c.cell), md(c.metric), md(c.claimed), md(c.recomputed), mark, md(c.source)]

    header_ = ["cell", "metric", "claimed", "recomputed", "", "source"]
    return ["#### Claimed vs recomputed", "", *table(header_, map(row, claims), len(claims))]


def mismatches_section(runs: list[RunResult]) -> list[str]:
    """Recorded labels the checker recomputed differently (it uses its own value)."""
    found = [(run, m) for run in runs for m in run.mismatches]
    if not found:
        return []
    rows = ([code(run.path), md(m.line), md(m.field), md(fmt_value(m.recorded)), md(fmt_value(m.recomputed)),
             md(m.reason)] for run, m in found)
    header_ = ["file", "line", "field", "recorded", "recomputed", "reason"]
    return ["#### Label mismatches", "",
            "The log recorded these labels; the checker recomputed them from the log and uses its own value. Under "
            "the `driftboard` profile a label that contradicts the log's own rows also fails the run (gate "
            "condition `evidence`).", "",
            *table(header_, rows, len(found))]


def ranking_section(cells: list[CellResult]) -> list[str]:
    """Per cell, "ranked on board K" or "not ranked: reason" (`checker.stages.boards`): learnt before merging."""
    if not cells:
        return []
    return ["#### Ranking", "", *(f"- {code(c.cell)}: {md(ranking_line(c.ranking))}" for c in cells), ""]


def submission_section(sub: SubmissionReport) -> list[str]:
    """Everything about one submission."""
    counts: dict[str, int] = {}
    for run in sub.runs:
        counts[run.verdict] = counts.get(run.verdict, 0) + 1
    title = code(sub.path or sub.submission_id)
    out = [f"### {title}", "", f"- profile: {md(sub.profile)}; {len(sub.runs)} run(s): {verdict_counts(counts)}"]
    out += null_results_section(sub) or [""]
    out += runs_section(sub.runs)
    out += gate_section(sub.runs)
    out += cells_section(sub.cells or [], sub.track)
    out += ranking_section(sub.cells or [])
    out += prereg_section(sub)
    out += claims_section(sub.claims or [])
    out += mismatches_section(sub.runs)
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


def render_summary(doc: VerifyDocument, heading: str = "Driftboard verification",
                   preamble: Sequence[str] = ()) -> str:
    """The whole Markdown summary of a verify document (bounded to MAX_SUMMARY_BYTES)."""
    result = outcome(doc)
    lines = [f"## {heading}", "", *headline(result, "Verified"), *preamble]
    lines += problems_section(result.problems, "Problems that fail the check")
    warnings = [p for p in doc.problems if not is_failing_problem(p)]
    lines += problems_section(warnings, "Notes (not failing)")
    for sub in doc.submissions:
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


def load_document(path: Path) -> VerifyDocument:
    """Read a verify JSON document.

    Raises:
        UsageError: the file cannot be read, is not JSON, or is not a verify document.
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
    return parse_document(doc, str(path))


def parse_document(doc: Mapping[str, object], where: str) -> VerifyDocument:
    """A verify document as typed records.

    Raises:
        UsageError: the document does not have the shape `driftboard verify --format json` writes.
    """
    try:
        return VerifyDocument.model_validate(doc)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = "/".join(str(x) for x in first["loc"])
        raise UsageError(f"{where}: not a `driftboard verify --format json` document: {loc}: {first['msg']} "
                         f"({exc.error_count()} problem(s)); re-run verify with this checker version") from None
