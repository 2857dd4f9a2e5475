"""Which of vLLM 0.33.0's chat message schemas takes a message, and so when its parts are checked.

vLLM validates each chat message against a union: openai's per-role schemas, whose list
content (and an assistant's tool calls) is an iterator checked only when walked, and its own
permissive custom schema, whose parts are checked at once (any object or string passes, to be
judged when rendering). Pydantic's smart union keeps the schemas that validate and prefers the
one with more fields set, counting the fields of nested parts and tool calls; a tie goes to
openai's schema, the union's first member. Measured against vLLM's
`TypeAdapter(ChatCompletionMessageParam)` and `ChatCompletionRequest`
(tests/protocol/test_message_schemas.py).
"""

from __future__ import annotations

from typing import Any

_CUSTOM_FIELDS = frozenset(
    {"role", "content", "name", "tool_call_id", "tool_calls", "reasoning", "tools", "task"}
)
_OPENAI_FIELDS: dict[str, frozenset[str]] = {
    "developer": frozenset({"role", "content", "name"}),
    "system": frozenset({"role", "content", "name"}),
    "user": frozenset({"role", "content", "name"}),
    "assistant": frozenset(
        {"role", "content", "name", "tool_calls", "function_call", "refusal", "audio"}
    ),
    "tool": frozenset({"role", "content", "tool_call_id"}),
}
# The parts each role's openai schema takes in its content list.
_OPENAI_PART_TYPES: dict[str, frozenset[str]] = {
    "developer": frozenset({"text"}),
    "system": frozenset({"text"}),
    "user": frozenset({"text", "image_url", "input_audio", "file"}),
    "assistant": frozenset({"text", "refusal"}),
    "tool": frozenset({"text"}),
}
# vLLM's all-optional part schemas: any object fits one, setting the keys it knows.
_LOOSE_PARTS: tuple[dict[str, tuple[type, ...]], ...] = (
    {"image_url": (str, type(None)), "uuid": (str, type(None))},
    {"audio_url": (str, type(None))},
    {"video_url": (str, type(None)), "uuid": (str, type(None))},
    {"image_pil": (type(None),), "uuid": (str, type(None))},
)


def _url_object(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("url"), str)


def _input_audio(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("data"), str)
        and value.get("format") in ("wav", "mp3")
    )


def _typed_part_fields(part: dict[str, Any]) -> int:
    """Fields set by the part schema its `type` names, 0 when that schema refuses it."""
    kind = part.get("type")
    if kind in ("text", "refusal", "prompt_embeds"):
        key = "data" if kind == "prompt_embeds" else kind
        return 2 if isinstance(part.get(key), str) else 0
    if kind in ("image_url", "audio_url", "video_url"):
        return 2 if _url_object(part.get(kind)) else 0
    if kind == "input_audio":
        return 2 if _input_audio(part.get(kind)) else 0
    if kind == "file":
        return 2 if isinstance(part.get("file"), dict) else 0
    if kind == "thinking":
        return 2 + ("closed" in part) if isinstance(part.get("thinking"), str) else 0
    if kind in ("image_embeds", "audio_embeds", "video_embeds"):
        return 1 + sum(key in part for key in (kind, "uuid"))
    if kind == "tool_reference" or "type" not in part:
        name = part.get("name", "")
        return ("type" in part) + ("name" in part) if isinstance(name, str) else 0
    return 0


def _part_fields(part: Any) -> int:
    """Fields the custom schema's part union sets for one part (a string sets none)."""
    if not isinstance(part, dict):
        return 0
    loose = [
        sum(key in part for key in schema)
        for schema in _LOOSE_PARTS
        if all(isinstance(part[key], kinds) for key, kinds in schema.items() if key in part)
    ]
    return max([_typed_part_fields(part), *loose])


def _prompt_embeds(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "prompt_embeds"
        and isinstance(value.get("data"), str)
    )


def valid_tool_call(call: Any) -> bool:
    """A tool call of an assistant message as both schemas type it (function or custom)."""
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        return False
    if call.get("type") == "custom":
        custom = call.get("custom")
        return (
            isinstance(custom, dict)
            and isinstance(custom.get("name"), str)
            and isinstance(custom.get("input"), str)
        )
    function = call.get("function")
    return (
        call.get("type") == "function"
        and isinstance(function, dict)
        and isinstance(function.get("name"), str)
        and isinstance(function.get("arguments"), str)
    )


def _iterable(value: Any) -> bool:
    return isinstance(value, (str, list, tuple, dict))


def openai_schema_takes(msg: dict[str, Any]) -> bool:
    """Whether the role's openai schema validates the message (its list content and tool
    calls are iterators, checked lazily)."""
    role = msg.get("role")
    content = msg.get("content")
    if role == "function":
        return "content" in msg and isinstance(content, (str, type(None))) and isinstance(
            msg.get("name"), str
        )
    if not isinstance(role, str) or role not in _OPENAI_FIELDS:
        return False
    if content is None:  # absent, or null: only the assistant's content is optional
        if role != "assistant":
            return False
    elif not isinstance(content, (str, list, tuple, dict)):
        return False
    if role == "tool":  # (its schema has no `name`)
        return isinstance(msg.get("tool_call_id"), str)
    if not isinstance(msg.get("name", ""), str):
        return False
    if role == "assistant":
        function_call = msg.get("function_call")
        audio = msg.get("audio")
        return (
            ("tool_calls" not in msg or _iterable(msg["tool_calls"]))
            and isinstance(msg.get("refusal"), (str, type(None)))
            and (
                function_call is None
                or isinstance(function_call, dict)
                and isinstance(function_call.get("name"), str)
                and isinstance(function_call.get("arguments"), str)
            )
            and (audio is None or isinstance(audio, dict) and isinstance(audio.get("id"), str))
        )
    return True


