"""What a run reports, as pure functions on its results: rows diffed against the
previous run, the verdict and Action Queue, the article, log section and notification
rendered, the dashboard card, and the notifier call.
"""
