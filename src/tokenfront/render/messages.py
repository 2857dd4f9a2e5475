"""OpenAI chat messages -> the conversation dicts a chat template sees (vLLM's rules)."""

from __future__ import annotations

import json
from typing import Any

from tokenfront.protocol.message_schemas import (
    lazy_parts_fail,
    lazy_tool_calls_fail,
    validated_lazily,
)
from tokenfront.protocol.requests import RequestValidationFailure

TEXT_PART_TYPES = frozenset({"text", "input_text", "output_text", "refusal", "thinking"})
_SKIP_IF_EMPTY = ("text", "refusal")
_MEDIA_TYPES = frozenset(
    {
        "input_image",
        "image_url",
        "image_embeds",
        "audio_embeds",
        "video_embeds",
        "prompt_embeds",
        "image_pil",
        "audio_url",
        "input_audio",
        "video_url",
    }
)
# Keys a known content part type may carry; anything else is passed through
# to the template in "openai" format.
_KNOWN_PART_KEYS = frozenset(
    {
        "type",
        "text",
        "thinking",
        "closed",
        "refusal",
        "image_url",
        "image_embeds",
        "audio_embeds",
        "video_embeds",
        "image_pil",
        "audio_url",
        "input_audio",
        "video_url",
        "uuid",
        "data",
        "name",
        "detail",
        "file_id",
        "file_data",
        "file",
    }
)
_BILLING_HEADER = "x-anthropic-billing-header"
_CLAIMED_BY_TYPELESS = (
    "image_url",
    "image_pil",
    "image_embeds",
    "audio_embeds",
    "video_embeds",
    "prompt_embeds",
    "audio_url",
    "input_audio",
    "video_url",
    "tool_reference",
)


def _part_type_and_text(part: dict[str, Any]) -> tuple[str, Any]:
    part_type = part.get("type")
    if isinstance(part_type, str) and part.get("uuid") is None:
        if part_type in ("text", "input_text", "output_text"):
            return part_type, part.get("text")
        if part_type == "thinking":
            return part_type, part.get("thinking")
        if part_type == "refusal":
            return part_type, part.get("refusal")
        if part_type == "tool_reference":
            return part_type, part.get("name")
        if part_type in _MEDIA_TYPES:
            return part_type, None
    if part_type is None or part.get("uuid") is not None:
        for key in _CLAIMED_BY_TYPELESS:
            if key in part:
                return key, None
        raise RequestValidationFailure("Missing 'type' field in multimodal part.", parameter="type")
    if not isinstance(part_type, str):
        raise RequestValidationFailure("Invalid 'type' field in multimodal part.", parameter="type")
    return part_type, "unknown part_type content"


def _parse_parts(parts: list[Any], wrap: bool) -> list[Any]:
    out: list[Any] = []
    for part in parts:
        if isinstance(part, str):
            if wrap or part:  # vLLM keeps only truthy parts of a joined text (no "" lines)
                out.append({"type": "text", "text": part} if wrap else part)
            continue
        if not isinstance(part, dict):
            raise RequestValidationFailure("Invalid 'type' field in multimodal part.", parameter="type")
        part_type, value = _part_type_and_text(part)
        if part_type in _SKIP_IF_EMPTY and value is None:
            continue
        if part_type in TEXT_PART_TYPES:
            if wrap:
                item: dict[str, Any] = {"type": "text", "text": value}
                item.update({k: v for k, v in part.items() if k not in _KNOWN_PART_KEYS})
                out.append(item)
            elif value:
                out.append(value)
            continue
        if part_type == "tool_reference":
            if wrap or value:
                out.append({"type": "tool_reference", "name": value} if wrap else value)
            continue
        if part_type in _MEDIA_TYPES:
            raise RequestValidationFailure(
                f"Multimodal input ({part_type}) is not supported yet: this model is text-only.",
                parameter="messages",
            )
        supported = sorted(_MEDIA_TYPES | TEXT_PART_TYPES | {"tool_reference"})
        raise RequestValidationFailure(
            f"Unsupported chat content part type: {part_type!r}. "
            f"Supported types: {', '.join(supported)}.",
            parameter="type",
            value=part_type,
        )
    return out


def _strip_billing_header(parts: list[Any]) -> list[Any]:
    out = []
    for part in parts:
        if isinstance(part, str):
            text: Any = part
        elif isinstance(part, dict) and part.get("type") == "text":
            text = part.get("text")
        else:
            text = None
        if not (isinstance(text, str) and text.startswith(_BILLING_HEADER)):
            out.append(part)
            continue
        rest = text.partition("\n")[2]
        if rest:
            out.append(rest if isinstance(part, str) else {**part, "text": rest})
    return out


