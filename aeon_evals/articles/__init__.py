"""Past skill-evals articles: parsed back (this tool's own and the old LLM-written
ones), their parse cached by content, and the store that owns which exist and what each says.
"""
