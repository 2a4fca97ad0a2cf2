"""Prompt templates, as files, loaded by name.

A template is a `.txt` file in this package with `{name}` placeholders (`{{` and `}}` for literal braces).
`load_prompt("answer_user").render(sources=..., question=...)` fills it; a missing or an unexpected value
raises `PromptError`, so a template and the code that fills it cannot drift apart silently.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from functools import cache
from importlib import resources


class PromptError(ValueError):
    """A template is missing, malformed, or was rendered with the wrong values."""


def _placeholders(name: str, template: str) -> frozenset[str]:
    found: set[str] = set()
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise PromptError(f"prompt {name!r} is malformed ({exc}); write literal braces as {{{{ and }}}}") from exc
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if not field.isidentifier() or spec or conversion:
            raise PromptError(f"prompt {name!r}: placeholder {{{field}}} must be a plain name like {{question}}")
        found.add(field)
    return frozenset(found)


@dataclass(frozen=True)
class Prompt:
    name: str
    template: str

    @property
    def placeholders(self) -> frozenset[str]:
        return _placeholders(self.name, self.template)

    def render(self, **values: object) -> str:
        expected = self.placeholders
        missing = sorted(expected - values.keys())
        unknown = sorted(values.keys() - expected)
        if missing or unknown:
            problems = []
            if missing:
                problems.append(f"missing {', '.join(missing)}")
            if unknown:
                problems.append(f"unknown {', '.join(unknown)}")
            raise PromptError(
                f"prompt {self.name!r} takes {', '.join(sorted(expected)) or 'no values'}: {'; '.join(problems)}"
            )
        return self.template.format(**values)


def available_prompts() -> list[str]:
    """Names of the bundled templates."""
    return sorted(p.name.removesuffix(".txt") for p in resources.files(__name__).iterdir() if p.name.endswith(".txt"))


@cache
def load_prompt(name: str) -> Prompt:
    """The bundled template `name` (without `.txt`)."""
    path = resources.files(__name__) / f"{name}.txt"
    if not path.is_file():
        raise PromptError(f"no prompt named {name!r}; available: {', '.join(available_prompts())}")
    prompt = Prompt(name, path.read_text(encoding="utf-8").strip() + "\n")
    _ = prompt.placeholders  # fail on load, not on first use, when a template is malformed
    return prompt
