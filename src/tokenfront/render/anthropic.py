"""`/v1/messages/render`: an Anthropic Messages request, rendered as the chat request
vLLM 0.33.0 converts it to (its `/v1/messages` conversion), so the prompt ids match."""

from __future__ import annotations

import functools
import json
import threading
import time
from dataclasses import dataclass
from typing import Any

import jinja2
import jinja2.ext
import jinja2.sandbox
from pydantic import ValidationError

from tokenfront.api.errors import APIError
from tokenfront.protocol.anthropic import (
    AnthropicMessage,
    AnthropicMessagesRequest,
    AnthropicTool,
    ContentBlock,
    ToolDefinition,
)
from tokenfront.protocol.requests import (
    ChatCompletionNamedToolChoiceParam,
    ChatCompletionRequest,
    ChatCompletionToolsParam,
    ResponseFormat,
    StreamOptions,
)
from tokenfront.render.adjust import adjust_request
from tokenfront.render.chat import chat_tokenize_params, render_chat_request, render_prompt_ids
from tokenfront.render.chat_template import select_template
from tokenfront.render.encoders.deepseek import encoder_mode
from tokenfront.render.kimi_k3 import uses_k3_renderer
from tokenfront.render.mistral import is_mistral_tokenizer
from tokenfront.tokenization.registry import ServedModel

# Claude Code's attribution header carries a per-request hash; it is dropped from system text.
BILLING_HEADER = "x-anthropic-billing-header"
# The efforts `thinking.type = "disabled"` is tried against, in vLLM's order.
THINKING_EFFORTS = ("low", "medium", "high", "xhigh", "max")
_TOOL_CHOICES = {"auto": "auto", "any": "required", "none": "none"}


# --- per-model facts ---------------------------------------------------------------------


@dataclass
class MessagesFacts:
    """What the conversion needs to know of a model's chat template (found once per model)."""

    merge_inline_system: bool
    disabled_thinking_effort: str | None = None  # resolved on the first thinking-disabled request


_facts_lock = threading.Lock()


def messages_facts(model: ServedModel) -> MessagesFacts:
    facts = model.messages_facts
    if facts is None:
        with _facts_lock:
            facts = model.messages_facts
            if facts is None:
                facts = model.messages_facts = MessagesFacts(merge_inline_system(model))
    return facts


@functools.lru_cache(maxsize=32)
def requires_system_first(template: str | None) -> bool:
    """Whether a template refuses system messages after the first turn (or there is none).

    Probed as vLLM does: a [system, user, system, user] conversation in a plain sandbox
    (no `raise_exception`, so a template that would raise fails on the undefined name).
    """
    if not template:
        return True
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols]
    )
    turns = [{"role": role, "content": "t"} for role in ("system", "user", "system", "user")]
    try:
        env.from_string(template).render(messages=turns, add_generation_prompt=False)
    except Exception:  # a TemplateError (any other error stops vLLM at start-up)
        return True
    return False


def _candidate_templates(model: ServedModel) -> list[str | None]:
    """The templates a request renders with, with and without tools."""
    if is_mistral_tokenizer(model.tokenizer) or uses_k3_renderer(model) or encoder_mode(
        model.options.tokenizer_mode, model.options.model
    ):
        return [model.chat_template if model.options.chat_template else None]
    return [select_template(model, None, None), select_template(model, None, [])]


def merge_inline_system(model: ServedModel) -> bool:
    return any(requires_system_first(t) for t in _candidate_templates(model))


def disabled_thinking_effort(model: ServedModel) -> str:
    """The reasoning_effort a thinking-disabled request renders with.

    `auto`: "none" unless the template refuses it or renders it as one of the thinking
    efforts (a template that ignores the effort, or reads unknown efforts as the top one).
    """
    configured = model.options.anthropic_disabled_thinking_effort
    if configured != "auto":
        return configured
    facts = messages_facts(model)
    if facts.disabled_thinking_effort is None:
        facts.disabled_thinking_effort = _probe_disabled_effort(model)
    return facts.disabled_thinking_effort


def _probe_prompt(model: ServedModel, effort: str) -> list[int] | None:
    probe = ChatCompletionRequest.model_validate(
        {"messages": [{"role": "user", "content": "Hi"}], "reasoning_effort": effort}
    )
    try:  # vLLM's probe renders and adjusts (builds the parsers) as a chat request does
        ids = render_prompt_ids(model, probe, chat_tokenize_params(model, probe))
        adjust_request(model, probe, ids)
        return ids
    except Exception:
        return None


def _probe_disabled_effort(model: ServedModel) -> str:
    without = _probe_prompt(model, "none")
    if without is None:
        return "low"
    if any(_probe_prompt(model, effort) == without for effort in THINKING_EFFORTS):
        return "low"
    return "none"


