"""The completion track: claimed vs verified completion of tool-using dialogue episodes (τ-bench-style).

tasks (task sets: a domain's database, policy and tasks, named by digest) -> domains (the tools,
re-implemented; a leaf) -> episode (read the log's dialogue into steps) -> replay (re-run every tool
call on the task's database, compare each result with the logged one, replay the gold actions,
recompute the reward) -> claims (ending, claim, writes against the gold writes, database evidence)
-> metrics (declarations, Wilson intervals, pass^k) -> `scorer.score_run`, the track's entry point.
"""
