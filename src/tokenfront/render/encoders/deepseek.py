"""DeepSeek V3.2 prompt encoding (vLLM's `deepseek_v32` tokenizer mode), used instead of the
model's Jinja template.

vLLM picks it with `--tokenizer-mode deepseek_v32`, or with the default `auto` mode when the
model's architecture is `DeepseekV32ForCausalLM`. Thinking is on when the `thinking` or
`enable_thinking` template kwarg is truthy. Tools become a system message (first) carrying the
DSML tool instructions; reasoning of assistant turns before the last user turn is dropped
in thinking mode when the conversation ends with a user turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BOS = "<｜begin▁of▁sentence｜>"
EOS = "<｜end▁of▁sentence｜>"
THINK_START = "<think>"
THINK_END = "</think>"
DSML = "｜DSML｜"

_TOOLS_PREAMBLE = f"""## Tools
You have access to a set of tools you can use to answer the user's question.
You can invoke functions by writing a "<{DSML}function_calls>" block like the following as part of your reply to the user:
<{DSML}function_calls>
<{DSML}invoke name="$FUNCTION_NAME">
<{DSML}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</{DSML}parameter>
...
</{DSML}invoke>
<{DSML}invoke name="$FUNCTION_NAME2">
...
</{DSML}invoke>
</{DSML}function_calls>
String and scalar parameters should be specified as is without any escaping or quotes, while lists and objects should use JSON format. The "string" attribute should be set to "true" for string type parameters and "false" for other types (numbers, booleans, arrays, objects).
If the thinking_mode is enabled, then after function results you should strongly consider outputting a thinking block. Here is an example:
<{DSML}function_calls>
...
</{DSML}function_calls>
<function_results>
...
</function_results>
{THINK_START}...thinking about results{THINK_END}
Here are the functions available in JSONSchema format:
<functions>
"""  # noqa: E501

ENCODER_MODES = ("deepseek_v32",)
_ARCHITECTURES = {"DeepseekV32ForCausalLM": "deepseek_v32"}


class EncodingError(ValueError):
    """The conversation cannot be encoded (vLLM answers 400 with the message)."""


def encoder_mode(tokenizer_mode: str, model_dir: str | Path | None) -> str | None:
    """vLLM's tokenizer-mode resolution for the DeepSeek encoders (None: use the template)."""
    if tokenizer_mode in ENCODER_MODES:
        return tokenizer_mode
    if tokenizer_mode != "auto" or not model_dir:
        return None
    try:
        config = json.loads((Path(model_dir) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for arch in config.get("architectures") or ():
        if arch in _ARCHITECTURES:
            return _ARCHITECTURES[arch]
    return None


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return json.dumps(value, ensure_ascii=True)


def _tools_block(tools: list[dict[str, Any]]) -> str:
    schemas = "\n".join(_json(tool["function"]) for tool in tools)
    return f"{_TOOLS_PREAMBLE}{schemas}\n</functions>\n"


def _parameters(arguments: Any) -> str:
    if isinstance(arguments, str):
        arguments = json.loads(arguments)
    lines = []
    for key, value in arguments.items():
        is_str = isinstance(value, str)
        text = value if is_str else _json(value)
        flag = "true" if is_str else "false"
        lines.append(f'<{DSML}parameter name="{key}" string="{flag}">{text}</{DSML}parameter>')
    return "\n".join(lines)


def _calls_block(tool_calls: list[dict[str, Any]]) -> str:
    invokes = [
        f'<{DSML}invoke name="{call["function"]["name"]}">\n'
        f"{_parameters(call['function']['arguments'])}\n</{DSML}invoke>"
        for call in tool_calls
    ]
    return f"\n\n<{DSML}function_calls>\n" + "\n".join(invokes) + f"\n</{DSML}function_calls>"


def _last_user(messages: list[dict[str, Any]]) -> int:
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") in ("user", "developer"):
            return i
    return -1


def _response_format(value: Any) -> str:
    return (
        "## Response Format:\n\nYou MUST strictly adhere to the following schema to reply:\n"
        + _json(value)
    )


def _turn_end(thinking: bool, current: bool) -> str:
    return THINK_START if current and thinking else THINK_END


def _message(i: int, messages: list[dict[str, Any]], thinking: bool, last_user: int) -> str:
    msg = messages[i]
    role = msg.get("role")
    content = msg.get("content")
    tools = msg.get("tools")
    response_format = msg.get("response_format")
    if role == "system":
        out = content or ""
        if tools:
            out += "\n\n" + _tools_block(tools)
        if response_format:
            out += "\n\n" + _response_format(response_format)
        return out
    if role == "developer":
        if not content:
            raise EncodingError(f"Invalid message for role `{role}`: {msg}")
        body = ""
        if tools:
            body += "\n\n" + _tools_block(tools)
        if response_format:
            body += "\n\n" + _response_format(response_format)
        body += f"\n\n# The user's message is: {content}"
        return f"<｜User｜>{body}<｜Assistant｜>" + _turn_end(thinking, i == last_user)
    if role == "user":
        return f"<｜User｜>{content}<｜Assistant｜>" + _turn_end(thinking, i == last_user)
    if role == "tool":
        return _tool_result(i, messages, thinking, last_user)
    if role == "assistant":
        tool_calls = msg.get("tool_calls")
        calls = _calls_block(tool_calls) if tool_calls else ""
        reasoning_part = ""
        if thinking and i > last_user:
            reasoning = msg.get("reasoning")
            if not (reasoning or tool_calls):
                raise EncodingError(
                    f"ThinkingMode: thinking, invalid message without reasoning/tool_calls "
                    f"`{msg}` after last user message"
                )
            reasoning_part = (reasoning or "") + THINK_END
        if not tool_calls and msg.get("prefix", False):
            return content or ""
        return f"{reasoning_part}{content or ''}{calls}{EOS}"
    raise EncodingError(f"Invalid role: {role}")


def _tool_result(i: int, messages: list[dict[str, Any]], thinking: bool, last_user: int) -> str:
    j = i - 1
    owner = messages[j]
    while j >= 0 and owner.get("role") == "tool":
        j -= 1
        owner = messages[j]
    if not (i == 0 or (j >= 0 and owner.get("role") == "assistant")):
        raise EncodingError(f"Invalid messages at {i}:\n{owner}")
    order = i - j
    calls = owner.get("tool_calls")
    if not (calls and len(calls) >= order):
        raise EncodingError("No tool calls but found tool output")
    out = "\n\n<function_results>" if order == 1 else ""
    out += f"\n<result>{messages[i].get('content')}</result>"
    if order == len(calls):
        out += "\n</function_results>\n\n" + _turn_end(thinking, i >= last_user)
    return out


def encode_deepseek_v32(
    conversation: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    kwargs: dict[str, Any],
) -> str:
    """The prompt text of vLLM's DeepSeek V3.2 tokenizer `apply_chat_template`."""
    thinking = bool(kwargs.get("thinking", False) or kwargs.get("enable_thinking", False))
    messages = [dict(m) for m in conversation]
    if tools:
        messages.insert(0, {"role": "system", "tools": tools})
    drop = bool(messages) and messages[-1].get("role") == "user"
    last_user = _last_user(messages)
    if thinking and drop:
        kept = []
        for i, msg in enumerate(messages):
            role = msg.get("role")
            if role in ("user", "system", "tool") or i >= last_user:
                kept.append(msg)
            elif role == "assistant":
                msg.pop("reasoning", None)
                kept.append(msg)
            # other roles before the last user turn are left out
        messages = kept
        last_user = _last_user(messages)
    return BOS + "".join(_message(i, messages, thinking, last_user) for i in range(len(messages)))


def encode_prompt(
    mode: str,
    conversation: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    kwargs: dict[str, Any],
) -> str:
    """The prompt text for an encoder mode from `encoder_mode`."""
    from tokenfront.api.errors import APIError

    try:
        return encode_deepseek_v32(conversation, tools, kwargs)
    except (EncodingError, KeyError, TypeError, ValueError) as exc:
        raise APIError(str(exc)) from None
