"""The inspected body's numbers over the last seconds, for the panel's plots."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

import numpy as np

HISTORY_SECONDS = 10.0
"""How far back the plots reach (simulated seconds)."""


def numeric_series(fields: Mapping[str, Any]) -> dict[str, dict[str, float]]:
    """The plottable part of an inspection: ``{chart: {series: value}}``.

    A top-level number is a chart with one series of its own name; a dict of numbers (the
    activation of every behaviour) is one chart with a series per key. Booleans are not
    plotted.
    """
    out: dict[str, dict[str, float]] = {}
    for key, value in fields.items():
        if _is_number(value):
            out[key] = {key: float(value)}
        elif isinstance(value, Mapping):
            numbers = {str(k): float(v) for k, v in value.items() if _is_number(v)}
            if numbers:
                out[key] = numbers
    return out


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_)


class History:
    """Samples ``(t, {chart: {series: value}})`` of one body, the last ``seconds`` only."""

    def __init__(self, seconds: float = HISTORY_SECONDS) -> None:
        self.seconds = seconds
        self._samples: deque[tuple[float, dict[str, dict[str, float]]]] = deque()

    def add(self, t: float, fields: Mapping[str, Any]) -> None:
        """Record an inspection taken at simulated time ``t`` (s); a jump back in time (a
        restored snapshot) starts over."""
        if self._samples and t < self._samples[-1][0]:
            self._samples.clear()
        if self._samples and t == self._samples[-1][0]:
            self._samples.pop()
        self._samples.append((t, numeric_series(fields)))
        while self._samples and self._samples[0][0] < t - self.seconds:
            self._samples.popleft()

    def clear(self) -> None:
        self._samples.clear()

    def charts(self) -> dict[str, tuple[np.ndarray, dict[str, np.ndarray]]]:
        """``{chart: (t (n,), {series: values (n,)})}``; a series missing from a sample is
        NaN there (a gap in the plot)."""
        names: dict[str, list[str]] = {}
        for _, sample in self._samples:
            for chart, series in sample.items():
                known = names.setdefault(chart, [])
                known += [s for s in series if s not in known]
        t = np.array([s[0] for s in self._samples])
        return {chart: (t, {name: np.array([s[1].get(chart, {}).get(name, np.nan)
                                            for s in self._samples]) for name in series})
                for chart, series in names.items()}
