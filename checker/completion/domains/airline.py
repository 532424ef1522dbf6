"""τ-bench's airline domain: its fourteen tools, written from the specification in our own code.

Semantics are those of `sierra-research/tau-bench` at commit `7362a17` (the commit that added the
historical trajectories), as `../shared/reference/tau-airline-spec.md` describes them: the tools'
checks in their order, their error texts, their effects (including the surprising ones: a flight
change never updates the reservation's `cabin`, a booking never takes seats, a cancellation refunds
nothing to gift cards or certificates), and the observation of every call, byte for byte (records
as `json.dumps` writes them). Policy is not enforced by the tools; it counts only through the
comparison with the task's gold actions.

Every tool reads the database through `Database.get` and changes it only through `Database.edit` /
`Database.put` (copy-on-write). An exception inside a tool becomes the observation
`Error: <exception text>` (`invoke`), as in τ-bench, after whatever the tool changed before it.
"""

from __future__ import annotations

import ast
import copy
import json
from collections.abc import Mapping
from typing import Any

from checker.completion.domains.base import (
    Database,
    DomainError,
    EnvironmentCrash,
    ToolSpec,
    class_name,
    signature_error,
)

NAME = "airline"
TABLES = ("flights", "reservations", "users")
CREATED_AT = "2024-05-15T15:00:00"
"""The creation time every new reservation gets (the domain's fixed "now")."""
NEW_IDS = ("HATHAT", "HATHAU", "HATHAV")
"""Ids a booking takes: the first free one; a fourth booking reuses (overwrites) the last."""
CERTIFICATE_IDS = ("certificate_3221322", "certificate_3221323", "certificate_3221324")
"""Ids `send_certificate` gives: the first one the user does not hold yet."""
AIRPORTS = (
    ("SFO", "San Francisco"), ("JFK", "New York"), ("LAX", "Los Angeles"), ("ORD", "Chicago"), ("DFW", "Dallas"),
    ("DEN", "Denver"), ("SEA", "Seattle"), ("ATL", "Atlanta"), ("MIA", "Miami"), ("BOS", "Boston"),
    ("PHX", "Phoenix"), ("IAH", "Houston"), ("LAS", "Las Vegas"), ("MCO", "Orlando"), ("EWR", "Newark"),
    ("CLT", "Charlotte"), ("MSP", "Minneapolis"), ("DTW", "Detroit"), ("PHL", "Philadelphia"), ("LGA", "LaGuardia"),
)
"""The fixed answer of `list_all_airports`, in its order."""
STORED_VALUE = ("gift_card", "certificate")
"""Payment sources with a balance (`amount`)."""


def _dumps(value: Any) -> str:
    """A record as τ-bench's tools return it (`json.dumps` with its default separators, ASCII escapes)."""
    return json.dumps(value)


# ----------------------------------------------------------------------------------------- read tools


def get_user_details(db: Database, user_id: Any) -> str:
    """The user's record, or `Error: user not found`."""
    user = db.get("users", user_id)
    return "Error: user not found" if user is None else _dumps(user)


def get_reservation_details(db: Database, reservation_id: Any) -> str:
    """The reservation's record, or `Error: user not found` (τ-bench's text says "user")."""
    res = db.get("reservations", reservation_id)
    return "Error: user not found" if res is None else _dumps(res)


def _leg(flight: dict[str, Any], day: dict[str, Any]) -> dict[str, Any]:
    """A flight's fields without `dates`, followed by one day record's fields."""
    out = {k: v for k, v in flight.items() if k != "dates"}
    out.update(day)
    return out


def _available(flight: dict[str, Any], date: Any) -> bool:
    day = flight["dates"].get(date)
    return day is not None and day["status"] == "available"


def search_direct_flight(db: Database, origin: Any, destination: Any, date: Any) -> str:
    """Flights origin -> destination available on `date`, in table order, each merged with its day record."""
    found = [_leg(f, f["dates"][date]) for _key, f in db.items("flights")
             if f["origin"] == origin and f["destination"] == destination and _available(f, date)]
    return _dumps(found)


