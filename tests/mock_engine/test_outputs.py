"""Stop rules of the mock engine: length, stop ids, EOS, stop strings, min_tokens, ignore_eos."""

from __future__ import annotations

from tokenfront.mock_engine.outputs import StopRules, encode_reply, fake_logprobs, plan_output
from tokenfront.tokenization.registry import ServedModel


def rules(model: ServedModel, **sp: object) -> StopRules:
    return StopRules.from_sampling(dict(sp), model, prompt_len=4)


def test_natural_end_appends_eos(engine_model: ServedModel) -> None:
    reply = encode_reply(engine_model, "Hello world")
    plan = plan_output(engine_model, reply, rules(engine_model, max_tokens=100))
    assert plan.token_ids == [*reply, engine_model.eos_token_id]
    assert (plan.finish_reason, plan.stop_reason) == ("stop", None)


def test_max_tokens_is_length(engine_model: ServedModel) -> None:
    reply = encode_reply(engine_model, "one two three four five")
    plan = plan_output(engine_model, reply, rules(engine_model, max_tokens=2))
    assert plan.token_ids == reply[:2] and plan.finish_reason == "length"


def test_stop_token_ids_and_other_eos(engine_model: ServedModel) -> None:
    reply = encode_reply(engine_model, "one two three")
    plan = plan_output(
        engine_model, reply, rules(engine_model, max_tokens=50, stop_token_ids=[reply[1]])
    )
    assert plan.token_ids == reply[:2]
    assert (plan.finish_reason, plan.stop_reason) == ("stop", reply[1])
    other = next(iter(engine_model.model_eos_token_ids - {engine_model.eos_token_id}), None)
    if other is not None:
        plan = plan_output(engine_model, [*reply, other], rules(engine_model, max_tokens=50))
        assert plan.stop_reason == other and plan.token_ids[-1] == other


def test_min_tokens_delays_stops(engine_model: ServedModel) -> None:
    reply = encode_reply(engine_model, "one two three")
    plan = plan_output(
        engine_model,
        reply,
        rules(engine_model, max_tokens=50, stop_token_ids=[reply[0]], min_tokens=2),
    )
    assert plan.token_ids[-1] == engine_model.eos_token_id


def test_stop_string(engine_model: ServedModel) -> None:
    reply = encode_reply(engine_model, "alpha beta gamma delta")
    plan = plan_output(engine_model, reply, rules(engine_model, max_tokens=50, stop=["gam"]))
    assert (plan.finish_reason, plan.stop_reason) == ("stop", "gam")
    assert "gam" in engine_model.tokenizer.decode(plan.token_ids)
    assert "delta" not in engine_model.tokenizer.decode(plan.token_ids)


def test_ignore_eos_repeats_until_length(engine_model: ServedModel) -> None:
    reply = encode_reply(engine_model, "hi")
    plan = plan_output(engine_model, reply, rules(engine_model, max_tokens=7, ignore_eos=True))
    assert len(plan.token_ids) == 7 and plan.finish_reason == "length"


def test_default_max_tokens_fills_the_context(engine_model: ServedModel) -> None:
    assert rules(engine_model).max_tokens == engine_model.max_model_len - 4


def test_fake_logprobs_shape() -> None:
    lp = fake_logprobs([5, 6], 3, 100)
    first = lp["content"][0]
    assert first["token_id"] == 5 and first["rank"] == 1
    assert [t["token_id"] for t in first["top_logprobs"]] == [5, 6, 7]
    assert first["top_logprobs"][1]["logprob"] < first["logprob"]