def custom_schema_takes(msg: dict[str, Any]) -> bool:
    """Whether vLLM's custom schema validates the message."""
    content = msg.get("content", "")
    if isinstance(content, (list, tuple)):
        if not all(isinstance(p, (str, dict)) for p in content):
            return False
    elif not isinstance(content, str):
        return False
    tool_calls = msg.get("tool_calls")
    return (
        isinstance(msg.get("name", ""), str)
        and (tool_calls is None or isinstance(tool_calls, list) and all(map(valid_tool_call, tool_calls)))
        and _custom_field_refused(msg) is None
    )


# Fields only vLLM's custom schema types, and the types it takes (None: the key may be absent).
_CUSTOM_FIELD_TYPES: tuple[tuple[str, tuple[type, ...]], ...] = (
    ("tool_call_id", (str, type(None))),
    ("reasoning", (str, dict, type(None))),  # a dict: a prompt-embeds part
    ("tools", (list, type(None))),
    ("task", (str, type(None))),
)


def _custom_field_refused(msg: dict[str, Any]) -> str | None:
    """The first custom-only field whose value the custom schema refuses, as an error text."""
    for key, kinds in _CUSTOM_FIELD_TYPES:
        value = msg.get(key)
        embeds_ok = not isinstance(value, dict) or _prompt_embeds(value)
        if not isinstance(value, kinds) or not embeds_ok:
            names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
            return f"{key}: input should be {names}"
    return None


def schema_refusal(msg: dict[str, Any]) -> str:
    """A short reason why neither schema takes `msg`, for the 400's message."""
    content = msg.get("content")
    if "content" in msg and not isinstance(content, (str, list, tuple, dict, type(None))):
        return "Input should be a valid string"
    tool_calls = msg.get("tool_calls")
    if tool_calls is not None and not isinstance(tool_calls, (list, tuple, dict)):
        return "Input should be iterable"
    if isinstance(tool_calls, list) and not all(map(valid_tool_call, tool_calls)):
        return "Invalid tool call"
    if isinstance(content, list) and not all(isinstance(p, (str, dict)) for p in content):
        return "Invalid content part"
    if not isinstance(msg.get("name", ""), str):
        return "Input should be a valid string: name"
    return _custom_field_refused(msg) or f"No {msg.get('role')} message schema takes this message"


def _openai_wins(msg: dict[str, Any]) -> bool:
    """Whether openai's schema takes the message, iterators and all (it validates and the
    custom one does not, or sets no fewer fields)."""
    if not openai_schema_takes(msg):
        return False
    if not custom_schema_takes(msg):
        return True
    fields = _OPENAI_FIELDS[str(msg["role"])]
    openai_fields = sum(key in msg for key in fields)
    content = msg.get("content")
    nested = sum(map(_part_fields, content)) if isinstance(content, (list, tuple)) else 0
    if "tool_calls" in fields and isinstance(msg.get("tool_calls"), list):
        nested += 3 * len(msg["tool_calls"])  # each call's id, type and function at least
    custom_fields = sum(key in msg for key in _CUSTOM_FIELDS) + nested
    return custom_fields <= openai_fields


def validated_lazily(msg: dict[str, Any]) -> bool:
    """Whether vLLM keeps this message's content as a lazy part iterator, checked only when
    rendering walks it: object or list content of a message openai's schema takes."""
    return isinstance(msg.get("content"), (list, tuple, dict)) and _openai_wins(msg)


def lazy_tool_calls_fail(msg: dict[str, Any]) -> bool:
    """Whether an assistant message's tool calls are a lazy iterator some call of which fails
    (vLLM's chat request walks it at validation time, /tokenize when rendering)."""
    tool_calls: Any = msg.get("tool_calls")
    if msg.get("role") != "assistant" or not _iterable(tool_calls):
        return False
    return not all(map(valid_tool_call, tool_calls)) and _openai_wins(msg)


def _openai_part(role: str, part: Any) -> bool:
    if not isinstance(part, dict):
        return False
    kind = part.get("type")
    if not isinstance(kind, str) or kind not in _OPENAI_PART_TYPES[role]:
        return False
    if kind in ("text", "refusal"):
        return isinstance(part.get(kind), str)
    if kind == "image_url":
        return _url_object(part.get(kind))
    if kind == "input_audio":
        return _input_audio(part.get(kind))
    return isinstance(part.get("file"), dict)


def lazy_parts_fail(role: str, content: Any) -> bool:
    """Whether walking lazily validated content fails: some part (an object's key, for
    object content) that the role's openai schema does not take."""
    return not all(_openai_part(role, part) for part in content)
