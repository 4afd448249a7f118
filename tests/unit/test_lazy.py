"""The one lazy-import helper behind every package's front door."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest

from hippograph._lazy import lazy_exports

pytestmark = pytest.mark.unit


@pytest.fixture
def package() -> Iterator[types.ModuleType]:
    module = types.ModuleType("lazy_probe")
    module.__getattr__, module.__dir__ = lazy_exports(  # type: ignore[method-assign]
        "lazy_probe", {"Path": ("pathlib", "PurePosixPath")}, moved={"OldPath": ("pathlib", "PurePosixPath")}
    )
    sys.modules["lazy_probe"] = module
    yield module
    del sys.modules["lazy_probe"]


def test_a_name_resolves_on_first_use_and_is_cached_in_the_module(package: types.ModuleType) -> None:
    import pathlib

    assert "Path" not in vars(package)
    assert package.Path is pathlib.PurePosixPath
    assert vars(package)["Path"] is pathlib.PurePosixPath


def test_dir_is_the_table_without_moved_names(package: types.ModuleType) -> None:
    assert dir(package) == ["Path"]


def test_a_moved_name_still_resolves_and_warns_each_time(package: types.ModuleType) -> None:
    import pathlib

    for _ in range(2):
        with pytest.warns(DeprecationWarning, match=r"lazy_probe\.OldPath is deprecated; use pathlib\.PurePosixPath"):
            assert package.OldPath is pathlib.PurePosixPath
    assert "OldPath" not in vars(package)


def test_an_unknown_name_is_an_attribute_error(package: types.ModuleType) -> None:
    with pytest.raises(AttributeError, match="'lazy_probe' has no attribute 'Nope'"):
        _ = package.Nope
