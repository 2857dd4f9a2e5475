"""A tokenizer on `tokenizers` with the surface of transformers 5.20.2's `TokenizersBackend`.

`FastTokenizer` holds the Rust tokenizer `fast_loader.load_fast_tokenizer` built and the
special-token state `PreTrainedTokenizerBase.__init__` derives from the init kwargs; its
methods answer what the transformers tokenizer answers for the same calls (encode, decode
with `skip_special_tokens` / clean-up, token <-> id conversions, vocabularies, special
tokens, `apply_chat_template` through `tokenization.chat_render`). Loading it needs no
transformers import.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

# PreTrainedTokenizerBase.SPECIAL_TOKENS_ATTRIBUTES
SPECIAL_TOKENS_ATTRIBUTES = (
    "bos_token",
    "eos_token",
    "unk_token",
    "sep_token",
    "pad_token",
    "cls_token",
    "mask_token",
)
# Keys `TokenizersBackend.__init__` consumes before the base class stores `init_kwargs`.
_BACKEND_ONLY_KEYS = ("tokenizer_file", "tokenizer_object", "post_processor", "gguf_file")
VERY_LARGE_INTEGER = int(1e30)


class FastTokenizer:
    """transformers' `TokenizersBackend` (or `Qwen2Tokenizer`) behaviour over one Rust tokenizer."""

    is_fast = True
    padding_side = "right"
    truncation_side = "right"
    model_input_names = ["input_ids", "attention_mask"]

    def __init__(self, backend: Any, init_kwargs: dict[str, Any], class_name: str) -> None:
        from tokenizers import AddedToken

        self._tokenizer = backend
        self.class_name = class_name
        kwargs = {k: v for k, v in init_kwargs.items() if k not in _BACKEND_ONLY_KEYS}
        kwargs.setdefault("backend", "tokenizers")
        added_tokens_decoder: dict[int, Any] = kwargs.get("added_tokens_decoder", {})
        add_prefix_space = kwargs.get("add_prefix_space", False)
        self._add_bos_token = kwargs.get("add_bos_token", False)
        self._add_eos_token = kwargs.get("add_eos_token", False)
        explicit_bos_eos = "add_bos_token" in kwargs or "add_eos_token" in kwargs
        should_update_post_processor = explicit_bos_eos or backend.post_processor is None

        self._base_init(dict(kwargs))
        self.vocab_file = kwargs.get("vocab_file")
        self.add_prefix_space = add_prefix_space
        backend.encode_special_tokens = self.split_special_tokens

        # TokenizersBackend.__init__: the configured added tokens (all of them), then named and
        # extra special tokens not among them.
        tokens_to_add = [token for _, token in sorted(added_tokens_decoder.items())]
        encoder = list(self.added_tokens_encoder) + [str(t) for t in tokens_to_add]
        for value in self._special_tokens_map.values():
            if value is None:
                continue
            if str(value) not in encoder and value not in tokens_to_add:
                tokens_to_add.append(value)
        for token in self._extra_special_tokens:
            if str(token) not in encoder and token not in tokens_to_add:
                tokens_to_add.append(token)
        if tokens_to_add:
            named = [str(t) for t in self._special_tokens_map.values() if t]
            tokens = []
            for token in tokens_to_add:
                if isinstance(token, str):
                    token = AddedToken(token, special=True)
                elif isinstance(token, AddedToken) and not token.special and str(token) in named:
                    token.special = True
                tokens.append(token)
            self.add_tokens(tokens)
        if should_update_post_processor or backend.post_processor is None:
            self._update_post_processor()

    # ---- PreTrainedTokenizerBase.__init__
    def _base_init(self, kwargs: dict[str, Any]) -> None:
        from tokenizers import AddedToken

        if "additional_special_tokens" in kwargs and "extra_special_tokens" not in kwargs:
            kwargs["extra_special_tokens"] = kwargs.pop("additional_special_tokens")
        self.init_kwargs = copy.deepcopy(kwargs)
        self.name_or_path = kwargs.pop("name_or_path", "")
        self.verbose = kwargs.pop("verbose", False)
        self.SPECIAL_TOKENS_ATTRIBUTES = list(SPECIAL_TOKENS_ATTRIBUTES)
        self._special_tokens_map: dict[str, Any] = dict.fromkeys(SPECIAL_TOKENS_ATTRIBUTES)
        self._extra_special_tokens: list[Any] = []
        explicit = kwargs.pop("model_specific_special_tokens", None) or {}
        if not isinstance(explicit, dict):
            raise TypeError(
                "model_specific_special_tokens must be a dictionary of token name to token value"
            )
        auto: dict[str, Any] = {}
        for key in list(kwargs):
            if key in SPECIAL_TOKENS_ATTRIBUTES:
                value = kwargs.pop(key)
                if value is None:
                    continue
                if not isinstance(value, (str, AddedToken)):
                    raise TypeError(
                        f"Special token {key} has to be either str or AddedToken but got: {type(value)}"
                    )
                self._special_tokens_map[key] = value
            elif key == "extra_special_tokens":
                value = kwargs.pop(key)
                if value is None:
                    continue
                if isinstance(value, dict):
                    self._set_model_specific_special_tokens(value)
                elif isinstance(value, (list, tuple)):
                    self._extra_special_tokens = list(value)
                else:
                    raise TypeError(
                        "extra_special_tokens must be a list/tuple of tokens or a dict of named tokens"
                    )
            elif key.endswith("_token") and isinstance(kwargs[key], (str, AddedToken)):
                auto[key] = kwargs.pop(key)
        max_length = kwargs.pop("model_max_length", kwargs.pop("max_len", None))
        self.model_max_length = max_length if max_length is not None else VERY_LARGE_INTEGER
        self.padding_side = kwargs.pop("padding_side", self.padding_side)
        self.truncation_side = kwargs.pop("truncation_side", self.truncation_side)
        self.model_input_names = kwargs.pop("model_input_names", self.model_input_names)
        self.clean_up_tokenization_spaces = kwargs.pop("clean_up_tokenization_spaces", False)
        self.clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output = kwargs.pop(
            "clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output", False
        )
        self.split_special_tokens = kwargs.pop("split_special_tokens", False)
        chat_template = kwargs.pop("chat_template", None)
        if isinstance(chat_template, (list, tuple)):
            chat_template = {t["name"]: t["template"] for t in chat_template}
        self.chat_template = chat_template
        self.response_template = kwargs.pop("response_template", None)
        self.chat_control_tokens = kwargs.pop("chat_control_tokens", None)
        model_specific = {**auto, **explicit}
        if model_specific:
            self._set_model_specific_special_tokens(model_specific)
        self.backend = kwargs.pop("backend", None)

    def _set_model_specific_special_tokens(self, special_tokens: dict[str, Any]) -> None:
        from tokenizers import AddedToken

        self.SPECIAL_TOKENS_ATTRIBUTES = self.SPECIAL_TOKENS_ATTRIBUTES + list(special_tokens)
        for key, value in special_tokens.items():
            if not isinstance(value, (str, AddedToken)):
                raise TypeError(
                    f"Special token {key} has to be either str or AddedToken but got: {type(value)}"
                )
            self._special_tokens_map[key] = value

    def _update_post_processor(self) -> None:
        """`TokenizersBackend.update_post_processor` (bos/eos are never added here)."""
        from tokenizers import processors

        bos, eos = self.bos_token, self.eos_token
        if bos is None and self._add_bos_token:
            self._add_bos_token = False
        if eos is None and self._add_eos_token:
            self._add_eos_token = False
        single = (
            f"{(bos + ':0 ') if self._add_bos_token else ''}$A:0"
            f"{(' ' + eos + ':0') if self._add_eos_token else ''}"
        )
        pair = (
            f"{single}{(' ' + bos + ':1') if self._add_bos_token else ''} $B:1"
            f"{(' ' + eos + ':1') if self._add_eos_token else ''}"
        )
        special_tokens = []
        if self._add_bos_token:
            special_tokens.append((bos, self.bos_token_id))
        if self._add_eos_token:
            special_tokens.append((eos, self.eos_token_id))
        self._tokenizer.post_processor = processors.TemplateProcessing(
            single=single, pair=pair, special_tokens=special_tokens
        )

    # ---- special tokens
    def __getattr__(self, key: str) -> Any:
        # Named special tokens (and their ids) stored in `_special_tokens_map`, as in
        # PreTrainedTokenizerBase.__getattr__; only reached for names not set on the instance.
        if key.startswith("__") or key in ("_special_tokens_map", "SPECIAL_TOKENS_ATTRIBUTES"):
            raise AttributeError(key)
        base = key.removesuffix("_ids").removesuffix("_id") if key.endswith(("_id", "_ids")) else key
        if base in self.__dict__.get("SPECIAL_TOKENS_ATTRIBUTES", SPECIAL_TOKENS_ATTRIBUTES):
            value = self.__dict__.get("_special_tokens_map", {}).get(base)
            if value is None:
                return None
            return self.convert_tokens_to_ids(str(value)) if key != base else str(value)
        if base == "extra_special_tokens":
            tokens = [str(t) for t in self.__dict__.get("_extra_special_tokens", [])]
            return self.convert_tokens_to_ids(tokens) if key != base else tokens
        raise AttributeError(f"{self.class_name} has no attribute {key}")

    @property
    def special_tokens_map(self) -> dict[str, str]:
        return {
            attr: str(self._special_tokens_map[attr])
            for attr in self.SPECIAL_TOKENS_ATTRIBUTES
            if self._special_tokens_map.get(attr) is not None
        }

    @property
    def all_special_tokens(self) -> list[str]:
        seen: set[str] = set()
        out: list[str] = []
        for attr in self.SPECIAL_TOKENS_ATTRIBUTES:
            value = self._special_tokens_map.get(attr)
            if value is not None and str(value) not in seen:
                out.append(str(value))
                seen.add(str(value))
        for token in self._extra_special_tokens:
            if str(token) not in seen:
                out.append(str(token))
                seen.add(str(token))
        return out

    @property
    def all_special_ids(self) -> list[int]:
        return self.convert_tokens_to_ids(self.all_special_tokens)  # type: ignore[return-value]

    # ---- vocabulary
    @property
    def backend_tokenizer(self) -> Any:
        return self._tokenizer

    @property
    def decoder(self) -> Any:
        return self._tokenizer.decoder

    @property
    def vocab_size(self) -> int:
        return int(self._tokenizer.get_vocab_size(with_added_tokens=False))

    def __len__(self) -> int:
        return int(self._tokenizer.get_vocab_size(with_added_tokens=True))

    def __bool__(self) -> bool:
        return True

    def get_vocab(self) -> dict[str, int]:
        return self._tokenizer.get_vocab(with_added_tokens=True)  # type: ignore[no-any-return]

    @property
    def vocab(self) -> dict[str, int]:
        return self.get_vocab()

    @property
    def added_tokens_decoder(self) -> dict[int, Any]:
        return self._tokenizer.get_added_tokens_decoder()  # type: ignore[no-any-return]

    @property
    def added_tokens_encoder(self) -> dict[str, int]:
        return {t.content: i for i, t in sorted(self.added_tokens_decoder.items())}

    def get_added_vocab(self) -> dict[str, int]:
        return self.added_tokens_encoder

    def add_tokens(self, new_tokens: Any, special_tokens: bool = False) -> int:
        if not new_tokens:
            return 0
        if not isinstance(new_tokens, (list, tuple)):
            new_tokens = [new_tokens]
        if special_tokens:
            return int(self._tokenizer.add_special_tokens(new_tokens))
        return int(self._tokenizer.add_tokens(new_tokens))

    def num_special_tokens_to_add(self, pair: bool = False) -> int:
        return int(self._tokenizer.num_special_tokens_to_add(pair))

    # ---- token <-> id
    def _convert_token_to_id_with_added_voc(self, token: str) -> int | None:
        index = self._tokenizer.token_to_id(token)
        if index is None:
            return self.unk_token_id  # type: ignore[no-any-return]
        return int(index)

    def token_to_id(self, token: str) -> int | None:
        """The id of one vocabulary entry (added tokens included), else None, without building
        the whole vocabulary."""
        return self._tokenizer.token_to_id(token)  # type: ignore[no-any-return]

    def convert_tokens_to_ids(self, tokens: str | Sequence[str]) -> int | None | list[int | None]:
        if isinstance(tokens, str):
            return self._convert_token_to_id_with_added_voc(tokens)
        return [self._convert_token_to_id_with_added_voc(t) for t in tokens]

    def _convert_id_to_token(self, index: int) -> str | None:
        return self._tokenizer.id_to_token(int(index))  # type: ignore[no-any-return]

    def convert_ids_to_tokens(
        self, ids: int | Sequence[int], skip_special_tokens: bool = False
    ) -> str | None | list[str | None]:
        if isinstance(ids, int):
            return self._tokenizer.id_to_token(ids)  # type: ignore[no-any-return]
        skip = set(self.all_special_ids) if skip_special_tokens else set()
        out = []
        for index in ids:
            index = int(index)
            if index in skip:
                continue
            out.append(self._tokenizer.id_to_token(index))
        return out

    def convert_tokens_to_string(self, tokens: list[str]) -> str:
        decoder = self._tokenizer.decoder
        return decoder.decode(tokens) if decoder is not None else " ".join(tokens)  # type: ignore[no-any-return]

    # ---- encoding
    def _check_text(self, text: Any) -> None:
        if not isinstance(text, str):
            raise NotImplementedError(
                "this tokenizer adapter encodes one string at a time (transformers' batch and "
                "pre-tokenized inputs are not reproduced)"
            )

    def _encoding(self, text: str, add_special_tokens: bool, split_special_tokens: bool | None) -> Any:
        self._check_text(text)
        split = self.split_special_tokens if split_special_tokens is None else split_special_tokens
        backend = self._tokenizer
        if backend.encode_special_tokens != split:
            backend.encode_special_tokens = split
        return backend.encode_batch([text], add_special_tokens=add_special_tokens)[0]

    def encode(
        self,
        text: str,
        text_pair: Any = None,
        add_special_tokens: bool = True,
        padding: Any = False,
        truncation: Any = None,
        max_length: int | None = None,
        split_special_tokens: bool | None = None,
        **kwargs: Any,
    ) -> list[int]:
        if text_pair is not None or padding or truncation or max_length is not None or kwargs:
            raise NotImplementedError("pairs, padding and truncation are not reproduced")
        return list(self._encoding(text, add_special_tokens, split_special_tokens).ids)

    def __call__(
        self,
        text: str,
        add_special_tokens: bool = True,
        return_offsets_mapping: bool = False,
        split_special_tokens: bool | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """`tokenizer(text)` for one string: input_ids, attention_mask (and offset_mapping)."""
        unsupported = {k for k, v in kwargs.items() if v not in (None, False, 0)}
        if unsupported:
            raise NotImplementedError(f"tokenizer call options not reproduced: {sorted(unsupported)}")
        enc = self._encoding(text, add_special_tokens, split_special_tokens)
        out: dict[str, Any] = {"input_ids": list(enc.ids), "attention_mask": list(enc.attention_mask)}
        if return_offsets_mapping:
            out["offset_mapping"] = list(enc.offsets)
        return out

    def tokenize(self, text: str, add_special_tokens: bool = False, **kwargs: Any) -> list[str]:
        return list(self._encoding(text, add_special_tokens, kwargs.get("split_special_tokens")).tokens)

    def _encode_without_added_tokens(self, text: str) -> list[int]:
        backend = self._tokenizer
        if backend.normalizer is not None:
            text = backend.normalizer.normalize_str(text)
        splits = [text]
        if backend.pre_tokenizer is not None:
            splits = [s for s, _ in backend.pre_tokenizer.pre_tokenize_str(text)]
        return [token.id for split in splits for token in backend.model.tokenize(split)]

    # ---- decoding
    def decode(
        self, token_ids: Any, skip_special_tokens: bool = False, **kwargs: Any
    ) -> str | list[str]:
        if isinstance(token_ids, tuple):
            token_ids = list(token_ids)
        if isinstance(token_ids, list) and token_ids and isinstance(token_ids[0], (list, tuple)):
            cleanup = kwargs.pop("clean_up_tokenization_spaces", None)
            return [
                self._decode(list(seq), skip_special_tokens, cleanup) for seq in token_ids
            ]
        return self._decode(token_ids, skip_special_tokens, kwargs.get("clean_up_tokenization_spaces"))

    def batch_decode(
        self,
        sequences: Any,
        skip_special_tokens: bool = False,
        clean_up_tokenization_spaces: bool | None = None,
        **kwargs: Any,
    ) -> str | list[str]:
        return self.decode(
            sequences,
            skip_special_tokens=skip_special_tokens,
            clean_up_tokenization_spaces=clean_up_tokenization_spaces,
        )

    def _decode(
        self, token_ids: Any, skip_special_tokens: bool, clean_up_tokenization_spaces: bool | None
    ) -> str:
        if isinstance(token_ids, int):
            token_ids = [token_ids]
        if isinstance(token_ids, dict):
            token_ids = token_ids["input_ids"]
        text = self._tokenizer.decode(token_ids, skip_special_tokens=skip_special_tokens)
        cleanup = (
            clean_up_tokenization_spaces
            if clean_up_tokenization_spaces is not None
            else self.clean_up_tokenization_spaces
        )
        if cleanup and not (
            type(self._tokenizer.model).__name__ == "BPE"
            and not self.clean_up_tokenization_spaces_for_bpe_even_though_it_will_corrupt_output
        ):
            text = self.clean_up_tokenization(text)
        return str(text)

    @staticmethod
    def clean_up_tokenization(text: str) -> str:
        return (
            text.replace(" .", ".")
            .replace(" ?", "?")
            .replace(" !", "!")
            .replace(" ,", ",")
            .replace(" ' ", "'")
            .replace(" n't", "n't")
            .replace(" 'm", "'m")
            .replace(" 's", "'s")
            .replace(" 've", "'ve")
            .replace(" 're", "'re")
        )

    # ---- chat templates
    def get_chat_template(self, chat_template: str | None = None, tools: Any = None) -> str:
        from tokenfront.tokenization.chat_render import select_chat_template

        return select_chat_template(self.chat_template, chat_template, tools)

    def apply_chat_template(
        self,
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
        """transformers' `apply_chat_template` (see `tokenization.chat_render`)."""
        from tokenfront.tokenization.chat_render import apply_chat_template

        return apply_chat_template(
            self,
            conversation,
            tools=tools,
            documents=documents,
            chat_template=chat_template,
            add_generation_prompt=add_generation_prompt,
            continue_final_message=continue_final_message,
            tokenize=tokenize,
            sanitize_control_tokens=sanitize_control_tokens,
            padding=padding,
            truncation=truncation,
            max_length=max_length,
            return_tensors=return_tensors,
            return_dict=return_dict,
            return_assistant_tokens_mask=return_assistant_tokens_mask,
            tokenizer_kwargs=tokenizer_kwargs,
            **kwargs,
        )

    # transformers' name, which TypeErrors about duplicate arguments quote to clients.
    apply_chat_template.__qualname__ = "PreTrainedTokenizerBase.apply_chat_template"
    apply_chat_template.__module__ = "transformers.tokenization_utils_base"

    def __repr__(self) -> str:
        return (
            f"FastTokenizer[{self.class_name}](name_or_path='{self.name_or_path}', "
            f"vocab_size={self.vocab_size}, special_tokens={self.special_tokens_map})"
        )
