"""DeepSeek V4.1 prompt encoding (vLLM's `deepseek_v41` tokenizer mode).

Chosen with `--tokenizer-mode deepseek_v41`, or under `auto` for the `DeepseekV41ForCausalLM`
architecture. Unlike V3.2 / V4 it encodes the request's own messages (list contents joined with
blank lines), not the template conversation. Differences from V4: a `<｜System｜>` lead token, a
numeric reasoning-effort preamble (1-100; low/high/xhigh/max are named budgets, anything else
is refused), space-separated DSML tags (`<｜DSML｜ calls>`, ` invoke`, ` parameter`), system
messages after the first one open a new turn, and user turns that only carry tool results do
not count as the latest user turn.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from tokenfront.render.encoders.deepseek import (
    _V4_TOOLS,
    _V4_TOOLS_END,
    ASSISTANT,
    BOS,
    DSML,
    EOS,
    IMAGE,
    TASK_TOKENS,
    THINK_END,
    THINK_START,
    USER,
    EncodingError,
    _json,
    _response_format,
    _sort_tool_results,
)

SYSTEM = "<｜System｜>"
CALLS_OPEN = f"<{DSML} calls>"
CALLS_CLOSE = f"</{DSML} calls>"
EFFORT_BUDGETS = {"low": 50, "high": 75, "xhigh": 75, "max": 100}
_ROLES = ("system", "developer", "user", "assistant", "tool")
_TEXT_PARTS = ("text", "input_text", "output_text")
_IMAGE_PARTS = ("image_url", "input_image", "image_pil")
_TOOLS_TEXT = (
    (_V4_TOOLS + "{schemas}" + _V4_TOOLS_END)
    .replace(f"{DSML}tool_calls", f"{DSML} calls")
    .replace(f"{DSML}invoke", f"{DSML} invoke")
    .replace(f"{DSML}parameter", f"{DSML} parameter")
)


def _no_placeholder(text: Any) -> None:
    if isinstance(text, str) and IMAGE in text:
        raise EncodingError(
            f"Message text contains image special token {IMAGE!r}; "
            "provide images as image content parts."
        )


def _flatten_parts(parts: list[Any]) -> str:
    pieces: list[str] = []
    for part in parts:
        kind = part.get("type")
        if kind in _TEXT_PARTS:
            _no_placeholder(part.get("text"))
            pieces.append(part.get("text", ""))
        elif kind in _IMAGE_PARTS:
            pieces.append(IMAGE)
        else:
            raise EncodingError(
                f"DeepSeek V4.1 supports text and image content only; got {kind!r}"
            )
    return "\n\n".join(pieces)


def normalize_messages(messages: list[Any]) -> list[dict[str, Any]]:
    """Request messages as the encoder reads them: checked roles, text-only content."""
    out: list[dict[str, Any]] = []
    for original in messages:
        msg = dict(copy.deepcopy(original))
        if msg.get("role") not in _ROLES:
            raise EncodingError(f"Invalid role: {msg.get('role')}")
        if "reasoning" in msg:
            msg["reasoning_content"] = msg["reasoning"]
        _no_placeholder(msg.get("reasoning_content"))
        content = msg.get("content")
        if isinstance(content, list):
            msg["content"] = _flatten_parts(content)
        else:
            _no_placeholder(content)
        out.append(msg)
    return out


def _merge_tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool results become `tool_result` blocks of a user turn; adjacent user turns merge."""
    merged: list[dict[str, Any]] = []
    for msg in messages:
        role = msg.get("role")
        last = merged[-1] if merged else None
        open_user = last is not None and last.get("role") == "user" and "content_blocks" in last
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": msg.get("tool_call_id", ""),
                     "content": msg.get("content", "")}  # fmt: skip
            if open_user:
                last["content_blocks"].append(block)  # type: ignore[index]
            else:
                merged.append({"role": "user", "content_blocks": [block]})
        elif role == "user":
            blocks = msg.get("content_blocks")
            if blocks is None:
                blocks = [{"type": "text", "text": msg.get("content", "")}]
            if open_user and last.get("task") is None:  # type: ignore[union-attr]
                last["content_blocks"].extend(blocks)  # type: ignore[index]
            else:
                merged.append({**msg, "content_blocks": list(blocks)})
        else:
            merged.append(msg)
    return merged


