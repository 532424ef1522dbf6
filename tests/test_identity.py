"""Integrity principle 3: every name a reader sees is unique after normalisation and after the page slug.

Rules (`checker.format.names`) tested on names directly, with expectations from Unicode's own
tables and by hand, then forged submissions built from the shipped ones: the finding text, the
exit code, and the figure or page that must not move.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from checker.format.identity import edit_distance, identity_key, skeleton, slug, slug_key
from checker.format.logio import RunLogWriter
from checker.format.names import Name, Work, identity_findings
from checker.format.schema.manifest import Submission
from checker.render.writer import SiteBuildError, Writer
from checker.stages.validate import validate_paths

REPO = Path(__file__).resolve().parents[1]
BASELINES = REPO / "submissions" / "driftboard-constraint-baselines"
LITE = REPO / "submissions" / "driftboard-reference-lite"


# --------------------------------------------------------------------------- the keys


def test_skeleton_follows_unicode_confusables() -> None:
    # confusables.txt 13.0.0: 0030 ; 004F (0 -> O), 0031 ; 006C (1 -> l), 006D ; 0072 006E (m -> rn),
    # 0430 ; 0061 (Cyrillic a -> Latin a), 0399 ; 006C (Greek capital iota -> l)
    assert skeleton("0") == "O"
    assert skeleton("1") == "l"
    assert skeleton("m") == "rn"
    assert skeleton("p\u0430yp\u0430l") == "paypal"
    assert skeleton("\u0399") == "l"


@pytest.mark.parametrize(("a", "b"), [
    ("FULL", "full"),                       # case folding
    ("seed1", "seedl"),                     # 1 and l are confusable
    ("J0", "JO"),                           # 0 and O
    ("arm", "arrn"),                        # m and rn
    ("\ufb01le", "file"),                   # NFKC: the fi ligature
    ("gpt-4o", "gpt-4\u043e"),              # Cyrillic o
    ("Stra\u00dfe", "STRASSE"),             # full case folding
])
def test_one_identity_key(a: str, b: str) -> None:
    assert identity_key(a) == identity_key(b)


@pytest.mark.parametrize(("a", "b"), [("FULL", "J0"), ("seed1", "seed2"), ("a-b", "a_b")])
def test_different_identity_keys(a: str, b: str) -> None:
    assert identity_key(a) != identity_key(b)


def test_the_named_attack_shares_a_slug() -> None:
    # sha256("scripted/oracle")[:6] == "eeae22": the cleaned-and-hashed slug equals a safe name
    assert hashlib.sha256(b"scripted/oracle").hexdigest()[:6] == "eeae22"
    assert slug("scripted/oracle") == "scripted-oracle-eeae22" == slug("scripted-oracle-eeae22")
    assert slug_key("A0") == slug_key("a0")


def _levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def test_banded_edit_distance_matches_the_full_table() -> None:
    rng = random.Random(29)
    for _ in range(2000):
        a = "".join(rng.choice("abc") for _ in range(rng.randint(0, 9)))
        b = "".join(rng.choice("abc") for _ in range(rng.randint(0, 9)))
        full = _levenshtein(a, b)
        for bound in (1, 2, 3):
            assert edit_distance(a, b, bound) == min(full, bound + 1), (a, b, bound)


# --------------------------------------------------------------------------- the rules on names


def _messages(names: list[Name], works: list[Work] = ()) -> list[str]:  # type: ignore[assignment]
    return [f.render() for f in identity_findings(names, works)]


def test_cells_sharing_a_page_are_refused_each() -> None:
    found = _messages([Name("cell", "scripted/oracle", "s/prereg.yaml", None, "s"),
                       Name("cell", "scripted-oracle-eeae22", "s/prereg.yaml", None, "s")])
    assert len(found) == 2
    assert all("has the same page as" in m and "page slug 'scripted-oracle-eeae22'" in m for m in found)


def test_cells_of_two_submissions_do_not_collide() -> None:
    assert _messages([Name("cell", "FULL", "a/prereg.yaml", None, "a"), Name("cell", "full", "b/prereg.yaml", None, "b")]) == []


def test_run_ids_one_name_after_normalisation() -> None:
    found = _messages([Name("run id", "lab-seed1", "a/runs/x.jsonl", 1), Name("run id", "lab-seedl", "b/runs/y.jsonl", 1)])
    assert len(found) == 2
    assert "run id 'lab-seed1' is the same name as 'lab-seedl' (b/runs/y.jsonl:1) after Unicode normalisation" in found[0]


def test_equal_names_are_left_to_their_own_checks() -> None:
    # the same run id twice is `duplicate run id` (validate) / "also reported in" (verify)
    assert _messages([Name("run id", "r1", "a.jsonl", 1), Name("run id", "r1", "b.jsonl", 1)]) == []


def test_near_duplicate_submission_ids() -> None:
    ids = ["driftboard-reference-lite", "driftboard-referecne-lite", "mylab-agent", "mylab-agnt", "ab", "ac", "zz"]
    found = _messages([Name("submission id", i, f"{i}/submission.yaml") for i in ids])
    # transposition = 2 edits (long ids: bound 2); "mylab-agnt" 1 edit; "ab"/"ac" 1 edit (short: bound 1)
    assert sum("is 2 edit(s) from submission id 'driftboard-reference-lite'" in m for m in found) == 1
    assert sum("is 1 edit(s) from submission id 'mylab-agent'" in m for m in found) == 1
    assert sum("'ab' is 1 edit(s) from submission id 'ac'" in m for m in found) == 1
    assert len(found) == 6  # three pairs, each side flagged; "zz" is 2 edits from "ab" (short: not near)


def test_short_ids_two_edits_apart_are_not_near() -> None:
    assert _messages([Name("submission id", "lab-a1", "x"), Name("submission id", "lab-b2", "y")]) == []


def test_reserved_cell_and_run_names() -> None:
    found = _messages([Name("cell", "INDEX", "s/prereg.yaml", None, "s")])
    assert found == ["s/prereg.yaml: cell 'INDEX' is reserved: its page would be the 'index' page the build writes "
                     "beside it; choose another name"]


def test_boards_is_a_reserved_submission_id() -> None:
    data = yaml.safe_load((LITE / "submission.yaml").read_text(encoding="utf-8"))
    with pytest.raises(ValidationError, match="'boards' is reserved"):
        Submission.model_validate({**data, "id": "boards"})


def test_same_title_or_same_authors_and_citation() -> None:
    works = [Work("a", "a/submission.yaml", "My  agent", ("Ada",), "Ada (2026)."),
             Work("b", "b/submission.yaml", "MY AGENT", ("Bo",), None),
             Work("c", "c/submission.yaml", "Other", ("Ada",), "Ada  (2026)."),
             Work("d", "d/submission.yaml", "Fourth", ("Ada",), None)]
    found = _messages([], works)
    assert sum("the title of submission" in m for m in found) == 2
    assert sum("the authors and citation of submission" in m for m in found) == 2
    assert not any(m.startswith("d/") for m in found)  # same authors, no citation: a lab's second system


def test_writer_refuses_a_second_page_at_one_path(tmp_path: Path) -> None:
    w = Writer(tmp_path)
    w.text("results/s/scripted-oracle-eeae22.md", "first")
    with pytest.raises(SiteBuildError, match="two pages at one path"):
        w.text("results/s/Scripted-Oracle-EEAE22.md", "second")
    assert (tmp_path / "results/s/scripted-oracle-eeae22.md").read_text(encoding="utf-8") == "first"


# --------------------------------------------------------------------------- forged submissions


def _rewrite(src: Path, dst: Path, **start: object) -> None:
    """Rewrite a run log with `start` fields changed in its header (re-chained, as a forger would)."""
    lines = [json.loads(x) for x in src.read_text(encoding="utf-8").splitlines()]
    head = {k: v for k, v in lines[0].items() if k not in ("seq", "prev", "type", "format_version")} | start
    dst.unlink(missing_ok=True)
    with RunLogWriter(dst, head) as log:
        for event in lines[1:]:
            log.write({k: v for k, v in event.items() if k not in ("seq", "prev")})


def _forge(src: Path, root: Path, sid: str, edit_prereg, edit_manifest=lambda m: m) -> Path:
    folder = root / sid
    shutil.copytree(src, folder)
    prereg = edit_prereg(yaml.safe_load((folder / "prereg.yaml").read_text(encoding="utf-8")) | {"submission_id": sid})
    raw = yaml.safe_dump(prereg, sort_keys=True).encode()
    (folder / "prereg.yaml").write_bytes(raw)
    manifest = edit_manifest(yaml.safe_load((folder / "submission.yaml").read_text(encoding="utf-8")) | {"id": sid})
    (folder / "submission.yaml").write_text(yaml.safe_dump(manifest, sort_keys=True), encoding="utf-8")
    for log in sorted((folder / "runs").glob("*.jsonl")):
        old = json.loads(log.read_text(encoding="utf-8").splitlines()[0])
        _rewrite(log, log, submission_id=sid, prereg_sha256=hashlib.sha256(raw).hexdigest(),
                 run_id=old["run_id"].replace(src.name, sid) if src.name in old["run_id"] else f"{sid}-{old['run_id']}")
    return folder


def _figure(results: Path, sid: str, cell: str) -> object:
    data = json.loads((results / f"{sid}.json").read_text(encoding="utf-8"))
    (c,) = [c for c in data["cells"] if c["cell"] == cell]
    return c["all_declared"]


@pytest.mark.slow
def test_forged_cell_sharing_the_oracle_page(tmp_path: Path, run_line, shipped_results: Path) -> None:
    def add_cell(p: dict) -> dict:
        p["cells"]["scripted-oracle-eeae22"] = json.loads(json.dumps(p["cells"]["scripted/oracle"]))
        return p

    _forge(BASELINES, tmp_path / "subs", "forged-baselines", add_cell)
    report = validate_paths([tmp_path / "subs"])
    page = [f.render() for f in report.findings if "has the same page as" in f.message]
    assert len(page) == 2 and report.exit_code == 1
    assert "cell of submission 'forged-baselines' 'scripted-oracle-eeae22' has the same page as 'scripted/oracle'" in page[0]
    out = tmp_path / "results"
    result = run_line(["verify", str(tmp_path / "subs"), "--out", str(out)])
    assert result.exit_code == 1
    assert "page slug 'scripted-oracle-eeae22'" in result.output
    # the figure that must not move: the oracle cell's ranked (all-declared) figure, as shipped
    assert _figure(out, "forged-baselines", "scripted/oracle") == _figure(
        shipped_results, "driftboard-constraint-baselines", "scripted/oracle")
    # the page that must not move: the build refuses, so no page replaces the oracle's
    built = run_line(["build", "--no-verify", "--submissions", str(tmp_path / "subs"), "--results", str(out),
                      "--out", str(tmp_path / "site")])
    assert built.exit_code == 1
    assert "names collide, the site is not built" in built.output
    assert not (tmp_path / "site" / "index.html").exists()


@pytest.mark.slow
def test_forged_near_copy_of_the_lite_reference(tmp_path: Path, run_line) -> None:
    subs = tmp_path / "subs"
    subs.mkdir()
    shutil.copytree(LITE, subs / LITE.name)
    _forge(LITE, subs, "driftboard-referense-lite", lambda p: p)
    report = validate_paths([subs])
    text = [f.render() for f in report.findings]
    assert report.exit_code == 1
    assert any("submission id 'driftboard-referense-lite' is 1 edit(s) from submission id 'driftboard-reference-lite'"
               in m for m in text)
    assert sum("the title of submission" in m for m in text) == 2


def test_numbered_ids_are_not_near_duplicates() -> None:
    ids = ["synthetic-0001", "synthetic-0002", "lab-agent-v1", "lab-agent-v2", "lab-agent-v10"]
    found = _messages([Name("submission id", i, i) for i in ids])
    # only v1/v10 and v2/v10 (an inserted digit is not a number read in place): each side flagged
    assert len(found) == 4 and all("lab-agent-v10" in m for m in found)
