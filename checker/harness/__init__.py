"""Harnesses that produce submissions by running something.

The Inspect AI task of the constraint track (`inspect_task`) and the scripted reference baselines
with their micro-world (`baselines`). An edge of the pipeline: it writes canonical logs; nothing in
the pipeline imports it.
"""
