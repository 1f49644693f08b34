"""The static HTML dashboard (issue #5): `index.html`, a page per run and per skill, badges.

`views` holds what the pages show (frozen dataclasses built by pure functions), `charts` the
trend-chart geometry, `build` the I/O: reading articles and issues, Jinja2, writing the pages.
"""

from aeon_evals.site.build import SiteOutcome, build_site

__all__ = ["SiteOutcome", "build_site"]
