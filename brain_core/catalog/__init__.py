"""The card catalog: one interface, a SQLite and a PostgreSQL backend, chosen in factory.py."""
