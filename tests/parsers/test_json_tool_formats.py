"""granite4, hunyuan_a13b and ernie45 tool parsers (their parity configs also need reasoning
parsers, so these check the tool half directly), plus the shared JSON helpers."""

from __future__ import annotations

import pytest
from json_support import check_vector, joined, oneshot, stream, token_chunks, vectors

from tokenfront.parsers.engines import json_events
from tokenfront.parsers.engines.json_calls import ALLOW_ALL, intermediate_diff, partial_loads

MODEL = "synthetic-multi"


def test_granite4_blocks_and_text() -> None:
    text = 'a<tool_call>{"name": "get_time", "arguments": {}}</tool_call>b'
    assert oneshot("granite4", MODEL, text) == ("ab", [("get_time", "{}")])
    bad = '<tool_call>{"name": "get_time", "arguments": {}}'
    assert oneshot("granite4", MODEL, bad) == (bad, [])


def test_granite4_stream() -> None:
    text = 'Hi <tool_call>{"name": "get_weather", "arguments": {"city": "Zoë"}}</tool_call>'
    assert joined(stream("granite4", MODEL, token_chunks(text, MODEL))) == (
        "Hi ", [("get_weather", '{"city": "Zoë"}')]
    )


def test_hunyuan_block_and_content() -> None:
    text = 'Plan.\n<tool_calls>[{"name": "get_time", "arguments": {}}]</tool_calls>'
    assert oneshot("hunyuan_a13b", MODEL, text) == ("Plan.\n", [("get_time", "{}")])
    # Without calls vLLM keeps the raw content (the parser's prefix removal is not used).
    assert oneshot("hunyuan_a13b", MODEL, "助手：hello") == ("助手：hello", [])


def test_hunyuan_stream() -> None:
    text = '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_calls>'
    content, calls = joined(stream("hunyuan_a13b", MODEL, token_chunks(text, MODEL)))
    assert calls == [("get_weather", '{"city": "Paris"}')]


def test_hunyuan_stream_keeps_whitespace_before_the_calls_in_their_chunk() -> None:
    # One-shot keeps "now. "; a chunk ' <tool_calls>[{"' dropped its leading space while
    # one-token chunks sent it (found by streaming one-shot vectors in random chunkings).
    text = 'I will call the tool now. <tool_calls>[{"name": "get_time", "arguments": {}}]</tool_calls>'
    chunks = [("I will call the tool now.", []), (' <tool_calls>[{"', [])]
    chunks.append((text[len(chunks[0][0] + chunks[1][0]) :], []))
    assert joined(stream("hunyuan_a13b", MODEL, chunks)) == (
        "I will call the tool now. ", [("get_time", "{}")]
    )


def test_ernie_blocks() -> None:
    text = (
        'Text\n\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "東京"}}\n</tool_call>'
    )
    assert oneshot("ernie45", MODEL, text) == (
        "Text", [("get_time", "{}"), ("get_weather", '{"city": "東京"}')]
    )


def test_ernie_stream_whole_calls() -> None:
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Zoë"}}\n</tool_call>'
    deltas = stream("ernie45", MODEL, token_chunks(text, MODEL))
    with_calls = [d for d in deltas if d.get("tool_calls")]
    assert len(with_calls) == 1
    assert joined(deltas) == (None, [("get_weather", '{"city": "Zoë"}')])


def test_partial_loads_and_diff() -> None:
    assert partial_loads('{"a": 1}; {"b"', ALLOW_ALL) == ({"a": 1}, 8)
    assert intermediate_diff('{"a": "xyz"}', '{"a": "x"}') == "yz"


def test_json_events_resume_across_chunks() -> None:
    st = json_events.new_scanner()
    events = json_events.feed(st, '[{"name": "a')
    assert events == [("", "start_array", None), ("item", "start_map", None),
                      ("item", "map_key", "name")]  # fmt: skip
    assert json_events.feed(st, 'b", "arguments": {}}]') == [
        ("item.name", "string", "ab"),
        ("item", "map_key", "arguments"),
        ("item.arguments", "start_map", None),
        ("item.arguments", "end_map", None),
        ("item", "end_map", None),
        ("", "end_array", None),
    ]


@pytest.mark.parametrize(
    ("text", "complete_at"),
    [('{"unit""celsius"}', len('{"unit""celsius"')), ('{"a" 12, "b": 1}', len('{"a" 12,'))],
)
def test_json_events_fail_a_misplaced_lexeme_once_it_is_complete(text: str, complete_at: int) -> None:
    # yajl (vLLM's ijson backend) reads whole lexemes: a string or number where none may
    # stand is an error when it ends (vLLM's mistral pre-v11 stream sends the text up to it).
    st = json_events.new_scanner()
    json_events.feed(st, text[: complete_at - 1])
    with pytest.raises(json_events.JSONEventError):
        json_events.feed(st, text[complete_at - 1])


@pytest.mark.parametrize(
    "vec",
    [v for name in ("granite4", "hunyuan_a13b", "ernie45") for v in vectors(name)],
    ids=lambda v: f"{v['parser']}:{v['source'].split('::')[-1]}",
)
def test_vllm_vectors(vec: dict) -> None:
    assert check_vector(vec) == []


@pytest.mark.parametrize("per", [2, 3, 5, 1000])
def test_granite4_content_between_whole_calls_in_one_chunk_is_kept(per: int) -> None:
    from calls_support import token_chunks as chunks_of

    text = (
        'A <tool_call>{"name": "get_time", "arguments": {}}</tool_call> some explanation '
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call> Z'
    )
    content, calls = joined(stream("granite4", MODEL, chunks_of(text, MODEL, per)))
    assert content == "A  some explanation  Z"
    assert calls == [("get_time", "{}"), ("get_weather", '{"city": "Paris"}')]


@pytest.mark.parametrize("per", [2, 5, 1000])
def test_ernie_two_whole_calls_in_one_chunk_both_stream(per: int) -> None:
    from calls_support import token_chunks as chunks_of

    text = (
        'Text\n\n<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "東京"}}\n</tool_call>'
    )
    _, calls = joined(stream("ernie45", MODEL, chunks_of(text, MODEL, per)))
    assert calls == [("get_time", "{}"), ("get_weather", '{"city": "東京"}')]
