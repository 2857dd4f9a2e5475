"""Chat template rendering, content-format detection and kwargs filtering (no HTTP)."""

from __future__ import annotations

import pytest

from tokenfront.api.errors import APIError
from tokenfront.protocol.requests import ChatCompletionRequest
from tokenfront.render.chat import chat_tokenize_params, render_prompt_ids
from tokenfront.render.chat_params import (
    history_tool_call_count,
    resolve_chat_template_kwargs,
)
from tokenfront.render.chat_template import (
    detect_content_format,
    filter_template_kwargs,
    render_chat,
)
from tokenfront.render.messages import to_conversation

LOOP_CONTENT = "{% for m in messages %}{% for c in m['content'] %}{{ c.text }}{% endfor %}{% endfor %}"
STRING_CONTENT = "{% for m in messages %}{{ m['content'] }}{% endfor %}"
MACRO_CONTENT = (
    "{% macro show(x) %}{% for p in x %}{{ p.text }}{% endfor %}{% endmacro %}"
    "{% for m in messages %}{{ show(m.content) }}{% endfor %}"
)


@pytest.mark.parametrize(
    ("template", "expected"),
    [(LOOP_CONTENT, "openai"), (STRING_CONTENT, "string"), (MACRO_CONTENT, "openai")],
)
def test_detect_content_format(template: str, expected: str) -> None:
    assert detect_content_format(template) == expected


def test_detect_content_format_through_alias() -> None:
    template = "{% set msgs = messages %}{% for m in msgs %}{% for c in m.content %}x{% endfor %}{% endfor %}"
    assert detect_content_format(template) == "openai"


def test_string_conversation_joins_text_parts() -> None:
    msgs = [{"role": "user", "content": [{"type": "text", "text": "a"}, "b"]}]
    assert to_conversation(msgs, "string") == [{"role": "user", "content": "a\nb"}]
    assert to_conversation(msgs, "openai")[0]["content"] == [
        {"type": "text", "text": "a"},
        {"type": "text", "text": "b"},
    ]


def test_string_conversation_drops_empty_text_parts() -> None:
    # vLLM joins only the truthy parts: an empty part adds no blank line (the openai format
    # keeps it as a part).
    msgs = [{"role": "system", "content": [{"type": "text", "text": ""}, "a ", "", {"type": "text", "text": "b"}]}]
    assert to_conversation(msgs, "string") == [{"role": "system", "content": "a \nb"}]
    assert len(to_conversation(msgs, "openai")[0]["content"]) == 4


def test_openai_role_parts_pass_when_one_of_them_is_a_well_formed_part() -> None:
    # vLLM 0.33.0 (pydantic's smart union over its message schemas): one well-formed part lets
    # the permissive custom schema take the list; a text part without text is then skipped.
    for parts in ([{"type": "text"}, {"type": "text", "text": "a"}, "b"], [{"type": "text"}, "a", {"type": "refusal", "refusal": "b"}]):
        assert to_conversation([{"role": "user", "content": parts}], "string")[0]["content"] == "a\nb"
    assert to_conversation([{"role": "user", "content": {}}], "string")[0]["content"] == ""
    with pytest.raises(APIError, match="ValidatorIterator"):  # its keys are the parts
        to_conversation([{"role": "user", "content": {"a": 1}}], "string")
    with pytest.raises(APIError, match="Missing 'type' field"):  # taken, then parsed like vLLM
        to_conversation([{"role": "user", "content": [{}, {"type": "text", "text": "a"}]}], "string")
    for parts in (["s"], [{"type": "text"}], [{"type": "text"}, "s"], [{}], [{"type": "text", "text": "a"}, 5]):
        with pytest.raises(APIError, match="ValidatorIterator"):
            to_conversation([{"role": "user", "content": parts}], "string")


def test_custom_role_parts_fail_where_vllm_parses_them() -> None:
    assert to_conversation([{"role": "critic", "content": ["s"]}], "string")[0]["content"] == "s"
    with pytest.raises(APIError, match="Missing 'type' field"):
        to_conversation([{"role": "critic", "content": [{}]}], "string")
    with pytest.raises(APIError, match="sequence item 0: expected str instance, int found"):
        to_conversation([{"role": "critic", "content": [{"type": "text", "text": 5}]}], "string")


def test_tool_call_arguments_become_dicts() -> None:
    msgs = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
                {"id": "2", "type": "function", "function": {"name": "g", "arguments": "oops"}},
            ],
        }
    ]
    conv = to_conversation(msgs, "string")
    assert [c["function"]["arguments"] for c in conv[0]["tool_calls"]] == [{"a": 1}, {}]


def test_filter_template_kwargs_keeps_template_variables(qwen3_plain) -> None:
    kept = filter_template_kwargs(
        qwen3_plain.tokenizer,
        "{{ enable_thinking }}",
        {"enable_thinking": False, "unused_thing": 1, "add_generation_prompt": True},
    )
    assert kept == {"enable_thinking": False, "add_generation_prompt": True}


def test_render_qwen3_prompt(qwen3_plain) -> None:
    text = render_chat(
        qwen3_plain.tokenizer,
        qwen3_plain.chat_template,
        [{"role": "user", "content": "hi"}],
        None,
        {"add_generation_prompt": True},
    )
    assert text == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"


def test_render_prompt_ids_match_vllm(qwen3_hermes) -> None:
    req = ChatCompletionRequest.model_validate({"messages": [{"role": "user", "content": "hi"}]})
    ids = render_prompt_ids(qwen3_hermes, req, chat_tokenize_params(qwen3_hermes, req))
    assert ids == [151644, 872, 198, 6023, 151645, 198, 151644, 77091, 198]


def test_llama3_template_uses_date_string(llama3_json) -> None:
    req = ChatCompletionRequest.model_validate(
        {
            "messages": [{"role": "user", "content": "hi"}],
            "chat_template_kwargs": {"date_string": "26 Jul 2024"},
        }
    )
    ids = render_prompt_ids(llama3_json, req, chat_tokenize_params(llama3_json, req))
    text = llama3_json.tokenizer.decode(ids)
    assert "26 Jul 2024" in text


def test_resolve_chat_template_kwargs(qwen3_hermes) -> None:
    req = ChatCompletionRequest.model_validate(
        {
            "messages": [{"role": "user", "content": "hi"}],
            "chat_template_kwargs": {"enable_thinking": False, "x": None},
        }
    )
    assert resolve_chat_template_kwargs(qwen3_hermes, req) == {
        "cohere_format": "cmd4",
        "enable_thinking": False,
        "add_generation_prompt": True,
        "continue_final_message": False,
    }


def test_reasoning_effort_sets_enable_thinking(qwen3_hermes) -> None:
    req = ChatCompletionRequest.model_validate(
        {"messages": [{"role": "user", "content": "hi"}], "reasoning_effort": "none"}
    )
    kwargs = resolve_chat_template_kwargs(qwen3_hermes, req)
    assert kwargs["reasoning_effort"] == "none"
    assert kwargs["enable_thinking"] is False


def test_history_tool_call_count() -> None:
    req = ChatCompletionRequest.model_validate(
        {
            "messages": [
                {"role": "user", "content": "q"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                        {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}},
                    ],
                },
            ]
        }
    )
    assert history_tool_call_count(req) == 2
