"""Chat render of gpt-oss models (model_type `gpt_oss`): a Harmony prompt, not the chat template.

vLLM 0.33.0 renders gpt-oss chats as Harmony messages:

- a system message (model identity, knowledge cutoff, the conversation date from
  VLLM_SYSTEM_START_DATE or today, `Reasoning: EFFORT`, the valid channels, and a line sending
  function calls to the commentary channel when the prompt lists function tools);
- a developer message when the first chat message is a system/developer one (its text becomes
  `# Instructions`) or the request lists tools (`# Tools`, see harmony_tools);
- the chat messages: user text; assistant reasoning as `analysis`, text as `final` (or
  `commentary` beside tool calls), each tool call as `assistant to=functions.NAME` on the
  commentary channel with content type `json`; tool results from `functions.NAME` to the
  assistant; later system/developer messages as developer instructions. Analysis messages
  before the last assistant `final` message are dropped;
- then `<|start|>assistant`.

Every text piece is tokenized on its own (special-token names in text stay plain text).
"""

from __future__ import annotations

import datetime
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError

from tokenfront.protocol.message_schemas import validated_lazily
from tokenfront.protocol.requests import RequestValidationFailure, StructuredOutputsParams
from tokenfront.render.chat_params import template_tools
from tokenfront.render.harmony_tools import tools_section
from tokenfront.render.structural_tags import output_format
from tokenfront.render.structural_tags_harmony import final_answer

HARMONY_MODEL_TYPES = frozenset({"gpt_oss"})
IDENTITY = "You are ChatGPT, a large language model trained by OpenAI."
KNOWLEDGE_CUTOFF = "2024-06"
CHANNELS = ("analysis", "commentary", "final")
EFFORTS = ("high", "medium", "low")
DATE_ENV = "VLLM_SYSTEM_START_DATE"
# vLLM's switch: instructions extend the system message's model identity instead of being
# the developer message's `# Instructions` (later system messages become system messages too).
SYSTEM_INSTRUCTIONS_ENV = "VLLM_GPT_OSS_HARMONY_SYSTEM_INSTRUCTIONS"


@dataclass
class HarmonyMessage:
    role: str
    parts: list[str]
    name: str | None = None  # the author's name: a tool's whole header (`functions.NAME`)
    channel: str | None = None
    recipient: str | None = None
    content_type: str | None = None  # `json` on a tool call
    tools: list[dict[str, Any]] = field(default_factory=list)
    instructions: str | None = None  # a system message's lines after the model identity


class TextContent(BaseModel):
    """openai-harmony's text content, as vLLM builds one from each part's `text`."""

    text: str


class Author(BaseModel):
    """openai-harmony's author, as vLLM builds one for a named message (its errors too)."""

    name: str


def part_text(part: Any) -> str:
    """vLLM's `TextContent(text=part.get("text", ""))` for one content part: its errors too."""
    if not isinstance(part, dict):
        raise RequestValidationFailure(f"'{type(part).__name__}' object has no attribute 'get'")
    try:
        return TextContent(text=part.get("text", "")).text
    except ValidationError as exc:
        raise RequestValidationFailure(str(exc)) from None


def flatten_text(content: Any) -> str | None:
    """Text of a string or of a list of parts (strings or dicts with `text`)."""
    if content is None or isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts: list[Any] = []
    for item in content:
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict) and item.get("text") is not None:
            texts.append(item["text"])
    for i, text in enumerate(texts):
        if not isinstance(text, str):  # vLLM joins them: Python's TypeError
            raise RequestValidationFailure(
                f"sequence item {i}: expected str instance, {type(text).__name__} found"
            )
    return "".join(texts) if texts else None


