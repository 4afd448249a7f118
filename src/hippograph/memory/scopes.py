"""The scope forms a memory capability accepts.

A host may hold its scope as a :class:`~hippograph.scope.Scope`, as its key string
(``"org:acme/user:bob"``), as a root-first path (``[("org", "acme"), ("user", "bob")]`` or
``[{"kind": "org", "id": "acme"}, ...]``), or as its own scope type that converts itself
(``to_scope()``) or carries such a path (``levels`` or ``path``). These are spellings of one
identity; :func:`as_scope` reads each of them, so the translation lives here and not in every
host.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hippograph.errors import InvalidScopeError
from hippograph.scope import Scope

__all__ = ["as_scope"]


def as_scope(value: Any) -> Scope:
    """The :class:`Scope` that ``value`` spells.

    ``to_scope()`` is tried first and its result is checked (it must be a ``Scope``); then a
    ``levels`` or ``path`` attribute is read as a root-first path.

    Raises:
        InvalidScopeError: ``value`` is none of the accepted forms, or spells an invalid scope.
    """
    if isinstance(value, Scope):
        return value
    if isinstance(value, str):
        return Scope.parse(value)
    convert = getattr(value, "to_scope", None)
    if callable(convert):
        converted = convert()
        if isinstance(converted, Scope):
            return converted
    for attribute in ("levels", "path"):
        path = getattr(value, attribute, None)
        if path is not None and not isinstance(path, str):
            return _from_path(path)
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return _from_path(value)
    raise InvalidScopeError(
        "scope", f"{type(value).__name__} is neither a Scope nor a key, a path or a scope that converts to one"
    )


def _from_path(path: Any) -> Scope:
    if not isinstance(path, Sequence) or not path:
        raise InvalidScopeError("scope", "a scope path must be a non-empty sequence of (kind, id) levels")
    levels: list[Any] = []
    for level in path:
        if isinstance(level, dict) or (isinstance(level, Sequence) and not isinstance(level, str)):
            levels.append(level)
        else:  # a level object: ScopeLevel-like, with kind and id attributes
            levels.append((getattr(level, "kind", None), getattr(level, "id", None)))
    return Scope.from_path(levels)
