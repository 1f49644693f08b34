"""aeon-evals: deterministic nightly evaluation of Aeon agent skills."""

__version__ = "0.1.0"
