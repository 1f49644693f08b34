"""Loading the instance: where it keeps things (layout), its registry (aeon.yml and
renamed copies), evals.json validated with every problem located, cron-state and
skill-health, each SKILL.md, cadences from cron, and the skills' outputs on disk.
"""
