"""The SQLite card catalog (FTS5 and sqlite-vec through sqlean)."""
