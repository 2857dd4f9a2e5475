"""gpt-oss Harmony output read from token ids (tokenfront.parsers.harmony_output / engines.harmony_tokens).

Uses the gpt-oss test model dir, built on demand from tests/models/gpt-oss-src.
"""

from __future__ import annotations

from typing import Any

import pytest

from tokenfront.config import ModelOptions
from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines.harmony_tokens import HarmonyError, parse_header
from tokenfront.parsers.harmony_output import HarmonyOutputParser, harmony_parser_for

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
CALL = (
    "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
    '{"city":"Paris"}<|call|>'
)


@pytest.fixture(scope="module")
def tokenizer(gpt_oss_tokenizer: Any) -> Any:
    return gpt_oss_tokenizer


def _parser(tokenizer: Any, tools: bool = True) -> HarmonyOutputParser:
    options = ModelOptions(model="unused", tool_call_parser="openai" if tools else None, enable_auto_tool_choice=tools)
    parser = harmony_parser_for(options, tokenizer, "gpt_oss")
    assert parser is not None
    return parser


def _ids(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer.encode(text, add_special_tokens=False))


def _ctx(**kw: Any) -> ParseContext:
    return ParseContext(tools=TOOLS, tool_choice="auto", **kw)


@pytest.mark.parametrize(
    ("header", "role", "want"),
    [
        ("<|channel|>final", "assistant", ("assistant", "final", None, None)),
        (
            "<|channel|>commentary to=functions.f <|constrain|>json",
            "assistant",
            ("assistant", "commentary", "functions.f", "<|constrain|>json"),
        ),
        (" to=functions.f<|channel|>commentary json", "assistant", ("assistant", "commentary", "functions.f", "json")),
        ("assistant<|channel|>analysis", None, ("assistant", "analysis", None, None)),
        ("functions.f to=assistant<|channel|>commentary", None, ("tool", "commentary", "assistant", None)),
        ("x<|channel|>b y<|channel|>z", "assistant", ("assistant", "b", "x", "y")),
        ("<|constrain|>json", "assistant", ("assistant", None, "<|constrain|>json", None)),
    ],
)
def test_header_fields(header: str, role: str | None, want: tuple[Any, ...]) -> None:
    msg = parse_header(header, role)
    assert (msg.role, msg.channel, msg.recipient, msg.content_type) == want


@pytest.mark.parametrize("header", ["<|channel|> final", "a b c<|channel|>final", "nobody"])
def test_header_errors(header: str) -> None:
    with pytest.raises(HarmonyError):
        parse_header(header, None if header == "nobody" else "assistant")


def test_only_gpt_oss_reads_harmony(tokenizer: Any) -> None:
    options = ModelOptions(model="unused")
    assert harmony_parser_for(options, tokenizer, "qwen3") is None
    parser = harmony_parser_for(options, tokenizer, "gpt_oss")
    assert parser is not None and parser.reasoning_parser_name == "openai_gptoss"


