"""The brain's files: atomic writes, the shelves' layout, the write lock and the git layer."""
