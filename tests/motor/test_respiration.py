"""Respiration (Horswill 2009, section VII.B): the shoulders rise and fall with the breath,
faster while walking."""

import numpy as np

import twig


def breathing(walk_speed: float) -> tuple[float, float]:
    """(amplitude in m, dominant frequency in Hz) of the shoulders' height above the chest
    over 16 s of an adult standing or walking at ``walk_speed`` m/s."""
    world = twig.World(seed=0)
    adult = world.add_humanoid("adult")
    if walk_speed:
        adult.walk((walk_speed, 0.0, 0.0))
    world.run(seconds=2.0)
    rise = []
    for _ in range(16 * 60):
        world.step()
        shoulders = 0.5 * (adult.node_position("l_shoulder") + adult.node_position("r_shoulder"))
        rise.append(shoulders[1] - adult.node_position("chest")[1])
    rise = np.array(rise) - np.mean(rise)
    freq = np.fft.rfftfreq(rise.size, world.dt)
    power = np.abs(np.fft.rfft(rise))
    band = (freq > 0.1) & (freq < 1.0)  # breathing, not the steps (about 2 Hz)
    return float(rise.std()), float(freq[band][power[band].argmax()])


def test_shoulders_breathe_and_breathe_faster_when_walking():
    still_amp, still_hz = breathing(0.0)
    walk_amp, walk_hz = breathing(1.3)
    assert 0.002 < still_amp < 0.02 and 0.002 < walk_amp < 0.02  # a few millimetres
    assert 0.15 < still_hz < 0.35                                  # about 15 breaths a minute
    assert walk_hz > 1.5 * still_hz
