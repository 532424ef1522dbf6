"""A constraint run as a drift story: one card per turn, and the run's accuracy by depth.

Each card shows what the user added (the log's user message, which the scorer checked equals the
problem set's), the answer as the checker read it (`TurnResult.answer`) as a grid, with the slots
that changed since the previous turn of the same problem marked, a verdict chip from the recomputed
channel, and the commitments at issue (`TurnResult.broken`: for drift the ledger constraints the
answer breaks, each with the turn that stated it, linked; for a contradiction the ledger's MUS). The
card of a turn that stated a commitment broken later says so and links the turns that broke it.
Everything shown is the checker's, read from the results file; the raw response is an excerpt, folded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from checker.format.results_model import RunResult, TurnResult
from checker.render.text import md_escape, slug


class Link(TypedDict):
    """A link to another turn's card (`href` resolved against the page it sits on)."""

    text: str
    href: str


class Broken(TypedDict):
    """One commitment at issue in a turn."""

    id: str
    constraint: str
    text: str | None
    stated_turn: int | None
    stated: Link | None


class BrokenLater(TypedDict):
    """A commitment this turn stated that a later answer breaks."""

    id: str
    text: str | None
    turns: list[Link]


class Cell(TypedDict):
    """One slot of the answer grid, with its value at the previous turn when it changed."""

    value: object
    changed: bool
    was: object


class Card(TypedDict):
    """One turn of a constraint run, as its card shows it."""

    anchor: str
    line: int
    problem: str
    domain: str
    turn: int
    chip: str
    kind: str
    """CSS modifier of the chip: consistent, drift, contradiction, other."""
    wrong: bool
    correct: bool
    solved: bool
    ledger: int | None
    asked: str | None
    answered: str | None
    columns: list[str]
    grid: list[tuple[str, list[Cell]]]
    changed: int
    """Slots that changed since the previous turn of the same problem (0 on a problem's first turn)."""
    first: bool
    broken: list[Broken]
    later: list[BrokenLater]
    note: str | None


CARD_BYTES = 1000
"""Markup of one card around its text (chip, headings, the grid's table, the folded response), for page weight:
measured 820 bytes on average, 1,810 at most with broken commitments, on the shipped constraint runs."""
CELL_BYTES = 30
"""Markup of one grid cell or row heading (`<td class="db-changed">…<del>…</del></td>`)."""
BROKEN_BYTES = 300
"""Markup of one broken commitment (its list item, codes, link)."""
LINK_BYTES = 80
"""Markup of one link to another turn's card (its href holds the page and the anchor)."""


def anchor_of(t: TurnResult) -> str:
    """The element id of a turn's card (unique in a run: a turn logged twice is not scored)."""
    return f"t-{slug(t.problem_id)}-{t.turn_number}"


def chip(t: TurnResult) -> tuple[str, str]:
    """(label, kind) of a turn's verdict chip, from the recomputed channel."""
    if t.channel == "other":
        return ("solver error", "other") if t.solver_error else ("unparseable", "other")
    if t.channel is None:
        return ("no ledger · " + ("correct" if t.solved else "not correct"), "consistent" if t.solved else "other")
    return t.channel, "other" if t.channel == "unverifiable" else t.channel


def went_wrong(t: TurnResult) -> bool:
    """Shown under "only turns that went wrong": any channel but consistent, or an answer that is not correct."""
    return t.channel not in ("consistent", None) or not t.solved


def _grid(t: TurnResult, prev: TurnResult | None) -> tuple[list[str], list[tuple[str, list[Cell]]], int]:
    answer = t.answer or {}
    before = prev.answer or {} if prev is not None else None
    columns: list[str] = []
    for slots in answer.values():
        columns += [k for k in slots if k not in columns]
    rows, changed = [], 0
    for name in sorted(answer):
        cells = []
        for col in columns:
            value = answer[name].get(col)
            was = (before.get(name) or {}).get(col) if before is not None else None
            moved = before is not None and was != value
            changed += moved
            cells.append(Cell(value=value, changed=moved, was=was))
        rows.append((name, cells))
    return columns, rows, changed


