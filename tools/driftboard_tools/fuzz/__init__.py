"""The fuzz harness behind `driftboard bench fuzz`: targets (`targets`), log mutations (`mutations`) and the runner (`run`).

Native inputs and domain problems are drawn by `driftboard_tools.generate.stores` and
`driftboard_tools.generate.domains`.
"""
