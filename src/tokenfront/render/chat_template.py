"""Chat templates: content-format detection, accepted kwargs, and rendering.

Rendering goes through the tokenizer's `apply_chat_template` (the same call vLLM makes):
for tokenizers built on `tokenizers` directly that is `tokenization.chat_render`, a
reproduction of transformers' (a sandboxed Jinja environment with `raise_exception`,
`strftime_now`, `tojson`, ...), so rendered prompts match byte for byte.
"""

from __future__ import annotations

import inspect
from collections import deque
from collections.abc import Iterator
from functools import lru_cache
from typing import Any, Literal

import jinja2
import jinja2.ext
import jinja2.meta
import jinja2.nodes
import jinja2.sandbox

from tokenfront.api.errors import APIError
from tokenfront.render.messages import join_lines
from tokenfront.tokenization.chat_render import APPLY_CHAT_TEMPLATE_PARAMS

ContentFormat = Literal["string", "openai"]

NO_TEMPLATE_MESSAGE = (
    "As of transformers v4.44, default chat template is no longer allowed, so you must "
    "provide a chat template if the tokenizer does not define one."
)


class TemplateError(APIError):
    """The template rejected the input (`raise_exception`) or failed to render."""


# --- content format detection ------------------------------------------------


def _loads(node: jinja2.nodes.Node, name: str) -> bool:
    """`node` reads variable `name` (a plain name, or a dotted namespace alias)."""
    if isinstance(node, jinja2.nodes.Name):
        return node.ctx == "load" and node.name == name
    if isinstance(node, jinja2.nodes.Getattr) and "." in name:
        head, _, tail = name.rpartition(".")
        return node.attr == tail and _loads(node.node, head)
    return False


def _reads_key(node: jinja2.nodes.Node, name: str, key: str) -> bool:
    """`node` is `name[key]` or `name.key`."""
    if isinstance(node, jinja2.nodes.Getitem):
        arg = node.arg
        return isinstance(arg, jinja2.nodes.Const) and arg.value == key and _loads(node.node, name)
    if isinstance(node, jinja2.nodes.Getattr):
        return node.attr == key and _loads(node.node, name)
    return False


def _reads(node: jinja2.nodes.Node, name: str, key: str | None = None) -> bool:
    """`node` reads `name` (or `name[key]`), possibly through filters, tests or slices."""
    while True:
        if isinstance(node, jinja2.nodes.Filter):
            if node.node is None:
                return False
            node = node.node
        elif isinstance(node, jinja2.nodes.Test):
            node = node.node
        elif isinstance(node, jinja2.nodes.Getitem) and isinstance(node.arg, jinja2.nodes.Slice):
            node = node.node
        else:
            break
    return _reads_key(node, name, key) if key else _loads(node, name)


def _dotted(node: jinja2.nodes.Node) -> str | None:
    if isinstance(node, jinja2.nodes.NSRef):
        return f"{node.name}.{node.attr}"
    attrs: list[str] = []
    while isinstance(node, jinja2.nodes.Getattr):
        attrs.append(node.attr)
        node = node.node
    if isinstance(node, jinja2.nodes.Name):
        return ".".join([node.name, *reversed(attrs)])
    return None


def _aliases_of(root: jinja2.nodes.Node, name: str) -> list[str]:
    """`name` plus every variable assigned (transitively) from it or its elements."""
    found = [name]
    seen = {name}
    queue = deque([name])
    assigns = list(root.find_all(jinja2.nodes.Assign))
    while queue:
        current = queue.popleft()
        for assign in assigns:
            target, value = assign.target, assign.node
            new: list[str] = []
            if isinstance(target, jinja2.nodes.Name) and _reads(value, current):
                new.append(target.name)
            if (
                isinstance(target, jinja2.nodes.Name)
                and isinstance(value, jinja2.nodes.Call)
                and isinstance(value.node, jinja2.nodes.Name)
                and value.node.name == "namespace"
            ):
                new.extend(
                    f"{target.name}.{kw.key}" for kw in value.kwargs if _reads(kw.value, current)
                )
            elif isinstance(target, (jinja2.nodes.Getattr, jinja2.nodes.NSRef)) and _reads(
                value, current
            ):
                dotted = _dotted(target)
                if dotted is not None:
                    new.append(dotted)
            for alias in new:
                found.append(alias)
                if alias not in seen:
                    seen.add(alias)
                    queue.append(alias)
    return found