# --- messages ----------------------------------------------------------------------------


def _image_url(source: dict[str, Any]) -> str:
    if source.get("type") == "url":
        return source.get("url", "")
    return f"data:{source.get('media_type', 'image/jpeg')};base64,{source.get('data', '')}"


def _text_blocks(blocks: list[ContentBlock]) -> list[str]:
    return [
        b.text for b in blocks if b.type == "text" and b.text and not b.text.startswith(BILLING_HEADER)
    ]


def _inline_system_text(message: AnthropicMessage) -> str | None:
    if isinstance(message.content, str):
        return None if message.content.startswith(BILLING_HEADER) else message.content
    return "".join(_text_blocks(message.content)) or None


def _system_messages(request: AnthropicMessagesRequest, merge: bool) -> list[dict[str, Any]]:
    """The leading system message: the `system` field (and inline system turns when merged)."""
    parts: list[str] = []
    system = request.system
    if system:
        parts.extend([system] if isinstance(system, str) else _text_blocks(system))
    if merge:
        for message in request.messages:
            if message.role == "system" and (text := _inline_system_text(message)):
                parts.append(text)
    return [{"role": "system", "content": "".join(parts)}] if parts else []


def _tool_call(block: ContentBlock) -> dict[str, Any]:
    return {
        "id": block.id or f"call_{int(time.time())}",
        "type": "function",
        # Python's json.dumps spacing and ASCII escapes, as the prompt vLLM renders.
        "function": {"name": block.name or "", "arguments": json.dumps(block.input or {})},
    }


def _user_tool_result(block: ContentBlock) -> list[dict[str, Any]]:
    """A user's tool_result: a tool message, then its images and tool references."""
    text = ""
    images: list[str] = []
    references: list[dict[str, Any]] = []
    if isinstance(block.content, str):
        text = block.content
    elif isinstance(block.content, list):
        texts: list[str] = []
        for item in block.content:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind == "text":
                texts.append(item.get("text", ""))
            elif kind == "image":
                if url := _image_url(item.get("source", {})):
                    images.append(url)
            elif kind == "tool_reference":
                if name := item.get("tool_name") or item.get("name"):
                    references.append({"type": "tool_reference", "name": name})
        text = "\n".join(texts)
    call_id = block.tool_use_id or ""
    out: list[dict[str, Any]] = [{"role": "tool", "tool_call_id": call_id, "content": text or ""}]
    if images:
        out.append(
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": u}} for u in images]}
        )
    if references:
        out.append({"role": "tool", "tool_call_id": call_id, "content": references})
    return out


def _block_message(message: AnthropicMessage, out: list[dict[str, Any]]) -> dict[str, Any]:
    """A message of content blocks; a user's tool results go to `out` ahead of it."""
    assert not isinstance(message.content, str)
    parts: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    reasoning: list[str] = []
    for block in message.content:
        kind = block.type
        if kind == "text" and block.text:
            parts.append({"type": "text", "text": block.text})
        elif kind == "image" and block.source:
            parts.append({"type": "image_url", "image_url": {"url": _image_url(block.source)}})
        elif kind == "thinking" and block.thinking is not None:
            reasoning.append(block.thinking)
        elif kind == "tool_use":
            calls.append(_tool_call(block))
        elif kind == "tool_result":
            if message.role == "user":
                out.extend(_user_tool_result(block))
            else:  # Python's str() of the content, as vLLM writes it
                parts.append({"type": "text", "text": f"Tool result: {str(block.content) if block.content else ''}"})
    converted: dict[str, Any] = {"role": message.role}
    if reasoning:
        converted["reasoning"] = "".join(reasoning)
    if calls:
        converted["tool_calls"] = calls
    if len(parts) == 1 and parts[0]["type"] == "text":
        converted["content"] = parts[0]["text"]
    elif parts:
        converted["content"] = parts
    return converted


def chat_messages(request: AnthropicMessagesRequest, *, merge_inline_system: bool) -> list[dict[str, Any]]:
    """The OpenAI chat messages of a Messages request."""
    out = _system_messages(request, merge_inline_system)
    for message in request.messages:
        if message.role == "system":
            if not merge_inline_system and (text := _inline_system_text(message)):
                out.append({"role": "system", "content": text})
            continue
        if isinstance(message.content, str):
            out.append({"role": message.role, "content": message.content})
            continue
        converted = _block_message(message, out)
        if message.role != "user" or "content" in converted:
            out.append(converted)
    return out


# --- tools -------------------------------------------------------------------------------


