"""A stream chunk re-reads its open call once per piece; the partial parameter walk
(`param_walk.walk_params`) and the stable-prefix scan (`json_scan.stable_prefix`) resume where
the previous read of the same text left off. Resuming must give exactly what a read from the
start gives, for every growing text and after unrelated texts in between."""

from __future__ import annotations

import json
import random
import re

import pytest
from marker_texts import marker_text

from tokenfront.parsers.engines import json_scan, param_walk, schema_types, xml_args
from tokenfront.parsers.engines.object_text import ObjectText
from tokenfront.parsers.engines.param_walk import NestedParamCodec, walk_params
from tokenfront.parsers.tools import deepseek_dsml, gemma4, mimo

PARAM_SPINE = ("<parameter=a>", "\nvalue\n", "</parameter>", "\n", "<parameter=b>", "x", "</parameter>")
PARAM_ALPHABET = (
    "<parameter=a>", "<parameter=b>", "<parameter=c>", "<parameter=", "</parameter>", "</param",
    "</function>", "<function=f>", "<tool_call>", "</tool_call>", ">", "\n", " ", "v", "<",
)  # fmt: skip
JSON_SPINE = ('{', '"k"', ": ", '"v', 'w"', ", ", '"n"', ": ", "[1, ", '{"x": "y"}', "]", "}")
JSON_ALPHABET = ("{", "}", "[", "]", '"', "\\", '\\"', ",", ", ", ":", ": ", "1", "a", " ", '"s"')


def _fresh_walk(body: str, names: frozenset[str] | None) -> param_walk.Walk:
    return param_walk._walk(body, names, param_walk.QWEN_CALL_MARKUP, False, [], ObjectText(), 0).walk


def _fresh_prefix(text: str, keys: list[str] | None) -> tuple[str, bool]:
    json_scan._last_scan.found = None
    return json_scan.stable_prefix(text, keys)


def _char_by_char_stable_prefix(text: str, keys: list[str] | None) -> tuple[str, bool]:
    """The scan `stable_prefix` made before it skipped through strings and resumed (the
    contract): one character at a time from the start."""
    last_colon, last_key, pending = -1, None, None
    in_string = escape = False
    start = depth = 0
    for i, ch in enumerate(text):
        if escape:
            escape = False
        elif in_string:
            if ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
                if depth == 1:
                    pending = text[start + 1 : i]
        elif ch == '"':
            in_string, start = True, i
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == ":" and depth == 1:
            last_colon, last_key, pending = i, pending, None
    if last_colon < 0:
        return "", False
    end = last_colon + 1
    while end < len(text) and text[end] in " \t\r\n":
        end += 1
    if end >= len(text) or text[end] != '"' or (keys is not None and last_key not in keys):
        return text[:end], False
    escape = False
    for i in range(end + 1, len(text)):
        if escape:
            escape = False
        elif text[i] == "\\":
            escape = True
        elif text[i] == '"':
            return text[:i], True
    return text, True


def _growing(rng: random.Random, text: str) -> list[str]:
    """Prefixes of `text` in increasing length: every one, or a random few (bigger steps)."""
    if rng.random() < 0.5:
        return [text[:n] for n in range(len(text) + 1)]
    cuts = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, 6)))
    return [text[:n] for n in cuts]


@pytest.mark.parametrize("names", [None, frozenset({"a", "b"})], ids=["no-schema", "schema"])
def test_a_resumed_partial_walk_equals_a_walk_from_the_start(names: frozenset[str] | None) -> None:
    rng = random.Random(2301)
    for _ in range(600):
        body = marker_text(rng, PARAM_SPINE, PARAM_ALPHABET, 30)
        for prefix in _growing(rng, body):
            assert walk_params(prefix, names, final=False) == _fresh_walk(prefix, names), prefix
            if rng.random() < 0.05:  # another call's body in between
                walk_params(marker_text(rng, PARAM_SPINE, PARAM_ALPHABET, 8), None, final=False)


