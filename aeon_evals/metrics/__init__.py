"""The metric history: each run's per-skill metrics file, the history read back as
columns per skill (cached), and drift applied to a run's results.
"""
