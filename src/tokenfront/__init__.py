"""tokenfront: a GPU-less render/derender frontend for disaggregated LLM serving."""

__version__ = "0.1.0"
