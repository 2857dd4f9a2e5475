"""The response-template engine behind `hf` / `beam` (parity itself: tests/golden/vllm-rtemplate.jsonl)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines import rtemplate_scan as scan
from tokenfront.parsers.engines.response_template import ResponseTemplateOutput, check_tokenizer
from tokenfront.parsers.engines.rtemplate_spec import check_serving, expand_literals, load_template
from tokenfront.parsers.engines.rtemplate_values import coerce, field_value, parse_content

HF = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>"},
        "tool_calls": {
            "open_pattern": r"\s*<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close_pattern": r"\s*(?:<\|im_end\|>)"},
    },
}
XML = {
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open_pattern": r"<think>\n?", "close_pattern": r"\n?</think>\n*"},
        "tool_calls": {
            "open_pattern": r"\s*<tool_call>\s*<function=(?P<name>[^>\n]+)>",
            "close_pattern": r"</function>\s*</tool_call>",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {"tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>"},
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close": ["<|im_end|>", "<|endoftext|>"]},
    },
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}},
        },
    }
]


class FakeTokenizer:
    """Decodes ids as characters (so a prompt is any string)."""

    def __init__(self, template: dict[str, Any]) -> None:
        self.response_template = template

    def decode(self, ids: list[int], **_: Any) -> str:
        return "".join(chr(i) for i in ids)


def _ctx(prompt: str = "", **kw: Any) -> ParseContext:
    base: dict[str, Any] = {"tools": TOOLS, "tool_choice": "auto", "enable_auto_tools": True}
    base.update(kw)
    return ParseContext(prompt_token_ids=[ord(c) for c in prompt], **base)


def _output(template: dict[str, Any], prompt: str = "", **kw: Any) -> ResponseTemplateOutput:
    return ResponseTemplateOutput(
        FakeTokenizer(template), _ctx(prompt, **kw), parse_reasoning=True, parse_tools=True
    )


def _deltas(out: ResponseTemplateOutput, pieces: list[str]) -> list[Any]:
    state = None
    deltas = []
    for number, piece in enumerate(pieces):
        delta, state = out.stream(state, piece, number == len(pieces) - 1)
        json.dumps(state)  # the state stays plain JSON
        deltas.append(delta)
    return deltas


def _streamed(out: ResponseTemplateOutput, text: str, size: int) -> tuple[str, str, list[tuple[str, str]]]:
    reasoning, content = "", ""
    calls: dict[int, list[str]] = {}
    pieces = [text[i : i + size] for i in range(0, len(text), size)] or [""]
    for delta in _deltas(out, pieces):
        if delta is not None:
            reasoning += delta.reasoning or ""
            content += delta.content or ""
            for call in delta.tool_calls:
                slot = calls.setdefault(call.index, ["", ""])
                slot[0] += call.name or ""
                slot[1] += call.arguments or ""
    return reasoning, content, [(name, arguments) for name, arguments in (calls[k] for k in sorted(calls))]


HF_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}\n</tool_call>'


def test_one_shot_split_and_schema_typing() -> None:
    reasoning, content, calls = _output(HF).parse("<think>plan</think>Sure.\n" + HF_CALL + "<|im_end|>")
    assert reasoning == "plan"
    assert content == "Sure."
    assert calls is not None and [(c.name, c.arguments) for c in calls] == [
        ("get_weather", '{"city": "Paris", "days": 3}')
    ]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
def test_stream_matches_one_shot(size: int) -> None:
    text = "<think>plan</think>Sure.\n" + HF_CALL + "\n" + HF_CALL + " tail"
    reasoning, content, calls = _output(HF).parse(text)
    streamed = _streamed(_output(HF), text, size)
    assert streamed == (reasoning or "", content or "", [(c.name, c.arguments) for c in calls or []])


def test_malformed_and_incomplete_calls_are_dropped() -> None:
    text = '<tool_call>\n{"name": \n</tool_call><tool_call>{"arguments": {}}</tool_call>' + HF_CALL
    _, content, calls = _output(HF).parse(text)
    assert content is None
    assert calls is not None and [c.name for c in calls] == ["get_weather"]


def test_without_tool_parsing_the_region_is_content() -> None:
    out = ResponseTemplateOutput(FakeTokenizer(HF), _ctx(), parse_reasoning=False, parse_tools=False)
    reasoning, content, calls = out.parse("<think>t</think>A " + HF_CALL)
    assert reasoning is None and calls is None
    assert content == "tA" + " " + HF_CALL  # thinking delimiters dropped, tool delimiters kept


def test_prompt_opened_thinking_and_named_captures() -> None:
    prompt = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n"
    text = "plan\n</think>\n\nOk.<tool_call>\n<function=get_weather>\n<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>"
    reasoning, content, calls = _output(XML, prompt).parse(text)
    assert (reasoning, content) == ("plan", "Ok.")
    assert calls is not None and calls[0].arguments == '{"days": 2}'
    assert _streamed(_output(XML, prompt), text, 1) == ("plan", "Ok.", [("get_weather", '{"days": 2}')])


XML_CALL = "<tool_call>\n<function=get_weather>\n<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>"


class VocabTokenizer(FakeTokenizer):
    """Knows one special token: the tool closer `<tool_call|>` (id 7)."""

    def get_vocab(self) -> dict[str, int]:
        return {"<tool_call|>": 7}


LITERAL = {
    "start_anchor": "<turn>",
    "fields": {
        "tool_calls": {
            "open": "<|tool_call>",
            "close": "<tool_call|>",
            "content": "json",
            "transform": {"type": "function", "function": {"name": "set_alarm", "arguments": "{content}"}},
        },
    },
}


def _literal(prompt: str = "", tokenizer: type[FakeTokenizer] = FakeTokenizer) -> ResponseTemplateOutput:
    return ResponseTemplateOutput(
        tokenizer(LITERAL), _ctx(prompt), parse_reasoning=False, parse_tools=True
    )


def test_streamed_name_before_arguments() -> None:
    # The opener fixes the name: sent (with an id) before the region validates; the arguments
    # follow at the same index once it closes and parses.
    pieces = [XML_CALL[:40], XML_CALL[40:60], XML_CALL[60:]]
    first, middle, last = _deltas(_output(XML), pieces)
    assert [(c.index, c.name, c.arguments, c.id is not None) for c in first.tool_calls] == [
        (0, "get_weather", None, True)
    ]
    assert middle is None
    assert [(c.index, c.name, c.arguments, c.id) for c in last.tool_calls] == [(0, None, '{"days": 2}', None)]
    # Name and arguments of one chunk are one delta; a name read from the body waits for it.
    (whole,) = _deltas(_output(XML), [XML_CALL])
    assert [(c.index, c.name, c.arguments) for c in whole.tool_calls] == [(0, "get_weather", '{"days": 2}')]
    assert [d.tool_calls[0].name for d in _deltas(_output(HF), [HF_CALL[:20], HF_CALL[20:]]) if d] == [
        "get_weather"
    ]


def test_started_call_that_fails_stays_incomplete() -> None:
    call = '<|tool_call>{"hour": 7}<tool_call|>'
    malformed = call.replace("}", "} x")
    for text in (malformed + call, call.removesuffix("<tool_call|>"), call[:-3]):
        assert _streamed(_literal(), text, 1)[2][0] == ("set_alarm", "")
    assert _streamed(_literal(), malformed + call, 1)[2][1] == ("set_alarm", '{"hour": 7}')
    # Opened and failed within one chunk: nothing was started, nothing is sent.
    assert _deltas(_literal(), ["Hi", malformed])[1] is None
    assert _streamed(_literal(), malformed + call, 1000)[2] == [("set_alarm", '{"hour": 7}')]


def test_call_without_its_closer_is_dropped() -> None:
    assert _output(XML).parse(XML_CALL.removesuffix("</function>\n</tool_call>")) == (None, None, None)
    _, content, calls = _output(HF).parse(HF_CALL.removesuffix("</tool_call>"))
    assert content is None and calls is None


def test_stop_token_closer_completes_the_call() -> None:
    out = _literal(tokenizer=VocabTokenizer)
    _, _, calls = out.parse('<|tool_call>{"hour": 7}', [1, 7])
    assert calls is not None and [(c.name, c.arguments) for c in calls] == [("set_alarm", '{"hour": 7}')]
    assert out.parse('<|tool_call>{"hour": 7}', [1, 2]) == (None, None, None)
    delta, _ = out.stream(None, '<|tool_call>{"hour": 7}', True, [1, 7])
    assert delta is not None and [(c.name, c.arguments) for c in delta.tool_calls] == [("set_alarm", '{"hour": 7}')]


def test_tool_region_opened_by_the_prompt() -> None:
    first, last = _deltas(_literal("<turn><|tool_call>"), ['{"hour": 7}', "<tool_call|>"])
    assert [(c.index, c.name, c.arguments) for c in first.tool_calls] == [(0, "set_alarm", None)]
    assert [(c.index, c.name, c.arguments) for c in last.tool_calls] == [(0, None, '{"hour": 7}')]
    assert _deltas(_literal("<turn><|tool_call>"), ['{"hour": 7}x<tool_call|>']) == [None]


def test_prompt_reasoning_end() -> None:
    out = _output(XML)
    open_prompt = [ord(c) for c in "<|im_start|>assistant\n<think>\n"]
    closed_prompt = [ord(c) for c in "<|im_start|>assistant\n<think>\n\n</think>\n\n"]
    bare_prompt = [ord(c) for c in "<|im_start|>assistant\n"]
    assert out.prompt_ends_reasoning(open_prompt, False) is False
    assert out.prompt_ends_reasoning(closed_prompt, False) is True
    assert out.prompt_ends_reasoning(bare_prompt, False) is False
    assert out.prompt_ends_reasoning(bare_prompt, True) is True


def test_output_without_text_emits_nothing() -> None:
    assert _output(HF).parse("") == (None, None, None)


def test_cut_closer_completed_with_the_anchor() -> None:
    template = {
        "start_anchor": "<turn>",
        "fields": {"thinking": {"open": "<think>", "close": "</think><turn>"}, "content": {}},
    }
    assert _output(template).parse("<think>abc</think><tu")[0] == "abc"


def test_state_keeps_a_bounded_buffer() -> None:
    template = load_template(HF)
    state, _ = scan.start(template, "", {})
    for _ in range(2000):
        scan.feed(template, state, "word ", {})
    assert len(state["buf"]) < 16 and len(state["body"]) <= 256


def test_values_and_validation() -> None:
    assert parse_content('{a: <|"|>x<|"|>}', "json", {"unquoted_keys": True, "string_delims": [['<|"|>', '<|"|>']]}) == {"a": "x"}
    assert parse_content("a: 1\nb: 2", "kv-lines", {}) == {"a": "1", "b": "2"}
    assert coerce("3.0", ("integer",)) == 3 and coerce("nan", ("number",)) == "nan"
    assert coerce("1", ("boolean",)) is True and coerce("None", ("null",)) is None
    field = load_template(XML).fields["tool_calls"]
    value = field_value("<parameter=a>1</parameter>", field, {"name": "f"})
    assert value == {"type": "function", "function": {"name": "f", "arguments": {"a": "1"}}}
    assert expand_literals(r"<a>|<b>\n?") == ["<a>", "<b>", "<b>\n"]
    assert expand_literals(r"\w+") is None
    with pytest.raises(ValueError):
        check_serving({"start_anchor": "x", "fields": {"answer": {}}})
    with pytest.raises(ValueError):
        load_template({"start_anchor": "x", "fields": {"a": {"open_pattern": "(?P<n>x)"}}})
    with pytest.raises(ValueError):
        check_tokenizer(object(), "hf", None)
    with pytest.raises(ValueError, match="thinking field"):
        check_tokenizer(FakeTokenizer({"start_anchor": "x", "fields": {"content": {}}}), "hf", None)
