"""The catalog checks behind `aeon-evals lint`: every SKILL.md's structure, collisions
between descriptions, and trigger routing with a stemmed TF-IDF model.
"""
