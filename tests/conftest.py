"""Shared test settings: hypothesis profiles sized for CI (each test in seconds)."""

from hypothesis import HealthCheck, settings

settings.register_profile("twig", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("twig")