def _next_day(date: str) -> str:
    """The day after `2024-05-DD` as τ-bench writes it: the day number without zero padding (`2024-05-6`)."""
    return f"2024-05-{int(date[-2:]) + 1}"


def search_onestop_flight(db: Database, origin: Any, destination: Any, date: Any) -> str:
    """Pairs of legs origin -> X -> destination, the first available on `date`.

    The second leg flies the same day, or the next when the first arrives `+1` (written unpadded, so
    it never matches days 1-9); a pair is kept when the second leg is available that day and the
    first leg's arrival text is not later than the second's departure text. Each leg is merged with
    its day record for `date` (the second leg's too) and gets a `date` field: `date`, and the second
    leg's day.
    """
    pairs = []
    flights = list(db.items("flights"))
    for _k1, first in flights:
        if first["origin"] != origin or not _available(first, date):
            continue
        second_date = _next_day(date) if "+1" in first["scheduled_arrival_time_est"] else date
        for _k2, second in flights:
            if second["origin"] != first["destination"] or second["destination"] != destination:
                continue
            if not _available(second, second_date):
                continue
            if first["scheduled_arrival_time_est"] > second["scheduled_departure_time_est"]:
                continue
            pairs.append([{**_leg(first, first["dates"][date]), "date": date},
                          {**_leg(second, second["dates"][date]), "date": second_date}])
    return _dumps(pairs)


def list_all_airports(db: Database) -> str:
    """The fixed map of airport codes to cities."""
    del db
    return _dumps(dict(AIRPORTS))


CALC_CHARS = frozenset("0123456789+-*/(). ")
MAX_CALC_DEPTH = 200
"""Nesting the calculator evaluates (deeper: refused, never a recursion error)."""
MAX_CALC_BITS = 100_000
"""Largest integer (in bits) the calculator computes; above it the expression is refused (τ-bench would compute it)."""


class _Refused(Exception):
    """An expression the calculator will not evaluate (bounded cost); its text says so."""


def _calc(node: ast.AST, depth: int = 0) -> Any:
    """Evaluate the node as Python arithmetic would (the same values and exceptions), within bounds."""
    if depth > MAX_CALC_DEPTH:
        raise _Refused("expression nested too deeply to evaluate (refused by Driftboard's calculator)")
    if isinstance(node, ast.Expression):
        return _calc(node.body, depth + 1)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Tuple):
        return tuple(_calc(e, depth + 1) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _calc(node.operand, depth + 1)
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp):
        left, right = _calc(node.left, depth + 1), _calc(node.right, depth + 1)
        op = node.op
        if isinstance(left, int) and isinstance(right, int):
            _bound(op, left, right)
        if isinstance(op, ast.Add):
            return left + right
        if isinstance(op, ast.Sub):
            return left - right
        if isinstance(op, ast.Mult):
            return left * right
        if isinstance(op, ast.Div):
            return left / right
        if isinstance(op, ast.FloorDiv):
            return left // right
        if isinstance(op, ast.Pow):
            return left**right
    if isinstance(node, ast.Call):
        func = _calc(node.func, depth + 1)
        for arg in node.args:
            _calc(arg, depth + 1)
        raise TypeError(f"'{type(func).__name__}' object is not callable")
    raise _Refused(f"unsupported expression ({type(node).__name__}) for Driftboard's calculator")


def _bound(op: ast.operator, left: int, right: int) -> None:
    bits = max(abs(left).bit_length(), 1)
    if isinstance(op, ast.Pow) and right > 0 and abs(left) > 1 and bits * right > MAX_CALC_BITS:
        raise _Refused("result too large to evaluate (refused by Driftboard's calculator)")
    if isinstance(op, ast.Mult) and abs(left).bit_length() + abs(right).bit_length() > MAX_CALC_BITS:
        raise _Refused("result too large to evaluate (refused by Driftboard's calculator)")


