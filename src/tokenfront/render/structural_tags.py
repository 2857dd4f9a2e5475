"""Structural tags vLLM attaches to force a tool parser's call syntax.

With tools and `tool_choice` "required" / a named function (or "auto" when a tool is
`strict` or calls are limited to one), vLLM builds an xgrammar structural tag for the
tool parser's `structural_tag_model` and sends it as
`structured_outputs.structural_tag` (a JSON string). The JSON below follows xgrammar's
format models field by field, since the string is compared byte for byte.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import (
    ChatCompletionRequest,
    RequestValidationFailure,
    StructuredOutputsParams,
)
from tokenfront.render.responses_form import responses_form

Fmt = dict[str, Any]
_THINK = ["<think>", "</think>"]

# --- xgrammar format nodes (field order as xgrammar dumps them) --------------------


def json_schema(schema: Any, style: str = "json") -> Fmt:
    return {
        "type": "json_schema",
        "json_schema": schema,
        "style": style,
        "any_order": False,
        "max_whitespace_cnt": None,
        "excludes": [],
    }


def any_text(excludes: list[str] | None = None) -> Fmt:
    return {"type": "any_text", "excludes": list(excludes or []), "max_tokens": None, "max_chars": None}


def const(value: str) -> Fmt:
    return {"type": "const_string", "value": value}


def regex(pattern: str) -> Fmt:
    return {"type": "regex", "pattern": pattern}


def sequence(elements: list[Fmt]) -> Fmt:
    return {"type": "sequence", "elements": elements}


def tag(begin: str, content: Fmt, end: str) -> Fmt:
    return {"type": "tag", "begin": begin, "content": content, "end": end}


def triggered(
    triggers: list[str],
    tags: list[Fmt],
    *,
    at_least_one: bool = False,
    stop_after_first: bool = False,
    excludes: list[str] | None = None,
) -> Fmt:
    return {
        "type": "triggered_tags",
        "triggers": triggers,
        "tags": tags,
        "at_least_one": at_least_one,
        "stop_after_first": stop_after_first,
        "excludes": list(excludes or []),
    }


def with_separator(
    tags: list[Fmt], separator: str, *, at_least_one: bool = False, stop_after_first: bool = False
) -> Fmt:
    return {
        "type": "tags_with_separator",
        "tags": tags,
        "separator": separator,
        "at_least_one": at_least_one,
        "stop_after_first": stop_after_first,
    }


# --- tools ------------------------------------------------------------------------------

Tool = tuple[str, Any]  # (name, argument schema or True)


def _arguments(parameters: dict[str, Any] | None, strict: bool) -> Any:
    if not strict:
        return True
    return parameters if parameters is not None else True


# --- per-model builders (choice is "auto", "required" or "forced") ----------------------


def _hermes(tools: list[Tool], choice: str, start: str = "<tool_call>", end: str = "</tool_call>") -> Fmt:
    """Hermes-style JSON calls between `start` / `end` (hermes; longcat with its own tags)."""
    tags = [
        tag(begin + name + '", "arguments": ', json_schema(schema), close)
        for name, schema in tools
        for begin, close in ((start + '\n{"name": "', "}\n" + end), (start + '{"name": "', "}" + end))
    ]
    if choice == "auto":
        return triggered([start], tags) if tags else any_text()
    return with_separator(tags, "", at_least_one=True, stop_after_first=choice == "forced")


def _llama(tools: list[Tool], choice: str) -> Fmt:
    tags = [tag('{"name": "' + n + '", "parameters": ', json_schema(s), "}") for n, s in tools]
    if choice == "forced":
        return tags[0]
    if choice == "auto" and not tags:
        return any_text(_THINK)
    return triggered(['{"name": '], tags, at_least_one=choice == "required", excludes=_THINK)


_DS_CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
_DS_CALLS_END = "<｜tool▁calls▁end｜>"
_DS_CALL_BEGIN = "<｜tool▁call▁begin｜>"
_DS_CALL_END = "<｜tool▁call▁end｜>"
_DS_SEP = "<｜tool▁sep｜>"


def _deepseek(tools: list[Tool], choice: str, *, r1: bool) -> Fmt:
    if r1:
        mid, json_open, json_close, separator = "function" + _DS_SEP, "\n```json\n", "\n```", "\n"
    else:
        mid, json_open, json_close, separator = "", _DS_SEP, "", ""

    def call(name: str, schema: Any) -> Fmt:
        if r1:
            return tag(_DS_CALL_BEGIN + mid + name + json_open, json_schema(schema), json_close + _DS_CALL_END)
        return tag(_DS_CALL_BEGIN + name + _DS_SEP, json_schema(schema), _DS_CALL_END)

    if choice == "forced":
        name, schema = tools[0]
        if r1:
            return tag(
                _DS_CALLS_BEGIN + _DS_CALL_BEGIN + mid + name + json_open,
                json_schema(schema),
                json_close + _DS_CALL_END + _DS_CALLS_END,
            )
        return tag(
            _DS_CALLS_BEGIN + _DS_CALL_BEGIN + name + _DS_SEP,
            json_schema(schema),
            _DS_CALL_END + _DS_CALLS_END,
        )
    tags = [call(n, s) for n, s in tools]
    if choice == "auto" and not tags:
        return any_text(_THINK)
    calls = tag(_DS_CALLS_BEGIN, with_separator(tags, separator, at_least_one=True), _DS_CALLS_END)
    if choice == "required":
        return calls
    return triggered([_DS_CALLS_BEGIN], [calls], excludes=_THINK)


def _qwen_coder(tools: list[Tool], choice: str) -> Fmt:
    prefix = "<tool_call>\n<function="
    tags = [tag(prefix + n + ">\n", json_schema(s, "qwen_xml"), "\n</function>\n</tool_call>") for n, s in tools]
    if choice == "forced":
        return tags[0]
    if choice == "auto" and not tags:
        return any_text(_THINK)
    return triggered([prefix], tags, at_least_one=choice == "required", excludes=_THINK)


def _kimi(tools: list[Tool], choice: str) -> Fmt:
    call_begin = "<|tool_call_begin|>"
    section_begin, section_end = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"

    def call(name: str, schema: Any) -> Fmt:
        return tag(
            f"{call_begin}functions.{name}:",
            sequence([regex(r"\d+"), const("<|tool_call_argument_begin|>"), json_schema(schema)]),
            "<|tool_call_end|>",
        )

    tags = [call(n, s) for n, s in tools]
    if choice == "forced":
        return sequence([const(section_begin), tags[0], const(section_end)])
    if choice == "required":
        return sequence(
            [const(section_begin), with_separator(tags, "", at_least_one=True), const(section_end)]
        )
    if not tags:
        return any_text(_THINK)
    section = tag(section_begin, with_separator(tags, "", at_least_one=True), section_end)
    return triggered([section_begin], [section], excludes=[*_THINK, call_begin])


def _minimax(tools: list[Tool], choice: str) -> Fmt:
    begin, end = "<minimax:tool_call>\n", "</minimax:tool_call>"
    tags = [tag(f'<invoke name="{n}">\n', json_schema(s, "minimax_xml"), "</invoke>\n") for n, s in tools]
    if choice == "auto":
        if not tags:
            return any_text(_THINK)
        inner = with_separator(tags, "", at_least_one=True)
        return triggered(["<minimax:tool_call>"], [tag(begin, inner, end)], excludes=_THINK)
    inner = with_separator(tags, "", at_least_one=True, stop_after_first=choice == "forced")
    return sequence([const("\n" + begin), inner, const(end)])


_GLM_EXCLUDES = [
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
]


def _glm_value(prop: dict[str, Any]) -> Fmt:
    if "enum" in prop:
        values = [const(v if isinstance(v, str) else json.dumps(v)) for v in prop["enum"]]
        return values[0] if len(values) == 1 else {"type": "or", "elements": values}
    kind = prop.get("type")
    if isinstance(kind, list):
        formats = [_glm_value({"type": t}) for t in kind if t != "string"]
        if "string" in kind:
            formats.append(any_text(_GLM_EXCLUDES))
        return formats[0] if len(formats) == 1 else {"type": "or", "elements": formats}
    if kind in (None, "string"):
        return any_text(_GLM_EXCLUDES)
    return json_schema({"type": kind})


def _glm_plain_properties(params: dict[str, Any]) -> dict[str, Any] | None:
    props = params.get("properties")
    if (
        not isinstance(props, dict)
        or not props
        or params.get("additionalProperties") is True
        or any(k in params for k in ("$ref", "allOf", "anyOf", "oneOf", "patternProperties"))
    ):
        return None
    return props


def _glm_tool_tag(name: str, params: dict[str, Any] | None, strict: bool) -> Fmt:
    if strict:
        return tag(f"<tool_call>{name}", json_schema(params if params is not None else True, "glm_xml"), "</tool_call>")
    props = _glm_plain_properties(params or {})
    if props is None:
        return tag(f"<tool_call>{name}", json_schema(True, "glm_xml"), "</tool_call>")
    pairs = [
        sequence([const(f"<arg_key>{key}</arg_key><arg_value>"), _glm_value(prop), const("</arg_value>")])
        for key, prop in props.items()
    ]
    inner = pairs[0] if len(pairs) == 1 else {"type": "or", "elements": pairs}
    return tag(f"<tool_call>{name}", {"type": "star", "content": inner}, "</tool_call>")


def glm_structural_format(tools: list[tuple[str, dict[str, Any] | None, bool]], choice: str) -> Fmt:
    """GLM-4.7 (vLLM's own builder; all-strict requests use xgrammar's builtin)."""
    if tools and all(strict for _, _, strict in tools):
        text_excludes = ["<think>", "</think>", "</tool_call>", "<arg_key>", "</arg_key>",
                         "<arg_value>", "</arg_value>"]
        tags = [tag(f"<tool_call>{n}", json_schema(p if p is not None else True, "glm_xml"), "</tool_call>")
                for n, p, _ in tools]
        if choice == "forced":
            return tags[0]
        return triggered(["<tool_call>"], tags, at_least_one=choice == "required", excludes=text_excludes)
    tags = [_glm_tool_tag(n, p, strict) for n, p, strict in tools]
    if choice == "auto":
        return triggered(["<tool_call>"], tags, excludes=[e for e in _GLM_EXCLUDES if e != "<tool_call>"])
    return with_separator(tags, "", at_least_one=True, stop_after_first=choice == "forced")


BUILDERS: dict[str, Callable[[list[Tool], str], Fmt]] = {
    "hermes": _hermes,
    "longcat": lambda t, c: _hermes(t, c, "<longcat_tool_call>", "</longcat_tool_call>"),
    "llama": _llama,
    "deepseek_r1": lambda t, c: _deepseek(t, c, r1=True),
    "deepseek_v3_1": lambda t, c: _deepseek(t, c, r1=False),
    "qwen_3_coder": _qwen_coder,
    "kimi": _kimi,
    "minimax": _minimax,
    "glm_4_7": lambda t, c: glm_structural_format([(n, None, False) for n, _ in t], c),
}

_LIST_FORMATS = ("triggered_tags", "token_triggered_tags", "tags_with_separator")


def _limit_to_one_call(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("type") in _LIST_FORMATS:
            node["stop_after_first"] = True
        for value in node.values():
            _limit_to_one_call(value)
    elif isinstance(node, list):
        for item in node:
            _limit_to_one_call(item)


def output_format(so: StructuredOutputsParams) -> Fmt | None:
    """A structured-output constraint as an xgrammar format (json, regex, choice)."""
    if so.json_object:
        return json_schema({"type": "object"})
    if so.json_ is not None:
        schema = so.json_
        if isinstance(schema, str):
            try:
                schema = json.loads(schema)
            except ValueError:
                return None
        return json_schema(schema)
    if so.regex is not None:
        return regex(so.regex)
    if so.choice is not None:
        return {"type": "or", "elements": [const(c) for c in so.choice]}
    if so.grammar is not None and _is_ebnf(so.grammar):
        return {"type": "grammar", "grammar": so.grammar}
    return None


def _is_ebnf(grammar: str) -> bool:
    """vLLM's test: some non-comment line defines a rule with `::=` (else it is Lark)."""
    for line in grammar.split("\n"):
        line = re.sub(r"(#|//).*$", "", line).strip()
        if line and "::=" in line:
            return True
    return False


