"""The command line: parse options, call one stage, map exceptions to exit codes 0/1/2.

`main` holds the click commands; `commands`, `ci` (with `ci_git`: what a pull request changes), `cite`
run them; `report_text` and `ci_summary` turn typed results into text and job summaries.
"""
