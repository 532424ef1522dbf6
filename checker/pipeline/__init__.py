"""Verify: the pipeline over submissions, above both tracks.

`verify` schedules every submission's runs through the shared stages and its track's scorer
(`scorers`), restores unchanged submissions from the cache (`cache`), shards (`shard`), builds and
writes one results file per submission (`results`) and keeps a handle to it (`handle`); `metrics`
gathers each track's metric declarations into the registry; `releases` and `provenance` record
what was published at which commit.
"""
