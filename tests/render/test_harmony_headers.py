"""Harmony message headers as oss-harmony 0.0.11 writes them (vLLM 0.33.0's encoder).

tests/render/fixtures/harmony_headers.json.gz is recorded by scripts/record_harmony_headers.py:
every role x author name x channel x recipient x content type, with vLLM's rewrite of an
assistant call's header to gpt-oss's own shape.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.protocol.requests import RequestValidationFailure
from tokenfront.render.harmony import HarmonyEncoder, HarmonyMessage

HERE = Path(__file__).resolve().parent
CASES = json.loads(gzip.open(HERE / "fixtures" / "harmony_headers.json.gz", "rt", encoding="utf-8").read())


@pytest.fixture(scope="module")
def encoder(gpt_oss_tokenizer: Any) -> HarmonyEncoder:
    return HarmonyEncoder(gpt_oss_tokenizer)


def _message(case: dict[str, Any]) -> HarmonyMessage:
    return HarmonyMessage(case["role"], case["parts"], name=case["name"], channel=case["channel"],
                          recipient=case["recipient"], content_type=case["content_type"])


def test_every_header_is_written_as_oss_harmony_writes_it(encoder: HarmonyEncoder) -> None:
    wrong = []
    for case in CASES:
        if "error" in case:
            with pytest.raises(RequestValidationFailure, match=case["error"]):
                encoder.message_ids(_message(case))
        elif encoder.message_ids(_message(case)) != case["ids"]:
            wrong.append({k: case[k] for k in ("role", "name", "channel", "recipient", "content_type")})
    assert not wrong, f"{len(wrong)} of {len(CASES)} differ, e.g. {wrong[:3]}"


def test_the_recorded_headers_cover_the_position_rules() -> None:
    by_channel = {case["channel"] for case in CASES if case.get("recipient") not in (None, "all")}
    assert {"commentary", "analysis", None} <= by_channel
    assert any("error" in case for case in CASES)  # a tool message without a name
