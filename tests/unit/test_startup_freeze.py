"""A long-running server keeps its start-up objects out of Python's full collections: garbage
is collected first (nothing unreachable is kept for good), the rest frozen, and what is made
afterwards is still collected."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from hippograph.app.runtime import freeze_startup_objects


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the rest of the test run collects as before


def cycle() -> weakref.ref[Node]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_start_up_objects_are_frozen_and_earlier_garbage_is_not(unfrozen: None) -> None:
    garbage = cycle()  # unreachable, only a collection frees it
    freeze_startup_objects()
    assert garbage() is None, "garbage of start-up was frozen instead of collected"
    assert gc.get_freeze_count() > 0
    later = cycle()  # made after start-up: the collector still frees it
    gc.collect()
    assert later() is None
