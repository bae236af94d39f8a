"""The project's own exception tree.

Adapters translate driver errors into these at their boundary, so callers never catch a vendor's
exception type and never match on message text. Imports nothing but the standard library.
"""

from __future__ import annotations


class ExplorerError(Exception):
    """Base of every error the project raises on purpose."""


class InvalidArgument(ExplorerError, ValueError):
    """A caller passed a value the contract does not accept; nothing reached a store."""


class StoreUnavailable(ExplorerError):
    """A store could not be reached, refused the connection, or failed to start."""


class StoreTimeout(StoreUnavailable):
    """A store did not answer within its deadline (frozen, overloaded or partitioned)."""


class MemoryUnavailable(StoreUnavailable):
    """The coordinator's candidate source is unreachable: the recall cannot be made.

    Distinct from an empty result, which means "this scope remembers nothing".
    """


class EmbeddingMismatch(ExplorerError):
    """A vector's model or dimension differs from the one the chunk store was built with."""


class ImportFormatError(ExplorerError):
    """An import file is malformed; the message names the file and the line or record."""


class WriteFailed(ExplorerError):
    """A write was not acknowledged; it must never be reported as a success."""


class ModelServiceError(ExplorerError):
    """A hosted model (embedding or extraction) refused or failed a request."""


class ModelServiceUnavailable(ModelServiceError, StoreUnavailable):
    """The model service kept failing (rate limits, server errors, timeouts) past its retries.

    A transport failure like a store's, so a caller that degrades on ``StoreUnavailable`` does so
    here too.
    """


class CredentialsRejected(ModelServiceError):
    """The service refused the API key; retrying cannot help. The message never holds the key."""


class ReadOnlyStore(ExplorerError):
    """A write was asked of a memory that is opened read-only (a graphiti graph); nothing was
    written."""


class MemoryBusy(ExplorerError):
    """The memory is in the middle of another write (an import, the demo load, a forget) that
    this one may not run beside; nothing was changed. Try again once it is done."""
