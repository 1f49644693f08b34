"""The cache folder `.aeon-evals/cache/`: which reads and writes are allowed there and
the code fingerprint that keys every entry. A miss costs time, never correctness.
"""