def _opens_turn(messages: list[dict[str, Any]], i: int) -> bool:
    role = messages[i].get("role")
    return role in ("user", "developer") or (role == "system" and i > 0)


def last_user_index(messages: list[dict[str, Any]]) -> int:
    """The latest turn-opening message, skipping user turns made only of tool results."""
    for i in range(len(messages) - 1, -1, -1):
        if not _opens_turn(messages, i):
            continue
        blocks = messages[i].get("content_blocks")
        if blocks and not any(b.get("type") in ("text", "image", "image_url") for b in blocks):
            continue
        return i
    return -1


def _drop_old_reasoning(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last = last_user_index(messages)
    keep = {"user", "system", "tool", "latest_reminder", "direct_search_results"}
    out: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role in keep or i >= last:
            out.append(msg)
        elif role == "assistant":
            out.append({k: v for k, v in msg.items() if k != "reasoning_content"})
    return out


def _arguments(arguments: Any) -> dict[str, Any]:
    """Call arguments as vLLM's message post-processing leaves them in the request: a JSON
    object, else empty (unparsable or non-object JSON)."""
    if isinstance(arguments, dict):
        return arguments
    if not arguments or not isinstance(arguments, str):
        return {}
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _calls(tool_calls: list[dict[str, Any]]) -> str:
    invokes = []
    for call in tool_calls:
        function = call["function"]
        params = "\n".join(
            f'<{DSML} parameter name="{key}" string="{"true" if isinstance(v, str) else "false"}">'
            f"{v if isinstance(v, str) else _json(v)}</{DSML} parameter>"
            for key, v in _arguments(function["arguments"]).items()
        )
        invokes.append(f'<{DSML} invoke name="{function["name"]}">\n{params}\n</{DSML} invoke>')
    return f"\n\n{CALLS_OPEN}\n" + "\n".join(invokes) + f"\n{CALLS_CLOSE}"


def _tool_result_text(content: Any) -> str:
    if isinstance(content, list):
        content = "\n\n".join(
            b.get("text", "") if b.get("type") == "text" else f"[Unsupported {b.get('type')}]"
            for b in content
        )
    return f"<tool_result>{content}</tool_result>"


def _user_text(msg: dict[str, Any]) -> str:
    blocks = msg.get("content_blocks")
    if not blocks:
        return USER + (msg.get("content") or "")
    parts: list[str] = []
    for block in blocks:
        kind = block.get("type")
        if kind == "text":
            parts.append(block.get("text", ""))
        elif kind == "tool_result":
            parts.append(_tool_result_text(block.get("content", "")))
        else:
            parts.append(f"[Unsupported {kind}]")
    return USER + "\n\n".join(parts)


def _extras(msg: dict[str, Any]) -> str:
    out = ""
    if msg.get("tools"):
        schemas = "\n".join(_json(tool["function"]) for tool in msg["tools"])
        out += "\n\n" + _TOOLS_TEXT.format(schemas=schemas)
    if msg.get("response_format"):
        out += "\n\n" + _response_format(msg["response_format"])
    return out


class _Encoder:
    def __init__(self, messages: list[dict[str, Any]], thinking: bool, drop: bool, effort: int):
        self.messages = messages
        self.thinking = thinking
        self.drop = drop
        self.effort = effort
        self.last_user = last_user_index(messages)

    def body(self, i: int) -> str:
        msg = self.messages[i]
        role = msg.get("role")
        content = msg.get("content")
        if role == "system":
            return (SYSTEM if i > 0 else "") + (content or "") + _extras(msg)
        if role == "developer":
            if not content:
                raise EncodingError(f"Invalid message for role `{role}`: {msg}")
            return USER + content + _extras(msg)
        if role == "user":
            return _user_text(msg)
        if role == "assistant":
            tool_calls = msg.get("tool_calls")
            after_task = i > 0 and self.messages[i - 1].get("task") is not None
            reasoning = ""
            if self.thinking and not after_task and (not self.drop or i > self.last_user):
                reasoning = (msg.get("reasoning_content") or "") + THINK_END
            calls = _calls(tool_calls) if tool_calls else ""
            eos = "" if msg.get("wo_eos", False) else EOS
            return f"{reasoning}{content or ''}{calls}{eos}"
        raise EncodingError(f"Unknown role: {role}")

    def transition(self, i: int) -> str:
        msg = self.messages[i]
        following = self.messages[i + 1].get("role") if i + 1 < len(self.messages) else None
        if following is not None and following not in ("assistant", "latest_reminder"):
            return ""
        task = msg.get("task")
        if task is not None:
            if task not in TASK_TOKENS:
                raise EncodingError(f"Invalid task: '{task}'. Valid tasks are: {list(TASK_TOKENS)}")
            if task != "action":
                return TASK_TOKENS[task]
            return ASSISTANT + (THINK_START if self.thinking else THINK_END) + TASK_TOKENS[task]
        if not _opens_turn(self.messages, i):
            return ""
        think = self.thinking and (not self.drop or i >= self.last_user)
        return ASSISTANT + (THINK_START if think else THINK_END)

    def message(self, i: int) -> str:
        role = self.messages[i].get("role")
        preamble = ""
        if i == 0 and self.thinking:
            preamble = (
                f"Reasoning Effort: {self.effort} "
                "(range 1-100, the higher the value, the more thorough the reasoning)\n\n"
            )
        lead = SYSTEM if i == 0 and (preamble or role == "system") else ""
        return lead + preamble + self.body(i) + self.transition(i)


def _effort(kwargs: dict[str, Any]) -> tuple[bool, int]:
    """(thinking, effort budget) from the template kwargs, as vLLM's V4.1 tokenizer reads them."""
    if "thinking" not in kwargs and "enable_thinking" not in kwargs:
        thinking = True
    else:
        thinking = bool(kwargs.get("thinking") or kwargs.get("enable_thinking"))
    effort = kwargs.get("reasoning_effort")
    if isinstance(effort, str) and effort == "none":
        thinking, effort = False, None
    if effort is None:
        effort = "high"
    if type(effort) is int and 1 <= effort <= 100:
        return thinking, effort
    if isinstance(effort, str) and effort in EFFORT_BUDGETS:
        return thinking, EFFORT_BUDGETS[effort]
    raise EncodingError(
        "DeepSeek V4.1 reasoning_effort must be low, high, xhigh, max, "
        "or an integer within [1, 100] in chat_template_kwargs"
    )


def encode_deepseek_v41(
    messages: list[Any], tools: list[dict[str, Any]] | None, kwargs: dict[str, Any]
) -> str:
    """The prompt text of vLLM's DeepSeek V4.1 tokenizer `apply_chat_template`."""
    conversation = normalize_messages(messages)
    if tools:
        system = next((m for m in conversation if m.get("role") == "system"), None)
        if system is None:
            system = {"role": "system", "content": ""}
            conversation.insert(0, system)
        system["tools"] = tools
    thinking, effort = _effort(kwargs)
    merged = _merge_tool_results(conversation)
    _sort_tool_results(merged)
    drop = bool(kwargs.get("drop_thinking", True)) and not any(m.get("tools") for m in merged)
    if thinking and drop:
        merged = _drop_old_reasoning(merged)
    encoder = _Encoder(merged, thinking, drop, effort)
    return BOS + "".join(encoder.message(i) for i in range(len(merged)))
