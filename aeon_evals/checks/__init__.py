"""The checks of one skill against its spec (SPEC §4): its latest output found, empty or
stale, words, required and forbidden patterns, headings, numeric bounds, quality.
"""
