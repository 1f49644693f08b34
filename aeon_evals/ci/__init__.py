"""CI glue: the --fail-on decision, JUnit XML, GitHub annotations and the job summary."""
