"""Write src/tokenfront/parsers/builtin_index.py from the parsers' own registrations."""

from __future__ import annotations

from pathlib import Path

from tokenfront.parsers.registry import builtin_index

TARGET = Path(__file__).resolve().parents[1] / "src" / "tokenfront" / "parsers" / "builtin_index.py"


def render() -> str:
    tools, reasoning = builtin_index()
    lines = [
        '"""Which built-in module registers each parser name (regenerate: `make parser-index`)."""',
        "",
        "TOOL_PARSER_MODULES: dict[str, str] = {",
        *(f"    {name!r}: {module!r}," for name, module in tools.items()),
        "}",
        "REASONING_PARSER_MODULES: dict[str, str] = {",
        *(f"    {name!r}: {module!r}," for name, module in reasoning.items()),
        "}",
        "",
    ]
    return "\n".join(lines).replace("'", '"')


if __name__ == "__main__":
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")
