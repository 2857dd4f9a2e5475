"""What the chat form of a Responses request carries beyond an ordinary chat request.

vLLM's Responses render builds chat messages from the request and reuses the chat renderer,
where a few steps then act differently. The chat request carries one `ResponsesForm` for them;
an ordinary chat request has none.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

_ATTRIBUTE = "_responses_form"


@dataclass(frozen=True)
class ResponsesForm:
    # vLLM's Responses `tool_choice` (None without tools): what a template that reads the
    # tool choice (Kimi K3's renderer) is shown, not the chat form's.
    template_tool_choice: Any
    # The request has its own `structured_outputs`: a forced tool schema beside it is refused.
    own_structured_outputs: bool
    # The request has a `text.format`: a parser that sets the request's structured outputs
    # (Cohere's) makes vLLM refuse the pair.
    text_format: bool = False
    # The Responses tools as sent (every kind), for a parser that reads them unconverted.
    request_tools: tuple[Any, ...] = ()
    # gpt-oss: builtin (non-function) tools are listed, which asks for vLLM's fallback
    # structural tag even without function tools.
    builtin_tools: bool = False


def attach_form(request: Any, form: ResponsesForm) -> None:
    setattr(request, _ATTRIBUTE, form)


def responses_form(request: Any) -> ResponsesForm | None:
    """The Responses form of a chat request, None for an ordinary chat request. Its messages
    were built by the conversion, not validated as chat messages (no lazy part checks), and
    Mistral gets no pre-v11 tool schema."""
    return getattr(request, _ATTRIBUTE, None)
