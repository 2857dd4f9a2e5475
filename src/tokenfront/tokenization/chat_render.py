"""Chat templates rendered as transformers 5.20.2's `apply_chat_template` renders them.

The same Jinja set-up as `transformers.utils.chat_template_utils`: an
`ImmutableSandboxedEnvironment` with `trim_blocks` / `lstrip_blocks`, the `loopcontrols`
extension and a `{% generation %}` tag, a `tojson` filter on `json.dumps` (no HTML
escaping, `ensure_ascii=False`), `raise_exception` and `strftime_now` globals, one compiled
template per template text; the same argument checks, `continue_final_message` handling
and error messages. The caller's tokenizer supplies `special_tokens_map` (passed to the
template) and, for `tokenize=True`, the encoding.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from copy import deepcopy
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.exceptions
import jinja2.ext
import jinja2.nodes
import jinja2.sandbox

CONTINUE_FINAL_MESSAGE_TAG = "CONTINUE_FINAL_MESSAGE_TAG "
_GENERATION_TAG = re.compile(r"\{\%-?\s*generation\s*-?\%\}")


class _GenerationTag(jinja2.ext.Extension):
    """`{% generation %}...{% endgeneration %}`: renders its body (assistant-mask tracking,
    transformers' only other use of the tag, needs `tokenize=True` with a dict result)."""

    tags = {"generation"}

    def parse(self, parser: Any) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(
            lineno
        )

    @jinja2.pass_eval_context
    def _generation_support(self, context: Any, caller: Any) -> str:
        return caller()  # type: ignore[no-any-return]


def _raise_exception(message: Any) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(
    x: Any,
    ensure_ascii: bool = False,
    indent: Any = None,
    separators: Any = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(format: str) -> str:  # noqa: A002 - the template-visible parameter name
    return datetime.now().strftime(format)


_DICT_ATTRIBUTES = frozenset(dir(dict))
_VERDICTS_LIMIT = 4096


class _TemplateEnvironment(jinja2.sandbox.ImmutableSandboxedEnvironment):
    """The immutable sandbox with two shortcuts that give its answers with less work (templates
    read `message.role` and call `.startswith`, `loop.first`... on every message)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._verdicts: dict[tuple[type, str], bool] = {}

    def getattr(self, obj: Any, attribute: str) -> Any:
        # `message.role` on a dict: a dict instance has no attributes of its own, so for a
        # name dict does not define, the sandbox's `getattr` fails and it reads the key.
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES and attribute in obj:
            return obj[attribute]
        return super().getattr(obj, attribute)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        # Jinja's verdict is made of isinstance checks on `obj` and tests of the name only.
        key = (type(obj), attr)
        verdict = self._verdicts.get(key)
        if verdict is None:
            if len(self._verdicts) >= _VERDICTS_LIMIT:
                self._verdicts.clear()
            verdict = self._verdicts[key] = super().is_safe_attribute(obj, attr, value)
        return verdict


@lru_cache
def compile_chat_template(chat_template: str) -> jinja2.Template:
    """The compiled template (cached per template text, like transformers')."""
    env = _TemplateEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[_GenerationTag, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    return env.from_string(chat_template)


def select_chat_template(own: Any, chat_template: str | None, tools: Any) -> str:
    """`PreTrainedTokenizerBase.get_chat_template` for a tokenizer whose template is `own`."""
    if isinstance(own, dict):
        if chat_template is not None and chat_template in own:
            chat_template = own[chat_template]
        elif chat_template is None:
            if tools is not None and "tool_use" in own:
                chat_template = own["tool_use"]
            elif "default" in own:
                chat_template = own["default"]
            else:
                raise ValueError(
                    "This model has multiple chat templates with no default specified! Please either pass a chat "
                    "template or the name of the template you wish to use to the `chat_template` argument. Available "
                    f"template names are {sorted(own.keys())}."
                )
    elif chat_template is None:
        if own is not None:
            chat_template = own
        else:
            raise ValueError(
                "Cannot use chat template functions because tokenizer.chat_template is not set and no template "
                "argument was passed! For information about writing templates and setting the "
                "tokenizer.chat_template attribute, please see the documentation at "
                "https://huggingface.co/docs/transformers/main/en/chat_templating"
            )
    return chat_template  # type: ignore[return-value]


def _tool_schemas(tools: Any) -> list[Any] | None:
    if tools is None:
        return None
    schemas = []
    for tool in tools:
        if isinstance(tool, dict):
            schemas.append(tool)
        else:
            # transformers also turns Python callables into schemas; requests only carry JSON.
            raise ValueError(
                "Tools should either be a JSON schema, or a callable function with type hints "
                "and a docstring suitable for auto-conversion to a schema."
            )
    return schemas


def render_jinja_template(
    conversations: Sequence[Any],
    tools: Any = None,
    documents: Any = None,
    chat_template: str | None = None,
    continue_final_message: bool | str = False,
    add_generation_prompt: bool = False,
    **kwargs: Any,
) -> list[str]:
    """`chat_template_utils.render_jinja_template` without assistant-mask tracking."""
    compiled = compile_chat_template(chat_template)  # type: ignore[arg-type]
    tool_schemas = _tool_schemas(tools)
    if documents is not None:
        for document in documents:
            if not isinstance(document, dict):
                raise TypeError("Documents should be a list of dicts with 'title' and 'text' keys!")
    rendered = []
    tag = CONTINUE_FINAL_MESSAGE_TAG
    for chat in conversations:
        if hasattr(chat, "messages"):
            chat = chat.messages
        final_message: Any = None
        if continue_final_message:
            chat = deepcopy(chat)
            continue_final_message = (
                continue_final_message if isinstance(continue_final_message, str) else "content"
            )
            if (final_message := chat[-1].get(continue_final_message)) is None:
                raise ValueError(
                    f'continue_final_message is set but the final message has no "{continue_final_message}" to continue!'
                )
            if continue_final_message not in chat_template:  # type: ignore[operator]
                raise ValueError(
                    f'continue_final_message is set to "{continue_final_message}" but this is not an accepted field in the chat_template'
                )
            elif isinstance(final_message, (list, tuple)):
                for content_block in reversed(final_message):
                    if "text" in content_block:
                        final_message = content_block["text"]
                        content_block["text"] = content_block["text"] + tag
                        break
                else:
                    raise ValueError(
                        "continue_final_message is set but we could not find any text to continue in the final message!"
                    )
            else:
                chat[-1][continue_final_message] = chat[-1][continue_final_message] + tag
        rendered_chat = compiled.render(
            messages=chat,
            tools=tool_schemas,
            documents=documents,
            add_generation_prompt=add_generation_prompt,
            **kwargs,
        )
        if continue_final_message:
            if (final_message.strip() not in rendered_chat) or (tag.strip() not in rendered_chat):
                raise ValueError(
                    "continue_final_message is set but the final message does not appear in the chat after "
                    "applying the chat template! This can happen if the chat template deletes portions of "
                    "the final message. Please verify the chat template and final message in your chat to "
                    "ensure they are compatible."
                    f"Final message to continue: {final_message.strip()}\nRendered chat:\n{rendered_chat}"
                )
            tag_loc = rendered_chat.rindex(tag.strip())
            if rendered_chat[tag_loc : tag_loc + len(tag)] == tag:
                rendered_chat = rendered_chat[:tag_loc]
            else:
                rendered_chat = rendered_chat[:tag_loc].rstrip()
        rendered.append(rendered_chat)
    return rendered


def apply_chat_template(
    tokenizer: Any,
    conversation: Any,
    tools: Any = None,
    documents: Any = None,
    chat_template: str | None = None,
    add_generation_prompt: bool = False,
    continue_final_message: bool | str = False,
    tokenize: bool = True,
    sanitize_control_tokens: bool = False,
    padding: Any = False,
    truncation: bool = False,
    max_length: int | None = None,
    return_tensors: Any = None,
    return_dict: bool = True,
    return_assistant_tokens_mask: bool = False,
    tokenizer_kwargs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """`PreTrainedTokenizerBase.apply_chat_template` for `tokenizer` (a `FastTokenizer`).

    Tokenized output covers what tokenfront asks for (ids or a dict, no padding, truncation,
    tensors, sanitizing or assistant masks); those options raise NotImplementedError.
    """
    if not tokenize:
        return_dict = False
    if return_assistant_tokens_mask and not (return_dict and tokenize):
        raise ValueError("`return_assistant_tokens_mask=True` requires `return_dict=True` and `tokenize=True`")
    chat_template = tokenizer.get_chat_template(chat_template, tools)
    if isinstance(conversation, (list, tuple)) and len(conversation) == 0:
        raise ValueError("Cannot apply chat template to an empty conversation. Provide at least one message.")
    if isinstance(conversation, (list, tuple)) and (
        isinstance(conversation[0], (list, tuple)) or hasattr(conversation[0], "messages")
    ):
        conversations = conversation
        is_batched = True
    else:
        conversations = [conversation]
        is_batched = False
    if continue_final_message:
        if add_generation_prompt:
            raise ValueError(
                "continue_final_message and add_generation_prompt are not compatible. Use continue_final_message when you want the model to continue the final message, and add_generation_prompt when you want to add a header that will prompt it to start a new assistant message instead."
            )
        if return_assistant_tokens_mask:
            raise ValueError("continue_final_message is not compatible with return_assistant_tokens_mask.")
    if sanitize_control_tokens:
        if not tokenize or return_assistant_tokens_mask:
            raise ValueError(
                "`sanitize_control_tokens=True` requires `tokenize=True` and is not compatible with "
                "`return_assistant_tokens_mask=True`."
            )
        raise NotImplementedError("sanitize_control_tokens is not reproduced")
    if tokenize and (
        return_assistant_tokens_mask or padding or truncation or return_tensors or tokenizer_kwargs
    ):
        raise NotImplementedError("tokenized chat templates with these options are not reproduced")
    template_kwargs = {**tokenizer.special_tokens_map, **kwargs}
    rendered = render_jinja_template(
        conversations=conversations,
        tools=tools,
        documents=documents,
        chat_template=chat_template,
        continue_final_message=continue_final_message,
        add_generation_prompt=add_generation_prompt,
        **template_kwargs,
    )
    result: Any = rendered if is_batched else rendered[0]
    if not tokenize:
        return result
    texts = rendered
    encoded = [tokenizer(text, add_special_tokens=False) for text in texts]
    if return_dict:
        if is_batched:
            return {key: [e[key] for e in encoded] for key in encoded[0]}
        return encoded[0]
    ids = [e["input_ids"] for e in encoded]
    return ids if is_batched else ids[0]


# `apply_chat_template`'s named parameters in transformers 5.20.2 (PreTrainedTokenizerBase /
# PythonBackend), which vLLM accepts as chat-template kwargs; tests check the list.
APPLY_CHAT_TEMPLATE_PARAMS = frozenset(
    {
        "self",
        "conversation",
        "tools",
        "documents",
        "chat_template",
        "add_generation_prompt",
        "continue_final_message",
        "tokenize",
        "sanitize_control_tokens",
        "padding",
        "truncation",
        "max_length",
        "return_tensors",
        "return_dict",
        "return_assistant_tokens_mask",
        "tokenizer_kwargs",
    }
)