def apply_structural_tag(
    request: ChatCompletionRequest,
    model: str | None,
    function_strict_default: bool,
    strict_level: int | None = None,
    token_suffix: str = "",
) -> None:
    """vLLM's `_apply_structural_tag` for a tool parser's structural tag model (`strict_level`:
    `--tool-strict-level` as 0 auto / 1 function / 2 parameter, else the parser's default;
    `token_suffix`: HY V4's marker suffix)."""
    form = responses_form(request)
    builtins = form is not None and form.builtin_tools
    if model is None or not (request.tools or builtins):
        return
    choice = request.tool_choice
    named = request.named_tool_choice
    if not (choice in ("auto", "required") or named is not None):
        return
    builder = BUILDERS.get(model)
    if builder is None:
        return
    is_auto = choice == "auto"
    single_call = request.parallel_tool_calls is False
    from tokenfront.render.sampling import structured_outputs_for

    structured = structured_outputs_for(request)
    level = strict_level if strict_level is not None else (1 if function_strict_default else 0)
    if single_call and not (is_auto and structured is not None):
        level = max(level, 1)
    any_strict = any(t.function.strict is True for t in request.tools or ())
    if is_auto and level == 0 and not any_strict:
        return
    answer = None
    if is_auto and structured is not None:
        answer = output_format(structured)
        if answer is None:
            return
        if model == "harmony":  # the answer format was already moved into the final channel
            from tokenfront.render.structural_tags_harmony import final_answer

            answer = final_answer(answer)

    full = [
        (t.function.name, t.function.parameters, level >= 2 or t.function.strict is True)
        for t in request.tools or ()
    ]
    if named is not None:
        full = [t for t in full if t[0] == named]
        if len(full) != 1:
            if model == "hy_v4":  # vLLM's HYV4ToolParser falls back to no constraint
                return
            raise RequestValidationFailure(
                f"The tool with name '{named}' is not found in the tools list."
            )
        simple = "forced"
    else:
        simple = "required" if choice == "required" or answer is not None else "auto"
    if model == "hy_v4" and simple == "auto":
        return  # HY V4 constrains only calls that must come (vLLM's HYV4ToolParser)
    if builtins and named is None and model == "harmony":
        from tokenfront.render.structural_tags_harmony import harmony_builtin

        fmt = harmony_builtin(simple)
    elif model == "glm_4_7":
        try:
            fmt = glm_structural_format(full, simple)
        except (TypeError, AttributeError) as exc:
            # A property schema that is no object: vLLM's builder fails the same way, a 400 for
            # the TypeError and a 500 for the AttributeError (docs/deviations.md).
            raise APIError(str(exc)) from None
    elif model == "hy_v4":  # keyed by the raw parameters, with the checkpoint's marker suffix
        from tokenfront.render.structural_tags_hy_v4 import hy_v4

        fmt = hy_v4([(n, p) for n, p, _ in full], simple, token_suffix)
    else:
        fmt = builder([(n, _arguments(p, strict)) for n, p, strict in full], simple)
    if single_call:
        _limit_to_one_call(fmt)
    if answer is not None:
        fmt = {"type": "or", "elements": [fmt, answer]}
    payload = {"type": "structural_tag", "format": fmt}
    request.structured_outputs = StructuredOutputsParams.model_validate(
        {"structural_tag": json.dumps(payload)}
    )
    request.response_format = None


