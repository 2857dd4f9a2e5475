"""`LastDerived` derives once per object (by identity, per thread); `LastRead` resumes only
the same reader on a text that starts with the last one."""

from __future__ import annotations

import threading

from tokenfront.parsers.engines.last_read import LastDerived, LastRead


def test_last_derived_derives_again_only_for_another_object() -> None:
    calls: list[object] = []

    def derive(source: dict[str, int]) -> frozenset[str]:
        calls.append(source)
        return frozenset(source)

    memo: LastDerived[frozenset[str]] = LastDerived(derive)
    first, equal = {"a": 1}, {"a": 1}
    assert memo.of(first) == frozenset({"a"}) and memo.of(first) == frozenset({"a"})
    assert len(calls) == 1
    memo.of(equal)  # equal but another object (another request's tools): derived afresh
    memo.of(first)
    assert len(calls) == 3


def test_last_derived_keeps_one_value_per_thread() -> None:
    memo: LastDerived[list[int]] = LastDerived(lambda source: [])
    source = object()
    mine = memo.of(source)
    theirs: list[list[int]] = []
    thread = threading.Thread(target=lambda: theirs.append(memo.of(source)))
    thread.start()
    thread.join()
    assert mine is memo.of(source) and theirs[0] is not mine


def test_last_read_resumes_the_same_reader_on_a_longer_text_only() -> None:
    last = LastRead()
    last.keep("reader", "abc", "found")
    assert last.resumable("reader", "abcd") == "found"
    assert last.resumable("reader", "abc") == "found"
    assert last.resumable("reader", "ab") is None
    assert last.resumable("other", "abcd") is None
