"""The nightly run: its options and outcome, the stages in order (load, check, diff,
issues, render) and the writes at its edge (publish, bootstrap), and the demo.
"""
