"""Settings problems as one line a person can act on: misspelt `PAPERTALK_` names, values out of range,
`.env` lines that cannot be read. Each raises (or builds the message of) a `ConfigurationError`.

A `.env` file is shared with other tools: names without the `PAPERTALK_` prefix are not ours to judge.
"""

from __future__ import annotations

import difflib
import io
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel, SecretStr, ValidationError
from pydantic.fields import FieldInfo

from papertalk.errors import ConfigurationError

PREFIX = "PAPERTALK_"
NESTED = "__"
# PAPERTALK_ variables read by papertalk's own tools that are not settings.
NOT_SETTINGS = frozenset(
    {
        "PAPERTALK_SHARED",  # bench/common.py: where the benchmarks find the shared data
        "PAPERTALK_API_KEY",  # api/security.py: the short name of PAPERTALK_API__KEY
        "PAPERTALK_TEST_WORKERS",  # scripts/test.sh: how many pytest-xdist workers run the fast suite
    }
)
_NAME = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=")


def setting_names(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """Every `PAPERTALK_` variable the settings read (upper case) with its field; a group's own name too."""
    names: dict[str, FieldInfo] = {}
    for name, field in model.model_fields.items():
        if field.validation_alias is not None:  # a standard name such as OPENAI_API_KEY
            continue
        names[PREFIX + name.upper()] = field
        group = field.annotation
        if isinstance(group, type) and issubclass(group, BaseModel):
            for sub, sub_field in group.model_fields.items():
                names[f"{PREFIX}{name.upper()}{NESTED}{sub.upper()}"] = sub_field
    return names


def read_dotenv(path: Path) -> dict[str, str]:
    """The NAME=value pairs of a `.env` file (none if there is no file); an unreadable line raises."""
    from dotenv.parser import parse_stream

    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"{path} cannot be read ({exc}): fix or remove it") from None
    values: dict[str, str] = {}
    for binding in parse_stream(io.StringIO(text)):
        if binding.error:  # the line's value is never shown: it may be a secret
            named = _NAME.match(binding.original.string)
            what = f" ({named.group(1)})" if named else ""
            raise ConfigurationError(
                f"{path} line {binding.original.line}{what} is not NAME=value (an unclosed quote?): fix or remove it"
            )
        if binding.key is not None:
            values[binding.key] = binding.value or ""
    return values


def check_names(model: type[BaseModel], environ: Mapping[str, str], dotenv: Mapping[str, str]) -> None:
    """Raise naming every `PAPERTALK_` variable (in the environment or `.env`) that is not a setting."""
    known = setting_names(model)
    seen = {name.upper() for name in environ}
    named = [(name, "") for name in environ] + [(n, " (in .env)") for n in dotenv if n.upper() not in seen]
    problems = [
        f"{name}{where} is not a papertalk setting: {_suggest(name.upper(), known)}"
        for name, where in named
        if name.upper().startswith(PREFIX) and name.upper() not in known and name.upper() not in NOT_SETTINGS
    ]
    if problems:
        raise ConfigurationError("; ".join(problems))


def _suggest(name: str, known: Mapping[str, FieldInfo]) -> str:
    """A close match if there is one, and the names that exist where `name` was aimed."""
    group, nested, _ = name.removeprefix(PREFIX).partition(NESTED)
    fields = [k.split(NESTED, 1)[1] for k in known if k.startswith(f"{PREFIX}{group}{NESTED}")]
    if nested and fields:
        choices = f"the {group} settings are {', '.join(fields)}"
    else:
        groups = sorted({k.removeprefix(PREFIX).split(NESTED)[0] for k in known if NESTED in k})
        plain = [k for k in known if NESTED not in k and k.removeprefix(PREFIX) not in groups]
        choices = f"use {', '.join(plain)} or {PREFIX}<GROUP>{NESTED}<NAME> with GROUP one of {', '.join(groups)}"
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.8)
    return f"did you mean {close[0]}? ({choices})" if close else choices


def describe_invalid(model: type[BaseModel], exc: ValidationError, dotenv: Mapping[str, str]) -> str:
    """One line for all the values pydantic refused, each with its variable and what it may be."""
    known = setting_names(model)
    from_dotenv = {n.upper() for n in dotenv}
    parts = []
    for error in exc.errors():
        name = _variable(error["loc"], known)
        field = known.get(name)
        if error["type"] == "extra_forbidden":
            parts.append(f"{name} is not a papertalk setting: {_suggest(name, known)}")
            continue
        secret = field is not None and SecretStr in get_args(field.annotation)
        value = "'…'" if secret else repr(error["input"])
        where = " (in .env)" if name in from_dotenv else ""
        msg = error["msg"].removeprefix("Value error, ")  # a validator's own message says what to use
        allowed = (_allowed(field) if field else "") or msg[:1].lower() + msg[1:]
        parts.append(f"{name}={value}{where} is not allowed: {allowed}")
    return "; ".join(parts)


def describe_unparsable(model: type[BaseModel], exc: Exception) -> str:
    """pydantic-settings could not decode a group's variable (it expects a JSON object there)."""
    match = re.search(r'field "(\w+)"', str(exc))
    name = PREFIX + (match.group(1).upper() if match else "")
    fields = [k for k in setting_names(model) if k.startswith(name + NESTED)]
    example = f", e.g. {fields[0]}" if fields else ""
    return f"{name} is not a JSON object: set the group's settings one by one instead{example}"


def _variable(loc: tuple[int | str, ...], known: Mapping[str, Any]) -> str:
    """The variable name for an error location such as ('llm', 'backend') → PAPERTALK_LLM__BACKEND."""
    parts = [str(p).upper() for p in loc]
    for end in range(len(parts), 0, -1):
        name = PREFIX + NESTED.join(parts[:end])
        if name in known:
            return name
    return PREFIX + NESTED.join(parts[:2])


def _allowed(field: FieldInfo) -> str:
    """'use one of a, b' or 'use a whole number from 1 to 50', from the field's type and bounds."""
    kind = field.annotation
    if get_origin(kind) is Literal:
        return "use one of " + ", ".join(str(a) for a in get_args(kind))
    if kind is bool:
        return "use true or false"
    noun = "a whole number" if kind is int else "a number" if kind is float else None
    if noun is None:
        return ""
    bounds = {sym: getattr(m, attr) for m in field.metadata for attr, sym in _BOUNDS if hasattr(m, attr)}
    if ">=" in bounds and "<=" in bounds:
        return f"use {noun} from {bounds['>=']} to {bounds['<=']}"
    return " ".join([f"use {noun}", " and ".join(f"{sym} {v}" for sym, v in bounds.items())]).strip()


_BOUNDS = (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))
