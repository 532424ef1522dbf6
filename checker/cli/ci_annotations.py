"""GitHub annotations for a verify document: workflow commands the Actions runner shows on the files.

Errors on failing problems and disagreeing claims, warnings on label mismatches, notices on the log
lines behind failed gate conditions, at most `MAX_ANNOTATIONS` of each. Every part of a command
is escaped (`escape_data`, `escape_property`): submitted text cannot end a command or start another.
"""

from __future__ import annotations

from checker.cli.ci_summary import disagreeing_claims, fmt_value, is_failing_problem
from checker.format.errors import visible
from checker.format.results_model import RunResult
from checker.format.verify_document import SubmissionReport, VerifyDocument

MAX_ANNOTATIONS = 10
"""Per kind (error, warning, notice): GitHub shows at most 10 of each per step."""


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



def _problem_annotations(doc: VerifyDocument, errors: list[str], warnings: list[str]) -> None:
    """An error per failing problem, a warning per other one (each problem once)."""
    seen: set[tuple[str, int | None, str]] = set()
    for p in doc.problems:
        key = (p.path, p.line, p.message)
        if key in seen:
            continue
        seen.add(key)
        failing = is_failing_problem(p)
        file = p.path if p.path and not p.path.startswith("(") else None  # "(checker)", "(run files)": no file
        (errors if failing else warnings).append(
            workflow_command("error" if failing else "warning", p.message, file, _line(p.line)))


def _claim_annotations(doc: VerifyDocument, sub: SubmissionReport) -> list[str]:
    """An error per disagreeing claim that verify did not already report as a problem."""
    manifest = f"{sub.path}/submission.yaml" if sub.path and not sub.path.startswith("(") else None
    said = {p.message for p in doc.problems if p.path == sub.path}
    out = []
    for c in disagreeing_claims(sub):
        if any(m.startswith(f"claim {c.cell}/{c.metric}:") for m in said):
            continue  # verify already reported this claim as a problem (annotated above)
        msg = (f"claimed {fmt_value(c.metric)} = {fmt_value(c.claimed)} for cell "
               f"{fmt_value(c.cell)}, recomputed {fmt_value(c.recomputed)}")
        out.append(workflow_command("error", msg, manifest, title="Claimed figure disagrees"))
    return out


def _mismatch_annotations(run: RunResult) -> list[str]:
    """A warning per recorded label the checker recomputed differently."""
    return [workflow_command("warning", f"{fmt_value(m.field)}: recorded {fmt_value(m.recorded)}, recomputed "
                                        f"{fmt_value(m.recomputed)}" + (f" ({m.reason})" if m.reason else ""),
                             run.path or None, _line(m.line), "Label mismatch") for m in run.mismatches]


def _gate_annotations(run: RunResult) -> list[str]:
    """A notice per failed gate condition, on the first log line behind it."""
    out = []
    for name, cond in run.gate.items() if run.gate is not None else ():
        if cond.status == "FAIL":
            lines = getattr(cond, "lines", None) or []
            msg = f"gate condition {name} failed: run {fmt_value(run.run_id)} is INVALID (a result)"
            out.append(workflow_command("notice", msg, run.path or None, _line(lines[0]) if lines else None,
                                        "Validity gate"))
    return out


def annotation_lines(doc: VerifyDocument) -> list[str]:
    """GitHub annotations for a verify document, at most MAX_ANNOTATIONS of each kind.

    Errors on failing problems and disagreeing claims, warnings on label mismatches, notices on
    the log lines behind failed gate conditions.
    """
    errors: list[str] = []
    warnings: list[str] = []
    notices: list[str] = []
    _problem_annotations(doc, errors, warnings)
    for sub in doc.submissions:
        errors += _claim_annotations(doc, sub)
        for run in sub.runs:
            warnings += _mismatch_annotations(run)
            notices += _gate_annotations(run)
    return errors[:MAX_ANNOTATIONS] + warnings[:MAX_ANNOTATIONS] + notices[:MAX_ANNOTATIONS]


def _line(value: int | None) -> int | None:
    return value if value is not None and value > 0 else None
