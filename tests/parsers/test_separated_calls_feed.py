"""DeepSeek streaming takes a run of pieces that only extend a call's arguments at once
(`MarkerRegexToolParser._feed_pieces`); every chunk answers as feeding its pieces one by one."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
import xml_support
from json_support import context, pipeline, tool

from tokenfront.parsers.engines.separated_calls import MarkerRegexToolParser

SECTION, SECTION_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
BEGIN, END, SEP = "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>"
FILLERS = ["Tok", "yo", " ", "`", "\n", '"', SECTION, SECTION_END, SECTION, SECTION_END, SEP, END]


def _fillers(rng: random.Random, most: int) -> str:
    return "".join(rng.choice(FILLERS) for _ in range(rng.randrange(0, most)))


def _output(rng: random.Random, fenced: bool) -> str:
    calls = []
    for _ in range(rng.randrange(1, 3)):
        arguments = f'{{"city": "{_fillers(rng, 14)}"}}'
        if fenced:
            calls.append(f"{BEGIN}function{SEP}get_weather\n```json\n{arguments}\n```{END}")
        else:
            calls.append(f"{BEGIN}get_weather{SEP}{arguments}{END}")
        calls.append(_fillers(rng, 4))
    text = _fillers(rng, 4) + SECTION + "".join(calls) + SECTION_END + _fillers(rng, 4)
    return text[: rng.randrange(len(text) // 2, len(text) + 1)]


def _one_by_one(self: MarkerRegexToolParser, state: Any, pieces: Sequence[Any]) -> list[Any]:
    return [self._stream_piece(state, text, ids) for text, ids in pieces]


def _stream(parser_name: str, text: str, per: int) -> list[Any]:
    parser = pipeline(parser_name, "deepseek")
    ctx = context([tool("get_weather", {"city": {"type": "string"}})])
    tok = xml_support.tokenizer("deepseek")
    ids = tok.encode(text, add_special_tokens=False)
    state, out, shown = None, [], ""
    for start in range(0, len(ids), per):
        end = start + per
        full = tok.decode(ids[:end], skip_special_tokens=False)
        delta, state = parser.stream(
            state, full[len(shown) :], ids[start:end], ctx, finished=end >= len(ids)
        )
        shown = full
        out.append(
            None
            if delta is None
            else (delta.content, [(tc.index, tc.name, tc.arguments) for tc in delta.tool_calls])
        )
    return out


@pytest.mark.parametrize("parser_name", ["deepseek_v3", "deepseek_v31"])
def test_runs_of_argument_pieces_answer_as_fed_one_by_one(
    monkeypatch: pytest.MonkeyPatch, parser_name: str
) -> None:
    rng = random.Random(2525)
    texts = [_output(rng, parser_name == "deepseek_v3") for _ in range(120)]
    pers = [7, 10_000]
    fed_in_runs = [_stream(parser_name, text, per) for text in texts for per in pers]
    monkeypatch.setattr(MarkerRegexToolParser, "_feed_pieces", _one_by_one)
    fed_one_by_one = [_stream(parser_name, text, per) for text in texts for per in pers]
    assert fed_in_runs == fed_one_by_one
    assert sum(bool(d and d[1]) for stream in fed_in_runs for d in stream) > 100
