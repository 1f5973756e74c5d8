"""Bulk building of many small long-lived objects without the cyclic garbage collector.

Assembling or exporting 100,000 conversations makes millions of dicts, lists and strings
that all live until the end. CPython's collector walks the growing heap again and again
while they are built (measured: export twice as slow, assembly a fifth slower at 100,000
conversations). These objects hold no reference cycles, so pausing the collector for the
build loses nothing; it is switched back on (if it was on) when the block ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
