"""The topic registry: topic definitions in a JSON file, validated on load, and synced into the catalog.

The bundled file (papertalk/data/topics.json) covers the demo corpus's field and its neighbours. Each
entry has a `name` and a `description`, and optionally a `slug` (default: from the name),
`abbreviations` ({"RL": "Reinforcement Learning"}), `keywords` (phrases whose presence in a title or
abstract is evidence), arXiv `categories`, `examples` (arXiv ids of papers that define the topic) and a
`threshold` (the assignment score a paper needs; default `ingest.topic_assign.THRESHOLD`).
A bad entry raises `ConfigurationError` naming the file, the entry and the field.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import papertalk
from ingest.text import normalise_arxiv_id
from papertalk.errors import ConfigurationError
from storage.topics import TopicDef, Topics, slugify

BUNDLED_TOPICS = Path(papertalk.__file__).parent / "data" / "topics.json"
FIELDS = {"name", "slug", "description", "abbreviations", "keywords", "categories", "examples", "threshold"}
SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
CATEGORY = re.compile(r"^[a-z-]+(\.[A-Za-z-]+)?$")
REGISTRY_META = "topic_registry_sha"


def _fail(source: Path | str, where: str, why: str) -> ConfigurationError:
    return ConfigurationError(f"{source}: {where}: {why}")


def _string_list(value: Any, path: Path | str, where: str, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise _fail(path, where, f"field '{key}' must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _abbreviations(value: Any, path: Path | str, where: str) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and k.strip() and isinstance(v, str) and v.strip() for k, v in value.items()
    ):
        raise _fail(path, where, 'field \'abbreviations\' must map short forms to long ones, e.g. {"RL": "…"}')
    return {k.strip(): v.strip() for k, v in value.items()}


def _examples(value: Any, path: Path | str, where: str) -> tuple[str, ...]:
    ids = _string_list(value, path, where, "examples")
    out = []
    for raw in ids:
        norm = normalise_arxiv_id(raw.removeprefix("arxiv:"))
        if not norm:
            raise _fail(path, where, f"field 'examples' holds {raw!r}, which is not an arXiv id")
        out.append(norm)
    return tuple(out)


def _threshold(value: Any, path: Path | str, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise _fail(path, where, "field 'threshold' must be a number between 0 and 1, e.g. 0.55")
    return float(value)


def parse_entry(
    entry: Any, path: Path | str, index: int, origin: str = "bundled", examples_given: bool = False
) -> TopicDef:
    """One registry entry → `TopicDef`; otherwise `ConfigurationError` naming `path` (the file, or the command
    the entry came from), the entry and the field. A topic defined by example papers needs no description
    (`examples_given`: the caller checked examples of its own)."""
    where = f"topic #{index + 1}"
    if not isinstance(entry, dict):
        raise _fail(path, where, "must be an object with at least 'name' and 'description'")
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _fail(path, where, "field 'name' must be a non-empty string")
    where = f"topic #{index + 1} ({name.strip()!r})"
    unknown = sorted(set(entry) - FIELDS)
    if unknown:
        raise _fail(path, where, f"unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(FIELDS))})")
    description = entry.get("description", "")
    defined_by_examples = examples_given or bool(entry.get("examples"))
    if not isinstance(description, str) or not (description.strip() or defined_by_examples):
        raise _fail(path, where, "field 'description' must be a non-empty string (or give example papers)")
    slug = entry.get("slug", slugify(name))
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise _fail(path, where, "field 'slug' must be lower-case words joined by '-', e.g. 'rl-for-llm-agents'")
    categories = _string_list(entry.get("categories"), path, where, "categories")
    bad = [c for c in categories if not CATEGORY.match(c)]
    if bad:
        raise _fail(path, where, f"field 'categories' holds {bad[0]!r}, which is not an arXiv category like 'cs.CL'")
    return TopicDef(
        slug=slug,
        name=name.strip(),
        description=" ".join(description.split()),
        abbreviations=_abbreviations(entry.get("abbreviations"), path, where),
        keywords=_string_list(entry.get("keywords"), path, where, "keywords"),
        categories=categories,
        examples=_examples(entry.get("examples"), path, where),
        origin=origin,
        threshold=_threshold(entry.get("threshold"), path, where),
    )


def load_registry(path: Path = BUNDLED_TOPICS) -> list[TopicDef]:
    """Every topic in a registry file, validated (unique slugs included)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigurationError(f"{path}: cannot read the topic registry ({exc})") from exc
    except json.JSONDecodeError as exc:
        raise ConfigurationError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from exc
    entries = data.get("topics") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ConfigurationError(f'{path}: the registry must be an object with a "topics" list')
    defs = [parse_entry(entry, path, i) for i, entry in enumerate(entries)]
    seen: dict[str, str] = {}
    for d in defs:
        if d.slug in seen:
            raise ConfigurationError(f"{path}: topics {seen[d.slug]!r} and {d.name!r} share the slug {d.slug!r}")
        seen[d.slug] = d.name
    return defs


def sync_bundled(topics: Topics, path: Path = BUNDLED_TOPICS) -> bool:
    """Put the bundled topics into the catalog when the file changed since the last sync; True if it did.

    A user topic with the same slug as a bundled one is left as the user defined it.
    """
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if topics.catalog.get_meta(REGISTRY_META) == digest:
        return False
    user = {d.slug for d in topics.definitions() if d.origin == "user"}
    topics.define([d for d in load_registry(path) if d.slug not in user])
    topics.catalog.set_meta(REGISTRY_META, digest)
    return True
