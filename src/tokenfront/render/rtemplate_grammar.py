"""`beam`'s render-time generation grammar: an xgrammar structural tag derived from the
checkpoint's `response_template`.

vLLM 0.33.0's `beam` parser constrains every chat request (VLLM_BEAM_ALWAYS_CONSTRAIN_OUTPUT
is on by default) to the template's own output shape, when the delimiters spell out as
literals (`rtemplate_literals`):

* thinking: `opener TEXT closer`, optional, or required and non-empty when the prompt ends at
  the message start and thinking is on;
* then either tool calls (`opener-with-name ARGUMENTS`, repeated behind the closer when the
  field repeats and parallel calls are allowed, the last closer optional since a stop token may
  end a call) or an answer (`opener TEXT closer?`, the text in the requested structured-output
  format when there is one);
* at the message start, openers may also be written without the part the prompt's anchor
  already holds.

Calls name the request's functions, with arguments held to their schemas where the template's
content parser allows (`rtemplate_values_grammar`); when the model may answer instead, calls may
also name any other function the opener's name pattern allows, with free arguments. Inside an
answer the prompt already opened, only the rest of that answer is held. A request the tag cannot
serve is rejected only when it forces a call (tool_choice required / named); names the template
cannot spell are a 400 on `tools`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import regex

from tokenfront.parsers.engines.rtemplate_spec import CONTENT, THINKING, TOOLS, Field, Template
from tokenfront.render import rtemplate_literals as lit
from tokenfront.render import rtemplate_values_grammar as vg
from tokenfront.render.rtemplate_values_grammar import (
    ANY_TEXT,
    Fmt,
    const_strings,
    either,
    optional,
    sequence,
    tag,
)


# ---- reasoning and answers -------------------------------------------------------------------
def _nonempty_start(closers: list[str]) -> Fmt:
    """The first characters of a text that is neither empty nor starts with a closer: every
    branch leaves each closer's spelling on a character that begins no closer, so the rest
    cannot hide the start of a closer and a closer written as one token cannot pass as text."""
    closers = [closer for closer in closers if closer]
    firsts = {closer[0] for closer in closers}
    prefixes = dict.fromkeys([""] + [closer[:cut] for closer in closers for cut in range(1, len(closer))])
    branches = []
    for prefix in prefixes:
        if any(closer in prefix for closer in closers):
            continue
        nexts = {closer[len(prefix)] for closer in closers if len(closer) > len(prefix) and closer.startswith(prefix)}
        excluded = "".join(lit.class_char(char) for char in sorted(firsts | nexts))
        branches.append(f"{lit.escape(prefix)}[^{excluded}]")
    return {"type": "regex", "pattern": "|".join(branches)}


def thinking_format(thinking: Field, message_start: list[str] | None, nonempty: bool = False) -> Fmt | None:
    openers, closers = lit.openers(thinking, message_start), lit.closers(thinking)
    if not openers or not closers:
        return None
    text = sequence(_nonempty_start(closers), ANY_TEXT) if nonempty else ANY_TEXT
    return either([tag(opener, text, closers) for opener in openers])


def _answer_text(closers: list[str], content: Fmt | None = None) -> list[Fmt]:
    # The text cannot close the answer early (no free call after it); like a call, the answer
    # may end on a stop token instead of its closer.
    elements = [content or {"type": "any_text", "excludes": closers}]
    if closers:
        elements.append(optional(const_strings(closers)))
    return elements


def reply_format(answer: Field, message_start: list[str] | None, content: Fmt | None) -> Fmt | None:
    openers, closers = lit.openers(answer, message_start), lit.closers(answer)
    if not openers or closers is None:
        return None
    return sequence(const_strings(openers), *_answer_text(closers, content))


def answer_rest_tag(answer: Field) -> dict[str, Any] | None:
    """The rest of an answer the prompt already opened."""
    closers = lit.closers(answer)
    if closers is None:
        return None
    return {"type": "structural_tag", "format": sequence(*_answer_text(closers))}


# ---- calls -----------------------------------------------------------------------------------
def _other_names(pattern: str, names: list[str]) -> str | None:
    """A regex of the names `pattern` allows other than `names` (None unless `pattern` is a
    repeated negatable class: `\\w+`, `\\S+` or `[^...]+`)."""
    if not names:
        return pattern
    match = regex.fullmatch(r"\\([wS])\+|\[\^((?:\\.|[^\]\\])+)\]\+", pattern)
    if match is None:
        return None
    negated = {"w": r"\W", "S": r"\s"}[match[1]] if match[1] else match[2]

    def outside(chars: set[str]) -> str:
        return f"[^{negated}{''.join(lit.class_char(char) for char in sorted(chars))}]"

    trie: dict[str, dict[str, Any]] = {}
    for name in names:
        node = trie
        for char in name:
            node = node.setdefault(char, {})
        node[""] = {}

    def after(node: dict[str, Any], first: bool) -> str:
        branches = [outside(set(node) - {""}) + outside(set()) + "*"]
        branches += [lit.escape(char) + after(child, False) for char, child in node.items() if char]
        return f"(?:{'|'.join(branches)})" + ("" if first or "" in node else "?")

    return after(trie, True)


def arguments_format(field: Field, parameters: dict[str, Any], *, strict: bool, sorted_too: bool = False) -> Fmt | None:
    closers = lit.closers(field) or []
    if field.content == "json" and not field.content_args:
        if lit.spells_closer(tuple(closers), (lit.JSON_PIECE,)):
            return None
        return vg.json_format(parameters if strict else {"type": "object"}, closers)
    if field.content == "xml-inline":
        return vg.xml_arguments(field.content_args, parameters, strict=strict, closers=closers, sorted_too=sorted_too)
    return None


def _names_by_opener(field: Field) -> bool:
    """The call's function name is the opener's `name` capture and its arguments the body."""
    function = field.transform.get("function") if isinstance(field.transform, dict) else None
    return (
        field.opener is not None
        and "name" in field.opener.pattern.groupindex
        and not field.transform_each
        and isinstance(function, dict)
        and function.get("name") == "{name}"
        and function.get("arguments") == "{content}"
    )


def _call_opener(opener: tuple[str, str, str], name: str, message_start: list[str] | None) -> str:
    before, _, after = opener
    if message_start is not None and before:
        spelled = lit.expand(before, message_start=True)
        if spelled:  # text before the name inside a group is no pattern of its own
            spelled = lit.with_anchor_rests(spelled, message_start, regex.compile(before))
            before = "(?:" + "|".join(map(lit.escape, spelled or ())) + ")"
    return before + name + after


def tool_call_tag(
    field: Field | None,
    functions: list[dict[str, Any]],
    *,
    parallel: bool,
    thinking: Field | None = None,
    answer: Field | None = None,
    answer_format: Fmt | None = None,
    message_start: list[str] | None = None,
    requires_reasoning: bool = False,
    sorted_too: bool = False,
    strict_arguments: bool = False,
) -> dict[str, Any] | None:
    """Calls to `functions` (OpenAI function dicts) or, with `answer`, an answer; None when the
    template's format cannot be derived. Raises ValueError for names the template cannot spell."""
    if not functions and answer is not None:
        def reply(start: list[str] | None) -> list[Fmt] | None:
            found = reply_format(answer, start, answer_format)
            return None if found is None else [found]

        return _framed(reply, thinking, message_start, requires_reasoning)
    if not functions or field is None or not _names_by_opener(field):
        return None
    assert field.opener is not None
    opener = lit.split_group(field.opener.pattern.pattern, "name")
    closer_literals = lit.closers(field)
    if opener is None or closer_literals is None:
        return None
    arguments: list[Fmt] = []
    enforced: list[bool] = []
    for function in functions:
        # Like the generic JSON schema, a function without parameters takes none.
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        strict = bool(function.get("strict"))
        held = None
        if strict or strict_arguments:
            try:
                held = arguments_format(field, parameters, strict=True, sorted_too=sorted_too)
            except ValueError:
                if strict:
                    raise
        enforced.append(held is not None)
        if held is None and not strict:
            held = arguments_format(field, parameters, strict=False)
        if held is None:
            return None
        arguments.append(held)
    names = []
    for function in functions:
        name = function["name"]
        if not regex.fullmatch(opener[1], name):
            raise ValueError(f"tool name {name!r} cannot be encoded in tool calls")
        names.append(lit.escape(name))
    if answer is not None:
        others = _other_names(opener[1], [f["name"] for f, held in zip(functions, enforced, strict=False) if held])
        loose = arguments_format(field, {}, strict=False)
        if others is not None and loose is not None:
            # Any function whose schema is not held, with any arguments (a harness can answer
            # that the function does not exist).
            names = [name for name, held in zip(names, enforced, strict=False) if held] + [f"(?:{others})"]
            arguments = [args for args, held in zip(arguments, enforced, strict=False) if held] + [loose]
    closers = const_strings(closer_literals) if closer_literals else None

    def call(start: list[str] | None) -> Fmt:
        return either([
            sequence({"type": "regex", "pattern": _call_opener(opener, name, start)}, args)
            for name, args in zip(names, arguments, strict=False)
        ])

    def output(start: list[str] | None) -> list[Fmt] | None:
        elements = [call(start)]
        if parallel and field.repeats:
            again = sequence(closers, call(None)) if closers else call(None)
            elements.append({"type": "star", "content": again})
        if closers:
            elements.append(optional(closers))  # a stop token may end the last call
        if answer is not None:
            reply = reply_format(answer, start, answer_format)
            if reply is None:
                return None
            elements = [either([sequence(*elements), reply])]
        return elements

    return _framed(output, thinking, message_start, requires_reasoning)


def _framed(
    output: Callable[[list[str] | None], list[Fmt] | None],
    thinking: Field | None,
    message_start: list[str] | None,
    requires_reasoning: bool,
) -> dict[str, Any] | None:
    """The output after the reasoning; from the message start, the whole message (opening with
    non-empty reasoning when `requires_reasoning`)."""
    rest = output(None)
    if rest is None:
        return None
    think = None
    if thinking is not None:
        think = thinking_format(thinking, message_start, requires_reasoning)
        if think is None:
            return None
    if message_start is None:
        if think is not None:
            rest.insert(0, optional(think))
        return {"type": "structural_tag", "format": sequence(*rest)}
    if think is not None and requires_reasoning:
        return {"type": "structural_tag", "format": sequence(think, *rest)}
    start = output(message_start)
    if start is None:
        return None
    whole = sequence(*start)
    if think is not None:
        whole = either([sequence(think, *rest), whole])
    return {"type": "structural_tag", "format": whole}


def template_fields(template: Template) -> tuple[Field | None, Field | None, Field | None]:
    """(thinking, content, tool_calls) of a serving template."""
    fields = template.fields
    return fields.get(THINKING), fields.get(CONTENT), fields.get(TOOLS)
