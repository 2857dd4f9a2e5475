"""`/v1/messages/render`: the Anthropic Messages -> chat conversion (tokenfront.render.anthropic).

The expected shapes are vLLM 0.33.0's conversion (`AnthropicServingMessages`), checked side by
side with `scripts/messages_diff.py`; served answers are pinned by tests/golden/vllm-messages.jsonl.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tokenfront.api.errors import APIError
from tokenfront.protocol.anthropic import AnthropicMessagesRequest
from tokenfront.render import anthropic
from tokenfront.render.anthropic import (
    chat_messages,
    disabled_thinking_effort,
    render_messages_request,
    requires_system_first,
    to_chat_request,
)
from tokenfront.render.chat import render_chat_request
from tokenfront.tokenization.registry import ServedModel

BILLING = "x-anthropic-billing-header: cc_version=1; cch=0;"
WEATHER = {"name": "get_weather", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}


def _request(**fields: Any) -> AnthropicMessagesRequest:
    body = {"model": "qwen3", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}], **fields}
    return AnthropicMessagesRequest.model_validate(body)


def _messages(messages: list[dict[str, Any]], merge: bool = False, **fields: Any) -> list[dict[str, Any]]:
    return chat_messages(_request(messages=messages, **fields), merge_inline_system=merge)


# --- messages ----------------------------------------------------------------------------


def test_system_field_blocks_are_joined_without_the_billing_header() -> None:
    system = [{"type": "text", "text": BILLING}, {"type": "text", "text": "A"}, {"type": "text", "text": "B"}]
    assert _messages([{"role": "user", "content": "u"}], system=system)[0] == {"role": "system", "content": "AB"}


def test_system_field_string_keeps_a_billing_header() -> None:
    assert _messages([{"role": "user", "content": "u"}], system=BILLING)[0]["content"] == BILLING


def test_inline_system_turns_stay_in_place_unless_merged() -> None:
    turns = [{"role": "user", "content": "u"}, {"role": "system", "content": "late"}, {"role": "user", "content": "v"}]
    assert [m["role"] for m in _messages(turns, system="S")] == ["system", "user", "system", "user"]
    merged = _messages(turns, merge=True, system="S")
    assert merged[0] == {"role": "system", "content": "Slate"}
    assert [m["role"] for m in merged] == ["system", "user", "user"]


def test_inline_system_billing_header_or_empty_text_is_dropped() -> None:
    turns = [{"role": "system", "content": BILLING + " x"}, {"role": "system", "content": [{"type": "text", "text": ""}]}]
    assert _messages([*turns, {"role": "user", "content": "u"}]) == [{"role": "user", "content": "u"}]


def test_single_text_block_becomes_string_content() -> None:
    assert _messages([{"role": "user", "content": [{"type": "text", "text": "hi"}]}]) == [{"role": "user", "content": "hi"}]


def test_images_become_image_url_parts() -> None:
    blocks = [
        {"type": "text", "text": "see"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAA"}},
        {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
        {"type": "image", "source": {"data": "BBB"}},
    ]
    (message,) = _messages([{"role": "user", "content": blocks}])
    assert message["content"][1:] == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}},
        {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,BBB"}},
    ]


def test_user_tool_results_become_tool_messages_before_the_user_text() -> None:
    blocks = [
        {"type": "tool_result", "tool_use_id": "t1", "content": [
            {"type": "text", "text": "a"}, {"type": "text", "text": "b"},
            {"type": "image", "source": {"type": "url", "url": "u"}},
            {"type": "tool_reference", "tool_name": "search"},
        ]},
        {"type": "text", "text": "thanks"},
    ]
    assert _messages([{"role": "user", "content": blocks}]) == [
        {"role": "tool", "tool_call_id": "t1", "content": "a\nb"},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "u"}}]},
        {"role": "tool", "tool_call_id": "t1", "content": [{"type": "tool_reference", "name": "search"}]},
        {"role": "user", "content": "thanks"},
    ]


def test_user_message_of_only_tool_results_adds_no_user_turn() -> None:
    blocks = [{"type": "tool_result", "tool_use_id": "t1", "content": "42"}]
    assert _messages([{"role": "user", "content": blocks}]) == [{"role": "tool", "tool_call_id": "t1", "content": "42"}]


def test_assistant_blocks_give_reasoning_tool_calls_and_content() -> None:
    blocks = [
        {"type": "thinking", "thinking": "hmm", "signature": "s"},
        {"type": "redacted_thinking", "data": "x"},
        {"type": "text", "text": "Calling."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Zürich", "n": [1, None]}},
    ]
    (message,) = _messages([{"role": "assistant", "content": blocks}])
    assert message == {
        "role": "assistant",
        "reasoning": "hmm",
        "tool_calls": [{
            "id": "toolu_1",
            "type": "function",
            # Python's json.dumps: spaced separators, non-ASCII escaped
            "function": {"name": "get_weather", "arguments": '{"city": "Z\\u00fcrich", "n": [1, null]}'},
        }],
        "content": "Calling.",
    }


def test_tool_use_without_id_gets_a_time_based_id(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(anthropic.time, "time", lambda: 1700000000.7)
    (message,) = _messages([{"role": "assistant", "content": [{"type": "tool_use", "name": "f"}]}])
    assert message["tool_calls"][0]["id"] == "call_1700000000"
    assert message["tool_calls"][0]["function"]["arguments"] == "{}"


def test_assistant_tool_result_is_python_text() -> None:
    blocks = [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "x"}]}]
    (message,) = _messages([{"role": "assistant", "content": blocks}])
    assert message["content"] == "Tool result: [{'type': 'text', 'text': 'x'}]"


def test_empty_assistant_message_is_kept_and_empty_user_message_dropped() -> None:
    turns = [{"role": "user", "content": []}, {"role": "assistant", "content": []}]
    assert _messages(turns) == [{"role": "assistant"}]


# --- request fields ----------------------------------------------------------------------


def test_no_tools_leaves_tool_choice_null() -> None:
    chat = to_chat_request(_request(), merge_inline_system=False)
    assert chat.tool_choice is None and chat.tools is None
    assert chat.max_tokens == chat.max_completion_tokens == 64


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        (None, "auto"),
        ({"type": "auto"}, "auto"),
        ({"type": "any"}, "required"),
        ({"type": "none"}, "none"),
        ({"type": "tool", "name": "get_weather"}, {"function": {"name": "get_weather"}, "type": "function"}),
    ],
)
def test_tool_choice_mapping(choice: dict[str, Any] | None, expected: Any) -> None:
    fields: dict[str, Any] = {"tools": [WEATHER]}
    if choice is not None:
        fields["tool_choice"] = choice
    chat = to_chat_request(_request(**fields), merge_inline_system=False)
    assert chat.tool_choice_value() == expected
    assert chat.tool_dicts() == [{"type": "function", "function": {
        "name": "get_weather", "description": None, "parameters": WEATHER["input_schema"]}}]


def test_disable_parallel_tool_use() -> None:
    choice = {"type": "auto", "disable_parallel_tool_use": True}
    assert to_chat_request(_request(tools=[WEATHER], tool_choice=choice), merge_inline_system=False).parallel_tool_calls is False


def test_input_schema_without_type_is_an_object() -> None:
    chat = to_chat_request(_request(tools=[{"name": "f", "input_schema": {}}]), merge_inline_system=False)
    assert chat.tool_dicts()[0]["function"]["parameters"] == {"type": "object"}  # type: ignore[index]


def test_tool_changes_resolve_the_tool_list() -> None:
    lazy = {"name": "lazy", "input_schema": {"type": "object"}, "defer_loading": True}
    system_turns = [
        {"role": "system", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "lazy"}}]},
        {"role": "system", "content": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "get_weather"}}]},
        {"role": "system", "content": [{"type": "tool_addition", "tool": {
            "type": "tool_definition", "definition": {"name": "new", "input_schema": {}}}}]},
    ]
    request = _request(tools=[WEATHER, lazy], messages=[*system_turns, {"role": "user", "content": "u"}])
    tools = to_chat_request(request, merge_inline_system=False).tool_dicts()
    assert [(t["function"]["name"], t["function"].get("defer_loading")) for t in tools or []] == [("lazy", None), ("new", None)]


def test_tool_change_naming_an_undeclared_tool_is_a_400() -> None:
    turn = {"role": "system", "content": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "x"}}]}
    with pytest.raises(APIError, match="tool_removal references tool 'x', which is not declared in tools"):
        to_chat_request(_request(messages=[turn, {"role": "user", "content": "u"}]), merge_inline_system=False)


@pytest.mark.parametrize(
    "body",
    [
        {"messages": [{"role": "user", "content": [{"type": "tool_addition", "tool": {"type": "tool_reference", "name": "x"}}]}]},
        {"system": [{"type": "tool_removal", "tool": {"type": "tool_definition", "definition": WEATHER}}]},
        {"max_tokens": 0},
        {"model": ""},
        {"thinking": {"type": "enabled", "budget_tokens": 2048}},
        {"thinking": {"type": "enabled", "budget_tokens": 100}, "max_tokens": 4096},
        {"tool_choice": {"type": "tool"}},
        {"stop_sequences": ["a", "b", "c", "d", "e"]},
    ],
)
def test_invalid_bodies_fail_validation(body: dict[str, Any]) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        _request(**body)


def test_budget_check_is_skipped_for_a_prefill_leg() -> None:
    _request(thinking={"type": "enabled", "budget_tokens": 2048}, kv_transfer_params={"do_remote_decode": True})


def test_thinking_output_config_and_stream_fields() -> None:
    request = _request(
        max_tokens=4096,
        thinking={"type": "enabled", "budget_tokens": 1024},
        output_config={"effort": "high", "format": {"type": "json_schema", "schema": {"type": "object"}}},
        stream=True,
        stop_sequences=["END"],
        top_k=5,
    )
    chat = to_chat_request(request, merge_inline_system=False)
    assert chat.thinking_token_budget == 1024
    assert chat.reasoning_effort == "high"
    assert chat.response_format is not None
    assert chat.response_format.model_dump(by_alias=True, exclude_none=True)["json_schema"] == {
        "name": "json_schema", "schema": {"type": "object"}}
    assert chat.stream and chat.stream_options is not None
    assert (chat.stream_options.include_usage, chat.stream_options.continuous_usage_stats) == (True, True)
    assert (chat.stop, chat.top_k) == (["END"], 5)


def test_disabled_thinking_overrides_the_output_effort() -> None:
    request = _request(thinking={"type": "disabled"}, output_config={"effort": "max"})
    assert to_chat_request(request, merge_inline_system=False, disabled_effort="low").reasoning_effort == "low"


def test_return_mm_kwargs_false_means_no_payload() -> None:
    assert to_chat_request(_request(return_mm_kwargs=False), merge_inline_system=False).mm_payload == "none"


# --- per-model facts ---------------------------------------------------------------------


def test_template_refusing_late_system_turns_needs_merging() -> None:
    guard = "{% for m in messages %}{% if m.role == 'system' and not loop.first %}{{ raise_exception('no') }}{% endif %}{{ m.content }}{% endfor %}"
    assert requires_system_first(guard)
    assert not requires_system_first("{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}")
    assert requires_system_first(None)


def test_disabled_effort_is_none_where_the_template_reads_it(qwen3_plain: ServedModel) -> None:
    assert disabled_thinking_effort(qwen3_plain) == "none"  # qwen3 turns thinking off


def test_disabled_effort_is_low_where_the_template_ignores_it(llama3_json: ServedModel) -> None:
    assert disabled_thinking_effort(llama3_json) == "low"


def test_configured_disabled_effort_wins(qwen3_plain: ServedModel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(qwen3_plain.options, "anthropic_disabled_thinking_effort", "medium")
    assert disabled_thinking_effort(qwen3_plain) == "medium"


def test_render_matches_the_chat_render_of_the_conversion(qwen3_hermes: ServedModel) -> None:
    body = {
        "model": "qwen3", "max_tokens": 100, "system": "Be brief.", "tools": [WEATHER],
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}]},
        ],
        "thinking": {"type": "disabled"},
    }
    got = render_messages_request(qwen3_hermes, AnthropicMessagesRequest.model_validate(body), header_request_id="r")
    chat = to_chat_request(AnthropicMessagesRequest.model_validate(body), merge_inline_system=False, disabled_effort="none")
    assert got == render_chat_request(qwen3_hermes, chat, header_request_id="r")
    assert got["parse_context"]["tool_choice"] == "auto"
    assert got["parse_context"]["history_tool_call_cnt"] == 1
    assert got["parse_context"]["chat_template_kwargs"]["enable_thinking"] is False
    prompt = qwen3_hermes.tokenizer.decode(got["token_ids"])
    assert json.dumps({"city": "Paris"}) in prompt and "<tool_response>\nsunny\n</tool_response>" in prompt