def developer_message(instructions: str | None, tools: Sequence[dict[str, Any]] | None) -> HarmonyMessage:
    sections: list[str] = []
    if instructions is not None:
        sections += ["# Instructions", instructions]
    functions = [t for t in tools or [] if t.get("type") == "function"]
    for tool in tools or []:
        if tool.get("type") not in ("function", "web_search_preview", "code_interpreter", "container"):
            raise RequestValidationFailure(
                f"tool type {tool.get('type')!r} is not supported.", parameter="tools"
            )
    if functions:
        sections.append(tools_section(functions))
    return HarmonyMessage("developer", ["\n\n".join(sections)], tools=functions)


def system_text(effort: str, date: str, has_function_tools: bool, instructions: str | None = None) -> str:
    identity = IDENTITY if instructions is None else f"{IDENTITY}\n{instructions}"
    channels = f"# Valid channels: {', '.join(CHANNELS)}. Channel must be included for every message."
    if has_function_tools:
        channels += "\nCalls to these tools must go to the commentary channel: 'functions'."
    return "\n\n".join(
        [f"{identity}\nKnowledge cutoff: {KNOWLEDGE_CUTOFF}\nCurrent date: {date}", f"Reasoning: {effort}", channels]
    )


def conversation_date() -> str:
    return os.environ.get(DATE_ENV) or datetime.datetime.now().strftime("%Y-%m-%d")


def instructions_in_system() -> bool:
    """`VLLM_GPT_OSS_HARMONY_SYSTEM_INSTRUCTIONS`, read per request as vLLM does (an integer)."""
    raw = os.environ.get(SYSTEM_INSTRUCTIONS_ENV, "0")
    try:
        return bool(int(raw))
    except ValueError:
        raise RequestValidationFailure(f"invalid literal for int() with base 10: {raw!r}") from None


def preamble_messages(
    instructions: str | None, tools: Sequence[dict[str, Any]] | None
) -> list[HarmonyMessage]:
    """The system message, and the developer message when there are instructions or tools."""
    if instructions_in_system():
        system, developer_instructions = HarmonyMessage("system", [], instructions=instructions), None
    else:
        system, developer_instructions = HarmonyMessage("system", []), instructions
    if developer_instructions or tools:
        return [system, developer_message(developer_instructions, tools)]
    return [system]


def instructions_message(role: str, text: str) -> HarmonyMessage:
    """A system or developer message inside the conversation. With instructions in the system
    message, a developer message's own text is dropped (vLLM writes it nowhere)."""
    if not instructions_in_system():
        return developer_message(text, None)
    if role == "system":
        return HarmonyMessage("system", [], instructions=text)
    return developer_message(None, None)


def write_system_texts(messages: Sequence[HarmonyMessage], effort: str | None) -> None:
    """Fill in the system messages' text once the conversation is known: the first carries
    the request's reasoning effort, later ones the default."""
    has_functions = any(m.tools for m in messages if m.role == "developer")
    date = conversation_date()
    for i, message in enumerate(messages):
        if message.role == "system":
            level = (effort or "medium") if i == 0 else "medium"
            message.parts = [system_text(level, date, has_functions, message.instructions)]


def chat_messages(messages: Sequence[dict[str, Any]]) -> list[HarmonyMessage]:
    """The Harmony messages of chat messages (after the leading instructions)."""
    names: dict[Any, Any] = {}
    for msg in messages:
        for call in msg.get("tool_calls") or []:
            names[call.get("id")] = (call.get("function") or {}).get("name")
    out: list[HarmonyMessage] = []
    for msg in messages:
        out.extend(_one_message(msg, names))
    return out


def _eager_content(msg: dict[str, Any]) -> Any:
    """The content as vLLM's Harmony code sees it: content it validates lazily is an iterator
    there, which text flattening skips (None)."""
    content = msg.get("content")
    return None if validated_lazily(msg) else content


def _part_texts(msg: dict[str, Any]) -> list[str]:
    """Each part's text; iterating lazily validated parts fails on the first bad one."""
    content = msg.get("content") or ""
    if isinstance(content, str):
        return [content]
    eager = _eager_content(msg)
    if eager is None:
        raise RequestValidationFailure(
            f"validation errors for ValidatorIterator: invalid content part in a {msg.get('role')} message"
        )
    return [part_text(part) for part in eager]  # (a part that is no object: a 500 in vLLM)


