"""Work the grammar engines do on long outputs: one-shot parsing and big stream chunks stay
linear in the output (a client controls both; session 22 measured seconds to minutes for a
few thousand characters before)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pytest
import xml_support
from json_support import context, pipeline, tool

from tokenfront.parsers.engines import (
    json_array,
    mode_filter,
    object_text,
    param_walk,
    section_calls,
    separated_calls,
    xml_args,
    xml_params,
)

GLM_CALL = (
    "<tool_call>get_weather\n<arg_key>city</arg_key><arg_value>Beijing</arg_value>"
    "<arg_key>date</arg_key><arg_value>2025-08-01</arg_value></tool_call>"
)


def _count_calls(monkeypatch: pytest.MonkeyPatch, cls: type, name: str) -> list[int]:
    calls = [0]
    original = getattr(cls, name)

    def counted(self: Any, *args: Any) -> Any:
        calls[0] += 1
        return original(self, *args)

    monkeypatch.setattr(cls, name, counted)
    return calls


def _count_function_calls(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls = [0]
    original = getattr(module, name)

    def counted(*args: Any) -> Any:
        calls[0] += 1
        return original(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_one_shot_markup_parsing_works_out_no_argument_deltas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    diffs = _count_calls(monkeypatch, xml_params.MarkupToolParser, "_args_delta")
    parser = xml_support.make("glm47", model="synthetic-multi")
    many = GLM_CALL * 50
    result = parser.extract_tool_calls(many)
    assert diffs[0] == 0
    assert len(result.tool_calls) == 50
    assert result.tool_calls[0].arguments == '{"city": "Beijing", "date": "2025-08-01"}'


def test_one_shot_of_a_cut_off_call_with_many_keys_keeps_them() -> None:
    # half a call repeated: one call that never closes, its keys piling up (no argument
    # deltas are worked out per key any more; the collected call is unchanged)
    half = GLM_CALL[: len(GLM_CALL) // 3]
    text = half * 200
    result = xml_support.make("glm45", model="synthetic-multi").extract_tool_calls(text)
    assert result.tools_called is False
    assert result.content == text


def test_json_array_arguments_are_diffed_once_per_run_of_characters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    diffs = _count_calls(monkeypatch, json_array.ArrayCallsEngine, "_args_diff")
    value = "x" * 5000
    text = f'<tool_call>[{{"name": "get_weather", "arguments": {{"city": "{value}"}}}}]'
    parser = pipeline("granite", "synthetic-multi")
    tok = xml_support.tokenizer("synthetic-multi")
    ctx = context()
    message = parser.parse(text, tok.encode(text, add_special_tokens=False), ctx)
    assert message["tool_calls"][0]["function"]["arguments"] == f'{{"city": "{value}"}}'
    assert diffs[0] <= 2
    diffs[0] = 0
    ids = tok.encode(text, add_special_tokens=False)
    delta, _ = parser.stream(None, text, ids, ctx, finished=True)
    assert delta is not None and "".join(tc.arguments or "" for tc in delta.tool_calls) == (
        f'{{"city": "{value}"}}'
    )
    assert diffs[0] <= 2


def _one_chunk(parser_name: str, model: str, text: str) -> str:
    parser = pipeline(parser_name, model)
    ids = xml_support.tokenizer(model).encode(text, add_special_tokens=False)
    delta, _ = parser.stream(None, text, ids, context(), finished=True)
    assert delta is not None
    return "".join(tc.arguments or "" for tc in delta.tool_calls)


def test_one_chunk_of_many_parameters_walks_each_value_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the chunk's lexer pieces re-read the open call; each read resumes after the parameters
    # the last one ended, so values are walked per piece, not per piece and parameter
    walked = _count_function_calls(monkeypatch, param_walk, "_value_end")
    params = "".join(f"<parameter=p{i}>\nv{i}\n</parameter>\n" for i in range(300))
    text = f"<tool_call>\n<function=get_time>\n{params}</function>\n</tool_call>"
    arguments = _one_chunk("qwen3_coder", "qwen3", text)
    assert json.loads(arguments) == {f"p{i}": f"v{i}" for i in range(300)}
    assert walked[0] < 20 * 300  # from the start each time: about 300 x 1,500


def test_one_chunk_of_many_key_value_pairs_scans_each_pair_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scanned = [0]
    original = xml_args.PairScanner._key_end

    def counted(self: Any, *args: Any) -> Any:
        scanned[0] += 1
        return original(self, *args)

    monkeypatch.setattr(xml_args.PairScanner, "_key_end", counted)
    pairs = "".join(f"<arg_key>p{i}</arg_key>\n<arg_value>v{i}</arg_value>\n" for i in range(300))
    arguments = _one_chunk("glm45", "synthetic-multi", f"<tool_call>get_time\n{pairs}</tool_call>")
    assert json.loads(arguments) == {f"p{i}": f"v{i}" for i in range(300)}
    assert scanned[0] < 50 * 300  # from the start each time: about 300 x 3,000


def test_one_chunk_converts_a_run_of_argument_pieces_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every `</parameter>` / `<parameter=` piece of the chunk converted the whole call again
    # (about 900 conversions here); a chunk's run of pieces is one text after the first few
    converted = _count_calls(monkeypatch, xml_params.MarkupToolParser, "_args_delta")
    params = "".join(f"<parameter=p{i}>\nv{i}\n</parameter>\n" for i in range(300))
    text = f"<tool_call>\n<function=get_time>\n{params}</function>\n</tool_call>"
    arguments = _one_chunk("qwen3_coder", "qwen3", text)
    assert json.loads(arguments) == {f"p{i}": f"v{i}" for i in range(300)}
    assert converted[0] <= 3 + xml_params._RUN_RECONVERSIONS


def test_closers_inside_one_value_look_for_an_opener_once_per_walk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a value holding many literal `</parameter>` texts: the next `<parameter=` was searched
    # for (to the end of the body) after each of them
    lookups = _count_function_calls(monkeypatch, param_walk, "_next_opener")
    value = "x</parameter>y" * 2000
    call = f"<function=f>\n<parameter=a>\n{value}\n</parameter>\n</function>"
    text = f"<tool_call>\n{call}\n</tool_call>"
    parser = xml_support.make("qwen3_coder", model="qwen3")
    result = parser.extract_tool_calls(text)
    assert json.loads(result.tool_calls[0].arguments) == {"a": value}
    assert lookups[0] < 20
    lookups[0] = 0
    assert json.loads(_one_chunk("qwen3_coder", "qwen3", text)) == {"a": value}
    assert lookups[0] < 40


def test_an_open_value_looks_for_its_call_markup_once_per_character(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # each `</function>` inside a value re-walks the body and looked for the call markup
    # (`<tool_call>`, `<function=` ...) in the whole open value again
    scanned = [0]
    original = param_walk._first_markup

    def counted(value: str, markup: Any, known: Any) -> Any:
        scanned[0] += len(value) - (known.length if known is not None else 0)
        return original(value, markup, known)

    monkeypatch.setattr(param_walk, "_first_markup", counted)
    value = "</function>x <tool_call>x </tool_call>x " * 1000
    text = f"<tool_call>\n<function=f>\n<parameter=a>\n{value}\n</parameter>\n</function>"
    result = xml_support.make("qwen3_coder", model="qwen3").extract_tool_calls(text)
    assert json.loads(result.tool_calls[0].arguments) == {"a": value}
    assert scanned[0] < 3 * len(text)


def _count_encoded_members(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Members encoded: dict members `json.dumps` writes plus `object_text.member_text` calls."""
    encoded = [0]
    dumps, member = json.dumps, object_text.member_text

    def counted_dumps(obj: Any, *args: Any, **kwargs: Any) -> str:
        if isinstance(obj, dict):
            encoded[0] += len(obj)
        return dumps(obj, *args, **kwargs)

    def counted_member(key: str, value: Any) -> str:
        encoded[0] += 1
        return member(key, value)

    monkeypatch.setattr(json, "dumps", counted_dumps)
    monkeypatch.setattr(object_text, "member_text", counted_member)
    return encoded


