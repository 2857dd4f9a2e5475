"""Schema -> grammar facts recorded from xgrammar 0.2.8, replayed without xgrammar.

tests/render/fixtures/xgrammar_schemas.jsonl.gz holds, per feature of
tests/render/xgrammar_schema_gen.py, the first reproduced cases of a fuzz run of
`scripts/fuzz_xgrammar_schema.py --record` (recording venv): the schema and either xgrammar's
printed grammar without its fixed `basic_*` rules, or the message of the error it raised.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from tokenfront.render.json_schema_ebnf import SchemaRejected, schema_to_ebnf

FIXTURE = Path(__file__).parent / "fixtures" / "xgrammar_schemas.jsonl.gz"


def _cases() -> list[Any]:
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as lines:
        cases = [json.loads(line) for line in lines]
    counts: dict[str, int] = {}
    params = []
    for case in cases:
        counts[case["feature"]] = counts.get(case["feature"], 0) + 1
        params.append(pytest.param(case, id=f"{case['feature']}-{counts[case['feature']]}"))
    return params


def _own(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("basic_"))


@pytest.mark.parametrize("case", _cases())
def test_recorded_xgrammar_answer(case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(SchemaRejected) as caught:
            schema_to_ebnf(case["schema"])
        assert str(caught.value) == case["error"]
    else:
        assert _own(schema_to_ebnf(case["schema"])) == case["grammar"]
