"""Image inputs on multimodal checkpoints: media decoding, the model's image preprocessing, the
multimodal hash and the serialized `features` of a render answer (vLLM 0.33.0's wire format).

Heavy libraries (Pillow, numpy, blake3) are imported inside the functions that need them, so a
text-only server never pays for them at start-up.
"""