def calculate(db: Database, expression: Any) -> str:
    """Evaluate an arithmetic expression (digits, `+-*/().` and spaces only); the value as a float to 2 places."""
    del db
    if not all(ch in CALC_CHARS for ch in expression):
        return "Error: invalid characters in expression"
    if not isinstance(expression, str):
        raise TypeError("eval() arg 1 must be a string, bytes or code object")
    try:
        tree = ast.parse(expression, "<string>", "eval")
        return str(round(float(_calc(tree)), 2))
    except _Refused as exc:
        return f"Error: {exc}"
    except Exception as exc:  # every Python error becomes the observation, as in τ-bench
        return f"Error: {exc}"


def think(db: Database, thought: Any) -> str:
    """A private note: changes nothing, observes nothing."""
    del db, thought
    return ""


def transfer_to_human_agents(db: Database, summary: Any) -> str:
    """Hand the user to a human: ends the episode, changes nothing."""
    del db, summary
    return "Transfer successful"


# ---------------------------------------------------------------------------------------- write tools


def _price_segment(db: Database, segment: dict[str, Any], cabin: Any, passengers: int) -> str | None:
    """Look a requested segment up and price it in place (fare, origin, destination); an error text, or None."""
    number = segment["flight_number"]
    flight = db.get("flights", number)
    if flight is None:
        return f"Error: flight {number} not found"
    date = segment["date"]
    day = flight["dates"].get(date)
    if day is None:
        return f"Error: flight {number} not found on date {date}"
    if day["status"] != "available":
        return f"Error: flight {number} not available on date {date}"
    if day["available_seats"][cabin] < passengers:
        return f"Error: not enough seats on flight {number}"
    segment["price"] = day["prices"][cabin]
    segment["origin"] = flight["origin"]
    segment["destination"] = flight["destination"]
    return None


def book_reservation(db: Database, user_id: Any, origin: Any, destination: Any, flight_type: Any, cabin: Any,
                     flights: Any, passengers: Any, payment_methods: Any, total_baggages: Any, nonfree_baggages: Any,
                     insurance: Any) -> str:
    """Book a new reservation (see the specification, section 3.2: checks in order, then the effects)."""
    if not db.has("users", user_id):
        return "Error: user not found"
    user = db.get("users", user_id)
    reservation_id = next((i for i in NEW_IDS if not db.has("reservations", i)), NEW_IDS[-1])
    segments = copy.deepcopy(flights)
    total = 0
    for segment in segments:
        error = _price_segment(db, segment, cabin, len(passengers))
        if error is not None:
            return error
        total += segment["price"] * len(passengers)
    if insurance == "yes":
        total += 30 * len(passengers)
    total += 50 * nonfree_baggages
    methods = user["payment_methods"]
    for entry in payment_methods:
        payment_id = entry["payment_id"]
        if payment_id not in methods:
            return f"Error: payment method {payment_id} not found"
        method = methods[payment_id]
        if method["source"] in STORED_VALUE and method["amount"] < entry["amount"]:
            return f"Error: not enough balance in payment method {payment_id}"
    paid = sum(entry["amount"] for entry in payment_methods)
    if paid != total:
        return f"Error: payment amount does not add up, total price is {total}, but paid {paid}"
    owner = db.edit("users", user_id)
    for entry in payment_methods:
        payment_id = entry["payment_id"]
        method = owner["payment_methods"][payment_id]
        if method["source"] == "gift_card":
            method["amount"] -= entry["amount"]
        elif method["source"] == "certificate":
            del owner["payment_methods"][payment_id]  # a second entry of one certificate fails here: KeyError
    reservation = {
        "reservation_id": reservation_id, "user_id": user_id, "origin": origin, "destination": destination,
        "flight_type": flight_type, "cabin": cabin, "flights": segments, "passengers": passengers,
        "payment_history": payment_methods, "created_at": CREATED_AT, "total_baggages": total_baggages,
        "nonfree_baggages": nonfree_baggages, "insurance": insurance,
    }
    db.put("reservations", reservation_id, reservation)
    owner["reservations"].append(reservation_id)
    return _dumps(reservation)


