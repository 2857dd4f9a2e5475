"""engines/json_events against what ijson's yajl backend (vLLM's mistral pre-v11 stream reader)
answered for the same pieces (recorded by scripts/record_yajl_events.py in vLLM's venv)."""

from __future__ import annotations

import json
from decimal import Decimal
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


def test_a_long_number_is_read_one_step_per_character(monkeypatch: pytest.MonkeyPatch) -> None:
    # matching the whole number again at each character was quadratic (200,000 digits: 18 s)
    steps = [0]
    original = json_events._number_step

    def counted(state: str, ch: str) -> str | None:
        steps[0] += 1
        return original(state, ch)

    monkeypatch.setattr(json_events, "_number_step", counted)
    st = json_events.new_scanner()
    events = json_events.feed(st, '{"a": 1' + "2" * 20_000 + "}")
    assert events[-2] == ("a", "number", Decimal("1" + "2" * 20_000))
    assert steps[0] == 20_000 + 2  # the first digit, each later one, the closing brace