@pytest.mark.parametrize("typed", [False, True], ids=["strings", "typed-integers"])
def test_one_chunk_of_many_parameters_encodes_each_value_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch, typed: bool
) -> None:
    # the arguments' JSON text was written whole once per lexer piece: about 300 x 1,500
    encoded = _count_encoded_members(monkeypatch)
    params = "".join(f"<parameter=p{i}>\n{i}\n</parameter>\n" for i in range(300))
    text = f"<tool_call>\n<function=get_time>\n{params}</function>\n</tool_call>"
    properties = {f"p{i}": {"type": "integer"} for i in range(300)} if typed else None
    parser = pipeline("qwen3_coder", "qwen3")
    ids = xml_support.tokenizer("qwen3").encode(text, add_special_tokens=False)
    ctx = context([tool("get_time", properties)])
    delta, _ = parser.stream(None, text, ids, ctx, finished=True)
    assert delta is not None
    arguments = json.loads("".join(tc.arguments or "" for tc in delta.tool_calls))
    assert arguments == {f"p{i}": i if typed else str(i) for i in range(300)}
    assert encoded[0] < 30 * 300


def test_one_chunk_of_many_key_value_pairs_encodes_each_value_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encoded = _count_encoded_members(monkeypatch)
    pairs = "".join(f"<arg_key>p{i}</arg_key>\n<arg_value>v{i}</arg_value>\n" for i in range(300))
    arguments = _one_chunk("glm45", "synthetic-multi", f"<tool_call>get_time\n{pairs}</tool_call>")
    assert json.loads(arguments) == {f"p{i}": f"v{i}" for i in range(300)}
    assert encoded[0] < 30 * 300


