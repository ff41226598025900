"""Text helpers every layer shares: stop words, dates in questions, write-time abstracts."""
