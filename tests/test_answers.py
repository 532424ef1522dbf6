"""Answer extraction as drift-spec §b.1."""

from __future__ import annotations

from checker.constraint.answers import extract_answer, extract_json, strip_think
from checker.constraint.domains import FALSE, LogicGrid, Scheduling, Seating

SEAT = Seating(["Karen", "Ruby", "Tina"])
SCHED = Scheduling(["Deploy", "Docs"], num_slots=7)
GRID = LogicGrid(["Avery", "Blake"], {"color": ["Red", "Blue"], "pet": ["Cat", "Dog"]})


def test_think_blocks():
    assert strip_think("<THINK>{\"a\":1}</think>rest") == "rest"
    assert strip_think("<think>I guess {\"Karen\": 1} maybe") == "{\"Karen\": 1} maybe"
    assert extract_answer(SEAT, "<think>{\"Karen\": 3}</think>{\"Karen\": 1}") == {"Karen": 1}


def test_first_object_wins_even_an_example():
    text = 'Example {"Karen":4}. Final: {"solution":{"Karen":1,"Ruby":2,"Tina":3}}'
    assert extract_json(text) == {"Karen": 4}
    assert extract_answer(SEAT, text) == {"Karen": 4}


def test_fenced_block_and_whole_text():
    assert extract_json('```json\n{"solution": {"Karen": 2}}\n```') == {"solution": {"Karen": 2}}
    assert extract_json(' [1, 2] ') == [1, 2]
    assert extract_json("no json at all") is None


def test_truncation_repair():
    assert extract_json('Answer: {"solution": {"Karen": 1, "Ruby": [2') == {"solution": {"Karen": 1, "Ruby": [2]}}


def test_seating_normalisation():
    got = extract_answer(SEAT, '{"solution": {" karen ": true, "RUBY": "2", "Tina": "3.0", "Bob": 4}}')
    assert got == {"Karen": 1, "Ruby": 2}  # "3.0" and unknown keys dropped, true -> 1
    assert extract_answer(SEAT, '{"solution": {"Bob": 1}}') is None  # empty -> no answer
    assert extract_answer(SEAT, "") is None


def test_scheduling_normalisation_and_completeness():
    got = extract_answer(SCHED, '{"Deploy": {"start": 2}, "docs": 5}')
    assert got == {"Deploy": (2, None), "Docs": (5, None)}
    assert SCHED.is_complete(got)
    assert SCHED.answer_keys(got) == [("at", 0, 2), ("at", 1, 5)]
    assert not SCHED.is_complete(extract_answer(SCHED, '{"Deploy": {"duration": 2}, "Docs": 1}'))


def test_logic_grid_shapes():
    a = extract_answer(GRID, '{"Avery": {"color": "Red", "pet": "Dog", "Color": "x"}, "Blake": {"color": "Blue"}}')
    b = extract_answer(GRID, '{"color": {"avery": "Red", "Blake": "Blue"}, "pet": {"Avery": "Dog"}}')
    c = extract_answer(GRID, '[{"entity": "Avery", "color": "Red", "pet": "Dog"}, {"name": "Blake", "color": "Blue"}]')
    assert a == b == c == {"Avery": {"color": "Red", "pet": "Dog"}, "Blake": {"color": "Blue"}}
    assert not GRID.is_complete(a)
    assert GRID.answer_keys(extract_answer(GRID, '{"Avery": {"color": "red"}}')) == [FALSE]


def test_regex_fallbacks():
    assert extract_answer(SEAT, "Seating:\nKaren: 2\nRuby = 1\nTina - 3\n") == {"Karen": 2, "Ruby": 1, "Tina": 3}
    assert extract_answer(SEAT, "I put Karen in seat 3 and Ruby at position 1.") == {"Karen": 3, "Ruby": 1}
    assert extract_answer(SCHED, "Deploy starts at start 2 with duration 3") == {"Deploy": (2, 3)}
    assert extract_answer(GRID, "Avery has the red color and a dog.\nBlake: Blue, Cat") == {
        "Avery": {"color": "Red", "pet": "Dog"}, "Blake": {"color": "Blue", "pet": "Cat"}}
