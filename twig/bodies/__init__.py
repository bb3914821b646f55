"""Builders that add bodies (nodes, links, constraints) to a world. They are shared by scenes,
tests, benchmarks and demos."""
