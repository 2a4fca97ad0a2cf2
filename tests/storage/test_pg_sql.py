"""The SQLite-dialect statements of the catalog as the PostgreSQL catalog sends them (no server needed;
tests/scaleout runs them on a real PostgreSQL)."""

from __future__ import annotations

from storage.migrations import MIGRATIONS
from storage.pg_migrations import PG_MIGRATIONS
from storage.pg_sql import Table, translate

TABLES = {
    "meta": Table(("key", "value"), ("key",)),
    "topic_centroids": Table(("slug", "total", "n"), ("slug",)),
    "papers": Table(("paper_id", "doi", "status"), ("paper_id",)),
}


def test_placeholders_and_percent_signs_outside_and_inside_literals() -> None:
    sql = "SELECT * FROM papers WHERE title LIKE ? ESCAPE '\\' AND note = '50%' AND id = ?"
    assert translate(sql, TABLES) == (
        "SELECT * FROM papers WHERE title ILIKE %s ESCAPE '\\' AND note = '50%%' AND id = %s"
    )


def test_question_mark_inside_a_literal_stays() -> None:
    assert translate("SELECT 'why?' , ?", TABLES) == "SELECT 'why?' , %s"


def test_insert_or_ignore_and_or_replace_become_upserts_on_the_primary_key() -> None:
    assert translate("INSERT OR IGNORE INTO meta(key, value) VALUES(?, ?)", TABLES) == (
        "INSERT INTO meta(key, value) VALUES(%s, %s) ON CONFLICT DO NOTHING"
    )
    assert translate("INSERT OR REPLACE INTO topic_centroids(slug, total, n) VALUES(?, ?, ?)", TABLES) == (
        "INSERT INTO topic_centroids(slug, total, n) VALUES(%s, %s, %s) "
        "ON CONFLICT (slug) DO UPDATE SET total = excluded.total, n = excluded.n"
    )


def test_bare_columns_in_do_update_are_qualified_and_scalar_max_is_greatest() -> None:
    bump = (
        "INSERT INTO meta(key, value) VALUES('v', '1') "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
    )
    assert translate(bump, TABLES).endswith("DO UPDATE SET value = CAST(meta.value AS INTEGER) + 1")
    floor = (
        "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE "
        "SET value = MAX(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))"
    )
    assert translate(floor, TABLES).endswith(
        "SET value = GREATEST(CAST(meta.value AS INTEGER), CAST(excluded.value AS INTEGER))"
    )
    upsert = (
        "INSERT INTO papers(paper_id, doi) VALUES(?, ?) "
        "ON CONFLICT(paper_id) DO UPDATE SET doi = COALESCE(excluded.doi, doi)"
    )
    assert translate(upsert, TABLES).endswith("SET doi = COALESCE(excluded.doi, papers.doi)")
    assert translate("SELECT MAX(published) FROM papers", TABLES) == "SELECT MAX(published) FROM papers"


def test_sqlite_functions_hints_and_null_order() -> None:
    sql = "SELECT group_concat(paper_id, char(31)) FROM papers WHERE +status = 'indexed' ORDER BY published DESC"
    assert translate(sql, TABLES) == (
        "SELECT string_agg(paper_id, chr(31)) FROM papers WHERE status = 'indexed' ORDER BY published DESC NULLS LAST"
    )


def test_postgres_has_every_migration_under_the_same_number() -> None:
    assert len(PG_MIGRATIONS) == len(MIGRATIONS)
    for sqlite_step, pg_step in zip(MIGRATIONS, PG_MIGRATIONS, strict=True):
        assert sqlite_step.__name__ == pg_step.__name__
