"""Load and check the parser test vectors transcribed from vLLM's own parser unit tests.

The vectors live in ``tests/parsers/vllm_vectors/<parser>.json`` (plus ``<parser>.<group>.json`` for a
separately transcribed group of vLLM test files, e.g. ``hermes.entrypoints.json``); the format is described in
``tests/parsers/vllm_vectors/README.md``. This module only reads them and offers comparison
helpers; wiring them to tokenfront's parsers is left to the parser test modules.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

VECTORS_DIR = Path(__file__).parent / "vllm_vectors"

Vector = dict[str, Any]


@cache
def _load_file(path: Path) -> tuple[Vector, ...]:
    with path.open(encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, list):
        raise ValueError(f"{path.name}: expected a JSON list of vectors")
    return tuple(data)


def vector_files(parser: str | None = None, group: str | None = None) -> list[Path]:
    """The vector files (``<parser>.json``, ``<parser>.<group>.json``) of one parser or of every
    parser. ``group``: ``None`` = every file, ``""`` = only ``<parser>.json``, a name = only
    that group's files."""

    def wanted(path: Path) -> bool:
        name, _, rest = path.name.removesuffix(".json").partition(".")
        return (parser is None or name == parser) and (group is None or rest == group)

    return [p for p in sorted(VECTORS_DIR.glob("*.json")) if wanted(p)]


def vector_parsers() -> list[str]:
    """Names of the parsers that have a vector file."""
    return sorted({p.name.split(".", 1)[0] for p in vector_files()})


def load_vectors(
    parser: str | None = None,
    *,
    kind: str | None = None,
    mode: str | None = None,
    include_xfail: bool = True,
    include_derived: bool = True,
    group: str | None = "",
) -> list[Vector]:
    """Return the vectors, optionally filtered.

    ``parser``: a parser name such as ``"hermes"`` (``None`` = every parser).
    ``group``: ``""`` (default) = the ``<parser>.json`` files only, a name = only that group's
    ``<parser>.<group>.json`` files, ``None`` = every file.
    ``kind``: ``"tool"`` or ``"reasoning"``.
    ``mode``: ``"streaming"`` or ``"non_streaming"``; vectors with mode ``"both"`` match either.
    ``include_xfail``: keep vectors whose vLLM test is xfail-marked.
    ``include_derived``: keep vectors whose expectation combines two vLLM tests (``derived``).
    Each returned dict is a fresh copy, so callers may mutate it.
    """
    names = [parser] if parser is not None else vector_parsers()
    out: list[Vector] = []
    for name in names:
        if not vector_files(name):
            raise FileNotFoundError(f"no vector file for parser {name!r}")
        paths = vector_files(name, group)
        for vec in (vec for path in paths for vec in _load_file(path)):
            if kind is not None and vec["kind"] != kind:
                continue
            if mode is not None and vec["mode"] not in (mode, "both"):
                continue
            if not include_xfail and vec.get("xfail"):
                continue
            if not include_derived and vec.get("derived"):
                continue
            out.append(json.loads(json.dumps(vec)))
    return out


def vector_id(vec: Mapping[str, Any]) -> str:
    """A short, unique-enough id for pytest parametrisation."""
    source = str(vec["source"]).split("::", 1)[-1]
    return f"{vec['parser']}:{source}:{vec['mode']}"


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _type_ok(expected: str, value: Any) -> bool:
    actual = _json_type(value)
    if expected == "number":
        return actual in ("integer", "float")
    return actual == expected


def check_tool_call(
    expected: Mapping[str, Any], name: str | None, arguments: str | None
) -> list[str]:
    """Compare one produced call (name + raw arguments string) with one expected entry.

    Returns a list of human-readable problems (empty = match).
    """
    problems: list[str] = []
    if expected.get("name") is not None and name != expected["name"]:
        problems.append(f"name {name!r} != {expected['name']!r}")
    raw = arguments if arguments is not None else ""
    if "arguments_exact" in expected and raw != expected["arguments_exact"]:
        problems.append(f"arguments {raw!r} != exact {expected['arguments_exact']!r}")
    if "arguments_exact_in" in expected and raw not in expected["arguments_exact_in"]:
        problems.append(f"arguments {raw!r} not in {expected['arguments_exact_in']!r}")
    for piece in expected.get("arguments_contains", []):
        if piece not in raw:
            problems.append(f"arguments lack {piece!r}")
    for piece in expected.get("arguments_excludes", []):
        if piece in raw:
            problems.append(f"arguments contain {piece!r}")
    needs_parse = (
        expected.get("arguments") is not None
        or "arguments_types" in expected
        or "arguments_keys" in expected
        or expected.get("arguments_nonempty")
    )
    if not needs_parse:
        return problems
    try:
        parsed = json.loads(raw)
    except ValueError:
        return [*problems, f"arguments are not valid JSON: {raw!r}"]
    want = expected.get("arguments")
    if want is not None:
        if expected.get("arguments_match") == "subset":
            if not isinstance(parsed, dict):
                problems.append(f"arguments {parsed!r} are not an object")
            else:
                for key, value in want.items():
                    if key not in parsed or parsed[key] != value:
                        problems.append(f"argument {key!r}: {parsed.get(key)!r} != {value!r}")
                    elif _json_type(parsed[key]) != _json_type(value) and value is not None:
                        problems.append(f"argument {key!r} has type {_json_type(parsed[key])}")
        elif parsed != want:
            problems.append(f"arguments {parsed!r} != {want!r}")
    for key, type_name in expected.get("arguments_types", {}).items():
        if not isinstance(parsed, dict) or key not in parsed:
            problems.append(f"argument {key!r} missing")
        elif not _type_ok(type_name, parsed[key]):
            problems.append(f"argument {key!r} is {_json_type(parsed[key])}, want {type_name}")
    for key in expected.get("arguments_keys", []):
        if not isinstance(parsed, dict) or key not in parsed:
            problems.append(f"argument {key!r} missing")
    if expected.get("arguments_nonempty") and not parsed:
        problems.append("arguments are empty")
    return problems


