"""Kimi K3 chat rendering (vLLM's `kimi_k3` tokenizer mode).

vLLM renders K3 conversations through the tokenizer's own `apply_chat_template` with
`tokenize=True` (on the real checkpoint that is Moonshot's Python XTML encoder shipped as the
tokenizer's remote code; on other tokenizers it is their Jinja template), never re-tokenizing a
prompt text. Around that call it: reads messages with the "string" content format, moves tool
results into the order of the assistant's calls (tagging them with the called tool's name and
1-based position), maps the thinking switches onto K3's `thinking` / `thinking_effort`
variables (efforts other than low / high / max are a 400), and hands the API's `tool_choice`
(when tools are given and the choice is not auto) and `response_format` to the encoder. Template
kwargs are not filtered by what the template reads.

Selection as in vLLM: `--tokenizer-mode kimi_k3`, or `auto` with the K3 architecture.
"""

from __future__ import annotations

from typing import Any

import jinja2

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import RequestValidationFailure
from tokenfront.tokenization.registry import ServedModel

K3_MODE = "kimi_k3"
K3_ARCHITECTURES = frozenset({"KimiK3ForConditionalGeneration"})
THINKING_EFFORTS = ("low", "high", "max")


def uses_k3_renderer(model: ServedModel) -> bool:
    """True when vLLM would pick its Kimi K3 renderer for this model."""
    mode = model.options.tokenizer_mode
    if mode == K3_MODE:
        return True
    if mode != "auto":
        return False
    architectures = (
        model.hf_config.get("architectures") if isinstance(model.hf_config, dict) else None
    )
    return any(arch in K3_ARCHITECTURES for arch in architectures or ())


def apply_thinking_switches(kwargs: dict[str, Any]) -> None:
    """`enable_thinking` / `reasoning_effort` -> `thinking` / `thinking_effort` (in place)."""
    enable = kwargs.pop("enable_thinking", None)
    if enable is not None:
        kwargs.setdefault("thinking", enable)
    effort = kwargs.pop("reasoning_effort", None)
    if effort == "none":
        kwargs.setdefault("thinking", False)
    elif effort is not None:
        kwargs.setdefault("thinking_effort", effort)
    chosen = kwargs.get("thinking_effort")
    if chosen is not None and chosen not in THINKING_EFFORTS:
        raise RequestValidationFailure(
            f"Kimi K3 supports thinking_effort values: {', '.join(THINKING_EFFORTS)}",
            parameter="thinking_effort",
            value=chosen,
        )


def template_value(value: Any) -> Any:
    """A request object as the encoder sees it: JSON-mode dump without unset (None) fields."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", exclude_none=True)
    return value


def _call_targets(tool_calls: list[Any]) -> dict[str, tuple[int, str]]:
    """Keys a tool result may use for a call (its id, else `NAME:POSITION`) -> (position, name)."""
    targets: dict[str, tuple[int, str]] = {}
    for position, call in enumerate(tool_calls):
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not name:
            continue
        keys = [f"{name}:{position}"]
        call_id = call.get("id")
        if call_id:
            keys.insert(0, str(call_id))
        for key in keys:
            targets.setdefault(key, (position, name))
    return targets


def _ordered_results(
    results: list[dict[str, Any]], targets: dict[str, tuple[int, str]]
) -> list[dict[str, Any]]:
    """The results sorted by call position and tagged, or unchanged when one does not resolve."""
    keyed: list[tuple[int, int, dict[str, Any]]] = []
    for order, result in enumerate(results):
        ref = result.get("tool_call_id")
        target = targets.get(str(ref)) if ref is not None else None
        if target is None:
            return [dict(r) for r in results]
        position, name = target
        keyed.append((position, order, {**result, "tool": name, "index": position + 1}))
    keyed.sort(key=lambda item: (item[0], item[1]))
    return [item[2] for item in keyed]


def order_tool_results(conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Copies of the messages, each block of tool results after an assistant's calls in call order."""
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(conversation):
        message = conversation[i]
        out.append(dict(message))
        i += 1
        calls = message.get("tool_calls") if message.get("role") == "assistant" else None
        if not calls:
            continue
        start = i
        while i < len(conversation) and conversation[i].get("role") == "tool":
            i += 1
        if i > start:
            out.extend(_ordered_results(conversation[start:i], _call_targets(calls)))
    return out


def _encode(
    tokenizer: Any, conversation: list[dict[str, Any]], kwargs: dict[str, Any]
) -> list[int]:
    try:
        ids = tokenizer.apply_chat_template(conversation, **kwargs)
    except APIError:
        raise
    except (ValueError, TypeError, OverflowError, jinja2.TemplateError) as exc:
        # vLLM's fallback mapping for exceptions escaping the encoder: 400 with the text.
        raise APIError(str(exc)) from None
    except NotImplementedError as exc:
        raise APIError(str(exc), status=501, err_type="NotImplementedError") from None
    return list(ids)


def render_k3_ids(
    model: ServedModel,
    conversation: list[dict[str, Any]],
    kwargs: dict[str, Any],
    *,
    chat_template: str | None,
    tool_choice: Any = None,
    response_format: Any = None,
) -> list[int]:
    """The prompt ids vLLM's K3 renderer produces for an already-read conversation.

    `kwargs` are the merged chat-template kwargs (server defaults, tools, request switches);
    `tool_choice` is the request's choice only when it carries tools.
    """
    call_kwargs = {**kwargs, "chat_template": chat_template, "return_dict": False}
    apply_thinking_switches(call_kwargs)
    if tool_choice not in (None, "auto"):
        call_kwargs["tool_choice"] = template_value(tool_choice)
    if response_format is not None:
        call_kwargs["response_format"] = template_value(response_format)
    call_kwargs["tokenize"] = True
    return _encode(model.tokenizer, order_tool_results(conversation), call_kwargs)
