"""Verify: the pipeline over submissions, above both tracks.

`verify` schedules every run through the shared stages and its track's scorer (`scorers`), caches
(`cache`), shards (`shard`), writes one results file per submission (`results`); `metrics` gathers
each track's metric declarations into the registry; `releases` and `provenance` record what was
published at which commit.
"""
