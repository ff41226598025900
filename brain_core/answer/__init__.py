"""The front door: the router, ask, the offline answer, live look-ups, runs and feedback lessons."""
