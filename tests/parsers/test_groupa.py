"""Group A parsers (DSML, MiMo, Step, LongCat, MiniMax-M3, dots, MiniCPM-V) and the DeepSeek
V3.2 prompt encoder: own cases beside the recorded corpus (tests/golden/vllm-groupa.jsonl)."""

from __future__ import annotations

import json

from xml_support import make, oneshot, run_stream, token_chunks, tool

from tokenfront.parsers.reasoning.minicpmv import MiniCPMVOutputNormalizer, recover_newlines
from tokenfront.parsers.tools.deepseek_dsml import V32, DsmlParamCodec, unwrap_wrapper_args
from tokenfront.render.encoders.deepseek import encode_deepseek_v32, encoder_mode

WEATHER = tool(
    "get_weather",
    {"city": {"type": "string"}, "days": {"type": "integer"}, "tags": {"type": "array"}},
)
DS = "｜DSML｜"
V32_CALL = (
    f'<{DS}function_calls>\n<{DS}invoke name="get_weather">\n'
    f'<{DS}parameter name="city" string="true">Paris</{DS}parameter>\n'
    f'<{DS}parameter name="days" string="false">3</{DS}parameter>\n'
    f"</{DS}invoke>\n</{DS}function_calls>"
)


def test_dsml_codec_types_and_partial() -> None:
    codec = DsmlParamCodec(V32)
    raw = (
        f'<{DS}parameter name="a" string="true">1</{DS}parameter>'
        f'<{DS}parameter name="b" string="false">[1, 2]</{DS}parameter>'
        f'<{DS}parameter name="c">oops</{DS}parameter>'
        f'<{DS}parameter name="d" string="true">open'
    )
    assert json.loads(codec.convert(raw, False)) == {"a": "1", "b": [1, 2], "c": "oops"}
    assert json.loads(codec.convert(raw, True))["d"] == "open"


def test_dsml_unwraps_wrapper_arguments() -> None:
    wrapped = json.dumps({"arguments": {"city": "Oslo"}})
    assert json.loads(unwrap_wrapper_args(wrapped, [WEATHER], "get_weather")) == {"city": "Oslo"}
    assert unwrap_wrapper_args(wrapped, None, "get_weather") == wrapped


def test_deepseek_v32_oneshot_and_stream_agree() -> None:
    text = "Checking.\n" + V32_CALL + "\ntrailing text is dropped"
    calls, content = oneshot(make("deepseek_v32", "deepseek", [WEATHER]), text)
    assert calls == [("get_weather", '{"city": "Paris", "days": 3}')]
    assert content == "Checking.\n"
    streamed, scalls, _ = run_stream(
        make("deepseek_v32", "deepseek", [WEATHER]), token_chunks(text, "deepseek")
    )
    assert scalls == calls and streamed == "Checking.\n"


def test_mimo_values_are_verbatim() -> None:
    text = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis \n</parameter>\n</function>\n</tool_call>"
    calls, _ = oneshot(make("mimo", tools=[WEATHER]), text)
    assert calls == [("get_weather", json.dumps({"city": "\nParis \n"}))]
    _, scalls, _ = run_stream(make("mimo", tools=[WEATHER]), token_chunks(text))
    assert scalls == calls


def test_minimax_m3_nested_elements_and_repeats() -> None:
    ns = "]<]minimax[>["
    text = (
        f'{ns}<tool_call>\n{ns}<invoke name="get_weather">\n{ns}<city>Oslo{ns}</city>\n'
        f"{ns}<tags>a{ns}</tags>{ns}<tags>b{ns}</tags>{ns}<days>2{ns}</days>\n"
        f"{ns}</invoke>\n{ns}</tool_call>after"
    )
    calls, content = oneshot(make("minimax_m3", tools=[WEATHER]), text)
    assert json.loads(calls[0][1]) == {"city": "Oslo", "tags": ["a", "b"], "days": 2}
    assert content is None
    _, scalls, deltas = run_stream(make("minimax_m3", tools=[WEATHER]), token_chunks(text))
    assert scalls == calls
    assert sum(1 for d in deltas if d and any(c.arguments for c in d.tool_calls)) == 1


