"""hy_v3 tool calls: calls and argument pairs scanned as vLLM's patterns match them, in linear
time."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from marker_texts import marker_text

from tokenfront.parsers.base import DeltaMessage, ParseContext
from tokenfront.parsers.engines.xml_args import Pair
from tokenfront.parsers.tools.hy_v3 import HYV3ToolParser

CASES = 3000
TOOLS = [
    {"type": "function", "function": {"name": "f", "parameters": {"properties": {
        "x": {"type": "string"}, "n": {"type": "integer"}}}}},
]  # fmt: skip


class _Tokenizer:
    """Just what the parser asks of a tokenizer: the section markers' ids and the suffix."""

    def __init__(self, suffix: str) -> None:
        self.init_kwargs = {"token_suffix": suffix}
        self.vocab = {f"<tool_calls{suffix}>": 1, f"</tool_calls{suffix}>": 2}

    def get_vocab(self) -> dict[str, int]:
        return self.vocab


class _RegexPairs:
    def __init__(self, pattern: Any) -> None:
        self.pattern = pattern

    def pairs(self, text: str) -> Iterator[Pair]:
        for m in self.pattern.finditer(text):
            yield Pair(m.group(1), m.group(2), m.start(), m.end())


class _RegexParser(HYV3ToolParser):
    """The parser on vLLM's patterns themselves (`findall` / `finditer`)."""

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        self.pairs = _RegexPairs(self.args_re)  # type: ignore[assignment]

    def _closed_calls(self, text: str) -> list[tuple[str, str]]:
        return self.call_re.findall(text)

    def _cut_call(self, text: str) -> list[tuple[str, str]]:
        return self.portion_re.findall(text)


def _parsers(suffix: str) -> tuple[HYV3ToolParser, HYV3ToolParser]:
    ctx = ParseContext(tools=TOOLS, tool_choice="auto")
    return HYV3ToolParser(_Tokenizer(suffix), ctx), _RegexParser(_Tokenizer(suffix), ctx)


def _markers(p: HYV3ToolParser) -> list[str]:
    return [p.call_start, p.sep, p.key_start, p.key_end, p.val_start, p.val_end, p.call_end]


def _texts(p: HYV3ToolParser, seed: int) -> Iterator[str]:
    """Half the pieces follow the markers' order, so most texts hold calls and pairs."""
    markers = _markers(p)
    alphabet = [*markers, p.calls_start, p.calls_end, "f", "x", "n", "1", "\n", " ", "\x1c"]
    rng = random.Random(seed)
    for _ in range(CASES):
        yield marker_text(rng, markers, alphabet, 22, start=rng.randrange(len(markers)))


# a suffix holding a marker's start makes markers overlap
@pytest.mark.parametrize("suffix", ["", "<|>"])
def test_calls_and_pairs_are_the_patterns_matches(suffix: str) -> None:
    p, _ = _parsers(suffix)
    matched = 0
    for text in _texts(p, 20261203):
        assert p._closed_calls(text) == p.call_re.findall(text), text
        assert p._cut_call(text) == p.portion_re.findall(text), text
        spans = [(m.group(1), m.group(2), m.start(), m.end()) for m in p.args_re.finditer(text)]
        assert [tuple(pair) for pair in p.pairs.pairs(text)] == spans, text
        matched += bool(spans) and bool(p.call_re.search(text))
    assert matched > CASES // 10


def _delta(d: DeltaMessage | None) -> Any:
    """A delta without its random call ids."""
    if d is None:
        return None
    return d.content, [(c.index, c.name, c.arguments, c.id is None) for c in d.tool_calls]


def _stream(p: HYV3ToolParser, text: str, rng: random.Random) -> list[Any]:
    state: dict[str, Any] = {}
    out = []
    at = 0
    while at < len(text):
        end = min(len(text), at + rng.randint(1, 40))
        chunk = text[at:end]
        out.append(_delta(p.stream(state, chunk, [1] if p.calls_start in chunk else [0])))
        at = end
    out.append(_delta(p.finish(state)))
    return out


@pytest.mark.parametrize("suffix", ["", "<|>"])
def test_one_shot_and_streams_give_what_the_patterns_give(suffix: str) -> None:
    p, oracle = _parsers(suffix)
    for i, body in enumerate(_texts(p, 11)):
        text = "pre" + p.calls_start + body
        got, want = p.extract_tool_calls(text), oracle.extract_tool_calls(text)
        assert (got.content, [(c.name, c.arguments) for c in got.tool_calls]) == (
            want.content,
            [(c.name, c.arguments) for c in want.tool_calls],
        ), text
        assert _stream(p, text, random.Random(i)) == _stream(oracle, text, random.Random(i)), text


@pytest.mark.parametrize(
    ("unit", "call"),
    [
        ("\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>Beij",
         ("get_weather", "{}")),
        ("\n<tool_call>get_weather<tool_sep>\n<arg_key>city</arg_key>\n<arg_value>B</arg_value>",
         ("get_weather", '{"city": "B"}')),
        ("<tool_call>f<tool_sep><arg_key>a</arg_key> ", ("f", "{}")),
    ],
)
def test_repeated_cut_calls_parse_and_stream_as_one_call(unit: str, call: tuple[str, str]) -> None:
    # 60k characters: vLLM's patterns take minutes here; one call, as for 3 repeats
    p, _ = _parsers("")
    text = "<tool_calls>" + unit * (60_000 // len(unit))
    result = p.extract_tool_calls(text)
    assert [(c.name, c.arguments) for c in result.tool_calls] == [call]
    state: dict[str, Any] = {}
    deltas = [p.stream(state, text, [1]), p.finish(state)]
    names = [tc.name for d in deltas if d for tc in d.tool_calls if tc.name]
    assert names == [call[0]]
