#!/usr/bin/env python3
"""Record xgrammar 0.2.8's string-format grammars into src/tokenfront/render/json_schema_formats.json.

Run with the recording venv (xgrammar is never a tokenfront dependency):
    /work/vllm-venv/bin/python scripts/record_xgrammar_formats.py
For each format xgrammar knows, `{"type": "string", "format": F}` is converted and the rules
after `root` are read back. xgrammar builds a format as a separate grammar (rules `root`,
`root_1`, ...) that it merges into the schema's grammar, renaming a rule whose name is taken to
the first free `name_N`; at the top level only `root` and the chain `root_1`, `root_1_1`, ...
can clash, so one `_1` is taken off those names to get the format grammar's own names back.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

FORMATS = ["email", "date", "date-time", "time", "duration", "ipv4", "ipv6", "hostname", "uuid",
           "uri", "uri-reference", "uri-template", "json-pointer", "relative-json-pointer"]
OUT = Path(__file__).resolve().parents[1] / "src" / "tokenfront" / "render" / "json_schema_formats.json"
_CHAIN = re.compile(r"^root(_1)+$")
_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\[(?:\\.|[^\]\\])*\]|[A-Za-z_][A-Za-z0-9_]*')


def _own(name: str) -> str:
    return name[:-2] if _CHAIN.match(name) else name


def _rename(body: str, table: dict[str, str]) -> str:
    return _TOKEN.sub(lambda m: table.get(m.group(0), m.group(0)), body)


def main() -> int:
    import xgrammar as xgr  # type: ignore[import-not-found]

    out: dict[str, list[list[str]]] = {}
    for fmt in FORMATS:
        text = str(xgr.Grammar.from_json_schema(json.dumps({"type": "string", "format": fmt})))
        lines = text.splitlines()
        start = lines.index('root ::= (("\\"" root_1 "\\""))') + 1
        rules: list[tuple[str, str]] = []
        for line in lines[start:]:
            if line.startswith("basic_"):
                break
            name, body = line.split(" ::= ", 1)
            rules.append((name, body))
        table = {name: _own(name) for name, _ in rules}
        assert rules[0][0] == "root_1"
        table["root_1"] = "root"
        out[fmt] = [[table[name], _rename(body, table)] for name, body in rules]
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(out)} formats -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
