"""The chat output pipeline: tool_choice, assembly and streaming over qwen3 + hermes.

Expectations come from golden vLLM 0.33.0 derender answers (qwen3-hermes config).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hf_tokenizers import hf_tokenizer

from tokenfront.parsers.base import (
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCalls,
    ParseContext,
    StreamParseError,
    ToolCall,
    ToolParser,
)
from tokenfront.parsers.pipeline import ChatOutputParser

MODELS = Path(__file__).resolve().parents[3] / "shared" / "models"
if not MODELS.is_dir():
    MODELS = Path(os.environ["TOKENFRONT_TEST_MODELS"])

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    },
    {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object"}}},
]
# The qwen3 chat template's generation prompt (thinking on) and its thinking-off variant.
PROMPT_OPEN = [151644, 872, 198, 13048, 151645, 198, 151644, 77091, 198]
PROMPT_CLOSED = PROMPT_OPEN + [151667, 271, 151668, 271]


def tokenizer(model: str = "qwen3") -> Any:
    return hf_tokenizer(MODELS / model)


def parser(tool: str | None = "hermes", reasoning: str | None = "qwen3") -> ChatOutputParser:
    return ChatOutputParser(tokenizer(), tool, reasoning, enable_auto_tools=True)


def ctx(**kw: Any) -> ParseContext:
    kw.setdefault("tools", TOOLS)
    kw.setdefault("tool_choice", "auto")
    kw.setdefault("prompt_token_ids", PROMPT_OPEN)
    return ParseContext(**kw)


def calls(msg: dict[str, Any]) -> list[tuple[str, str]]:
    return [(c["function"]["name"], c["function"]["arguments"]) for c in msg["tool_calls"]]


CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "東京"}}\n</tool_call>'


def test_reasoning_then_content() -> None:
    msg = parser().parse("<think>\nplan\n</think>\n\nAnswer.", [], ctx())
    assert msg["reasoning"] == "\nplan\n" and msg["content"] == "\n\nAnswer."
    assert msg["tool_calls"] == []


def test_plain_answer_is_reasoning_with_qwen3() -> None:
    # vLLM quirk: without </think> the qwen3 parser keeps everything as reasoning.
    msg = parser().parse("Just an answer.", [], ctx())
    assert msg["reasoning"] == "Just an answer." and msg["content"] is None


def test_tool_call_auto() -> None:
    msg = parser().parse(CALL, [], ctx())
    assert msg["content"] is None and msg["reasoning"] is None
    assert calls(msg) == [("get_weather", '{"city": "東京"}')]
    assert msg["tool_calls"][0]["id"].startswith("chatcmpl-tool-")
    assert len(msg["tool_calls"][0]["id"]) == len("chatcmpl-tool-") + 16


def test_tool_choice_none_keeps_markup() -> None:
    msg = parser().parse(CALL, [], ctx(tool_choice="none"))
    assert msg["content"] == CALL and msg["tool_calls"] == []


def test_malformed_call_left_in_content() -> None:
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "x", "}\n</tool_call>'
    msg = parser().parse(text, [], ctx())
    assert msg["content"] == text and msg["tool_calls"] == []


def test_required_falls_back_to_auto_for_hermes() -> None:
    text = '[{"name": "get_time", "parameters": {}}]'
    msg = parser().parse(text, [], ctx(tool_choice="required"))
    # hermes has no required/named support in vLLM 0.33.0: auto path, forced content "".
    assert msg["reasoning"] == text and msg["content"] == "" and msg["tool_calls"] == []


def test_named_without_reasoning_parser_uses_auto_path() -> None:
    named = {"type": "function", "function": {"name": "get_weather"}}
    msg = parser(reasoning=None).parse(CALL, [], ctx(tool_choice=named))
    assert msg["content"] == "" and calls(msg) == [("get_weather", '{"city": "東京"}')]


def test_parallel_tool_calls_false_keeps_first() -> None:
    text = CALL + "\n" + CALL.replace("get_weather", "get_time")
    msg = parser().parse(text, [], ctx(parallel_tool_calls=False))
    assert [name for name, _ in calls(msg)] == ["get_weather"]


def test_include_reasoning_false() -> None:
    msg = parser().parse("<think>x</think>y", [], ctx(include_reasoning=False))
    assert msg["reasoning"] is None and msg["content"] == "y"


def test_thinking_off_via_kwargs() -> None:
    msg = parser().parse(
        "Hello",
        [],
        ctx(chat_template_kwargs={"enable_thinking": False}, prompt_token_ids=PROMPT_CLOSED),
    )
    assert msg["content"] == "Hello" and msg["reasoning"] is None


def test_auto_without_tools_drops_calls() -> None:
    msg = parser().parse(CALL, [], ctx(tools=None, tool_choice="none"))
    assert msg["content"] == CALL


def test_required_with_supporting_parser() -> None:
    p = parser(tool="hermes", reasoning=None)
    assert p.tool_cls is not None
    p.tool_cls.supports_required_and_named = True
    try:
        text = '[{"name": "get_time", "parameters": {"tz": "UTC"}}, {"name": "get_weather"}]'
        msg = p.parse(text, [], ctx(tool_choice="required"))
        assert calls(msg) == [("get_time", '{"tz": "UTC"}'), ("get_weather", "null")]
        assert msg["content"] == ""
        named = {"type": "function", "function": {"name": "get_time"}}
        msg = p.parse('{"tz": "UTC"}', [], ctx(tool_choice=named))
        assert calls(msg) == [("get_time", '{"tz": "UTC"}')]
        assert p.parse("  ", [], ctx(tool_choice=named))["tool_calls"] == []
    finally:
        p.tool_cls.supports_required_and_named = False


def test_prompt_reasoning_ended() -> None:
    p = parser()
    assert p.prompt_reasoning_ended(PROMPT_OPEN) is False
    assert p.prompt_reasoning_ended(PROMPT_CLOSED) is True
    assert p.prompt_reasoning_ended(PROMPT_OPEN, include_reasoning=False) is True
    assert parser(reasoning=None).prompt_reasoning_ended(PROMPT_OPEN) is None


# ---- streaming --------------------------------------------------------------------------


def stream_all(
    p: ChatOutputParser, text: str, c: ParseContext, per: int = 1
) -> list[DeltaMessage | None]:
    tok = tokenizer()
    ids = tok.encode(text, add_special_tokens=False) + [151645]
    out: list[DeltaMessage | None] = []
    state = None
    shown = ""
    for i in range(0, len(ids), per):
        piece = ids[i : i + per]
        full = tok.decode(ids[: i + per][: len(ids) - 1], skip_special_tokens=False)
        delta_text = "" if full.endswith("\ufffd") else full[len(shown) :]
        if delta_text:
            shown = full
        finished = i + per >= len(ids)
        delta, state = p.stream(state, delta_text, piece, c, finished=finished)
        json.dumps(state)  # must stay JSON-serialisable
        out.append(delta)
    return out


def joined(deltas: list[DeltaMessage | None]) -> dict[str, Any]:
    content = "".join(d.content or "" for d in deltas if d)
    reasoning = "".join(d.reasoning or "" for d in deltas if d)
    names: dict[int, str] = {}
    args: dict[int, str] = {}
    for d in deltas:
        for tc in d.tool_calls if d else []:
            names[tc.index] = names.get(tc.index, "") + (tc.name or "")
            args[tc.index] = args.get(tc.index, "") + (tc.arguments or "")
    return {
        "content": content or None,
        "reasoning": reasoning or None,
        "calls": [(names[i], args[i]) for i in sorted(names)],
    }


@pytest.mark.parametrize("per", [1, 2, 5])
def test_stream_reasoning_content(per: int) -> None:
    got = joined(stream_all(parser(), "<think>\nplan\n</think>\n\nAnswer.", ctx(), per))
    assert got == {"content": "\n\nAnswer.", "reasoning": "\nplan\n", "calls": []}


@pytest.mark.parametrize("per", [1, 3])
def test_stream_tool_call(per: int) -> None:
    text = "<think>\nok\n</think>\n\n" + CALL
    got = joined(stream_all(parser(), text, ctx(), per))
    assert got["reasoning"] == "\nok\n" and got["content"] == "\n\n"
    assert got["calls"] == [("get_weather", '{"city": "東京"}')]


def test_stream_golden_chunks() -> None:
    # pub-qwen3-hermes-stream-000: <think>, "\n\n", </think>, "\n\n", ...
    p = parser()
    c = ctx(tools=None, tool_choice="none", prompt_token_ids=PROMPT_OPEN)
    seq = [
        ("<think>", [151667]),
        ("\n\n", [271]),
        ("</think>", [151668]),
        ("\n\n", [271]),
        ("Hi", [13048]),
    ]
    state = None
    got = []
    for text, ids in seq:
        d, state = p.stream(state, text, ids, c, finished=False)
        got.append(None if d is None else (d.content, d.reasoning))
    assert got == [None, (None, "\n\n"), None, ("\n\n", None), ("Hi", None)]


def test_stream_state_stays_bounded() -> None:
    p = parser()
    c = ctx()
    state = None
    _, state = p.stream(state, "", [151667], c, finished=False)
    for _ in range(300):
        _, state = p.stream(state, "word ", [1158], c, finished=False)
    _, state = p.stream(state, "", [151668], c, finished=False)
    sizes = []
    for _ in range(2):
        for _ in range(300):
            _, state = p.stream(state, "more text ", [1158], c, finished=False)
        sizes.append(len(json.dumps(state)))
    # no text is kept: the state does not grow with the output (the token counter's digits aside)
    assert sizes[1] - sizes[0] <= 2 and sizes[1] < 450


def test_stream_include_reasoning_false_hides_reasoning() -> None:
    deltas = stream_all(parser(), "<think>x y</think>z", ctx(include_reasoning=False))
    assert all(d is None or d.reasoning is None for d in deltas)
    assert joined(deltas)["content"] == "z"


# ---- engine-based tool parsers, id styles, parser errors ---------------------------------

class _MarkupDropper(ToolParser):
    """A stand-in engine-based tool parser: `<tool_call>...</tool_call>` removed from content."""

    engine_based = True
    supports_required_and_named = False

    def extract_tool_calls(self, text: str) -> ExtractedToolCalls:
        head, _, rest = text.partition("<tool_call>")
        body, _, tail = rest.partition("</tool_call>")
        if not body:
            return ExtractedToolCalls(False, [], (head + tail) or None)
        obj = json.loads(body)
        call = ToolCall(name=obj["name"], arguments=json.dumps(obj["arguments"]))
        return ExtractedToolCalls(True, [call], (head + tail) or None)

    def stream(self, state: dict[str, Any], delta_text: str, delta_ids: Any) -> DeltaMessage | None:
        return DeltaMessage(content=delta_text, tool_calls=[DeltaToolCall(index=0, name="x")])


def engine_parser(reasoning: str | None = "qwen3") -> ChatOutputParser:
    p = ChatOutputParser(tokenizer(), None, reasoning, enable_auto_tools=True)
    p.tool_cls = _MarkupDropper
    p.engine_based = p.reasoning_cls is None or p.reasoning_cls.engine_based
    return p


def test_engine_based_tool_choice_none_uses_parser_content() -> None:
    p = engine_parser()
    msg = p.parse("<think>r</think>" + CALL + " tail", [], ctx(tool_choice="none"))
    assert msg["content"] == " tail" and msg["tool_calls"] == []
    delta, _ = p.stream(None, "hi", [1], ctx(tool_choice="none", prompt_token_ids=PROMPT_CLOSED),
                        finished=False)
    assert delta is not None and delta.content == "hi" and delta.tool_calls == []


def test_engine_based_no_calls_returns_parser_content() -> None:
    p = engine_parser()
    msg = p.parse("<think>r</think>text <tool_call></tool_call>", [], ctx())
    assert msg["content"] == "text " and msg["tool_calls"] == []


def test_legacy_reasoning_makes_pipeline_not_engine_based() -> None:
    p = engine_parser("deepseek_r1")
    assert not p.engine_based
    msg = p.parse("r</think>text <tool_call></tool_call>", [], ctx(tool_choice="none"))
    assert msg["content"] == "text <tool_call></tool_call>"


def test_kimi_id_style_counts_history() -> None:
    p = ChatOutputParser(tokenizer(), "hermes", None, enable_auto_tools=True,
                         tool_call_id_type="kimi_k2")
    assert p.tool_cls is not None
    p.tool_cls.supports_required_and_named = True
    try:
        named = {"type": "function", "function": {"name": "get_time"}}
        msg = p.parse("{}", [], ctx(tool_choice=named, history_tool_call_cnt=3))
        assert msg["tool_calls"][0]["id"] == "functions.get_time:3"
        delta, _ = p.stream(None, "{}", [1], ctx(tool_choice=named, history_tool_call_cnt=2),
                            finished=False)
        assert delta is not None and delta.tool_calls[0].id == "functions.get_time:2"
    finally:
        p.tool_cls.supports_required_and_named = False


def test_hunyuan_multi_token_chunk_is_read_token_by_token() -> None:
    # vLLM 0.33.0 fails such a chunk; its test asserts the one-token result (docs/deviations.md).
    p = ChatOutputParser(tokenizer("synthetic-multi"), None, "hunyuan_a13b", enable_auto_tools=False)
    delta, _ = p.stream(None, "ab", [64, 65], ctx(tools=None, tool_choice="none"), finished=False)
    assert delta is not None and delta.content == "ab"
    with pytest.raises(StreamParseError):
        p.stream(None, "ab", [], ctx(tools=None, tool_choice="none"), finished=False)


def test_tool_parser_without_auto_tools_is_inactive() -> None:
    from tokenfront.config import ModelOptions
    from tokenfront.parsers.pipeline import build_output_parser

    options = ModelOptions(model=str(MODELS / "qwen3"), tool_call_parser="hermes")
    assert build_output_parser(options, tokenizer()) is None


SAMPLES = [
    "<think>\nplan <tool_ thing\n</think>\n\nText <tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Paris", "days": [1, 2]}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>',
    "<think>\nshort\n</think>\n\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "東京 🧠"}}\n</tool_call> trailing <tool',
    "No think at all <tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"tz\": \"U",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_stream_concatenation_does_not_depend_on_chunking(text: str) -> None:
    results = {json.dumps(joined(stream_all(parser(), text, ctx(), per))) for per in (1, 2, 3, 7)}
    assert len(results) == 1, results


def _stream_tokens(
    text: str, tool: str | None, reasoning_parser: str, model: str = "synthetic-multi"
) -> tuple[str, str, list[Any]]:
    """`text` streamed one token per delta: (reasoning, content, tool call deltas)."""
    tok = tokenizer(model)
    p = ChatOutputParser(tok, tool, reasoning_parser, enable_auto_tools=tool is not None)
    c = ctx(tools=[{"type": "function", "function": {"name": "f", "parameters": {}}}])
    ids = tok.encode(text, add_special_tokens=False)
    state: Any = None
    shown = ""
    reasoning = content = ""
    calls: list[Any] = []
    for k in range(len(ids)):
        full = tok.decode(ids[: k + 1], skip_special_tokens=False)
        delta, state = p.stream(state, full[len(shown) :], ids[k : k + 1], c, finished=k == len(ids) - 1)
        shown = full
        if delta is not None:
            reasoning += delta.reasoning or ""
            content += delta.content or ""
            calls += delta.tool_calls
    return reasoning, content, calls


def _hunyuan_stream(text: str, tool: str | None) -> tuple[str, str, list[Any]]:
    """synthetic-multi (Qwen's vocabulary) through hunyuan_a13b."""
    return _stream_tokens(text, tool, "hunyuan_a13b")


def test_hunyuan_markers_are_matched_as_text_on_another_vocabulary() -> None:
    # vLLM matches Hunyuan's cl100k ids, never found in Qwen's vocabulary (docs/deviations.md)
    text = "<think>\nplan a\nb\n</think>\n<answer>\nThe answer < 3\n</answer>"
    assert _hunyuan_stream(text, None)[:2] == ("plan a\nb", "The answer < 3")


def test_hunyuan_text_markers_hand_the_answer_to_the_tool_parser() -> None:
    text = '<think>\nplan\n</think>\n<answer>\n<tool_calls>[{"name": "f", "arguments": {}}]</tool_calls>'
    reasoning, _, calls = _hunyuan_stream(text, "hunyuan_a13b")
    assert reasoning == "plan"
    assert [c.name for c in calls if c.name] == ["f"]


def test_hunyuan_held_marker_start_is_released_at_the_end() -> None:
    assert _hunyuan_stream("no think here <think>", None)[:2] == ("", "no think here <think>")


def test_hunyuan_text_that_cannot_start_a_marker_token_is_not_held() -> None:
    # `<think>` is one token in Qwen's vocabulary: a `<` of ordinary text streams at once
    tok = tokenizer("synthetic-multi")
    p = ChatOutputParser(tok, None, "hunyuan_a13b", enable_auto_tools=False)
    ids = tok.encode("a <", add_special_tokens=False)
    delta, _ = p.stream(None, "a <", ids, ctx(tools=None), finished=False)
    assert delta is not None and delta.content == "a <"


def test_hunyuan_answer_end_marker_is_dropped_before_the_tool_parser() -> None:
    text = "<think>\nplan\n</think>\n<answer>\nThe answer\n</answer>"
    assert _hunyuan_stream(text, "hunyuan_a13b")[:2] == ("plan", "The answer")


def test_qwen3_repeated_think_end_is_dropped_before_the_tool_parser() -> None:
    # as one-shot drops it (tests/parser/engine/test_qwen3_reasoning.py, docs/deviations.md)
    text = "reasoning</think>content</think>more"
    assert _stream_tokens(text, "hermes", "qwen3", "qwen3")[:2] == ("reasoning", "contentmore")


def test_markup_held_to_the_end_is_sent_in_the_final_chunk_before_the_end_flush() -> None:
    # qwen3_coder holds `<function=` inside the unended `city` value to the end of the output;
    # vLLM 0.33.0 sends the new call's name in the final chunk (arguments "", what was left of
    # them) and the end-of-stream `{}` as an entry of its own
    p = parser("qwen3_coder", None)
    c = ctx(tools=[{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}])  # fmt: skip
    pieces = [
        "<tool_call>\n<function=get_weather>\n<parameter=city>\n",
        "To<tool_call>\n<function",
        "=get_weather>\n<parameter",
    ]
    state = None
    deltas = []
    for n, text in enumerate(pieces):
        ids = tokenizer().encode(text, add_special_tokens=False)
        delta, state = p.stream(state, text, ids, c, finished=n == len(pieces) - 1)
        deltas.append(delta)
    last = deltas[-1]
    assert last is not None
    assert [(tc.index, tc.name, tc.arguments) for tc in last.tool_calls] == [
        (1, "get_weather", ""),
        (1, None, "{}"),
    ]
    assert joined(deltas)["calls"] == [
        ("get_weather", '{"city": "To<tool_call>'),
        ("get_weather", "{}"),
    ]


def test_kimi_k2_text_held_to_the_end_joins_the_final_delta_entry() -> None:
    # The whole call in one chunk, its end markers damaged (held as possible marker text): the
    # end of the output releases them in the engine's last step, whose entries vLLM 0.33.0
    # merges per call (seed 50 sweep, damaged-syn-kimi_k2-26 in one chunk).
    p = ChatOutputParser(tokenizer("synthetic-multi"), "kimi_k2", None, enable_auto_tools=True)
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|tool_calls_section_end|>'
    )
    ids = tokenizer("synthetic-multi").encode(text, add_special_tokens=False)
    delta, _ = p.stream(None, text, ids, ctx(prompt_token_ids=[]), finished=True)
    assert delta is not None
    assert [(tc.index, tc.name, tc.arguments) for tc in delta.tool_calls] == [
        (0, "get_weather", '{"city": "Paris"}<|tool_call_end|tool_calls_section_end|>')
    ]