def test_one_shot_split(tokenizer: Any) -> None:
    text = "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant" + CALL
    msg = _parser(tokenizer).parse(text, _ids(tokenizer, text), _ctx())
    assert msg["reasoning"] == "Think."
    assert msg["content"] is None
    assert [c["function"] for c in msg["tool_calls"]] == [
        {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    ]


def test_one_shot_without_tool_parser_drops_calls(tokenizer: Any) -> None:
    text = "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant" + CALL
    msg = _parser(tokenizer, tools=False).parse(text, _ids(tokenizer, text), _ctx())
    assert (msg["reasoning"], msg["content"], msg["tool_calls"]) == ("Think.", None, [])


def test_header_cut_off_is_recovered_as_content(tokenizer: Any) -> None:
    text = "<|channel|>final<|message|>A<|end|><|start|>assistant<|channel|>comm"
    msg = _parser(tokenizer).parse(text, _ids(tokenizer, text), _ctx())
    assert msg["content"] == "A\n<|start|>assistant<|channel|>comm"


REJECTED = "<|channel|>commentary to=functions.get_weather to=functions.get_weather<|message|>{}<|call|>"


def test_rejected_header_ends_the_chunk_as_final_content(tokenizer: Any) -> None:
    # vLLM #51977: the rejected message and the rest of the chunk come back as content
    text = "<|channel|>analysis<|message|>Hm.<|end|><|start|>assistant" + REJECTED
    msg = _parser(tokenizer).parse(text, _ids(tokenizer, text), _ctx())
    assert (msg["reasoning"], msg["content"], msg["tool_calls"]) == (
        "Hm.",
        "<|start|>assistant" + REJECTED,
        [],
    )


def test_reader_starts_over_after_a_rejected_header(tokenizer: Any) -> None:
    parser, ctx = _parser(tokenizer), _ctx()
    first, state = parser.stream(None, "x", _ids(tokenizer, REJECTED), ctx, finished=False)
    assert first is not None and first.content == REJECTED and not first.tool_calls
    follow = "<|channel|>final<|message|>hi<|return|>"
    second, _ = parser.stream(state, "x", _ids(tokenizer, follow), ctx, finished=True)
    assert second is not None and second.content == "hi"


def test_stream_of_a_rejected_header_joins_to_the_one_shot_content(tokenizer: Any) -> None:
    deltas = _stream(_parser(tokenizer), tokenizer, REJECTED, _ctx())
    assert "".join(d.get("content") or "" for d in deltas) == REJECTED
    assert not any(d.get("tool_calls") for d in deltas)


def test_non_assistant_messages_are_left_out_of_one_shot(tokenizer: Any) -> None:
    text = "<|channel|>final<|message|>A<|end|><|start|>user<|channel|>final<|message|>Q<|end|>"
    msg = _parser(tokenizer).parse(text, _ids(tokenizer, text), _ctx())
    assert msg["content"] == "A"


def _stream(parser: HarmonyOutputParser, tokenizer: Any, text: str, ctx: ParseContext) -> list[dict[str, Any]]:
    ids = _ids(tokenizer, text)
    state = None
    out = []
    for i, token_id in enumerate(ids):
        delta, state = parser.stream(state, "x", [token_id], ctx, finished=i == len(ids) - 1)
        if delta is not None:
            out.append(delta.to_dict())
    return out


def test_stream_opens_a_call_at_its_message_token(tokenizer: Any) -> None:
    deltas = _stream(_parser(tokenizer), tokenizer, CALL, _ctx())
    first = deltas[0]["tool_calls"][0]
    assert first["function"] == {"name": "get_weather", "arguments": ""}
    assert first["index"] == 0 and first["id"]
    args = "".join(d["tool_calls"][0]["function"]["arguments"] for d in deltas)
    assert args == '{"city": "Paris"}'  # spaced as one-shot's json.dumps


def _stream_args(tokenizer: Any, text: str) -> list[str]:
    deltas = _stream(_parser(tokenizer), tokenizer, text, _ctx())
    args: list[str] = []
    for d in deltas:
        for tc in d.get("tool_calls") or []:
            if tc.get("id"):
                args.append("")
            args[-1] += tc["function"]["arguments"] or ""
    return args


@pytest.mark.parametrize(
    ("body", "header"),
    [
        ('{\n"location": "Tokyo"\n}', "commentary to=functions.f <|constrain|>json"),
        ('{ "a" :1,\n  "b":[ 1 ,2 ] }', "commentary to=functions.f json"),
        ('{"a": 1}', "analysis to=functions.f"),
    ],
)
def test_stream_spaces_json_arguments_as_one_shot(tokenizer: Any, body: str, header: str) -> None:
    text = f"<|channel|>{header}<|message|>{body}<|call|>"
    one_shot = _parser(tokenizer).parse(text, _ids(tokenizer, text), _ctx())
    assert _stream_args(tokenizer, text) == [c["function"]["arguments"] for c in one_shot["tool_calls"]]


@pytest.mark.parametrize(
    ("header", "body", "streamed"),
    [
        # not a JSON content type: as written
        ("commentary to=functions.f code", "{ a :1 }", "{ a :1 }"),
        # not JSON: as written
        ("commentary to=functions.f json", "get the weather in Paris", "get the weather in Paris"),
        # one-shot keeps it raw; only the whitespace before the text stopped reading as JSON
        # is respaced
        ("commentary to=functions.f json", '{ "a": 1 } and more', '{"a": 1} and more'),
    ],
)
def test_stream_keeps_text_that_is_not_json(tokenizer: Any, header: str, body: str, streamed: str) -> None:
    text = f"<|channel|>{header}<|message|>{body}<|call|>"
    one_shot = _parser(tokenizer).parse(text, _ids(tokenizer, text), _ctx())
    assert one_shot["tool_calls"][0]["function"]["arguments"] == body
    assert _stream_args(tokenizer, text) == [streamed]


def test_stream_sends_whitespace_held_in_cut_arguments(tokenizer: Any) -> None:
    body = '{"a": [1,\n  '
    text = "<|channel|>commentary to=functions.f json<|message|>" + body
    assert _stream_args(tokenizer, text) == [body]  # as one-shot keeps unparsable arguments


def test_stream_holds_partial_utf8(tokenizer: Any) -> None:
    text = "<|channel|>final<|message|>\U0001f99c\U0001d518<|return|>"
    deltas = _stream(_parser(tokenizer), tokenizer, text, _ctx())
    assert "".join(d["content"] for d in deltas) == "\U0001f99c\U0001d518"
    assert all("\ufffd" not in d["content"] for d in deltas)


def test_stream_hides_reasoning_when_asked(tokenizer: Any) -> None:
    text = "<|channel|>analysis<|message|>Hidden.<|end|><|start|>assistant<|channel|>final<|message|>Shown<|return|>"
    deltas = _stream(_parser(tokenizer), tokenizer, text, _ctx(include_reasoning=False))
    assert all(d["reasoning"] is None for d in deltas)
    assert "".join(d["content"] or "" for d in deltas) == "Shown"