@pytest.mark.parametrize("tokens_per_chunk", [3, None], ids=["small-chunks", "one-chunk"])
def test_a_long_call_name_is_searched_a_bounded_number_of_characters(
    monkeypatch: pytest.MonkeyPatch, tokens_per_chunk: int | None
) -> None:
    # granite's name pattern was searched from the start of the call after every character
    # event while no name had matched (60,000 characters in one chunk: 27 s one-shot); each
    # search now resumes where the last one said a match can start
    scanned = [0]
    pattern = json_array._NAME_RE

    class CountingPattern:
        def search(self, text: str, pos: int = 0) -> Any:
            scanned[0] += len(text) - pos
            return pattern.search(text, pos)

    monkeypatch.setattr(json_array, "_NAME_RE", CountingPattern())
    name = "<|tool_call|>x " * 300 + "get_weather"
    text = f'<|tool_call|>[{{"name": "{name}", "arguments": {{"city": "Paris"}}}}]'
    parser = pipeline("granite", "synthetic-multi")
    tok = xml_support.tokenizer("synthetic-multi")
    ids = tok.encode(text, add_special_tokens=False)
    step = tokens_per_chunk or len(ids)
    state, names = None, []
    for start in range(0, len(ids), step):
        chunk = ids[start : start + step]
        delta, state = parser.stream(
            state, tok.decode(chunk), chunk, context(), finished=start + step >= len(ids)
        )
        names += [tc.name for tc in (delta.tool_calls if delta else []) if tc.name]
    assert names == [name]
    assert scanned[0] < 20 * len(text)  # from the start each time: about len(text) ** 2 / 6


@pytest.mark.parametrize("parser_name", ["deepseek_v3", "deepseek_v31"])
def test_section_markers_inside_arguments_read_the_call_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch, parser_name: str
) -> None:
    # each calls-begin marker is a piece of its own; fed one by one, every piece read the
    # whole call again (20,000 of them in one chunk: 6.7 s); a run of pieces that only
    # extends the arguments now goes in as one
    reads = _count_function_calls(monkeypatch, separated_calls, "read_partial")
    begin, section = "<｜tool▁call▁begin｜>", "<｜tool▁calls▁begin｜>"
    value = f"x{section}y " * 300
    if parser_name == "deepseek_v3":
        header = f"{begin}function<｜tool▁sep｜>get_weather\n```json\n"
        footer = "\n```<｜tool▁call▁end｜>"
    else:
        header, footer = f"{begin}get_weather<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
    text = f'{section}{header}{{"city": "{value}"}}{footer}<｜tool▁calls▁end｜>'
    arguments = _one_chunk(parser_name, "deepseek", text)
    assert json.loads(arguments) == {"city": value}
    assert reads[0] < 20


