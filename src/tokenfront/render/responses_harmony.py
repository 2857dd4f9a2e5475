"""The Harmony prompt of a Responses request on a gpt-oss model (vLLM 0.33.0's
`_render_responses_with_harmony`), built from render/harmony.py's messages and encoder.

- the system message; a developer message with the instructions (`instructions`, or the text
  of a leading system / developer item) and the function tools, unless the request's tools
  are all builtin ones (code interpreter, web search preview, container: without a tool
  server they are not described);
- each input item: messages by role (assistant text on the `final` channel, system /
  developer text as developer instructions), reasoning content on `analysis` (a summary is
  not read), function calls to `functions.NAME` on `commentary`, their outputs from
  `functions.NAME` (the matching earlier call of this request);
- before them, vLLM's `previous_input_messages` (chat-shaped or Harmony-shaped dicts);
- analysis messages before the last `final` one are dropped, as in the chat render.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from openai.types.responses import FunctionTool, ResponseFunctionToolCall
from pydantic import ValidationError

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import RequestValidationFailure
from tokenfront.protocol.responses import ResponsesRequest
from tokenfront.render.harmony import (
    EFFORTS,
    Author,
    HarmonyEncoder,
    HarmonyMessage,
    drop_old_analysis,
    flatten_text,
    instructions_message,
    part_text,
    preamble_messages,
    write_system_texts,
)
from tokenfront.render.tokens import TokenizeParams, check_token_ids
from tokenfront.tokenization.registry import ServedModel

HARMONY_ROLES = frozenset({"user", "assistant", "system", "developer", "tool"})
# Tool types served by MCP builtin tools (not shown as functions).
BUILTIN_TOOL_TYPES = frozenset({"code_interpreter", "web_search_preview", "container"})


def _input_error(message: str) -> APIError:
    return APIError(message, err_type="invalid_request_error", param="input")


def _as_dict(item: Any) -> dict[str, Any]:
    return item if isinstance(item, dict) else item.model_dump()


def leading_instructions(items: list[Any]) -> tuple[str | None, list[Any]]:
    """The text of a leading system / developer item, and the items after it."""
    if not items:
        return None, items
    first = items[0] if isinstance(items[0], dict) else items[0].model_dump(exclude_none=True)
    if first.get("role") not in ("system", "developer"):
        return None, items
    return flatten_text(first.get("content")), items[1:]


def _tool_dict(tool: Any) -> dict[str, Any]:
    if isinstance(tool, FunctionTool):
        return {"type": "function", "function": {
            "name": tool.name, "description": tool.description, "parameters": tool.parameters}}
    return {"type": tool.type}


def preamble(instructions: str | None, tools: list[Any], effort: str | None) -> list[HarmonyMessage]:
    if effort is not None and effort not in EFFORTS:
        raise RequestValidationFailure(
            f"reasoning_effort={effort!r} is not supported by Harmony. "
            f"Supported values are: {', '.join(EFFORTS)}.",
            parameter="reasoning_effort",
        )
    types = {tool.type for tool in tools if tool.type != "mcp"}  # (no MCP label is a system tool)
    shown = tools if not types <= BUILTIN_TOOL_TYPES else None
    return preamble_messages(instructions, [_tool_dict(t) for t in shown] if shown else None)


def _message(item: dict[str, Any]) -> HarmonyMessage | None:
    role, content = item["role"], item["content"]
    if role in ("system", "developer"):
        text = flatten_text(content)
        return instructions_message(role, text) if text else None
    parts = [content] if isinstance(content, str) else [part.get("text", "") for part in content]
    return HarmonyMessage(role, parts, channel="final" if role == "assistant" else None)


def item_message(item: Any, calls: list[ResponseFunctionToolCall]) -> HarmonyMessage | None:
    """One input item as a Harmony message (None: nothing to render)."""
    data = _as_dict(item)
    kind = data.get("type")
    if kind is None or kind == "message":
        return _message(data)
    if kind == "function_call_output":
        call_id = data["call_id"]
        call = next((c for c in reversed(calls) if c.call_id == call_id), None)
        if call is None:
            raise _input_error(f"No call message found for {call_id}")
        output = data["output"]
        if not isinstance(output, str):  # (vLLM's message model refuses it)
            raise _input_error("A function_call_output's output must be text for Harmony models.")
        return HarmonyMessage("tool", [output], name=f"functions.{call.name}", channel="commentary", recipient="assistant")
    if kind == "reasoning":
        content = data.get("content")
        if not content:
            return None
        return HarmonyMessage("assistant", ["\n".join(part["text"] for part in content)], channel="analysis")
    if kind == "function_call":
        return HarmonyMessage(
            "assistant", [data["arguments"]], channel="commentary", recipient=f"functions.{data['name']}",
            content_type="json",
        )
    raise _input_error(f"Unknown input type: {kind}")


def _texts(content: Any) -> list[str]:
    """vLLM's text contents of a previous message: a string, else `text` of each item (a dict
    iterates its keys; a non-object item is vLLM's AttributeError, a 500 there)."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, (list, dict)):
        raise RequestValidationFailure(f"'{type(content).__name__}' object is not iterable")
    return [part_text(part) for part in content]