def _one_message(msg: dict[str, Any], names: dict[Any, Any]) -> list[HarmonyMessage]:
    role = msg.get("role")
    calls = msg.get("tool_calls") or []
    out: list[HarmonyMessage] = []
    if role == "assistant" and calls:
        text = flatten_text(_eager_content(msg))
        if text:
            out.append(HarmonyMessage("assistant", [text], channel="commentary"))
        if msg.get("reasoning"):
            out.append(HarmonyMessage("assistant", [msg["reasoning"]], channel="analysis"))
        for call in calls:
            fn = call.get("function") or {}
            out.append(
                HarmonyMessage(
                    "assistant",
                    [fn.get("arguments") or ""],
                    channel="commentary",
                    recipient=f"functions.{fn.get('name') or ''}",
                    content_type="json",
                )
            )
        return out
    if role == "tool":
        name = names.get(msg.get("tool_call_id", "")) or ""
        text = flatten_text(_eager_content(msg)) or ""
        return [HarmonyMessage("tool", [text], name=f"functions.{name}", channel="commentary", recipient="assistant")]
    if role == "assistant" and msg.get("reasoning"):
        out.append(HarmonyMessage("assistant", [msg["reasoning"]], channel="analysis"))
    parts = _part_texts(msg)  # (vLLM reads the parts before it looks at the role)
    if role == "assistant":
        if parts and parts[0]:
            out.append(HarmonyMessage("assistant", parts, channel="final"))
    elif role in ("system", "developer"):
        instructions = flatten_text(_eager_content(msg))
        if instructions is not None:
            out.append(instructions_message(role, instructions))
    else:
        out.append(HarmonyMessage(str(role), parts))
    return out


def drop_old_analysis(messages: list[HarmonyMessage]) -> list[HarmonyMessage]:
    """Analysis messages before the last assistant `final` message are left out."""
    last = max(
        (i for i, m in enumerate(messages) if m.role == "assistant" and m.channel == "final"),
        default=-1,
    )
    return [m for i, m in enumerate(messages) if not (i < last and m.channel == "analysis")]


def harmony_conversation(
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]] | None,
    reasoning_effort: str | None,
) -> list[HarmonyMessage]:
    """System, developer and chat messages of a chat request."""
    if reasoning_effort == "none":
        raise RequestValidationFailure(
            f"Harmony does not support reasoning_effort={reasoning_effort!r}",
            parameter="reasoning_effort",
        )
    if reasoning_effort is not None and reasoning_effort not in EFFORTS:
        raise RequestValidationFailure(
            f"reasoning_effort={reasoning_effort!r} is not supported by Harmony. "
            f"Supported values are: {', '.join(EFFORTS)}.",
            parameter="reasoning_effort",
        )
    rest = list(messages)
    instructions = None
    if rest and rest[0].get("role") in ("system", "developer"):
        instructions = flatten_text(_eager_content(rest[0]))
        rest = rest[1:]
    body = drop_old_analysis(preamble_messages(instructions, tools) + chat_messages(rest))
    write_system_texts(body, reasoning_effort)
    return body