def cancel_reservation(db: Database, reservation_id: Any) -> str:
    """Cancel: a negated entry for every payment entry already there, and `status: cancelled` (nothing refunded to balances)."""
    if not db.has("reservations", reservation_id):
        return "Error: reservation not found"
    res = db.edit("reservations", reservation_id)
    refunds = [{"payment_id": entry["payment_id"], "amount": -entry["amount"]} for entry in res["payment_history"]]
    res["payment_history"].extend(refunds)
    res["status"] = "cancelled"
    return _dumps(res)


def _charge_check(db: Database, owner_id: str, payment_id: Any, amount: Any) -> str | None:
    """The payment checks of the two update tools (method known, not a certificate, gift card balance); an error text or None."""
    methods = db.get("users", owner_id)["payment_methods"]
    if payment_id not in methods:
        return "Error: payment method not found"
    method = methods[payment_id]
    if method["source"] == "certificate":
        return "Error: certificate cannot be used to update reservation"
    if method["source"] == "gift_card" and method["amount"] < amount:
        return "Error: gift card balance is not enough"
    return None


def _charge(db: Database, owner_id: str, payment_id: str, amount: Any) -> None:
    """Charge a gift card (a negative amount raises its balance); other sources keep no balance."""
    if db.get("users", owner_id)["payment_methods"][payment_id]["source"] == "gift_card":
        db.edit("users", owner_id)["payment_methods"][payment_id]["amount"] -= amount


def update_reservation_baggages(db: Database, reservation_id: Any, total_baggages: Any, nonfree_baggages: Any,
                                payment_id: Any) -> str:
    """Set the bag counts; 50 per added non-free bag is charged (lowering them refunds nothing)."""
    if not db.has("reservations", reservation_id):
        return "Error: reservation not found"
    current = db.get("reservations", reservation_id)
    owner_id = current["user_id"]
    price = 50 * max(0, nonfree_baggages - current["nonfree_baggages"])
    error = _charge_check(db, owner_id, payment_id, price)
    if error is not None:
        return error
    res = db.edit("reservations", reservation_id)
    res["total_baggages"] = total_baggages
    res["nonfree_baggages"] = nonfree_baggages
    _charge(db, owner_id, payment_id, price)
    if price != 0:
        res["payment_history"].append({"payment_id": payment_id, "amount": price})
    return _dumps(res)


def update_reservation_flights(db: Database, reservation_id: Any, cabin: Any, flights: Any, payment_id: Any) -> str:
    """Replace the flights; the fare difference is paid (or refunded); the reservation's `cabin` field never changes."""
    if not db.has("reservations", reservation_id):
        return "Error: reservation not found"
    current = db.get("reservations", reservation_id)
    n = len(current["passengers"])
    segments = copy.deepcopy(flights)
    total = 0
    for segment in segments:
        same = next((old for old in current["flights"] if old["flight_number"] == segment["flight_number"]
                     and old["date"] == segment["date"] and cabin == current["cabin"]), None)
        if same is not None:  # kept as booked, even when the flight has left since
            segment["price"], segment["origin"], segment["destination"] = same["price"], same["origin"], same["destination"]
        else:
            error = _price_segment(db, segment, cabin, n)
            if error is not None:
                return error
        total += segment["price"] * n
    total -= sum(old["price"] for old in current["flights"]) * n
    owner_id = current["user_id"]
    error = _charge_check(db, owner_id, payment_id, total)
    if error is not None:
        return error
    _charge(db, owner_id, payment_id, total)
    res = db.edit("reservations", reservation_id)
    res["flights"] = segments
    if total != 0:
        res["payment_history"].append({"payment_id": payment_id, "amount": total})
    return _dumps(res)


def update_reservation_passengers(db: Database, reservation_id: Any, passengers: Any) -> str:
    """Replace the passengers (as given) when their number is unchanged."""
    if not db.has("reservations", reservation_id):
        return "Error: reservation not found"
    if len(passengers) != len(db.get("reservations", reservation_id)["passengers"]):
        return "Error: number of passengers does not match"
    res = db.edit("reservations", reservation_id)
    res["passengers"] = passengers
    return _dumps(res)