def _content_equal(vec: Mapping[str, Any], expected: Any, actual: Any) -> bool:
    if vec["mode"] != "non_streaming":
        # Concatenated streamed text: no delta and empty deltas are the same thing.
        return (expected or None) == (actual or None)
    return expected == actual


def check_result(
    vec: Mapping[str, Any],
    *,
    content: str | None = None,
    reasoning: str | None = None,
    tool_calls: Sequence[tuple[str | None, str | None]] = (),
    tools_called: bool | None = None,
) -> list[str]:
    """Check a parse result against the expectation fields listed in ``vec['asserted']``.

    ``tool_calls`` is a sequence of ``(name, raw_arguments)`` pairs in output order. For a
    streaming vector pass the concatenated content/reasoning and the reassembled calls.
    Only the generic assertion kinds are checked here; the special kinds (``split_invariant``,
    ``no_error``, ``raises``, ``is_reasoning_end``, per-delta checks ...) need the caller's
    own logic and are ignored. Returns the list of problems (empty = pass).
    """
    exp = vec["expected"]
    asserted: Iterable[str] = vec["asserted"]
    problems: list[str] = []
    calls = list(tool_calls)
    for what in asserted:
        if what == "content" and not _content_equal(vec, exp["content"], content):
            problems.append(f"content {content!r} != {exp['content']!r}")
        elif what == "content_strip":
            if (content or "").strip() != (exp["content"] or "").strip():
                problems.append(f"content {content!r} != {exp['content']!r} (stripped)")
        elif what == "content_contains":
            wanted = vec["content_contains"]
            for piece in [wanted] if isinstance(wanted, str) else wanted:
                if content is None or piece not in content:
                    problems.append(f"content {content!r} lacks {piece!r}")
        elif what == "content_excludes":
            for piece in vec["content_excludes"]:
                if piece in (content or ""):
                    problems.append(f"content contains {piece!r}")
        elif what == "reasoning_excludes":
            for piece in vec["reasoning_excludes"]:
                if piece in (reasoning or ""):
                    problems.append(f"reasoning contains {piece!r}")
        elif what == "content_empty_or_none":
            if content not in (None, ""):
                problems.append(f"content {content!r} should be empty")
        elif what == "reasoning" and not _content_equal(vec, exp["reasoning"], reasoning):
            problems.append(f"reasoning {reasoning!r} != {exp['reasoning']!r}")
        elif what == "reasoning_contains":
            for piece in vec["reasoning_contains"]:
                if reasoning is None or piece not in reasoning:
                    problems.append(f"reasoning {reasoning!r} lacks {piece!r}")
        elif what == "tools_called" and tools_called != exp["tools_called"]:
            problems.append(f"tools_called {tools_called!r} != {exp['tools_called']!r}")
        elif what == "tools_called_consistent" and tools_called is not None:
            if tools_called != bool(calls):
                problems.append(f"tools_called {tools_called!r} but {len(calls)} calls")
        elif what == "min_tool_calls" and len(calls) < vec["min_tool_calls"]:
            problems.append(f"{len(calls)} calls < {vec['min_tool_calls']}")
        elif what == "tool_calls":
            want = exp["tool_calls"] or []
            if len(calls) != len(want):
                problems.append(f"{len(calls)} calls != {len(want)}")
                continue
            for i, (w, (name, args)) in enumerate(zip(want, calls, strict=True)):
                problems.extend(f"call {i}: {p}" for p in check_tool_call(w, name, args))
        elif what == "tool_calls_first":
            want = exp["tool_calls"] or []
            if not calls:
                problems.append("no tool calls")
            elif want:
                problems.extend(f"call 0: {p}" for p in check_tool_call(want[0], *calls[0]))
        elif what == "tool_calls_named":
            for w in exp["tool_calls"] or []:
                named = [c for c in calls if c[0] == w["name"]]
                if len(named) != 1:
                    problems.append(f"{len(named)} calls named {w['name']!r}, want 1")
                else:
                    problems.extend(check_tool_call(w, *named[0]))
        elif what == "arguments_concat_contains":
            joined = "".join(a or "" for _, a in calls)
            for piece in vec.get("arguments_concat_contains", []):
                if piece not in joined:
                    problems.append(f"arguments lack {piece!r}")
            for piece in vec.get("arguments_concat_excludes", []):
                if piece in joined:
                    problems.append(f"arguments contain {piece!r}")
    return problems