class HarmonyEncoder:
    """Token ids of Harmony messages for one tokenizer."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        vocab = {str(t): int(i) for i, t in tokenizer.added_tokens_decoder.items()}
        self.start, self.end, self.call = vocab["<|start|>"], vocab["<|end|>"], vocab["<|call|>"]
        self.message, self.channel = vocab["<|message|>"], vocab["<|channel|>"]
        self.constrain = vocab["<|constrain|>"]

    def text(self, text: str) -> list[int]:
        """Plain-text ids (special-token names are not read as special tokens)."""
        if not text:
            return []
        if "<|" not in text:
            return list(self.tokenizer.encode(text, add_special_tokens=False))
        backend = self.tokenizer.backend_tokenizer
        return [
            token.id
            for piece, _ in backend.pre_tokenizer.pre_tokenize_str(text)
            for token in backend.model.tokenize(piece)
        ]

    def message_ids(self, msg: HarmonyMessage) -> list[int]:
        ids = self.header_ids(msg)
        for part in msg.parts:
            ids += self.text(part)
        ids.append(self.call if msg.role == "assistant" and msg.recipient else self.end)
        return ids

    def header_ids(self, msg: HarmonyMessage) -> list[int]:
        """`<|start|>` to `<|message|>` as oss-harmony writes it: the author (`role:name`, a tool's
        name alone), a recipient (`all` unwritten) before the channel, or after it on
        `commentary`, and ` <|constrain|>TYPE`. An assistant call keeps gpt-oss's own shape
        (`assistant to=R<|channel|>commentary TYPE`), as vLLM rewrites it."""
        to = msg.recipient if msg.recipient and msg.recipient != "all" else None
        after = msg.channel == "commentary"
        kind = msg.content_type.removeprefix("<|constrain|>") if msg.content_type else None
        if msg.role == "assistant" and not msg.name and to and after and kind:
            return [self.start, *self.text(f"assistant to={to}"), self.channel,
                    *self.text(f"commentary {kind}"), self.message]
        if msg.role == "tool":
            if not msg.name:
                raise RequestValidationFailure("Tools should have a name!")
            ids = [self.start, *self.text(msg.name)]
        else:
            ids = [self.start, *self.text(msg.role)]
            if msg.name:
                ids += self.text(f":{msg.name}")
        if to and not after:
            ids += self.text(f" to={to}")
        if msg.channel:
            ids += [self.channel, *self.text(msg.channel)]
        if to and after:
            ids += self.text(f" to={to}")
        if kind is not None:
            ids += [*self.text(" "), self.constrain, *self.text(kind)]
        ids.append(self.message)
        return ids

    def prompt_ids(self, messages: Sequence[HarmonyMessage]) -> list[int]:
        ids: list[int] = []
        for msg in messages:
            ids += self.message_ids(msg)
        return [*ids, self.start, *self.text("assistant")]


def render_harmony_prompt(
    tokenizer: Any,
    messages: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]] | None,
    reasoning_effort: str | None,
) -> list[int]:
    return HarmonyEncoder(tokenizer).prompt_ids(harmony_conversation(messages, tools, reasoning_effort))


def render_request(model: Any, request: Any) -> list[int]:
    """Prompt ids of a chat request on a gpt-oss model."""
    effort = request.reasoning_effort
    effort_map = model.options.reasoning_effort_map
    if effort is not None and effort_map:
        effort = effort_map.get(effort, effort)
    tools = template_tools(model, request)
    return render_harmony_prompt(model.tokenizer, request.messages, tools, effort)


# ---- structured outputs: the requested format is asked for in the final channel ----------
_OUTPUT_KEYS = ("json", "regex", "choice", "grammar", "json_object")


def final_channel_tag(answer: Any) -> str:
    """The structural tag (JSON text) of an answer format in the final channel."""
    return json.dumps({"type": "structural_tag", "format": final_answer(answer)})


def harmony_sampling(sampling: dict[str, Any]) -> dict[str, Any]:
    """A JSON, regex, choice or (EBNF) grammar output becomes a structural tag over the
    Harmony channels."""
    outputs = sampling.get("structured_outputs")
    if not isinstance(outputs, dict):
        return sampling
    asked = {key: outputs[key] for key in _OUTPUT_KEYS if outputs.get(key) not in (None, False)}
    if not asked:
        return sampling
    try:
        answer = output_format(StructuredOutputsParams.model_validate(asked))
    except ValueError:  # (requests are validated to one kind before this)
        return sampling
    if answer is None:
        return sampling
    outputs = {**outputs, **dict.fromkeys(_OUTPUT_KEYS), "structural_tag": final_channel_tag(answer)}
    return {**sampling, "structured_outputs": outputs}
