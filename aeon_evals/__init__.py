"""aeon-evals: deterministic nightly evaluation of Aeon agent skills."""

# The one place the version is kept: pyproject.toml reads it (tool.hatch.version), and a release
# is the tag v<this> (.github/workflows/release.yml stops on a tag that does not match).
__version__ = "0.1.0"
