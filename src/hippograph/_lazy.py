"""Lazy package namespaces: a package lists its public names in a ``{name: (module, attr)}``
table and gets its module ``__getattr__`` and ``__dir__`` from :func:`lazy_exports`. A name's
module is imported on first use and the value cached in the package's globals, so later
lookups never reach ``__getattr__`` again.

A package that renamed a public name passes ``moved`` (``{old: (module, attr)}``): the old
name still resolves, with a :class:`DeprecationWarning` naming where it lives now. Moved
names are not cached (each use warns) and stay out of ``__dir__``.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["import_attr", "lazy_exports"]

Target = tuple[str, str]
"""``(module, attribute)``: where a name lives."""


def import_attr(module: str, attr: str) -> Any:
    """``module.attr``, importing ``module`` first."""
    return getattr(import_module(module), attr)


def lazy_exports(
    package: str, exports: Mapping[str, Target], *, moved: Mapping[str, Target] | None = None
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package`` (its ``__name__``) for the
    names in ``exports``; ``moved`` maps renamed names to where they live now."""
    renamed = dict(moved or {})

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is not None:
            value = import_attr(*target)
            vars(sys.modules[package])[name] = value
            return value
        target = renamed.get(name)
        if target is not None:
            module, attr = target
            warnings.warn(f"{package}.{name} is deprecated; use {module}.{attr}", DeprecationWarning, stacklevel=2)
            return import_attr(module, attr)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
