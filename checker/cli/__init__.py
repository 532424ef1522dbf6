"""The command line: parse options, call one stage, map exceptions to exit codes 0/1/2.

`main` holds the click commands; `commands`, `ci`, `cite` run them; `report_text` and `ci_summary`
turn typed results into text and job summaries.
"""
