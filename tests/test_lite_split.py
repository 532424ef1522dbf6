"""The lite split is the documented procedure's output, byte for byte, and covers every stratum equally."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from checker.constraint.problems import load_problem_sets
from checker.harness.splits import SOURCE, TARGET, write_lite


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_regenerates_byte_identically(tmp_path: Path) -> None:
    write_lite(SOURCE, tmp_path / "lite")
    shipped = {k: v for k, v in _tree(TARGET).items() if k != "README.md"}
    assert _tree(tmp_path / "lite") == shipped


def test_six_per_domain_and_depth() -> None:
    strata = Counter()
    for path in (TARGET / "test").glob("*.json"):
        problem = json.loads(path.read_text(encoding="utf-8"))
        strata[(problem["domain"], len(problem["turns"]))] += 1
    # 3 domains x depths 4..10, 6 each (written out from the procedure, not read from the code)
    assert strata == Counter({(d, n): 6 for d in ("logic_grid", "scheduling", "seating") for n in range(4, 11)})


def test_readme_states_the_digest_the_checker_computes() -> None:
    readme = (TARGET / "README.md").read_text(encoding="utf-8")
    stated = re.search(r"\| digest \| `([0-9a-f]{64})` \|", readme)
    assert stated is not None
    [(digest, pset)] = load_problem_sets([TARGET]).items()
    assert (digest, len(pset.problems), pset.n_turns) == (stated.group(1), 126, 882)
