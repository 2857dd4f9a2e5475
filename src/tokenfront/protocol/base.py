"""vLLM's `OpenAIBaseModel`, mirrored: the base of the request and response models vLLM
derives from it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class OpenAIModel(BaseModel):
    """Unknown fields are accepted and kept, as vLLM's OpenAIBaseModel keeps them."""

    model_config = ConfigDict(extra="allow")


def openai_model_names() -> frozenset[str]:
    """The class names of every `OpenAIModel` loaded so far. vLLM's OpenAIBaseModel wraps its
    validation in a function, so an error inside a union of such models is located by that
    function, which vLLM's error text leaves out, not by the class name Pydantic would give."""
    names: set[str] = set()
    stack = list(OpenAIModel.__subclasses__())
    while stack:
        cls = stack.pop()
        if cls.__name__ not in names:
            names.add(cls.__name__)
            stack.extend(cls.__subclasses__())
    return frozenset(names)
