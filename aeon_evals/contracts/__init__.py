"""Output contracts: what a skill's SKILL.md says it writes (paths, log section,
headings, word floor, placeholders), inferred with the evidence lines; which skills a run
evaluates on them; the coverage audit and the starter specs drawn from them.
"""
