"""Kimi K3 renderer helpers (`render/kimi_k3.py`); served parity is in tests/golden/vllm-kimik3.jsonl."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tokenfront.protocol.requests import ChatCompletionRequest, RequestValidationFailure
from tokenfront.render.kimi_k3 import (
    apply_thinking_switches,
    order_tool_results,
    template_value,
    uses_k3_renderer,
)


def _model(mode: str, architectures: list[str] | None) -> Any:
    config = {} if architectures is None else {"architectures": architectures}
    return SimpleNamespace(options=SimpleNamespace(tokenizer_mode=mode), hf_config=config)


@pytest.mark.parametrize(
    ("mode", "archs", "expected"),
    [
        ("kimi_k3", ["Qwen3ForCausalLM"], True),
        ("auto", ["KimiK3ForConditionalGeneration"], True),
        ("auto", ["Qwen3ForCausalLM"], False),
        ("auto", None, False),
        ("hf", ["KimiK3ForConditionalGeneration"], False),
        ("deepseek_v41", ["KimiK3ForConditionalGeneration"], False),
    ],
)
def test_selection(mode: str, archs: list[str] | None, expected: bool) -> None:
    assert uses_k3_renderer(_model(mode, archs)) is expected


def _switched(**kwargs: Any) -> dict[str, Any]:
    apply_thinking_switches(kwargs)
    return kwargs


def test_thinking_switches() -> None:
    assert _switched(enable_thinking=False) == {"thinking": False}
    assert _switched(enable_thinking=False, thinking=True) == {"thinking": True}
    assert _switched(reasoning_effort="none") == {"thinking": False}
    assert _switched(reasoning_effort="high", enable_thinking=True) == {
        "thinking": True,
        "thinking_effort": "high",
    }
    assert _switched(reasoning_effort="low", thinking_effort="max") == {"thinking_effort": "max"}
    assert _switched(add_generation_prompt=True) == {"add_generation_prompt": True}


@pytest.mark.parametrize("effort", ["medium", "minimal", "xhigh", 30])
def test_unsupported_effort(effort: Any) -> None:
    with pytest.raises(RequestValidationFailure) as err:
        _switched(reasoning_effort=effort)
    assert err.value.message == (
        f"Kimi K3 supports thinking_effort values: low, high, max (parameter=thinking_effort, value={effort})"
    )


def test_template_value() -> None:
    request = ChatCompletionRequest.model_validate(
        {
            "messages": [{"role": "user", "content": "x"}],
            "tools": [{"type": "function", "function": {"name": "f"}}],
            "tool_choice": {"type": "function", "function": {"name": "f"}},
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "a", "schema": {"type": "object"}},
            },
        }
    )
    assert template_value(request.tool_choice) == {"function": {"name": "f"}, "type": "function"}
    assert template_value(request.response_format) == {
        "type": "json_schema",
        "json_schema": {"name": "a", "json_schema": {"type": "object"}},
    }
    assert template_value("required") == "required"


def _call(name: str, call_id: str | None) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": "{}"}}
    if call_id is not None:
        call["id"] = call_id
    return call


def _tool(ref: str | None, content: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "tool", "content": content}
    if ref is not None:
        message["tool_call_id"] = ref
    return message


def test_results_follow_call_order() -> None:
    conversation = [
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [_call("a", "id_a"), _call("b", None), _call("a", "id_c")],
        },
        _tool("b:1", "B"),
        _tool("id_c", "C"),
        _tool("id_a", "A"),
        {"role": "user", "content": "next"},
    ]
    out = order_tool_results(conversation)
    assert [m["content"] for m in out] == ["q", "", "A", "B", "C", "next"]
    assert [(m["tool"], m["index"]) for m in out[2:5]] == [("a", 1), ("b", 2), ("a", 3)]
    assert "tool" not in conversation[2]  # input messages are not changed


def test_unresolved_block_kept_as_is() -> None:
    calls = {"role": "assistant", "content": "", "tool_calls": [_call("a", "x"), _call("b", "y")]}
    for last in (_tool("zzz", "?"), _tool(None, "?")):
        out = order_tool_results([calls, _tool("y", "Y"), last])
        assert [m["content"] for m in out] == ["", "Y", "?"]
        assert all("tool" not in m for m in out)


def test_duplicate_references_keep_their_order() -> None:
    calls = {"role": "assistant", "content": "", "tool_calls": [_call("a", "x"), _call("b", "y")]}
    out = order_tool_results([calls, _tool("y", "1"), _tool("x", "2"), _tool("y", "3")])
    assert [m["content"] for m in out[1:]] == ["2", "1", "3"]


def test_tool_messages_without_calls_untouched() -> None:
    conversation = [
        {"role": "user", "content": "q"},
        _tool("x", "r"),
        {"role": "assistant", "content": "a"},
    ]
    assert order_tool_results(conversation) == conversation
