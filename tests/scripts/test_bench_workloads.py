"""`make bench` workloads: the documented shapes, and answers the checker accepts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "bench"))

from workloads import Workload, build, check  # noqa: E402


@pytest.fixture(scope="module")
def built(builtin_cache: Path, monkeypatch_module: pytest.MonkeyPatch) -> tuple[list, list]:
    from tokenfront.tokenization.builtin import builtin_model_dir

    return build(builtin_model_dir())


@pytest.fixture(scope="module")
def monkeypatch_module(builtin_cache: Path):  # type: ignore[no-untyped-def]
    mp = pytest.MonkeyPatch()
    mp.setenv("TOKENFRONT_CACHE_DIR", str(builtin_cache))
    yield mp
    mp.undo()


def test_shapes(built: tuple[list, list]) -> None:
    loads, streams = built
    by_id = {w.wid: w for w in loads}
    assert sorted(by_id) == ["W1", "W2", "W3", "W4", "W5", "W6", "W8"]
    w1 = json.loads(by_id["W1"].body)
    assert len(w1["generate_response"]["choices"][0]["token_ids"]) == 256
    w8 = json.loads(by_id["W8"].body)
    assert len(w8["generate_response"]["choices"][0]["token_ids"]) == 4096
    w6 = json.loads(by_id["W6"].body)
    assert [len(r["choices"][0]["token_ids"]) for r in w6["generate_responses"]] == [128] * 8
    assert len(json.loads(by_id["W5"].body)["prompt"]) == 8
    assert {s.wid: len(s.token_ids) for s in streams}["W7L"] == 640


def test_check_rejects_wrong_answers() -> None:
    w = Workload("W2", "x", "/p", b"{}", {"tool_calls": ["a"], "reasoning": True})
    good = {"choices": [{"message": {"reasoning": "r", "tool_calls": [{"function": {"name": "a"}}]}}]}
    assert check(w, 200, json.dumps(good).encode()) is None
    assert check(w, 500, b"{}") is not None
    bad = {"choices": [{"message": {"reasoning": "r", "tool_calls": []}}]}
    assert check(w, 200, json.dumps(bad).encode()) is not None