def test_a_kimi_k2_chunk_sends_a_run_of_argument_characters_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the arguments are read a character at a time (the top-level close is held); each
    # character was handled as its own piece, and one-shot joined them one by one
    handled = _count_calls(monkeypatch, section_calls.SectionToolParser, "_on_args")
    value = "word " * 2000
    text = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        f'<|tool_call_argument_begin|>{{"city": "{value}"}}<|tool_call_end|>'
        "<|tool_calls_section_end|>"
    )
    assert json.loads(_one_chunk("kimi_k2", "synthetic-multi", text)) == {"city": value}
    assert handled[0] < 20


@pytest.mark.parametrize("where", ["inside-the-call", "after-the-call", "before-the-calls"])
def test_call_end_markers_in_one_chunk_copy_the_kept_text_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    # every call-end marker is a piece; the text kept between pieces was copied whole for
    # each (54,000 markers in one chunk: 9 s); pieces after a closed call are now joined to
    # it only when a reading needs the whole text
    copied = [0]
    step = separated_calls.MarkerRegexToolParser._stream_piece

    def counted(self: Any, state: dict[str, Any], *args: Any) -> Any:
        before = state["text"]
        try:
            return step(self, state, *args)
        finally:
            if state["text"] is not before:  # a new kept text: its characters were copied
                copied[0] += len(state["text"])

    monkeypatch.setattr(separated_calls.MarkerRegexToolParser, "_stream_piece", counted)
    section, end = "<｜tool▁calls▁begin｜>", "<｜tool▁call▁end｜>"
    filler = f"x{end}y " * 300

    def call(city: str) -> str:
        return f'<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{{"city": "{city}"}}{end}'

    text = {
        "inside-the-call": section + call(filler),
        "after-the-call": section + call("Paris") + filler,
        "before-the-calls": filler.replace(end, "<｜tool▁calls▁end｜>"),
    }[where]
    parser = pipeline("deepseek_v31", "deepseek")
    ids = xml_support.tokenizer("deepseek").encode(text, add_special_tokens=False)
    parser.stream(None, text, ids, context(), finished=True)
    assert copied[0] < 10 * len(text)


def _str_find_calls(work: Callable[[], Any]) -> int:
    """How many times `work` calls `str.find` (a C call, counted by a profile hook)."""
    calls = [0]

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "c_call" and arg.__name__ == "find" and isinstance(arg.__self__, str):
            calls[0] += 1

    sys.setprofile(hook)
    try:
        work()
    finally:
        sys.setprofile(None)
    return calls[0]


def test_cohere_markers_in_one_chunk_look_each_marker_up_again_only_when_passed() -> None:
    # every marker of the chunk searched the rest of the buffer for every marker the
    # filter knows (about 6 x 2,000 searches, each to the end of the text)
    spec = mode_filter.ModeFilterSpec(
        start_mode=mode_filter.ANSWER,
        markers={
            "<|START_RESPONSE|>": mode_filter.ANSWER,
            "<|END_RESPONSE|>": mode_filter.IGNORE,
            "<|START_THINKING|>": mode_filter.REASON,
            "<|END_THINKING|>": mode_filter.IGNORE,
            "<|START_ACTION|>": mode_filter.ACTION,
            "<|END_ACTION|>": mode_filter.IGNORE,
        },
    )
    text = "<|START_RESPONSE|>word <|END_RESPONSE|>" * 1000
    state = mode_filter.new_state(spec)
    batches: list[Any] = []
    finds = _str_find_calls(lambda: batches.append(mode_filter.write(spec, state, text)))
    assert batches[0].content == "word" * 1000  # each part's trailing space trimmed
    assert finds < 3 * 2000