def test_dots_blocks_json_and_unknown_tools() -> None:
    text = (
        'Hi <dots_function_call>\n<invoke name="get_weather">\n<parameter name="days">4</parameter>\n'
        '</invoke>\n</dots_function_call><dots_function_call>{"name": "nope", "arguments": {}}'
        "</dots_function_call>"
    )
    calls, content = oneshot(make("dots", tools=[WEATHER]), text)
    assert calls == [("get_weather", '{"days": 4}')] and content == "Hi"
    streamed, scalls, _ = run_stream(make("dots", tools=[WEATHER]), token_chunks(text))
    assert scalls == calls
    assert streamed.startswith("Hi ")


def test_longcat_markers() -> None:
    text = '<longcat_tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</longcat_tool_call>'
    calls, _ = oneshot(make("longcat", tools=[WEATHER]), text)
    assert calls == [("get_weather", '{"city": "Rome"}')]


def test_minicpmv_newline_recovery_skips_code_and_math() -> None:
    assert recover_newlines("a\\nb `x\\ny` $\\n$ \\\\n") == "a\nb `x\\ny` $\\n$ \\\\n"
    norm = MiniCPMVOutputNormalizer()
    st = norm.initial_state()
    first = norm.delta(st, _delta("a\\"), finished=False)
    assert first is not None and first.content == "a"
    second = norm.delta(st, _delta("nb"), finished=True)
    assert second is not None and second.content == "\nb"


def _delta(content: str):  # type: ignore[no-untyped-def]
    from tokenfront.parsers.base import DeltaMessage

    return DeltaMessage(content=content)


def test_deepseek_v32_encoder() -> None:
    tools = [WEATHER]
    plain = encode_deepseek_v32([{"role": "user", "content": "Hi"}], None, {})
    assert plain == "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜></think>"
    thinking = encode_deepseek_v32([{"role": "user", "content": "Hi"}], tools, {"thinking": True})
    assert thinking.endswith("<｜User｜>Hi<｜Assistant｜><think>")
    assert "## Tools" in thinking and '"name": "get_weather"' in thinking
    history = [
        {"role": "user", "content": "W?"},
        {"role": "assistant", "content": "", "reasoning": "r",
         "tool_calls": [{"function": {"name": "get_weather", "arguments": '{"days": 2}'}}]},
        {"role": "tool", "content": "ok"},
    ]  # fmt: skip
    text = encode_deepseek_v32(history, None, {"enable_thinking": True})
    assert f'<{DS}parameter name="days" string="false">2</{DS}parameter>' in text
    assert text.endswith("<result>ok</result>\n</function_results>\n\n<think>")
    assert "r</think>" in text


def test_encoder_mode_selection(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert encoder_mode("deepseek_v32", None) == "deepseek_v32"
    (tmp_path / "config.json").write_text(json.dumps({"architectures": ["DeepseekV32ForCausalLM"]}))
    assert encoder_mode("auto", tmp_path) == "deepseek_v32"
    assert encoder_mode("hf", tmp_path) is None


def test_deepseek_v4_encoder() -> None:
    from tokenfront.render.encoders.deepseek import encode_deepseek_v4

    plain = encode_deepseek_v4([{"role": "user", "content": "Hi"}], None, {"thinking": False})
    assert plain == "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜></think>"
    default = encode_deepseek_v4([{"role": "user", "content": "Hi"}], None, {})
    assert default.startswith("<｜begin▁of▁sentence｜>Reasoning Effort: Absolute maximum")
    assert default.endswith("<｜Assistant｜><think>")
    low = encode_deepseek_v4([{"role": "user", "content": "Hi"}], None, {"reasoning_effort": "low"})
    assert low == "<｜begin▁of▁sentence｜><｜User｜>Hi<｜Assistant｜><think>"
    history = [
        {"role": "user", "content": "W?"},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "a", "function": {"name": "get_weather", "arguments": "{}"}},
            {"id": "b", "function": {"name": "get_weather", "arguments": "{}"}},
        ]},
        {"role": "tool", "tool_call_id": "b", "content": "2"},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
    ]  # fmt: skip
    text = encode_deepseek_v4(history, None, {"thinking": False})
    assert text.endswith(
        "<｜User｜><tool_result>1</tool_result>\n\n<tool_result>2</tool_result><｜Assistant｜></think>"
    )
