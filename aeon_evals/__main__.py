"""`python -m aeon_evals` is the `aeon-evals` command."""

from aeon_evals.cli import console

console()
