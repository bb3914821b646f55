import gc

import pytest

from twig.bench.timing import gc_paused


def test_the_collector_is_paused_inside_and_as_it_was_after():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError("a failed timing run")
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # left off by its owner
    finally:
        gc.enable()