def test_a_resumed_walk_converts_like_a_walk_from_the_start() -> None:
    rng = random.Random(2302)
    codec = NestedParamCodec()
    for _ in range(300):
        body = marker_text(rng, PARAM_SPINE, PARAM_ALPHABET, 30)
        for prefix in _growing(rng, body):
            resumed = codec.convert(prefix, True), codec.open_value(prefix)
            param_walk._last.found = None
            assert (codec.convert(prefix, True), codec.open_value(prefix)) == resumed, prefix
            walk = _fresh_walk(prefix, None)
            expected = dict(walk.closed_values.values)
            last = walk.params[-1] if walk.params else None
            if last is not None and not last.closed and last.name:
                expected[last.name] = param_walk.trim_value(last.value)
            assert resumed[0] == json.dumps(expected, ensure_ascii=False), prefix


def test_the_walk_of_a_complete_body_ignores_the_last_partial_walk() -> None:
    body = "<parameter=a>\n1\n</parameter>"  # partial: what follows may still keep it open
    assert walk_params(body, None, final=False).tail == "stop"
    complete = walk_params(body, None, final=True)
    assert [(p.name, p.closed) for p in complete.params] == [("a", True)]
    assert walk_params(body, None, final=False).tail == "stop"


def test_a_resumed_stable_prefix_equals_a_character_scan_from_the_start() -> None:
    rng = random.Random(2303)
    for _ in range(800):
        text = marker_text(rng, JSON_SPINE, JSON_ALPHABET, 30)
        keys = rng.choice([None, ["k"], []])
        for prefix in _growing(rng, text):
            resumed = json_scan.stable_prefix(prefix, keys)
            assert resumed == _fresh_prefix(prefix, keys), prefix
            assert resumed == _char_by_char_stable_prefix(prefix, keys), prefix
            if rng.random() < 0.05:
                json_scan.stable_prefix(marker_text(rng, JSON_SPINE, JSON_ALPHABET, 8), None)