def _message_loop_vars(root: jinja2.nodes.Node) -> list[str]:
    names = _aliases_of(root, "messages")
    out = []
    for loop in root.find_all(jinja2.nodes.For):
        if any(_reads(loop.iter, n) for n in names) and isinstance(loop.target, jinja2.nodes.Name):
            out.append(loop.target.name)
    return out


def _iterates_content(root: jinja2.nodes.Node) -> Iterator[jinja2.nodes.For]:
    message_vars = _message_loop_vars(root)

    def is_content(node: jinja2.nodes.Node) -> bool:
        return any(_reads(node, v, "content") for v in message_vars)

    macro_loop_params: dict[int, set[str]] = {}
    macro_loops: set[int] = set()
    calls = list(root.find_all(jinja2.nodes.Call))
    for macro in root.find_all(jinja2.nodes.Macro):
        arg_names = [a.name for a in macro.args]
        params: set[str] = set()
        for call in calls:
            if not (isinstance(call.node, jinja2.nodes.Name) and call.node.name == macro.name):
                continue
            for i, arg in enumerate(call.args):
                if i < len(arg_names) and is_content(arg):
                    params.add(arg_names[i])
            for kw in call.kwargs:
                if kw.key in arg_names and is_content(kw.value):
                    params.add(kw.key)
        for loop in macro.find_all(jinja2.nodes.For):
            macro_loops.add(id(loop))
            if params:
                macro_loop_params[id(loop)] = params

    for loop in root.find_all(jinja2.nodes.For):
        if is_content(loop.iter):
            yield loop
            continue
        loop_params = macro_loop_params.get(id(loop))
        if isinstance(loop.iter, jinja2.nodes.Name):
            if loop_params is not None and loop.iter.name in loop_params:
                yield loop
            elif id(loop) not in macro_loops and loop.iter.name == "content":
                yield loop


def _parse(template: str) -> jinja2.nodes.Template | None:
    try:
        return _analysis_env().parse(template)
    except Exception:
        return None


@lru_cache(maxsize=64)
def detect_content_format(template: str | None) -> ContentFormat:
    """"openai" when the template loops over message content parts, else "string"."""
    if template is None:
        return "string"
    tree = _parse(template)
    if tree is None:
        return "string"
    try:
        next(_iterates_content(tree))
    except StopIteration:
        return "string"
    except Exception:
        return "string"
    return "openai"


def resolve_content_format(template: str | None, configured: str) -> ContentFormat:
    if configured in ("string", "openai"):
        return configured  # type: ignore[return-value]
    return detect_content_format(template)


# --- template kwargs -----------------------------------------------------------


