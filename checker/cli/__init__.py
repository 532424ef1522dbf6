"""The command line: parse options, call one stage, map exceptions to exit codes 0/1/2.

`main` holds the click commands; `commands`, `ci` (with `ci_git`: what a pull request changes), `cite`
run them; `report_text`, `ci_summary` and `ci_annotations` turn typed results into text, job summaries
and GitHub annotations.
"""
