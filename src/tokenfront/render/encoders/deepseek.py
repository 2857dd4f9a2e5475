"""DeepSeek V3.2 and V4 prompt encodings (vLLM's `deepseek_v32` / `deepseek_v4` tokenizer
modes), used instead of the model's Jinja template.

vLLM picks them with `--tokenizer-mode deepseek_v32|deepseek_v4`, or with the default `auto`
mode by the model's architecture. V3.2: thinking when the `thinking` or `enable_thinking`
template kwarg is truthy; tools become a first system message carrying the DSML tool
instructions; reasoning of assistant turns before the last user turn is dropped in thinking
mode when the conversation ends with a user turn. V4: thinking unless a switch is given and
falsy (or `reasoning_effort` is "none"), a reasoning-effort preamble, tools attached to the
first system message, tool results merged into user turns as `<tool_result>` blocks.
"""

from __future__ import annotations

import functools
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

ENCODER_MODES = ("deepseek_v32", "deepseek_v4", "deepseek_v41")
_ARCHITECTURES = {
    "DeepseekV32ForCausalLM": "deepseek_v32",
    "DeepseekV4ForCausalLM": "deepseek_v4",
    "DeepseekV4ForConditionalGeneration": "deepseek_v4",
    "DeepseekV41ForCausalLM": "deepseek_v41",
}


class EncodingError(ValueError):
    """The conversation cannot be encoded (vLLM answers 400 with the message)."""


def encoder_mode(tokenizer_mode: str, model_dir: str | Path | None) -> str | None:
    """vLLM's tokenizer-mode resolution for the DeepSeek encoders (None: use the template)."""
    if tokenizer_mode in ENCODER_MODES:
        return tokenizer_mode
    if tokenizer_mode != "auto" or not model_dir:
        return None
    return _mode_from_config(str(model_dir))


@functools.lru_cache(maxsize=64)
def _mode_from_config(model_dir: str) -> str | None:
    """The encoder named by the model's architectures (config.json read once per folder)."""
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
    if not messages:  # vLLM fails reading the last message (500 "list index out of range")
        raise EncodingError("Cannot apply chat template to an empty conversation. Provide at least one message.")
    drop = messages[-1].get("role") == "user"
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


def encoder_content_format(mode: str) -> str:
    """How vLLM's renderer for `mode` hands message content to the encoder."""
    return "openai" if mode in ("deepseek_v4", "deepseek_v41") else "string"


def encode_prompt(
    mode: str,
    conversation: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    kwargs: dict[str, Any],
    messages: list[Any] | None = None,
) -> str:
    """The prompt text for an encoder mode from `encoder_mode` (V4.1 encodes the request's
    own `messages`; the others the template conversation)."""
    from tokenfront.api.errors import APIError
    from tokenfront.render.encoders.deepseek_v41 import encode_deepseek_v41

    encode = encode_deepseek_v4 if mode == "deepseek_v4" else encode_deepseek_v32
    try:
        if mode == "deepseek_v41":
            return encode_deepseek_v41(conversation if messages is None else messages, tools, kwargs)
        return encode(conversation, tools, kwargs)
    except (EncodingError, KeyError, TypeError, ValueError) as exc:
        raise APIError(str(exc)) from None


# ---- DeepSeek V4 --------------------------------------------------------------------------
USER = "<｜User｜>"
ASSISTANT = "<｜Assistant｜>"
REMINDER = "<｜latest_reminder｜>"
IMAGE = "<｜deepseek_image｜>"
TASK_TOKENS = {
    "action": "<｜action｜>", "query": "<｜query｜>", "authority": "<｜authority｜>",
    "domain": "<｜domain｜>", "title": "<｜title｜>", "read_url": "<｜read_url｜>",
}  # fmt: skip
_EFFORT = {
    "low": "",
    "high": (
        "Reasoning Effort: Absolute maximum with no shortcuts permitted.\n"
        "You MUST be very thorough in your thinking and comprehensively decompose the problem to resolve the root cause, rigorously stress-testing your logic against all potential paths, edge cases, and adversarial scenarios.\n"
        "Explicitly write out your entire deliberation process, documenting every intermediate step, considered alternative, and rejected hypothesis to ensure absolutely no assumption is left unchecked.\n\n"
    ),
    "max": (
        "Reasoning Effort: Beyond maximum — exhaustive, relentless, and uncompromising.\n"
        "You MUST reason with the utmost depth and rigor, leaving absolutely nothing to chance: exhaustively decompose the problem into its most fundamental components, trace every causal chain to its root, and resolve the underlying cause rather than any surface symptom.\n"
        "Do not stop reasoning until you have independently verified the solution from multiple angles and are certain that no assumption remains unchecked and no error remains undiscovered.\n\n"
    ),
}  # noqa: E501

