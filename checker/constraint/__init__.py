"""The constraint track: satisfiable drift vs contradiction (DRIFT-Bench-style dialogues).

answers (read an answer in a domain's terms) -> problems and problem sets -> domains (Z3 encodings
and exact evaluators, a leaf) -> coverage -> metrics -> `scorer.score_run`, the track's entry point.
"""
