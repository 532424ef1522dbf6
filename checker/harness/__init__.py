"""Harnesses that produce submissions by running something.

The Inspect AI tasks of both tracks, with the model harness of the agent track and the offline
scripted model (`inspect_task`), and the scripted reference baselines with their micro-world
(`baselines`), whose host code the agent task's harness reuses. An edge of the pipeline: it writes canonical logs; nothing in
the pipeline imports it.
"""
