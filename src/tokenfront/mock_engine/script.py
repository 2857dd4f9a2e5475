"""Scripted replies: prompt pattern -> output text in the model's native format.

A script file is JSON, either a plain mapping `{"regex": "output text", ...}` or
`{"rules": [{"pattern": ..., "output": ..., "token_delay": s, "error": {...}}, ...],
"default": "text"}`.  Rules are tried in file order with `re.search` against the decoded
prompt (special tokens included); the first match wins, else the default reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_REPLY = "Hello! I am the tokenfront mock engine, a scripted test double."


class ScriptError(ValueError):
    """A script file that cannot be used."""


@dataclass(frozen=True)
class ScriptedError:
    """An engine failure to answer instead of an output (to exercise error handling)."""

    status: int = 500
    message: str = "scripted engine error"


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    output: str = ""
    token_delay: float | None = None
    error: ScriptedError | None = None


@dataclass(frozen=True)
class Reply:
    """What one request gets: output text (or an error) and its pacing."""

    output: str
    token_delay: float | None = None
    error: ScriptedError | None = None


@dataclass
class Script:
    rules: list[Rule] = field(default_factory=list)
    default: str = DEFAULT_REPLY

    def reply_for(self, prompt: str) -> Reply:
        for rule in self.rules:
            if rule.pattern.search(prompt):
                return Reply(rule.output, rule.token_delay, rule.error)
        return Reply(self.default)


def _rule(pattern: str, spec: Any) -> Rule:
    try:
        compiled = re.compile(pattern, re.DOTALL)
    except re.error as exc:
        raise ScriptError(f"bad pattern {pattern!r}: {exc}") from None
    if isinstance(spec, str):
        return Rule(compiled, spec)
    if not isinstance(spec, dict):
        raise ScriptError(f"rule {pattern!r}: expected a string or an object")
    error = spec.get("error")
    scripted = None
    if error is not None:
        if not isinstance(error, dict):
            raise ScriptError(f"rule {pattern!r}: error must be an object")
        scripted = ScriptedError(
            int(error.get("status", 500)), str(error.get("message", "scripted engine error"))
        )
    delay = spec.get("token_delay")
    return Rule(
        compiled,
        str(spec.get("output", "")),
        float(delay) if delay is not None else None,
        scripted,
    )


def parse_script(data: Any) -> Script:
    """A `Script` from already-decoded JSON (see the module docstring for the shapes)."""
    if not isinstance(data, dict):
        raise ScriptError("a script is a JSON object")
    if "rules" not in data:
        return Script([_rule(p, out) for p, out in data.items()])
    rules = data["rules"]
    if not isinstance(rules, list):
        raise ScriptError("`rules` must be a list")
    parsed = []
    for item in rules:
        if not isinstance(item, dict) or not isinstance(item.get("pattern"), str):
            raise ScriptError("every rule needs a string `pattern`")
        parsed.append(_rule(item["pattern"], item))
    return Script(parsed, str(data.get("default", DEFAULT_REPLY)))


def load_script(path: str | Path | None) -> Script:
    """The script in `path`, or the built-in one (a short fixed reply) for None."""
    if path is None:
        return Script()
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ScriptError(f"cannot read script {path}: {exc}") from None
    return parse_script(data)
