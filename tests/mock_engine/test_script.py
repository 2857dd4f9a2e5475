"""Script files: both JSON shapes, first match wins, errors and pacing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tokenfront.mock_engine.script import DEFAULT_REPLY, ScriptError, load_script, parse_script


def test_no_script_gives_the_fixed_reply() -> None:
    assert load_script(None).reply_for("anything").output == DEFAULT_REPLY


def test_plain_mapping_first_match_wins() -> None:
    script = parse_script({"weather": "sunny", "w.*": "other"})
    assert script.reply_for("the weather today").output == "sunny"
    assert script.reply_for("wind").output == "other"
    assert script.reply_for("nothing").output == DEFAULT_REPLY


def test_rules_shape_with_default_error_and_delay(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps(
            {
                "rules": [
                    {"pattern": "boom", "error": {"status": 503, "message": "busy"}},
                    {"pattern": "slow", "output": "z", "token_delay": 0.5},
                ],
                "default": "fallback",
            }
        )
    )
    script = load_script(path)
    boom = script.reply_for("boom!")
    assert boom.error is not None and boom.error.status == 503 and boom.error.message == "busy"
    assert script.reply_for("slow").token_delay == 0.5
    assert script.reply_for("x").output == "fallback"


@pytest.mark.parametrize(
    "data",
    [[], {"(": "bad regex"}, {"rules": "no"}, {"rules": [{"output": "x"}]}, {"p": 3}],
)
def test_bad_scripts_are_refused(data: object) -> None:
    with pytest.raises(ScriptError):
        parse_script(data)


def test_unreadable_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ScriptError):
        load_script(bad)
    with pytest.raises(ScriptError):
        load_script(tmp_path / "missing.json")
