"""The format: what a submission, a run log and a results file are, and the shared vocabulary.

Pydantic models of events, manifest and pre-registration (`schema/`), the chained JSONL reader and
writer (`logio`), the results and release models (`results_model` with the per-cell tables of
`cell_tables`, `results_summary`, `release_model`, `results_io`),
and the small definitions every stage shares: exception and finding types (`errors`), the one
number formatter (`numbers`), the metric declaration (`metricdef`), seed labels, reporters.
It imports nothing else of the checker.
"""