def mistral_pre_v11_schema(request: ChatCompletionRequest) -> dict[str, Any] | None:
    """The JSON-array schema vLLM forces for Mistral tool calls with an HF tokenizer."""
    tools = list(request.tools or [])
    extra: dict[str, Any] = {}
    named = request.named_tool_choice
    if named is not None:
        tools = [t for t in tools if t.function.name == named]
        if not tools:
            return None
        extra["maxItems"] = 1
    any_of = [
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": [t.function.name]},
                "arguments": t.function.parameters or {"type": "object"},
            },
            "required": ["name", "arguments"],
        }
        for t in tools
    ]
    return {"type": "array", "minItems": 1, **extra, "items": {"type": "object", "anyOf": any_of}}


def _register_model_builders() -> None:
    """Builders kept in their own modules (they import the format nodes above)."""
    from tokenfront.render import structural_tags_dsml as dsml
    from tokenfront.render.structural_tags_harmony import harmony
    from tokenfront.render.structural_tags_hy_v4 import hy_v4
    from tokenfront.render.structural_tags_kimi_k3 import kimi_k3

    BUILDERS.update(
        {
            "deepseek_v3_2": dsml.deepseek_v3_2,
            "deepseek_v4": dsml.deepseek_v4,
            "deepseek_v4_1": dsml.deepseek_v4_1,
            "mimo": dsml.mimo,
            "plamo3": dsml.plamo3,
            "kimi_k3": kimi_k3,
            "harmony": harmony,
            "hy_v4": lambda t, c: hy_v4(t, c, ""),
        }
    )


_register_model_builders()
