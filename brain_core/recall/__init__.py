"""Recall: the hybrid stages, their fusion, the lifts and the confidence check."""
