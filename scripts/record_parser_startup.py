#!/usr/bin/env python3
"""Record which parser / tokenizer pairs vLLM 0.33.0 refuses at start-up.

Run in the vLLM venv (docs/development.md, "Recording new facts"). Every tool and reasoning
parser name is composed alone, with auto tool choice on, against each model folder's tokenizer,
as vLLM's render server does at start (`ParserManager.get_parser(..., tokenizer=...)`); the
exception texts of the refused pairs are written with the model path as `{model!r}`.

    VLLM_TARGET_DEVICE=cpu /work/vllm-venv/bin/python scripts/record_parser_startup.py \\
        OUT.json MODEL_DIR...
"""

import json
import os
import sys
from pathlib import Path

from vllm.parser.parser_manager import ParserManager  # type: ignore[import-not-found]
from vllm.reasoning import ReasoningParserManager  # type: ignore[import-not-found]
from vllm.tokenizers import get_tokenizer  # type: ignore[import-not-found]
from vllm.tool_parsers import ToolParserManager  # type: ignore[import-not-found]

ROOT = Path(__file__).resolve().parents[1]
# The Cohere parsers need the cohere_melody package, which the recording venv may lack.
LEFT_OUT = ("cohere_command3", "cohere_command4")


def relative(model: str) -> str:
    """A folder as the configs name it: `models/X` under ../shared, `repo:tests/models/X` here."""
    path = Path(model).resolve()
    if path.is_relative_to(ROOT):
        return "repo:" + str(path.relative_to(ROOT))
    return str(path.relative_to(ROOT.parent / "shared"))


def main() -> int:
    out, models = Path(sys.argv[1]), sys.argv[2:]
    names = {
        "tool": sorted(n for n in ToolParserManager.list_registered() if n not in LEFT_OUT),
        "reasoning": sorted(n for n in ReasoningParserManager.list_registered() if n not in LEFT_OUT),
    }
    refused: dict[str, dict[str, str]] = {}
    for model in models:
        tokenizer = get_tokenizer(model, trust_remote_code=False)
        config_file = Path(model) / "config.json"
        config = json.loads(config_file.read_text()) if config_file.is_file() else {}
        harmony = config.get("model_type") == "gpt_oss"
        for kind, kind_names in names.items():
            for name in kind_names:
                selected = (
                    {"tool_parser_name": name, "enable_auto_tools": True}
                    if kind == "tool"
                    else {"reasoning_parser_name": name}
                )
                try:
                    ParserManager.get_parser(model_name=model, is_harmony=harmony, tokenizer=tokenizer, **selected)
                except Exception as exc:  # noqa: BLE001 - any refusal is the fact recorded
                    text = f"{type(exc).__name__}: {exc}".replace(repr(model), "{model!r}")
                    refused.setdefault(relative(model), {})[f"{kind}:{name}"] = text
    doc = {
        "_comment": "vLLM 0.33.0 start-up: each parser name alone (auto tool choice on) on each model "
        "folder; `refused` holds the exception text of the pairs vLLM refuses, the rest start. "
        "scripts/record_parser_startup.py; cohere_command3/4 left out.",
        "models": sorted(relative(m) for m in models),
        "parsers": names,
        "refused": refused,
    }
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
    raise SystemExit(main())
