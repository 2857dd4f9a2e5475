"""What every request handler reaches through `request.app.state`."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request

from tokenfront.api.errors import model_not_found
from tokenfront.config import ServerSettings
from tokenfront.tokenization.registry import ModelNotFoundError, ModelRegistry, ServedModel


@dataclass
class AppState:
    settings: ServerSettings
    registry: ModelRegistry
    # Gateway answers' system_fingerprint (gateway/fingerprint.py).
    system_fingerprint: str | None = None

    def model_for(self, name: str | None) -> ServedModel:
        """The served model a request names (empty names the default), else vLLM's 404."""
        try:
            return self.registry.get(name or None)
        except ModelNotFoundError:
            served = [n for m in self.registry.models for n in m.names]
            raise model_not_found(str(name), served) from None


def app_state(request: Request) -> AppState:
    state: AppState = request.app.state.tokenfront
    return state
