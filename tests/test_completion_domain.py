"""The airline domain re-implemented from the specification (`../shared/reference/tau-airline-spec.md`).

Expectations are the specification's words and test vectors, never the code's output: the data hash of
the initial database, the surprising effects it lists (a flight change never updates `cabin`, a booking
never takes seats, a cancellation refunds nothing to balances, a certificate is deleted whatever is left
on it), the error texts and their order, and the calculator's format.
"""

from __future__ import annotations

import json

import pytest
from completion_helpers import task_set

from checker.completion.domains.base import Database, data_hash, render, same_data, signature_error
from checker.completion.tasks import canonical

INITIAL_HASH = "4a02dcbc0e3ace4d398988d60a33e73afad4d201deb426303159f086cadad20f"
"""Spec §6.1: the initial database with the 2024 users.json hashes to this (3,626,177 ASCII bytes)."""


def fresh() -> Database:
    return task_set().fresh()


def call(db: Database, name: str, **arguments: object) -> str:
    return task_set().domain.invoke(db, name, arguments)


def test_initial_data_hash_is_the_specification_test_vector() -> None:
    db = fresh()
    assert data_hash(db) == INITIAL_HASH
    text = "(" + ", ".join(f"({t!r}, {render(db.base.tables[t])})" for t in ("flights", "reservations", "users")) + ")"
    assert len(text.encode("ascii")) == 3_626_177


def test_hash_reads_types_and_list_order_not_key_order() -> None:
    assert render({"b": 1, "a": [2, 1]}) == "(('a', (2, 1)), ('b', 1))"
    assert render({"a": 1}) != render({"a": 1.0}) != render({"a": "1"})
    assert render([{"x": True, "y": None}]) == "((('x', True), ('y', None)),)"


def test_a_flight_change_never_updates_the_cabin_field() -> None:
    db = fresh()
    res = db.get("reservations", "JG7FMM")  # business, 2 passengers (spec example of a cabin downgrade)
    assert res["cabin"] == "business"
    out = call(db, "update_reservation_flights", reservation_id="JG7FMM", cabin="economy",
               flights=[{"flight_number": f["flight_number"], "date": f["date"]} for f in res["flights"]],
               payment_id=res["payment_history"][0]["payment_id"])
    changed = json.loads(out)
    assert changed["cabin"] == "business"  # unchanged: the cabin shows only in the prices and the payment
    assert changed["payment_history"][-1]["amount"] < 0  # a refund of the difference


