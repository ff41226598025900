"""Aida's tests: one folder per brain_core package (and app/, cli/, integration/...), helpers in helpers/."""