class _GenerationTag(jinja2.ext.Extension):
    """Parses `{% generation %}...{% endgeneration %}` (HF's assistant-mask tag)."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        call = self.call_method("_noop")
        return jinja2.nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _noop(self, caller: Any) -> str:
        return caller()


@lru_cache(maxsize=1)
def _analysis_env() -> jinja2.Environment:
    return jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[_GenerationTag, jinja2.ext.loopcontrols],
    )


@lru_cache(maxsize=64)
def template_variables(template: str) -> frozenset[str]:
    tree = _analysis_env().parse(template)
    return frozenset(jinja2.meta.find_undeclared_variables(tree))


def _hf_base_params() -> frozenset[str]:
    """The named parameters of transformers' `PythonBackend.apply_chat_template` (a fixed
    list, checked against transformers by tests/tokenization/test_chat_render.py)."""
    return APPLY_CHAT_TEMPLATE_PARAMS


_NAMED_PARAMS: dict[Any, frozenset[str]] = {}


def _named_params(fn: Any) -> frozenset[str]:
    # inspect.signature costs ~0.1 ms: cached per underlying function (bound methods are new
    # objects on every attribute access).
    key = getattr(fn, "__func__", fn)
    try:
        cached = _NAMED_PARAMS.get(key)
    except TypeError:  # unhashable callable
        cached, key = None, None
    if cached is not None:
        return cached
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return frozenset()
    names = frozenset(
        p.name
        for p in sig.parameters.values()
        if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    )
    if key is not None:
        _NAMED_PARAMS[key] = names
    return names


def filter_template_kwargs(
    tokenizer: Any, template: str, kwargs: dict[str, Any]
) -> dict[str, Any]:
    """Keep the kwargs the template or `apply_chat_template` can use (vLLM's rule)."""
    reserved = {"chat_template", "tokenize"}
    bad = reserved & kwargs.keys()
    if bad:
        raise APIError(f"Found unexpected chat template kwargs from request: {bad}")
    try:
        variables = template_variables(template)
    except jinja2.TemplateSyntaxError as exc:
        raise TemplateError(str(exc)) from None
    accepted = (_named_params(tokenizer.apply_chat_template) | variables | _hf_base_params()) - reserved
    return {k: v for k, v in kwargs.items() if k in accepted}


# --- rendering -------------------------------------------------------------------


def _error_reason(exc: BaseException) -> str:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, jinja2.TemplateError):
            return str(current)
        current = current.__cause__ or current.__context__
    return str(exc)


def _has_developer_role(template: str) -> bool:
    return '"developer"' in template or "'developer'" in template


def _developer_to_system(conversation: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for msg in conversation:
        if msg["role"] == "developer":
            msg = {k: v for k, v in msg.items() if k != "tools"}
            msg["role"] = "system"
        out.append(msg)
    # All system messages merged into one leading message when needed.
    texts: list[str] = []
    rest: list[dict[str, Any]] = []
    merge = False
    for i, msg in enumerate(out):
        if msg["role"] != "system":
            rest.append(msg)
            continue
        if i > 0 or texts:
            merge = True
        content = msg.get("content", "")
        if isinstance(content, list):
            parts: list[Any] = []
            for part in content:
                if isinstance(part, str):
                    parts.append(part)
                elif isinstance(part, dict) and "text" in part:
                    parts.append(part["text"])
            content = join_lines(parts)
        if content:
            texts.append(content)
    if not merge:
        return out
    return [{"role": "system", "content": "\n\n".join(texts)}, *rest]


def select_template(model: Any, requested: str | None, tools: list[Any] | None) -> str | None:
    """The template vLLM renders a request with (`resolve_chat_template`): the request's or
    the server's, where a tokenizer with named templates resolves a name to its template and,
    with none given, takes `tool_use` for a request with tools."""
    own = getattr(model.tokenizer, "chat_template", None)
    if not isinstance(own, dict):
        return requested or model.chat_template
    given = requested or (model.chat_template if model.options.chat_template else None)
    if given is not None:
        return str(own.get(given, given))
    if tools is not None and "tool_use" in own:
        return str(own["tool_use"])
    return model.chat_template  # type: ignore[no-any-return]


def render_chat(
    tokenizer: Any,
    template: str,
    conversation: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None,
    kwargs: dict[str, Any],
) -> str:
    """The prompt text `apply_chat_template(tokenize=False)` produces."""
    if any(m["role"] == "developer" for m in conversation) and not _has_developer_role(template):
        conversation = _developer_to_system(conversation)
    accepted = filter_template_kwargs(tokenizer, template, kwargs)
    accepted.pop("return_dict", None)
    try:
        text = tokenizer.apply_chat_template(
            conversation=conversation,
            tools=tools,
            chat_template=template,
            tokenize=False,
            **accepted,
        )
    except APIError:
        raise
    except Exception as exc:
        raise TemplateError(_error_reason(exc)) from None
    if not isinstance(text, str):
        raise TemplateError("chat template did not render to text")
    return text
