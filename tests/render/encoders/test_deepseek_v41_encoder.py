"""DeepSeek V4.1 prompt encoder (expectations checked against vLLM 0.33.0's render server)."""

from __future__ import annotations

import pytest

from tokenfront.render.encoders.deepseek import EncodingError, encoder_mode
from tokenfront.render.encoders.deepseek_v41 import encode_deepseek_v41, last_user_index

BOS = "<｜begin▁of▁sentence｜>"
EFFORT_75 = "<｜System｜>Reasoning Effort: 75 (range 1-100, the higher the value, the more thorough the reasoning)\n\n"
USER = {"role": "user", "content": "Hi"}
TOOL = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}


def test_default_is_thinking_with_budget_75() -> None:
    assert encode_deepseek_v41([USER], None, {}) == BOS + EFFORT_75 + "<｜User｜>Hi<｜Assistant｜><think>"


def test_chat_mode_has_no_preamble() -> None:
    text = encode_deepseek_v41([USER], None, {"thinking": False})
    assert text == BOS + "<｜User｜>Hi<｜Assistant｜></think>"


@pytest.mark.parametrize(("effort", "budget"), [("low", 50), ("xhigh", 75), ("max", 100), (30, 30)])
def test_effort_budgets(effort: object, budget: int) -> None:
    text = encode_deepseek_v41([USER], None, {"reasoning_effort": effort})
    assert f"Reasoning Effort: {budget} (range" in text


@pytest.mark.parametrize("effort", ["medium", "minimal", 0, 101, 50.0, True])
def test_unknown_effort_is_refused(effort: object) -> None:
    with pytest.raises(EncodingError, match="reasoning_effort must be low, high, xhigh, max"):
        encode_deepseek_v41([USER], None, {"reasoning_effort": effort})


def test_effort_none_turns_thinking_off() -> None:
    text = encode_deepseek_v41([USER], None, {"reasoning_effort": "none", "enable_thinking": True})
    assert text == BOS + "<｜User｜>Hi<｜Assistant｜></think>"


def test_tools_make_a_leading_system_message() -> None:
    text = encode_deepseek_v41([USER], [TOOL], {"thinking": False})
    assert text.startswith(BOS + "<｜System｜>\n\n## Tools\n\n")
    assert '"<｜DSML｜ calls>" block' in text
    assert '<｜DSML｜ parameter name="$PARAMETER_NAME"' in text
    assert text.endswith('{"name": "f", "parameters": {"type": "object"}}\n\nYou MUST strictly follow the '
                         "above defined tool name and parameter schemas to invoke tool calls.\n"
                         "<｜User｜>Hi<｜Assistant｜></think>")


def test_assistant_calls_use_spaced_dsml_tags() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": "x", "b": [1]}'}}
    messages = [USER, {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "c1", "content": "ok"}]
    text = encode_deepseek_v41(messages, None, {"thinking": False})
    assert text == (
        BOS + "<｜User｜>Hi<｜Assistant｜></think>\n\n<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"f\">\n"
        '<｜DSML｜ parameter name="a" string="true">x</｜DSML｜ parameter>\n'
        '<｜DSML｜ parameter name="b" string="false">[1]</｜DSML｜ parameter>\n'
        "</｜DSML｜ invoke>\n</｜DSML｜ calls><｜end▁of▁sentence｜>"
        "<｜User｜><tool_result>ok</tool_result><｜Assistant｜></think>"
    )


@pytest.mark.parametrize("arguments", ["[1, 2]", "{bad", '"{\\"a\\": 1}"', ""])
def test_arguments_that_are_not_an_object_are_empty(arguments: str) -> None:
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}
    messages = [USER, {"role": "assistant", "content": "", "tool_calls": [call]}]
    text = encode_deepseek_v41(messages, None, {"thinking": False})
    assert '<｜DSML｜ invoke name="f">\n\n</｜DSML｜ invoke>' in text


def test_tool_only_user_turn_is_not_the_last_user() -> None:
    merged = [
        {"role": "user", "content_blocks": [{"type": "text", "text": "q"}]},
        {"role": "assistant", "content": "a"},
        {"role": "user", "content_blocks": [{"type": "tool_result", "content": "r"}]},
    ]
    assert last_user_index(merged) == 0


def test_mid_conversation_system_opens_a_turn() -> None:
    messages = [USER, {"role": "assistant", "content": "Hello!", "reasoning": "greet"},
                {"role": "system", "content": "Formal."}]
    text = encode_deepseek_v41(messages, None, {})
    assert text.endswith("Hello!<｜end▁of▁sentence｜><｜System｜>Formal.<｜Assistant｜><think>")


def test_image_placeholder_in_text_is_refused() -> None:
    with pytest.raises(EncodingError, match="image special token"):
        encode_deepseek_v41([{"role": "user", "content": "a <｜deepseek_image｜>"}], None, {})


def test_list_content_joins_with_blank_lines() -> None:
    parts = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    text = encode_deepseek_v41([{"role": "user", "content": parts}], None, {"thinking": False})
    assert "<｜User｜>a\n\nb<｜Assistant｜>" in text


def test_mode_selection(tmp_path) -> None:
    (tmp_path / "config.json").write_text('{"architectures": ["DeepseekV41ForCausalLM"]}')
    assert encoder_mode("auto", tmp_path) == "deepseek_v41"
    assert encoder_mode("deepseek_v41", None) == "deepseek_v41"
    assert encoder_mode("hf", tmp_path) is None
