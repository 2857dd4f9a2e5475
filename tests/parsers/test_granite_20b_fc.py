"""granite-20b-fc: streams in chunks of several tokens (one-token cases: test_groupb.py)."""

from __future__ import annotations

import pytest
from calls_support import token_chunks as chunks_of
from json_support import joined, stream

MODEL = "synthetic-multi"


@pytest.mark.parametrize("per", [2, 3, 5, 1000])
def test_whole_calls_inside_one_chunk_all_stream(per: int) -> None:
    text = (
        'ok <function_call> {"name": "get_time", "arguments": {"tz": "UTC"}} '
        '<function_call> {"name": "get_weather", "arguments": {"city": "X"}}'
    )
    content, calls = joined(stream("granite-20b-fc", MODEL, chunks_of(text, MODEL, per)))
    assert content == "ok "
    assert calls == [("get_time", '{"tz": "UTC"}'), ("get_weather", '{"city": "X"}')]
