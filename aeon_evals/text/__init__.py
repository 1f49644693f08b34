"""Text formats the instance holds, read and written without touching the disk: markdown
headings and sections, table cells, control characters escaped, JSON and YAML read with
bounds, JSON line numbers, and user patterns compiled with RE2 (linear time).
"""
