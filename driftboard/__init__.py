"""Inspect AI registry namespace of the `driftboard` distribution (the checker itself is the `checker` package).

Inspect names a registered object `<top-level package>/<name>`; this package exists so that the
task is `driftboard/constraint` whether the distribution is installed normally or editable.
"""
