"""The catalog's SQL (written for SQLite) as PostgreSQL runs it.

The storage modules write one dialect: SQLite's, with `?` placeholders. The PostgreSQL catalog passes
every statement through `translate`, which rewrites the few places where the two differ:

- `?` becomes `%s` (and a literal `%` becomes `%%`), psycopg's placeholder;
- `INSERT OR IGNORE` becomes `ON CONFLICT DO NOTHING`, `INSERT OR REPLACE` an upsert on the primary key;
- inside `DO UPDATE SET`, a bare column of the target table is qualified with the table's name
  (PostgreSQL finds `value` ambiguous between the stored row and `excluded`);
- scalar `MAX(a, b)` becomes `GREATEST(a, b)`, `group_concat` becomes `string_agg`, `char(31)` `chr(31)`;
- `LIKE` becomes `ILIKE` (SQLite's LIKE ignores ASCII case), `DESC` sorts NULLs last as SQLite does;
- `+column` (a SQLite hint to skip an index) loses its `+`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    key: tuple[str, ...]  # primary key columns, in order


_STRING = re.compile(r"'(?:[^']|'')*'")
_INSERT_OR = re.compile(r"^\s*INSERT\s+OR\s+(IGNORE|REPLACE)\s+INTO\s+(\w+)\s*\(([^)]*)\)", re.IGNORECASE | re.DOTALL)
_UPDATE_SET = re.compile(r"\bDO\s+UPDATE\s+SET\b", re.IGNORECASE)
_INSERT_TABLE = re.compile(r"^\s*INSERT\s+INTO\s+(\w+)", re.IGNORECASE)
_WORDS = [
    (re.compile(r"\bgroup_concat\(", re.IGNORECASE), "string_agg("),
    (re.compile(r"\bchar\(31\)", re.IGNORECASE), "chr(31)"),
    (re.compile(r"(?<!I)\bLIKE\b"), "ILIKE"),
    (re.compile(r"\bDESC\b(?!\s+NULLS)"), "DESC NULLS LAST"),
    (re.compile(r"(WHERE|AND|OR)\s+\+(?=[a-z_])", re.IGNORECASE), r"\1 "),
]


def translate(sql: str, tables: Mapping[str, Table]) -> str:
    """`sql` in SQLite's dialect, as PostgreSQL (through psycopg) runs it."""
    parts = _split_strings(sql)
    code = "\x00".join(parts[0::2])  # the SQL outside string literals, literals replaced by a marker
    code = _insert_or(code, tables)
    code = _qualify_update(code, tables)
    code = _scalar_max(code)
    for pattern, replacement in _WORDS:
        code = pattern.sub(replacement, code)
    code = code.replace("%", "%%").replace("?", "%s")
    pieces = code.split("\x00")
    literals = [s.replace("%", "%%") for s in parts[1::2]]
    return "".join(p + (literals[i] if i < len(literals) else "") for i, p in enumerate(pieces))


def _split_strings(sql: str) -> list[str]:
    """Alternating code and string literals: code, 'literal', code, 'literal', …, code."""
    out, last = [], 0
    for m in _STRING.finditer(sql):
        out += [sql[last : m.start()], m.group(0)]
        last = m.end()
    return [*out, sql[last:]]


def _insert_or(code: str, tables: Mapping[str, Table]) -> str:
    m = _INSERT_OR.match(code)
    if not m:
        return code
    verb, table, cols = m.group(1).upper(), m.group(2), [c.strip() for c in m.group(3).split(",")]
    head = f"INSERT INTO {table}({', '.join(cols)})"
    rest = code[m.end() :].rstrip().rstrip(";")
    info = tables.get(table)
    if verb == "IGNORE" or info is None or not info.key:
        return f"{head}{rest} ON CONFLICT DO NOTHING"
    updates = [f"{c} = excluded.{c}" for c in cols if c not in info.key]
    action = f"DO UPDATE SET {', '.join(updates)}" if updates else "DO NOTHING"
    return f"{head}{rest} ON CONFLICT ({', '.join(info.key)}) {action}"


def _qualify_update(code: str, tables: Mapping[str, Table]) -> str:
    """In `DO UPDATE SET a = expr, …`, write the target table's bare columns in `expr` as `table.column`."""
    m, target = _UPDATE_SET.search(code), _INSERT_TABLE.match(code)
    if not m or not target or target.group(1) not in tables:
        return code
    table = target.group(1)
    names = "|".join(sorted(tables[table].columns, key=len, reverse=True))
    bare = re.compile(rf"(?<![\w.])({names})\b(?!\s*\()")
    assignments = _top_level_split(code[m.end() :])
    fixed = []
    for assignment in assignments:
        column, sep, expr = assignment.partition("=")
        fixed.append(column + sep + bare.sub(rf"{table}.\1", expr) if sep else assignment)
    return code[: m.end()] + ",".join(fixed)


def _top_level_split(text: str) -> list[str]:
    """`text` cut at the commas outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def _scalar_max(code: str) -> str:
    """`MAX(a, b)` (SQLite's scalar max, two or more arguments) as `GREATEST(a, b)`; `MAX(x)` stays."""
    out, pos = [], 0
    for m in re.finditer(r"\bMAX\(", code, re.IGNORECASE):
        depth, end = 1, m.end()
        while end < len(code) and depth:
            depth += (code[end] == "(") - (code[end] == ")")
            end += 1
        if len(_top_level_split(code[m.end() : end - 1])) > 1:
            out += [code[pos : m.start()], "GREATEST("]
            pos = m.end()
    return "".join(out) + code[pos:]