def send_certificate(db: Database, user_id: Any, amount: Any) -> str:
    """Add a certificate of `amount` under the first free certificate id.

    Raises:
        EnvironmentCrash: the user holds all three ids (τ-bench returns nothing, and its runner fails).
    """
    if not db.has("users", user_id):
        return "Error: user not found"
    held = db.get("users", user_id)["payment_methods"]
    for cid in CERTIFICATE_IDS:
        if cid not in held:
            db.edit("users", user_id)["payment_methods"][cid] = {"source": "certificate", "amount": amount, "id": cid}
            return f"Certificate {cid} added to user {user_id} with amount {amount}."
    raise EnvironmentCrash(f"send_certificate: user {user_id} already holds {', '.join(CERTIFICATE_IDS)}; "
                           "τ-bench's runner fails on the empty observation")


def _spec(run: Any, *params: str, writes: bool = False, ends: bool = False) -> ToolSpec:
    return ToolSpec(run.__name__, params, writes, run, ends)


TOOLS: dict[str, ToolSpec] = {t.name: t for t in (
    _spec(book_reservation, "user_id", "origin", "destination", "flight_type", "cabin", "flights", "passengers",
          "payment_methods", "total_baggages", "nonfree_baggages", "insurance", writes=True),
    _spec(calculate, "expression"),
    _spec(cancel_reservation, "reservation_id", writes=True),
    _spec(get_reservation_details, "reservation_id"),
    _spec(get_user_details, "user_id"),
    _spec(list_all_airports),
    _spec(search_direct_flight, "origin", "destination", "date"),
    _spec(search_onestop_flight, "origin", "destination", "date"),
    _spec(send_certificate, "user_id", "amount", writes=True),
    _spec(think, "thought"),
    _spec(transfer_to_human_agents, "summary", ends=True),
    _spec(update_reservation_baggages, "reservation_id", "total_baggages", "nonfree_baggages", "payment_id", writes=True),
    _spec(update_reservation_flights, "reservation_id", "cabin", "flights", "payment_id", writes=True),
    _spec(update_reservation_passengers, "reservation_id", "passengers", writes=True),
)}
"""The fourteen tools, by name."""


class Airline:
    """The airline domain (implements `checker.completion.domains.base.CompletionDomain`)."""

    name: str = NAME
    tables: tuple[str, ...] = TABLES
    tools: Mapping[str, ToolSpec] = TOOLS

    def invoke(self, db: Database, name: str, arguments: Mapping[str, Any]) -> str:
        """Run one call as τ-bench's environment does; the observation.

        An unknown tool gives `Unknown action <name>` (no `Error:` prefix); a wrong argument set the
        Python `TypeError` text; any exception inside the tool `Error: <text>` (after what the tool
        changed before it). The arguments are copied first: the database never holds the caller's objects.

        Raises:
            EnvironmentCrash: the call would have crashed τ-bench's runner.
        """
        spec = self.tools.get(name)
        if spec is None:
            return f"Unknown action {name}"
        wrong = signature_error(class_name(name), spec.params, arguments)
        if wrong is not None:
            return f"Error: {wrong}"
        try:
            return spec.run(db, **copy.deepcopy(dict(arguments)))
        except EnvironmentCrash:
            raise
        except Exception as exc:  # every exception becomes the observation, as in τ-bench
            return f"Error: {exc}"


DOMAIN = Airline()


def check_tables(tables: Mapping[str, Any]) -> None:
    """Refuse a database the tools cannot read (every table an object of objects).

    Raises:
        DomainError: a table is not an object of records.
    """
    for table in TABLES:
        records = tables.get(table)
        if not isinstance(records, dict) or not all(isinstance(r, dict) for r in records.values()):
            raise DomainError(f"table {table!r} is not an object of records")
