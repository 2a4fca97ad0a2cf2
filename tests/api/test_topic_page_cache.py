"""The topic page is kept built between requests and rebuilt once the catalog changes, whichever process
changed it: an ingest through another store, a follow from the CLI in another process."""

from __future__ import annotations

from pathlib import Path

from papertalk.settings import Settings
from storage.store import Store
from tests.api import test_topics
from tests.api.conftest import client_for
from tests.assistant.test_overview import ingest_new
from tests.helpers.cli import run_cli

SLUG = test_topics.SLUG
own_dir = test_topics.own_dir  # the fixture: a private copy of the session corpus


def test_an_ingest_by_another_store_shows_on_the_next_page(own_dir: Path, tmp_path: Path) -> None:
    with client_for(own_dir) as client:
        first = client.get(f"/api/topics/{SLUG}").json()
        assert client.get(f"/api/topics/{SLUG}").json() == first  # served again, unchanged
        writer = Store(Settings(data_dir=own_dir))  # another connection, as another worker would hold
        new = ingest_new(writer, 30, 3, tmp_path)
        writer.close()
        after = client.get(f"/api/topics/{SLUG}").json()
        everything = client.get(f"/api/topics/{SLUG}", params={"limit": 50}).json()["latest"]["items"]
    assert (first["papers"], after["papers"]) == (30, 33)
    assert after["latest"]["total"] == 33
    assert set(new) <= {p["paper_id"] for p in everything}


def test_a_follow_from_the_cli_in_another_process_shows_on_the_next_page(own_dir: Path, tmp_path: Path) -> None:
    with client_for(own_dir) as client:
        assert client.get(f"/api/topics/{SLUG}").json()["followed"] is False
        result = run_cli("--data-dir", own_dir, "topics", "follow", SLUG, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert client.get(f"/api/topics/{SLUG}").json()["followed"] is True
        assert client.delete(f"/api/topics/{SLUG}/follow").json()["changed"] is True
        assert client.get(f"/api/topics/{SLUG}").json()["followed"] is False
