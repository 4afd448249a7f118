"""One error hierarchy for the whole library.

    HippographError
    ├── InvalidInputError (also ValueError) ─ the caller's mistake; names the field; nothing written
    │   ├── InvalidScopeError
    │   └── InvalidQueryError
    ├── NotFoundError (also LookupError)     ─ the id names nothing visible from the scope
    ├── ConflictError                        ─ the state forbids it now (a lease is held, …)
    │   └── AlreadyRunningError
    ├── ConfigurationError                   ─ settings or environment cannot work
    │   └── MissingExtraError (also ImportError) ─ an optional package is missing; names the extra
    └── StoreError                           ─ the database failed; ``retryable`` says if a retry may help
        ├── StoreUnavailableError            ─ the database cannot be reached; names the URI
        └── StoreFailedError                 ─ the database itself broke (a full disk); needs an operator

Caller errors are raised before anything is written. Store errors never carry query
parameters (user content) in their message. :func:`validation_errors` is the one place where a
pydantic error becomes an :class:`InvalidInputError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pydantic import ValidationError


class HippographError(Exception):
    """Base of every error hippograph raises on purpose."""


class InvalidInputError(HippographError, ValueError):
    """Bad input from the caller. ``field`` names what was wrong."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


class InvalidScopeError(InvalidInputError):
    """A scope path, kind or id that cannot be used."""


class InvalidQueryError(InvalidInputError):
    """A recall or search request that cannot be run."""


class NotFoundError(HippographError, LookupError):
    """The id names nothing visible from the scope."""


class ConflictError(HippographError):
    """The current state forbids the operation."""


class AlreadyRunningError(ConflictError):
    """Another run holds the lease on this scope."""


class ConfigurationError(HippographError):
    """Settings or environment that cannot work."""


class BulkImportError(HippographError):
    """Neo4j's offline importer failed on the files it was given; the database folder is as it
    was before (the importer writes a new database only when it succeeds)."""


class MissingExtraError(ConfigurationError, ImportError):
    """An optional package is not installed. ``extra`` names the extra that brings it and
    ``install`` the command to run, e.g. ``pip install 'hippograph[embeddings]'``."""

    def __init__(self, module: str, extra: str) -> None:
        self.module = module
        self.extra = extra
        self.install = f"pip install 'hippograph[{extra}]'"
        super().__init__(f"{module} is not installed; it comes with the [{extra}] extra: {self.install}")


class StoreError(HippographError):
    """The database failed. ``retryable`` is True when a retry may succeed."""

    def __init__(self, message: str, *, retryable: bool = False) -> None:
        self.retryable = retryable
        super().__init__(message)


class StoreUnavailableError(StoreError):
    """The database cannot be reached at ``uri``."""

    def __init__(self, uri: str, reason: str) -> None:
        self.uri = uri
        super().__init__(f"Neo4j is not reachable at {uri}: {reason}", retryable=True)


class StoreFailedError(StoreError):
    """The database failed inside itself (Neo4j's ``DatabaseError`` class): most often its disk
    is full, so it could not write its store or transaction log, and Neo4j then refuses every
    transaction until it is restarted. Not retryable: nothing helps until an operator frees
    space and restarts the server. The write in flight may have reached the transaction log
    and be applied by the restart's recovery, so it is either wholly there or wholly absent;
    repeat it once the database is back (ingest and upserts by id are idempotent). ``code`` is
    Neo4j's status code."""

    def __init__(self, code: str, reason: str) -> None:
        self.code = code
        super().__init__(
            f"Neo4j failed to write or read its store ({code}: {reason}); a full or failing disk under its data "
            "folder is the usual cause: free space, then restart Neo4j (`hippograph doctor` checks the local "
            "data folder); the write in flight is either wholly applied or absent after the restart: repeat it then",
            retryable=False,
        )


@contextmanager
def validation_errors(prefix: str = "", *, empty: str = "fields", depth: int | None = None) -> Iterator[None]:
    """Turn the first pydantic error raised inside the block into an InvalidInputError naming the
    field: ``prefix.loc`` (``loc`` cut to ``depth`` parts; ``empty`` when the error has no loc),
    e.g. ``with validation_errors("updates", depth=1): MemoryNode.model_validate(data)``.
    """
    try:
        yield
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = err["loc"] if depth is None else err["loc"][:depth]
        field = ".".join(str(p) for p in loc) or empty
        raise InvalidInputError(f"{prefix}.{field}" if prefix else field, err["msg"]) from None
