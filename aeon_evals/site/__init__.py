"""The static HTML dashboard (issue #5): `index.html`, a page per run and per skill, badges.

`views` holds what the dashboard and run pages show (frozen dataclasses built by pure functions),
`skill_pages` a skill's page, `charts` and `skill_charts` the chart geometry, `grid` the skills ×
runs grid, `badges` the badges; `jinja_env` sets Jinja2 up once; `build` is the I/O edge (articles
and issues in, the index and run pages out) and `skill_site` writes the skill pages and badges.
"""

from aeon_evals.site.build import SiteOutcome, build_site

__all__ = ["SiteOutcome", "build_site"]