def test_a_booking_never_takes_seats_and_a_certificate_is_deleted() -> None:
    db = fresh()
    flights = [{"flight_number": "HAT136", "date": "2024-05-20"}, {"flight_number": "HAT039", "date": "2024-05-20"}]
    seats = [db.get("flights", f["flight_number"])["dates"][f["date"]]["available_seats"]["economy"] for f in flights]
    out = call(db, "book_reservation", user_id="mia_li_3668", origin="JFK", destination="SEA", flight_type="one_way",
               cabin="economy", flights=flights, passengers=[{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
               payment_methods=[{"payment_id": "certificate_7504069", "amount": 250},
                                {"payment_id": "credit_card_4421486", "amount": 5}],
               total_baggages=3, nonfree_baggages=0, insurance="no")
    booked = json.loads(out)
    assert booked["reservation_id"] == "HATHAT" and booked["created_at"] == "2024-05-15T15:00:00"
    assert [db.get("flights", f["flight_number"])["dates"][f["date"]]["available_seats"]["economy"]
            for f in flights] == seats
    assert "certificate_7504069" not in db.get("users", "mia_li_3668")["payment_methods"]
    assert db.get("users", "mia_li_3668")["reservations"][-1] == "HATHAT"
    # the next booking takes the next id
    again = json.loads(call(db, "book_reservation", user_id="mia_li_3668", origin="JFK", destination="SEA",
                            flight_type="one_way", cabin="economy", flights=flights,
                            passengers=[{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
                            payment_methods=[{"payment_id": "credit_card_4421486", "amount": 255}],
                            total_baggages=0, nonfree_baggages=0, insurance="no"))
    assert again["reservation_id"] == "HATHAU"


def test_payment_must_add_up_and_changes_nothing_when_it_does_not() -> None:
    db = fresh()
    out = call(db, "book_reservation", user_id="mia_li_3668", origin="JFK", destination="SEA", flight_type="one_way",
               cabin="economy", flights=[{"flight_number": "HAT136", "date": "2024-05-20"},
                                         {"flight_number": "HAT039", "date": "2024-05-20"}],
               passengers=[{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
               payment_methods=[{"payment_id": "certificate_7504069", "amount": 250},
                                {"payment_id": "credit_card_4421486", "amount": 5}],
               total_baggages=3, nonfree_baggages=1, insurance="no")
    assert out == "Error: payment amount does not add up, total price is 305, but paid 255"
    assert same_data(db, fresh())


def test_cancellation_negates_every_entry_and_refunds_no_balance() -> None:
    db = fresh()
    before = db.get("reservations", "GV1N64")
    card = before["payment_history"][0]["payment_id"]
    balance = db.get("users", before["user_id"])["payment_methods"][card].get("amount")
    out = json.loads(call(db, "cancel_reservation", reservation_id="GV1N64"))
    n = len(before["payment_history"])
    assert out["status"] == "cancelled"
    assert [p["amount"] for p in out["payment_history"][n:]] == [-p["amount"] for p in before["payment_history"]]
    assert db.get("users", before["user_id"])["payment_methods"][card].get("amount") == balance
    assert before.get("status") is None  # the base record is never changed (copy-on-write)


def test_error_texts_and_unknown_actions() -> None:
    db = fresh()
    assert call(db, "get_reservation_details", reservation_id="NOPE00") == "Error: user not found"  # sic
    assert call(db, "cancel_reservation", reservation_id="NOPE00") == "Error: reservation not found"
    assert call(db, "teleport", where="moon") == "Unknown action teleport"
    assert call(db, "cancel_reservation") == \
        "Error: CancelReservation.invoke() missing 1 required positional argument: 'reservation_id'"
    assert call(db, "cancel_reservation", reservation_id="GV1N64", why="x") == \
        "Error: CancelReservation.invoke() got an unexpected keyword argument 'why'"
    assert call(db, "transfer_to_human_agents", summary="help") == "Transfer successful"
    assert call(db, "think", thought="hm") == ""
    assert same_data(db, fresh())


@pytest.mark.parametrize(("expression", "expected"), [
    ("152 + 103", "255.0"), ("498 * 1.5", "747.0"), ("(136 - (94 + 80)) * 3", "-114.0"), ("2 / 3", "0.67"),
    ("1 / 0", "Error: division by zero"), ("1 + x", "Error: invalid characters in expression"),
])
def test_calculator(expression: str, expected: str) -> None:
    assert call(fresh(), "calculate", expression=expression) == expected


def test_calculator_cost_is_bounded() -> None:
    out = call(fresh(), "calculate", expression="9**9**9**9")
    assert out.startswith("Error:") and "refused" in out
    deep = "(" * 150 + "1" + ")" * 150
    assert call(fresh(), "calculate", expression=deep).startswith(("Error:", "1.0"))


def test_signature_error_wording_follows_python() -> None:
    assert signature_error("X", ("a", "b", "c"), {}) == "X.invoke() missing 3 required positional arguments: 'a', 'b', and 'c'"
    assert signature_error("X", ("a", "b"), {}) == "X.invoke() missing 2 required positional arguments: 'a' and 'b'"
    assert signature_error("X", ("a",), {"a": 1}) is None


def test_gold_replay_is_cached_and_never_changes_the_base() -> None:
    ts = task_set()
    before = data_hash(ts.fresh())
    gold = ts.gold(0)
    assert gold is ts.gold(0)
    assert [name for name, _ in gold.writes] == ["book_reservation"]
    assert data_hash(ts.fresh()) == before == INITIAL_HASH


def test_task_set_digest_covers_every_file(tmp_path) -> None:
    import shutil

    from checker.completion.tasks import load_task_set

    copy = tmp_path / "set"
    shutil.copytree(task_set().path, copy)
    assert load_task_set(copy).digest == task_set().digest  # the folder's name and place do not matter
    tasks = json.loads((copy / "tasks.json").read_text(encoding="utf-8"))
    tasks[0]["outputs"] = ["1"]
    (copy / "tasks.json").write_bytes(canonical(tasks))
    assert load_task_set(copy).digest != task_set().digest


def test_the_incremental_hash_equals_the_whole_text_hash() -> None:
    """The hash from checkpoints and edited pieces equals SHA-256 of the whole rendered text (Python's str())."""
    import hashlib

    from checker.completion.domains.base import data_hash_text

    def whole(db: Database) -> str:
        return hashlib.sha256(data_hash_text(db).encode("utf-8")).hexdigest()

    ts = task_set()
    for tid in ts.tasks:
        assert data_hash(ts.gold(tid).db) == whole(ts.gold(tid).db), tid
    db = fresh()
    db.put("reservations", "000000", {"a": 1})  # before the first key
    db.put("reservations", "ZZZZZZ", {"b": [1, 2.0, None, "é'\""]})  # after the last
    db.put("reservations", "000001", {})
    db.put("reservations", "4WQ150X", {"c": True})  # right after an existing key
    db.edit("users", "mia_li_3668")["dob"] = "1990-04-06"
    db.edit("flights", "HAT001")["dates"]["2024-05-01"]["status"] = "cancelled"
    assert data_hash(db) == whole(db) != INITIAL_HASH