def _role(role: Any) -> str:
    if role not in HARMONY_ROLES:
        raise RequestValidationFailure(f"{role!r} is not a valid Role", parameter="previous_input_messages")
    return str(role)


def _serde_kind(value: Any) -> str:
    """How the encoder's JSON reader names a value that is not the string it wants."""
    if isinstance(value, bool):
        return f"boolean `{json.dumps(value)}`"
    if isinstance(value, int):
        return f"integer `{value}`"
    if isinstance(value, float):
        return f"floating point `{value}`"
    return "sequence" if isinstance(value, list) else "map"


def _header_text(msg: dict[str, Any], key: str) -> str | None:
    value = msg.get(key)
    if value and not isinstance(value, str):
        raise RequestValidationFailure(f"invalid conversation JSON: invalid type: {_serde_kind(value)}, expected a string")
    return value or None


def _harmony_format(msg: dict[str, Any]) -> HarmonyMessage:
    """A message in Harmony's own shape (`author`, `content`, `channel`, `recipient`, ...)."""
    author = msg["author"]
    role, name = _role(author.get("role")), author.get("name")
    if name:
        try:
            Author(name=name)
        except ValidationError as exc:
            raise RequestValidationFailure(str(exc)) from None
    content = msg.get("content", "")
    parts = _texts(content) if isinstance(content, (str, list)) else [""]
    return HarmonyMessage(role, parts, name=name or None, channel=_header_text(msg, "channel"),
                          recipient=_header_text(msg, "recipient"), content_type=_header_text(msg, "content_type"))


def _call_arguments(arguments: Any) -> str:
    """A past call's arguments: text (vLLM's Message refuses anything else; an object it takes
    for a content part, which fails later as a 501)."""
    if not arguments:
        return ""
    if not isinstance(arguments, str):
        raise RequestValidationFailure(
            "1 validation error for Message\ncontent.0\n  Input should be a valid dictionary or instance of "
            f"Content [type=model_type, input_value={arguments!r}, input_type={type(arguments).__name__}]"
        )
    return arguments


def _chat_format(msg: dict[str, Any]) -> list[HarmonyMessage]:
    """A chat-shaped message (`role`, `content`, `tool_calls`, ...)."""
    role = msg.get("role")
    if role is None:
        raise RequestValidationFailure(f"Message has no 'role' key: {msg}", parameter="input")
    calls = msg.get("tool_calls")
    if role == "assistant" and calls:
        return [
            HarmonyMessage(
                "assistant",
                [_call_arguments((call.get("function") or {}).get("arguments", ""))],
                channel="commentary",
                recipient=f"functions.{(call.get('function') or {}).get('name', '')}",
                content_type="json",
            )
            for call in calls
        ]
    if role == "tool":
        name = msg.get("name") or ""
        author = name if not name or name.startswith("functions.") else f"functions.{name}"
        text = flatten_text(msg.get("content")) or ""
        return [HarmonyMessage("tool", [text], name=author, channel="commentary", recipient="assistant")]
    if role in ("system", "developer"):
        return []  # (instructions come from this request only)
    return [HarmonyMessage(_role(role), _texts(msg.get("content", "")))]


def previous_messages(request: ResponsesRequest) -> list[HarmonyMessage]:
    """vLLM's `previous_input_messages` extension, without system / developer messages."""
    out: list[HarmonyMessage] = []
    for msg in request.previous_input_messages or []:
        if isinstance(msg.get("author"), dict):
            converted = [_harmony_format(msg)]
        else:
            converted = _chat_format(msg)
        out.extend(m for m in converted if m.role not in ("system", "developer"))
    return out


def harmony_messages(request: ResponsesRequest, effort: str | None) -> list[HarmonyMessage]:
    items = request.input
    instructions = request.instructions
    if instructions is None and isinstance(items, list):
        instructions, items = leading_instructions(items)
    messages = preamble(instructions, request.tools, effort)
    messages += previous_messages(request)
    if isinstance(items, str):
        if items or not request.previous_input_messages:
            messages.append(HarmonyMessage("user", [items]))
        return messages
    calls: list[ResponseFunctionToolCall] = []
    for item in items:
        message = item_message(item, calls)
        if message is not None:
            messages.append(message)
        if isinstance(item, ResponseFunctionToolCall):
            calls.append(item)
    return messages


def render_responses_harmony(
    model: ServedModel, request: ResponsesRequest, tokenize_params: Callable[[], TokenizeParams]
) -> list[int]:
    """Prompt ids of a Responses request on a gpt-oss model (truncation and length checked with
    the params, built once the messages are)."""
    effort: str | None = request.reasoning.effort if request.reasoning is not None else None
    effort_map = model.options.reasoning_effort_map
    if effort is not None and effort_map:
        effort = effort_map.get(effort, effort)
    messages = drop_old_analysis(harmony_messages(request, effort))
    params = tokenize_params()
    write_system_texts(messages, effort)
    return check_token_ids(model, HarmonyEncoder(model.tokenizer).prompt_ids(messages), params)
