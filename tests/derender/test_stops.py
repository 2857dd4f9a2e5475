"""Stop tokens, EOS and stop strings, as the engine applies them."""

from __future__ import annotations

from types import SimpleNamespace

from tokenfront.derender.stops import drop_stop_token, find_stop_string, stop_strings

EOS = 9
MODEL_EOS = frozenset({9, 7})


def req(**kw):
    base = dict(
        stop=[], stop_token_ids=[], include_stop_str_in_output=False, ignore_eos=False, min_tokens=0
    )
    base.update(kw)
    return SimpleNamespace(**base)


def test_primary_eos_dropped_and_reported_as_none() -> None:
    assert drop_stop_token([1, 2, 9], "stop", None, None, EOS, MODEL_EOS) == ([1, 2], None)


def test_other_model_eos_reported_as_its_id() -> None:
    assert drop_stop_token([1, 7], "stop", None, req(), EOS, MODEL_EOS) == ([1], 7)


def test_request_stop_token_reported() -> None:
    assert drop_stop_token([1, 5], "stop", None, req(stop_token_ids=[5]), EOS, MODEL_EOS) == (
        [1],
        5,
    )


def test_reported_int_stop_reason_names_the_token() -> None:
    assert drop_stop_token([1, 5], "stop", 5, None, EOS, MODEL_EOS) == ([1], 5)
    assert drop_stop_token([1, 6], "stop", 5, None, EOS, MODEL_EOS) == ([1, 6], 5)


def test_include_stop_str_in_output_keeps_the_token() -> None:
    r = req(include_stop_str_in_output=True)
    assert drop_stop_token([1, 9], "stop", None, r, EOS, MODEL_EOS) == ([1, 9], None)


def test_ignore_eos_keeps_eos() -> None:
    assert drop_stop_token([1, 9], "stop", None, req(ignore_eos=True), EOS, MODEL_EOS) == (
        [1, 9],
        None,
    )


def test_not_stopped_or_string_reason_untouched() -> None:
    assert drop_stop_token([1, 9], "length", None, None, EOS, MODEL_EOS) == ([1, 9], None)
    assert drop_stop_token([1, 9], "stop", "xx", None, EOS, MODEL_EOS) == ([1, 9], "xx")
    assert drop_stop_token([], "stop", None, None, EOS, MODEL_EOS) == ([], None)


def test_stop_strings_normalised() -> None:
    assert stop_strings(None) == []
    assert stop_strings(req(stop="###")) == ["###"]
    assert stop_strings(req(stop=["a", "", "b"])) == ["a", "b"]


def test_find_stop_string_earliest_end_wins() -> None:
    text = "one two ### three zzz"
    assert find_stop_string(text, len(text), ["zzz", "###"], False) == ("###", 8)
    assert find_stop_string(text, len(text), ["zzz", "###"], True) == ("###", 11)


def test_find_stop_string_only_in_new_text() -> None:
    text = "Hello world. Hello"
    # Only the last 6 characters are new: the first "Hello" is not a match.
    assert find_stop_string(text, 6, ["Hello"], False) == ("Hello", 13)
    assert find_stop_string("Hello world. ", 1, ["Hello"], False) is None


def test_find_stop_string_at_end_with_include_needs_no_cut() -> None:
    assert find_stop_string("abc###", 6, ["###"], True) == ("###", -1)
    assert find_stop_string("abc", 0, ["###"], True) is None