def join_lines(texts: list[Any]) -> str:
    """Text parts joined by newlines, as vLLM joins them: a part whose text is no string is
    a 400 carrying the TypeError of that join."""
    try:
        return "\n".join(texts)
    except TypeError as exc:
        raise RequestValidationFailure(str(exc)) from None


def _convert_message(message: dict[str, Any], wrap: bool, lazy: bool = True) -> dict[str, Any]:
    role = message.get("role")
    if not isinstance(role, str):
        raise RequestValidationFailure("Each message must have a string `role`.", parameter="messages")
    content = message.get("content")
    if content is None:
        parts: list[Any] = []
    elif isinstance(content, str):
        parts = [{"type": "text", "text": content}]
    elif isinstance(content, (list, tuple, dict)) and not (
        lazy and validated_lazily(message) and lazy_parts_fail(role, content)
    ):
        parts = [] if isinstance(content, dict) else list(content)  # `{}`: no keys, no parts
    else:
        # vLLM walks lazily validated parts here, failing on the first its schema refuses.
        raise RequestValidationFailure(
            f"validation errors for ValidatorIterator: invalid content part in a {role} message"
        )
    if role == "system":
        parts = _strip_billing_header(parts)
    parsed = _parse_parts(parts, wrap)
    out: dict[str, Any] = {"role": role, "content": parsed if wrap else join_lines(parsed)}

    if role == "assistant":
        if lazy and lazy_tool_calls_fail(message):  # (/tokenize: its request never walked them)
            raise RequestValidationFailure(
                "validation errors for ValidatorIterator: invalid tool call in an assistant message"
            )
        tool_calls = message.get("tool_calls")
        if "tool_calls" in message and tool_calls is not None:
            out["tool_calls"] = list(tool_calls)
        reasoning = message.get("reasoning")
        if reasoning is not None:
            out["reasoning"] = reasoning
            out["reasoning_content"] = reasoning
    elif role == "tool":
        if "tool_call_id" in message:
            out["tool_call_id"] = message["tool_call_id"]
        msg_content = out.get("content")
        if isinstance(msg_content, list):
            if not any(isinstance(i, dict) and i.get("type") != "text" for i in msg_content):
                texts = [
                    i.get("text", "")
                    for i in msg_content
                    if isinstance(i, dict) and i.get("type") == "text"
                ]
                out["content"] = join_lines(texts)
    if isinstance(message.get("name"), str):
        out["name"] = message["name"]
    if isinstance(message.get("task"), str):
        out["task"] = message["task"]
    if role == "developer":
        out["tools"] = message.get("tools")
    return out


def _normalize_tool_calls(conversation: list[dict[str, Any]]) -> None:
    for message in conversation:
        if message["role"] != "assistant" or "tool_calls" not in message:
            continue
        tool_calls = message["tool_calls"]
        if not isinstance(tool_calls, list):
            continue
        if not tool_calls:
            message.pop("tool_calls")
            continue
        fixed = []
        for item in tool_calls:
            if not isinstance(item, dict):
                raise RequestValidationFailure(
                    "assistant tool_calls entries must be objects.", parameter="tool_calls"
                )
            function = item.get("function")
            if item.get("type", "function") != "function" or not isinstance(function, dict):
                raise RequestValidationFailure(
                    "chat completions only support assistant tool_calls of type 'function'.",
                    parameter="tool_calls",
                )
            function = dict(function)
            function["arguments"] = _arguments_dict(function.get("arguments"))
            fixed.append({**item, "function": function})
        message["tool_calls"] = fixed


def _arguments_dict(raw: Any) -> dict[str, Any]:
    if not raw:
        return {}
    if isinstance(raw, dict):
        return raw
    parsed: Any = raw
    if isinstance(raw, str):
        try:
            parsed = json.loads(raw)
        except json.JSONDecodeError:
            parsed = None
    return parsed if isinstance(parsed, dict) else {}


def to_conversation(
    messages: list[dict[str, Any]], content_format: str, *, lazy: bool = True
) -> list[dict[str, Any]]:
    """The template's `messages`: content joined ("string") or as parts ("openai");
    `lazy`: content parts are validated as vLLM validates a chat request's, lazily."""
    wrap = content_format == "openai"
    conversation = [_convert_message(m, wrap, lazy) for m in messages]
    _normalize_tool_calls(conversation)
    return conversation