_V4_TOOLS = f"""## Tools

You have access to a set of tools to help answer the user's question. You can invoke tools by writing a "<{DSML}tool_calls>" block like the following:

<{DSML}tool_calls>
<{DSML}invoke name="$TOOL_NAME">
<{DSML}parameter name="$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE</{DSML}parameter>
...
</{DSML}invoke>
<{DSML}invoke name="$TOOL_NAME2">
...
</{DSML}invoke>
</{DSML}tool_calls>

String parameters should be specified as is and set `string="true"`. For all other types (numbers, booleans, arrays, objects), pass the value in JSON format and set `string="false"`.

If thinking_mode is enabled (triggered by {THINK_START}), you MUST output your complete reasoning inside {THINK_START}...{THINK_END} BEFORE any tool calls or final response.

Otherwise, output directly after {THINK_END} with tool calls or final response.

### Available Tool Schemas

"""  # noqa: E501
_V4_TOOLS_END = (
    "\n\nYou MUST strictly follow the above defined tool name and parameter schemas to invoke "
    "tool calls.\n"
)


def _v4_tools(tools: list[dict[str, Any]]) -> str:
    return _V4_TOOLS + "\n".join(_json(t["function"]) for t in tools) + _V4_TOOLS_END


def _flatten(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    parts: list[str] = []
    for block in content:
        if not isinstance(block, dict):
            parts.append(str(block))
        elif block.get("type") in ("image", "image_url"):
            parts.append(IMAGE)
        elif block.get("type") == "text":
            parts.append(block.get("text", ""))
        else:
            raise EncodingError(f"Unsupported content block type: {block.get('type')!r}")
    return "\n\n".join(parts)


def _merge_tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool messages become `tool_result` blocks of a user turn (merged with adjacent ones)."""
    merged: list[dict[str, Any]] = []
    for msg in messages:
        msg = json.loads(json.dumps(msg))
        role = msg.get("role")
        last = merged[-1] if merged else None
        open_user = last is not None and last.get("role") == "user" and "content_blocks" in last
        if role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": msg.get("tool_call_id", ""),
                "content": msg.get("content", ""),
            }
            if open_user:
                last["content_blocks"].append(block)  # type: ignore[index]
            else:
                merged.append({"role": "user", "content_blocks": [block]})
        elif role == "user":
            text = _flatten(msg.get("content", ""))
            block = {"type": "text", "text": text}
            if open_user and last.get("task") is None:  # type: ignore[union-attr]
                last["content_blocks"].append(block)  # type: ignore[index]
            else:
                new = {"role": "user", "content": text, "content_blocks": [block]}
                for key in ("task", "wo_eos", "mask"):
                    if key in msg:
                        new[key] = msg[key]
                merged.append(new)
        else:
            merged.append(msg)
    return merged


def _sort_tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool results of a user turn follow the order of the preceding assistant's calls
    (in place; the list is returned for chaining)."""
    order: dict[str, int] = {}
    for msg in messages:
        if msg.get("role") == "assistant" and msg.get("tool_calls"):
            order = {}
            for i, call in enumerate(msg["tool_calls"]):
                call_id = call.get("id") or call.get("function", {}).get("id", "")
                if call_id:
                    order[call_id] = i
        elif msg.get("role") == "user" and msg.get("content_blocks"):
            results = [b for b in msg["content_blocks"] if b.get("type") == "tool_result"]
            if len(results) > 1 and order:
                ranked = iter(sorted(results, key=lambda b: order.get(b.get("tool_use_id", ""), 0)))
                msg["content_blocks"] = [
                    next(ranked) if b.get("type") == "tool_result" else b
                    for b in msg["content_blocks"]
                ]
    return messages


def _v4_user(msg: dict[str, Any], content: Any) -> str:
    blocks = msg.get("content_blocks")
    if not blocks:
        return USER + (content or "")
    parts: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            parts.append(block.get("text", ""))
        elif kind in ("image", "image_url"):
            parts.append(IMAGE)
        elif kind == "tool_result":
            result = block.get("content", "")
            if isinstance(result, list):
                result = "\n\n".join(
                    b.get("text", "")
                    if b.get("type") == "text"
                    else f"[Unsupported {b.get('type')}]"
                    for b in result
                )
            parts.append(f"<tool_result>{result}</tool_result>")
        else:
            parts.append(f"[Unsupported {kind}]")
    return USER + "\n\n".join(parts)


def _v4_message(
    i: int, messages: list[dict[str, Any]], thinking: bool, drop: bool, effort: str, last_user: int
) -> str:
    msg = messages[i]
    role = msg.get("role")
    content = _flatten(msg.get("content"))
    tools = msg.get("tools")
    response_format = msg.get("response_format")
    out = _EFFORT[effort] if i == 0 and thinking else ""
    if role == "system":
        out += content or ""
        if tools:
            out += "\n\n" + _v4_tools(tools)
        if response_format:
            out += "\n\n" + _response_format(response_format)
    elif role == "developer":
        if not content:
            raise EncodingError(f"Invalid message for role `{role}`: {msg}")
        out += USER + content
        if tools:
            out += "\n\n" + _v4_tools(tools)
        if response_format:
            out += "\n\n" + _response_format(response_format)
    elif role == "user":
        out += _v4_user(msg, content)
    elif role == "latest_reminder":
        out += REMINDER + f"{content}"
    elif role == "assistant":
        tool_calls = msg.get("tool_calls")
        calls = ""
        if tool_calls:
            invokes = [
                f'<{DSML}invoke name="{c["function"]["name"]}">\n'
                f"{_parameters(c['function']['arguments'])}\n</{DSML}invoke>"
                for c in tool_calls
            ]
            calls = f"\n\n<{DSML}tool_calls>\n" + "\n".join(invokes) + f"\n</{DSML}tool_calls>"
        after_task = i >= 1 and messages[i - 1].get("task") is not None
        reasoning_part = ""
        if thinking and not after_task and (not drop or i > last_user):
            reasoning_part = (msg.get("reasoning") or "") + THINK_END
        eos = "" if msg.get("wo_eos", False) else EOS
        out += f"{reasoning_part}{content or ''}{calls}{eos}"
    else:
        raise EncodingError(f"Invalid role: {role}")

    if i + 1 < len(messages) and messages[i + 1].get("role") not in (
        "assistant",
        "latest_reminder",
    ):
        return out
    task = msg.get("task")
    if task is not None:
        if task not in TASK_TOKENS:
            raise EncodingError(f"Invalid task: '{task}'. Valid tasks are: {list(TASK_TOKENS)}")
        if task != "action":
            return out + TASK_TOKENS[task]
        return out + ASSISTANT + (THINK_START if thinking else THINK_END) + TASK_TOKENS[task]
    opens = role in ("user", "developer") or (
        role == "system" and (i == len(messages) - 1 or messages[i + 1].get("role") == "assistant")
    )
    if opens:
        out += ASSISTANT
        out += THINK_START if thinking and (not drop or i >= last_user) else THINK_END
    return out


def _v4_drop_thinking(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last_user = _last_user(messages)
    keep = {"user", "system", "tool", "latest_reminder", "direct_search_results"}
    out: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role in keep or i >= last_user:
            out.append(msg)
        elif role == "assistant":
            msg = dict(msg)
            msg.pop("reasoning", None)
            out.append(msg)
    return out


def encode_deepseek_v4(
    conversation: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    kwargs: dict[str, Any],
) -> str:
    """The prompt text of vLLM's DeepSeek V4 tokenizer `apply_chat_template`."""
    if "thinking" not in kwargs and "enable_thinking" not in kwargs:
        thinking = True
    else:
        thinking = bool(kwargs.get("thinking")) or bool(kwargs.get("enable_thinking"))
    messages = list(conversation)
    if tools:
        at = next((i for i, m in enumerate(messages) if m.get("role") == "system"), None)
        if at is None:
            messages.insert(0, {"role": "system"})
            at = 0
        messages[at] = {**messages[at], "tools": tools}
    effort = kwargs.get("reasoning_effort")
    if not isinstance(effort, str):
        effort = "high" if thinking else None
    elif effort == "none":
        thinking, effort = False, None
    elif effort != "max":
        effort = "low" if effort in ("low", "minimal", "medium") else "high"
    drop = bool(kwargs.get("drop_thinking", True))
    messages = _sort_tool_results(_merge_tool_results(messages))
    if any(m.get("tools") for m in messages):
        drop = False
    if thinking and drop:
        messages = _v4_drop_thinking(messages)
    last_user = _last_user(messages)
    return BOS + "".join(
        _v4_message(i, messages, thinking, drop, effort or "low", last_user)
        for i in range(len(messages))
    )