def test_stable_prefix_over_arguments_growing_member_by_member() -> None:
    rng = random.Random(2304)
    for _ in range(100):
        members: dict[str, object] = {}
        for i in range(rng.randint(1, 12)):
            text = "x" * rng.randint(0, 3) + rng.choice(['"', "\\", ",", ":", "{", ""])
            members[f"p{i % 5}"] = rng.choice([text, i, [text], {"n": text}])
            whole = json.dumps(members, ensure_ascii=False)
            for prefix in (whole, whole[:-1], whole[: len(whole) // 2]):
                keys = rng.choice([None, ["p0", "p1"]])
                resumed = json_scan.stable_prefix(prefix, keys)
                assert resumed == _fresh_prefix(prefix, keys)
                assert resumed == _char_by_char_stable_prefix(prefix, keys)


KEY_VALUE_SPINE = ("<arg_key>", "k", "</arg_key>", "\n", "<arg_value>", "v", "</arg_value>", "\n")
KEY_VALUE_ALPHABET = (
    "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<arg_", "</arg", " ", "\n", "x",
)  # fmt: skip
NAMED_SPINE = ('<parameter name="a">', "v", "</parameter>", "\n", "<parameter name=b>", "w", "</parameter>")
NAMED_ALPHABET = (
    '<parameter name="a">', "<parameter name='b'>", "<parameter name=c>", '< parameter name = "d" >',
    "</parameter>", "</ parameter >", '<parameter name="', "<parameter name='", "<parameter name=",
    '"', "'", ">", " ", "v", "<", '<invoke name="f">', "</invoke>",
)  # fmt: skip


def test_a_resumed_key_value_parse_equals_a_parse_from_the_start() -> None:
    codec = xml_args.KeyValueCodec()
    rng = random.Random(2305)
    for _ in range(600):
        text = marker_text(rng, KEY_VALUE_SPINE, KEY_VALUE_ALPHABET, 30)
        for prefix in _growing(rng, text):
            partial = rng.random() < 0.8
            resumed = codec._parse(prefix, partial)
            converted = codec.convert(prefix, partial)
            xml_args._last_pairs.found = None
            assert codec._parse(prefix, partial) == resumed, prefix
            assert converted == json.dumps(resumed[0], ensure_ascii=False), prefix


def test_a_resumed_named_parse_equals_the_patterns_matches() -> None:
    codec = xml_args.NamedParamCodec()
    rng = random.Random(2306)
    for _ in range(800):
        text = marker_text(rng, NAMED_SPINE, NAMED_ALPHABET, 30)
        for prefix in _growing(rng, text):
            params, open_match = codec._parse(prefix, True)
            expected = {}
            for m in codec._param.finditer(prefix):
                if codec._param_name(m):
                    expected[codec._param_name(m)] = m.group("value")
            rest = codec._param.sub("", prefix)
            want_open = codec._open.search(rest)
            if want_open is not None and codec._param_name(want_open):
                expected[codec._param_name(want_open)] = want_open.group("value")
            else:
                want_open = None
            assert params == expected, prefix
            assert codec.convert(prefix, True) == json.dumps(expected, ensure_ascii=False), prefix
            assert (open_match and (open_match.string, open_match.span())) == (
                want_open and (rest, want_open.span())
            ), prefix


EQUALS_SPINE = ("<parameter=a>", "\nv\n", "</parameter>", "\n", "<parameter=b>", "w", "</parameter>")
EQUALS_ALPHABET = (
    "<parameter=a>", "<parameter=b>", "< parameter = c >", "<parameter=", "</parameter>",
    "</ parameter >", "</param", "<", ">", "\n", " ", "v", "<function=f>",
)  # fmt: skip


@pytest.mark.parametrize("codec", [xml_args.EqualsParamCodec(), mimo.VerbatimEqualsParamCodec()])
def test_a_resumed_equals_parse_equals_the_patterns_matches(
    codec: xml_args.EqualsParamCodec,
) -> None:
    rng = random.Random(2413)
    for _ in range(600):
        text = marker_text(rng, EQUALS_SPINE, EQUALS_ALPHABET, 30)
        for prefix in _growing(rng, text):
            expected = {}
            for m in codec._param.finditer(prefix):
                expected[m.group(1)] = codec._trim(m.group(2))
            closed = dict(expected)
            want_open = codec._open.search(codec._param.sub("", prefix))
            if want_open is not None:
                expected[want_open.group(1)] = codec._trim(want_open.group(2))
            assert codec.convert(prefix, False) == json.dumps(closed, ensure_ascii=False), prefix
            assert codec.convert(prefix, True) == json.dumps(expected, ensure_ascii=False), prefix
            state = codec.open_value(prefix)
            assert (state is not None) == (
                want_open is not None and want_open.group(1) not in closed
            ), prefix


def _dsml_texts(dialect: deepseek_dsml.Dialect) -> tuple[tuple[str, ...], tuple[str, ...]]:
    start, close = dialect.param_start, dialect.param_close
    spine = (f'{start} name="a" string="true">', "v", close, "\n", f'{start} name="n">', "1", close)
    alphabet = (
        f'{start} name="a" string="true">', f'{start} name="b" string="false">', f'{start} name="c">',
        f"{start} name=", f'{start} name="', f'{start}  name="d" string="', close, close[:5], start,
        '"', ">", " ", "\n", "v", "[1, ", '{"k": ', "}", "]",
    )  # fmt: skip
    return spine, alphabet


def test_a_resumed_dsml_conversion_equals_a_conversion_from_the_start() -> None:
    rng = random.Random(2307)
    for dialect in (deepseek_dsml.V32, deepseek_dsml.V4):
        spine, alphabet = _dsml_texts(dialect)
        codec = deepseek_dsml.DsmlStreamingCodec(dialect)
        for _ in range(400):
            text = marker_text(rng, spine, alphabet, 30)
            for prefix in _growing(rng, text):
                partial = rng.random() < 0.8
                resumed = codec.convert(prefix, partial), codec.open_value(prefix)
                deepseek_dsml._last_params.found = None
                assert (codec.convert(prefix, partial), codec.open_value(prefix)) == resumed


GEMMA4_SPINE = ("a:", '<|"|>', "v", '<|"|>', ",", "n:", "1", ",", "o:{", "k:", "2", "}", ",")
GEMMA4_ALPHABET = (
    "a:", "b:", '<|"|>', '<|"', "<|", ",", ":", " ", "\n", "{", "}", "[", "]", "1", "x.", "v", ")", "(",
)  # fmt: skip


def test_a_resumed_gemma4_field_read_equals_a_read_from_the_start() -> None:
    rng = random.Random(2308)
    codec = gemma4.Gemma4ArgCodec()
    for _ in range(800):
        text = marker_text(rng, GEMMA4_SPINE, GEMMA4_ALPHABET, 30)
        for prefix in _growing(rng, text):
            resumed = gemma4.parse_fields(prefix, partial=True), codec.open_value(prefix)
            gemma4._last_fields.found = None
            assert (gemma4.parse_fields(prefix, partial=True), codec.open_value(prefix)) == resumed


def _typed_afresh(text: str, tools: list[dict[str, object]], properties: dict[str, object]) -> str:
    try:
        fresh = json.loads(text)
    except ValueError:
        return text
    if not isinstance(fresh, dict):
        return text
    changed = schema_types.coerce_object(fresh, properties)
    return json.dumps(fresh, ensure_ascii=False) if changed else text


def test_typing_resumed_after_typed_members_equals_typing_afresh() -> None:
    rng = random.Random(2309)
    types = ["integer", "number", "boolean", "null", "string", ["integer", "string"], "object"]
    values = ["1", "1.5", "x", "true", "0", "null", "None", "{}", '{"a": 1}', "[1]", "", " 2 "]
    raw = ['"1"', "2", '{"n": "3"}', "[1, 2]", '"a,b"', '"}"', "null", '"\\""']
    for _ in range(200):
        properties = {f"p{i}": {"type": rng.choice(types)} for i in range(6)}
        properties["p5"] = {"type": "object", "properties": {"n": {"type": "integer"}}}
        tools = [{"type": "function", "function": {"name": "f", "parameters": {
            "type": "object", "properties": properties}}}]  # fmt: skip
        members = []
        for _ in range(rng.randint(1, 10)):
            value = json.dumps(rng.choice(values)) if rng.random() < 0.6 else rng.choice(raw)
            members.append(f'"p{rng.randrange(7)}"{rng.choice([":", ": ", " : "])}{value}')
        text = "{" + rng.choice([",", ", ", " ,\n"]).join(members) + rng.choice(["}", " }", ",}"])
        for prefix in _growing(rng, text):
            for candidate in (prefix, prefix + "}", prefix + '"}'):
                expected = _typed_afresh(candidate, tools, properties)
                assert schema_types.type_arguments(candidate, tools, "f") == expected, candidate


def test_a_string_ends_where_the_string_body_pattern_stops_at_a_quote() -> None:
    # the contract `json_scan._string_end` keeps with find() instead of a per-character match
    body = re.compile(r'(?:[^"\\]+|\\.)*', re.DOTALL)
    rng = random.Random(2418)
    for _ in range(20000):
        text = "".join(rng.choice(('"', "\\", "a", "\n", "é")) for _ in range(rng.randrange(12)))
        at = rng.randrange(len(text) + 1)
        end = body.match(text, at).end()
        expected = end if end < len(text) and text[end] == '"' else -1
        assert json_scan._string_end(text, at) == expected, (text, at)
