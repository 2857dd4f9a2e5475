"""engines/json_events against what ijson's yajl backend (vLLM's mistral pre-v11 stream reader)
answered for the same pieces (recorded by scripts/record_yajl_events.py in vLLM's venv)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.parsers.engines import json_events

_RECORDED = json.loads((Path(__file__).parent / "data" / "yajl_events.json").read_text())


def _answers(pieces: list[str]) -> list[Any]:
    st = json_events.new_scanner()
    answers: list[Any] = []
    for piece in pieces:
        try:
            events = json_events.feed(st, piece)
        except json_events.JSONEventError:
            answers.append("error")
            break
        answers.append([list(event) for event in events])
    return answers


@pytest.mark.parametrize("case", _RECORDED["cases"], ids=lambda c: repr("".join(c["pieces"]))[:60])
def test_events_and_failing_piece_match_yajl(case: dict[str, Any]) -> None:
    assert _answers(case["pieces"]) == case["answers"]


@pytest.mark.parametrize(
    ("pieces", "fails_at"),
    [
        (['{"a": t', "e"], 1),  # a wrong letter fails at once
        (['{"a"', "tru", "e"], 2),  # a misplaced `true` fails at its last letter
        (['{"a": -', "-"], 1),  # no digit after a minus
        (['{"a": 1', "2", "}"], None),
    ],
)
def test_literals_fail_where_yajl_does(pieces: list[str], fails_at: int | None) -> None:
    answers = _answers(pieces)
    assert (answers.index("error") if "error" in answers else None) == fails_at