def turn_cards(run: RunResult, dialogue: dict[int, tuple[str, str]] | None) -> list[Card]:
    """The cards of a run's turns, in log order (links are same-page anchors until `resolve_links`)."""
    turns = list(run.turns or [])
    by_turn = {(t.problem_id, t.turn_number): t for t in turns}
    later: dict[tuple[str, int, str], list[TurnResult]] = {}
    for t in turns:
        if t.channel == "drift":
            for c in t.broken or []:
                if c.stated_turn is not None:
                    later.setdefault((t.problem_id, c.stated_turn, c.id), []).append(t)
    cards: list[Card] = []
    for t in turns:
        prev = by_turn.get((t.problem_id, t.turn_number - 1))
        columns, grid, changed = _grid(t, prev)
        label, kind = chip(t)
        asked, answered = (dialogue or {}).get(t.line, (None, None))
        broken = [Broken(id=c.id, constraint=c.constraint, text=c.text, stated_turn=c.stated_turn,
                         stated=None if c.stated_turn is None or (t.problem_id, c.stated_turn) not in by_turn else
                         Link(text=f"turn {c.stated_turn}", href="#" + anchor_of(by_turn[(t.problem_id, c.stated_turn)])))
                  for c in t.broken or []]
        mine = [BrokenLater(id=cid, text=next((c.text for c in xs[0].broken or [] if c.id == cid), None),
                            turns=[Link(text=f"turn {x.turn_number}", href="#" + anchor_of(x)) for x in xs])
                for (pid, n, cid), xs in sorted(later.items()) if pid == t.problem_id and n == t.turn_number]
        cards.append(Card(
            anchor=anchor_of(t), line=t.line, problem=t.problem_id, domain=t.domain, turn=t.turn_number, chip=label,
            kind=kind, wrong=went_wrong(t), correct=t.correct, solved=t.solved, ledger=t.ledger_size, asked=asked,
            answered=answered, columns=columns, grid=grid, changed=changed, first=prev is None, broken=broken,
            later=mine, note=t.solver_error or (None if t.parse else "no answer could be read from the response"),
        ))
    return cards


def card_bytes(card: Card) -> int:
    """Estimated bytes of a card as rendered: its escaped text, the grid's cells and the markup around them.

    Over the shipped constraint runs the estimate is 1.0-1.9 times the bytes written (never under).
    """
    text = [card["asked"] or "", card["answered"] or "", card["problem"], card["domain"], *card["columns"]]
    text += [f"{c['value']}{c['was']}" for _name, cells in card["grid"] for c in cells]
    text += [name for name, _cells in card["grid"]]
    text += [f"{b['id']}{b['constraint']}{b['text']}{b['constraint']}" for b in card["broken"]]
    text += [f"{b['id']}{b['text']}" for b in card["later"]]
    cells = sum(len(cells) + 1 for _name, cells in card["grid"])
    links = sum(len(b["turns"]) for b in card["later"]) + len(card["broken"])
    return (CARD_BYTES + CELL_BYTES * cells + BROKEN_BYTES * (len(card["broken"]) + len(card["later"])) + LINK_BYTES * links
            + sum(len(str(md_escape(s)).encode("utf-8")) for s in text))


def resolve_links(cards: list[Card], page_of: dict[str, int], current: int, href_of: Callable[[int], str]) -> list[Card]:
    """The cards with every link to a card on another page pointing at that page (`href_of(page)` + anchor)."""

    def fix(link: Link) -> Link:
        target = page_of.get(link["href"][1:])
        if target is None or target == current:
            return link
        return Link(text=link["text"], href=href_of(target) + link["href"])

    out: list[Card] = []
    for c in cards:
        broken = [Broken(**{**b, "stated": fix(b["stated"]) if b["stated"] else None}) for b in c["broken"]]
        later = [BrokenLater(id=b["id"], text=b["text"], turns=[fix(x) for x in b["turns"]]) for b in c["later"]]
        out.append(Card(**{**c, "broken": broken, "later": later}))
    return out


class Depth(TypedDict):
    """One depth of a run's accuracy strip."""

    depth: int
    solved: int
    n: int
    rate: str
    level: int
    """0..4: how dark the cell is drawn (rate in fifths)."""


def depth_strip(run: RunResult) -> list[Depth]:
    """Complete accuracy (Parse ∧ Complete ∧ Correct) per turn number over the run's scored turns."""
    counts: dict[int, list[int]] = {}
    for t in run.turns or []:
        c = counts.setdefault(t.turn_number, [0, 0])
        c[0] += t.solved
        c[1] += 1
    out = []
    for depth in sorted(counts):
        solved, n = counts[depth]
        out.append(Depth(depth=depth, solved=solved, n=n, rate=f"{solved / n:.2f}", level=min(4, solved * 5 // n)))
    return out