def resolved_tools(request: AnthropicMessagesRequest) -> list[AnthropicTool] | None:
    """The tools in effect at the end of the conversation, after the system turns'
    tool_addition / tool_removal blocks (a referenced tool is no longer deferred)."""
    changes = [
        block
        for message in request.messages
        if not isinstance(message.content, str)
        for block in message.content
        if block.type in ("tool_addition", "tool_removal")
    ]
    if not changes:
        return request.tools
    tools = {tool.name: tool for tool in request.tools or []}
    removed: set[str] = set()
    for block in changes:
        change = block.tool
        assert change is not None  # the block's validator requires it
        if isinstance(change, ToolDefinition):
            name = change.definition.name
            tools[name] = change.definition
        else:
            name = change.name
            if name not in tools:
                raise APIError(f"{block.type} references tool {name!r}, which is not declared in tools")
            if block.type == "tool_addition":
                tools[name] = tools[name].model_copy(update={"defer_loading": None})
        if block.type == "tool_removal":
            removed.add(name)
        else:
            removed.discard(name)
    return [tool for name, tool in tools.items() if name not in removed]


def _chat_tool(tool: AnthropicTool) -> ChatCompletionToolsParam:
    return ChatCompletionToolsParam.model_validate(
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.input_schema,
                "strict": tool.strict,
                "defer_loading": tool.defer_loading,
            },
        }
    )


# --- the request -------------------------------------------------------------------------


def to_chat_request(
    request: AnthropicMessagesRequest, *, merge_inline_system: bool, disabled_effort: str = "none"
) -> ChatCompletionRequest:
    """vLLM's conversion. Only the base fields are validated as a chat request; tool
    choice, tools, effort and format are set on the result unchecked, as vLLM sets them."""
    try:
        messages = chat_messages(request, merge_inline_system=merge_inline_system)
    except (AttributeError, TypeError) as exc:  # e.g. a tool_result item whose text is not text
        raise APIError(str(exc)) from None  # (vLLM: a 500)
    base = {
        "model": request.model,
        "messages": messages,
        "max_tokens": request.max_tokens,
        "max_completion_tokens": request.max_tokens,
        "stop": request.stop_sequences,
        "temperature": request.temperature,
        "top_p": request.top_p,
        "top_k": request.top_k,
        "watermarking": request.watermarking,
        "cache_salt": request.cache_salt,
        "kv_transfer_params": request.kv_transfer_params,
        "ec_transfer_params": request.ec_transfer_params,
        "vllm_xargs": request.vllm_xargs,
        "chat_template_kwargs": request.chat_template_kwargs,
    }
    try:
        chat = ChatCompletionRequest.model_validate({k: v for k, v in base.items() if v is not None})
    except ValidationError as exc:  # vLLM: a ValueError in the handler, a 400
        raise APIError(str(exc)) from None
    if request.stream:
        chat.stream = True
        chat.stream_options = StreamOptions(include_usage=True, continuous_usage_stats=True)
    output = request.output_config
    if output is not None and output.format is not None and output.format.json_schema:
        chat.response_format = ResponseFormat.model_validate(
            {"type": output.format.type, "json_schema": {"name": output.format.type, "schema": output.format.json_schema}}
        )
    if output is not None and output.effort is not None:
        chat.reasoning_effort = output.effort
    thinking = request.thinking
    if thinking is not None and thinking.type == "disabled":
        chat.reasoning_effort = disabled_effort  # type: ignore[assignment]
    elif thinking is not None and thinking.type == "enabled":
        chat.thinking_token_budget = thinking.budget_tokens
    choice = request.tool_choice
    if choice is None:
        chat.tool_choice = None
    else:
        chat.parallel_tool_calls = not choice.disable_parallel_tool_use
        if choice.type == "tool":
            chat.tool_choice = ChatCompletionNamedToolChoiceParam.model_validate(
                {"type": "function", "function": {"name": choice.name}}
            )
        else:
            chat.tool_choice = _TOOL_CHOICES[choice.type]  # type: ignore[assignment]
    tools = resolved_tools(request)
    if tools is not None:
        if chat.tool_choice is None:
            chat.tool_choice = "auto"
        chat.tools = [_chat_tool(tool) for tool in tools]
    chat.mm_payload = request.mm_payload
    return chat


def render_messages_request(
    model: ServedModel,
    request: AnthropicMessagesRequest,
    *,
    header_request_id: str | None = None,
    max_n: int = 16384,
) -> dict[str, Any]:
    """A Messages request to the `GenerateRequest` its chat conversion renders to."""
    facts = messages_facts(model)
    effort = disabled_thinking_effort(model) if request.thinking and request.thinking.type == "disabled" else "none"
    chat = to_chat_request(request, merge_inline_system=facts.merge_inline_system, disabled_effort=effort)
    return render_chat_request(model, chat, header_request_id=header_request_id, max_n=max_n)
