"""Domain errors whose messages tell the user what to do next.

They are raised by the libraries (ingest, storage, assistant) and turned into messages at the boundary
only: one CLI line, or an HTTP problem response (`api/errors.py`).
"""

from __future__ import annotations


class PapertalkError(Exception):
    """Base class: the message is meant for a person and says how to proceed."""


class ConfigurationError(PapertalkError):
    """A setting is missing or inconsistent."""


class EmbeddingModelMismatch(PapertalkError):
    """The vector store was built with another embedding model than the one configured."""


class StoreUnavailable(PapertalkError):
    """The vector store (e.g. a Chroma server) cannot be reached."""


class SourceError(PapertalkError):
    """One input (file, line, record, remote id) could not be read; the rest of a run goes on."""

    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")
        self.where = where
        self.why = why


class NetworkError(PapertalkError):
    """A remote service (arXiv, an LLM server) could not be reached or answered badly."""


class NotFound(PapertalkError):
    """A paper, topic or chat that the user named does not exist."""


class InvalidQuestion(PapertalkError):
    """A question that cannot be asked, such as an empty one."""


class NothingIndexed(PapertalkError):
    """The store holds no indexed paper yet, so there is nothing to answer from."""


DISK_FULL_WORDS = ("disk is full", "no space left on device", "disk quota exceeded")


def is_disk_full(exc: BaseException) -> bool:
    """Whether `exc`, or an error it came from, says the disk (or quota) is full: SQLite, Chroma or the OS."""
    import errno

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if any(words in str(seen).lower() for words in DISK_FULL_WORDS):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def disk_full_message(where: object) -> str:
    return (
        f"the disk holding {where} is full: free some space (or point PAPERTALK_DATA_DIR elsewhere) and run the "
        "command again; what was stored before is intact, and an interrupted ingest picks up where it stopped"
    )
