"""The catalog on PostgreSQL, behind the same interface as the SQLite one (storage/catalog.py).

Every storage module reaches the database through four methods (`query`, `transaction`, `executescript`,
`snapshot`); this class implements them over a small pool of psycopg connections (`pool_size`, each
thread holding one for the length of a call, or of a whole snapshot), translating SQLite's dialect
(storage/pg_sql.py). Write transactions take one advisory lock, so writers follow each other as they do
on SQLite and the catalog's bookkeeping (the chunks version and its change log) stays gap-free across
processes and machines. Reads run under READ COMMITTED; `snapshot` is REPEATABLE READ.

A connection lost to a PostgreSQL restart is replaced on the next call, and a call that failed before
its commit was sent is retried once on the new connection; while PostgreSQL is down every call raises
`StoreUnavailable` (an HTTP 503), and the catalog recovers by itself when it is back.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TypeVar
from urllib.parse import urlsplit

from papertalk.errors import ConfigurationError, StoreUnavailable
from storage.catalog import Catalog, with_bumps
from storage.pg_migrations import pg_migrate, pg_schema_version
from storage.pg_sql import Table, translate

WRITE_LOCK = 0x70617066  # advisory lock key every write transaction holds
KEEPALIVE = {"keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3}
T = TypeVar("T")


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise ConfigurationError(
            "a PostgreSQL catalog (PAPERTALK_CATALOG__URL) needs psycopg: pip install 'papertalk[postgres]'"
        ) from None
    return psycopg


class Row(tuple):  # a tuple that also answers to column names, as sqlite3.Row does
    _names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row._names = names
        return row

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(self._names[key] if isinstance(key, str) else key)

    def keys(self) -> list[str]:
        return list(self._names)


def _row_factory(cursor: Any) -> Any:
    names: dict[str, int] = {}
    for i, column in enumerate(cursor.description or []):
        names.setdefault(column.name, i)
    return lambda values: Row(values, names)


def where_of(url: str) -> str:
    """host:port/database of a PostgreSQL URL, without the user name or password."""
    parts = urlsplit(url)
    return f"{parts.hostname or 'localhost'}:{parts.port or 5432}{parts.path or '/'}"


class PgCatalog(Catalog):
    """The catalog in a PostgreSQL database given by URL (`postgresql://user:password@host:port/db`)."""

    def __init__(self, url: str, connect_timeout_s: float = 10.0, pool_size: int = 4) -> None:
        self.url, self.where = url, where_of(url)
        self.path = None  # type: ignore[assignment]  # no file: the catalog lives in the server
        self._timeout = max(1, round(connect_timeout_s))
        self._local = _Held()  # per thread: the connection it holds, and where its call stands
        self._pool_size = pool_size
        self._slots = threading.BoundedSemaphore(pool_size)
        self._idle: list[Any] = []  # open connections no thread holds
        self._idle_lock = threading.Lock()
        self._sql: dict[str, str] = {}
        with self._held():
            pg_migrate(self._connection(), self.where)
            self._tables = self._read_tables()

    # --- the connections --------------------------------------------------------------------------
    @contextmanager
    def _held(self) -> Iterator[None]:
        """This thread holds a connection of the pool for the block (the one it holds already, if any)."""
        if self._local.holding:
            yield
            return
        if not self._slots.acquire(timeout=self._timeout * 3):
            raise StoreUnavailable(
                f"all {self._pool_size} connections to the PostgreSQL catalog at {self.where} stayed busy: "
                "retry, or raise PAPERTALK_CATALOG__POOL_SIZE"
            )
        with self._idle_lock:
            self._local.conn = self._idle.pop() if self._idle else None
        self._local.holding = True
        try:
            yield
        finally:
            conn, self._local.conn, self._local.holding = self._local.conn, None, False
            if conn is not None and not conn.closed:
                with self._idle_lock:
                    self._idle.append(conn)
            self._slots.release()

    @property
    def _conn(self) -> Any:
        return self._local.conn

    def _connection(self) -> Any:
        if self._conn is None or self._conn.closed:
            psycopg = _psycopg()
            try:
                self._local.conn = psycopg.connect(
                    self.url,
                    autocommit=True,
                    connect_timeout=self._timeout,
                    row_factory=_row_factory,
                    **KEEPALIVE,  # a server gone without closing the socket is noticed within a minute
                )
            except psycopg.OperationalError as exc:
                raise StoreUnavailable(
                    f"cannot reach the PostgreSQL catalog at {self.where} ({_first_line(exc)}): start PostgreSQL "
                    "or fix PAPERTALK_CATALOG__URL, then retry"
                ) from None
        return self._local.conn

    def _lost(self, exc: Exception) -> StoreUnavailable:
        self._drop()
        return StoreUnavailable(
            f"lost the PostgreSQL catalog at {self.where} ({type(exc).__name__}: {_first_line(exc)}): check that "
            "PostgreSQL is running, then retry"
        )

    def _drop(self) -> None:
        if self._conn is not None:
            with suppress(Exception):  # already broken: nothing more to release
                self._conn.close()
        self._local.conn = None

    def _guarded(self, call: Any, retry: bool) -> Any:
        """Run `call(connection)`; a lost connection is replaced and, when `retry`, the call run once more."""
        psycopg = _psycopg()
        for attempt in (1, 2):
            self._local.committing = False
            try:
                return call(self._connection())
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                if self._conn is not None and not self._conn.closed and not self._conn.broken:
                    raise  # a statement error (a timeout, a lock), not a lost server
                if not retry or attempt == 2 or self._local.in_snapshot or self._local.committing:
                    raise self._lost(exc) from None
                self._drop()
        raise AssertionError("unreachable")

    def _read_tables(self) -> dict[str, Table]:
        sql = (
            "SELECT c.table_name, c.column_name, (k.ordinal_position IS NOT NULL) AS is_key, k.ordinal_position "
            "FROM information_schema.columns c LEFT JOIN ("
            "  SELECT u.table_name, u.column_name, u.ordinal_position FROM information_schema.key_column_usage u "
            "  JOIN information_schema.table_constraints t ON t.constraint_name = u.constraint_name "
            "  AND t.table_schema = u.table_schema WHERE t.constraint_type = 'PRIMARY KEY'"
            ") k ON k.table_name = c.table_name AND k.column_name = c.column_name "
            "WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position"
        )
        columns: dict[str, list[str]] = {}
        keys: dict[str, list[tuple[int, str]]] = {}
        for table, column, is_key, position in self._connection().execute(sql).fetchall():
            columns.setdefault(table, []).append(column)
            if is_key:
                keys.setdefault(table, []).append((position, column))
        return {t: Table(tuple(cols), tuple(c for _, c in sorted(keys.get(t, [])))) for t, cols in columns.items()}

    def _translate(self, sql: str) -> str:
        done = self._sql.get(sql)
        if done is None:
            done = self._sql[sql] = translate(sql, self._tables)
        return done

    # --- the four ways in -------------------------------------------------------------------------
    @property
    def schema_version(self) -> int:
        with self._held():
            return int(self._guarded(pg_schema_version, retry=True))

    def close(self) -> None:
        """Close the idle connections (and this thread's); a call after this opens new ones."""
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            with suppress(Exception):  # closing is all that is left to do with it
                conn.close()
        self._drop()

    def query(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[Any]:
        text = self._translate(sql)
        with self._held():
            return list(self._guarded(lambda conn: conn.execute(text, tuple(params)).fetchall(), retry=True))

    def transaction(self, statements: Iterable[tuple[str, Any]]) -> None:
        """Run (sql, params) pairs in one write transaction; a list of params means executemany; with the
        version bumps of `with_bumps`."""
        work = [(self._translate(sql), params) for sql, params in with_bumps(statements)]
        with self._held():
            self._guarded(lambda conn: self._write(conn, work), retry=True)

    def _write(self, conn: Any, work: list[tuple[str, Any]]) -> None:
        with conn.transaction(), conn.cursor() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            for sql, params in work:
                if params and isinstance(params, list):
                    cur.executemany(sql, params)
                else:
                    cur.execute(sql, tuple(params or ()))
            self._local.committing = True  # leaving the block sends COMMIT: lost now, it may have landed

    def executescript(self, script: str) -> None:
        statements = [(s.strip(), ()) for s in script.split(";") if s.strip()]
        self.transaction(statements)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Queries inside the block see one state of the database, whatever other processes commit meanwhile."""
        with self._held():
            conn = self._guarded(_alive, retry=True)  # a pooled connection may have died while idle
            psycopg = _psycopg()
            try:
                with conn.transaction():
                    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    self._local.in_snapshot = True
                    try:
                        yield
                    finally:
                        self._local.in_snapshot = False
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                raise self._lost(exc) from None


def _alive(conn: Any) -> Any:
    """`conn`, once a round trip shows the server still has it (a dead one raises, and is replaced)."""
    conn.execute("SELECT 1")
    return conn


class _Held(threading.local):
    conn: Any = None
    holding = False
    in_snapshot = False
    committing = False  # set by a write once its COMMIT is being sent: then it is not retried


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
