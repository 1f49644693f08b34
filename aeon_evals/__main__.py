"""`python -m aeon_evals` is the `aeon-evals` command."""

import sys

from aeon_evals.cli import main

sys.exit(main())
