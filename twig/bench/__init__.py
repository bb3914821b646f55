"""Benchmark suite: twig against pypbd and Warp-CPU on the same constraint lists."""
