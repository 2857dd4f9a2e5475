"""`lfm2`: a Python call list between <|tool_call_start|> and <|tool_call_end|>.

Text before and after the block is content (joined with a newline, echoed blocks
dropped); near-Python arguments (raw newlines, `07`, nested quotes, `from=`) are repaired.
"""

from __future__ import annotations

from typing import Any

from tokenfront.parsers.base import ParseContext
from tokenfront.parsers.engines.python_calls import WrappedPythonCallParser
from tokenfront.parsers.registry import tool_parser
from tokenfront.tokenization.vocab import vocab_of


@tool_parser("lfm2")
class Lfm2ToolParser(WrappedPythonCallParser):
    name = "lfm2"
    start_marker = "<|tool_call_start|>"
    end_marker = "<|tool_call_end|>"

    def __init__(self, tokenizer: Any, ctx: ParseContext) -> None:
        super().__init__(tokenizer, ctx)
        vocab = vocab_of(tokenizer)
        if vocab.get(self.start_marker) is None or vocab.get(self.end_marker) is None:
            raise RuntimeError(
                "LFM2 tool parser could not locate <|tool_call_start|>/<|tool_call_end|> "
                "tokens in the tokenizer!"
            )
