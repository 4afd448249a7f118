"""The GraphQL context: the services, who is asking, and this request's loaders."""

from __future__ import annotations

from strawberry.fastapi import BaseContext

from hippograph.app.access.keys import ApiAuthError, Principal
from hippograph.app.api.loaders import Loaders
from hippograph.app.api.services import ApiServices


class ApiContext(BaseContext):
    def __init__(self, services: ApiServices, principal: Principal | None, *, websocket: bool = False) -> None:
        super().__init__()
        self.services = services
        self._principal = principal
        self.websocket = websocket
        self._loaders: Loaders | None = None

    @property
    def principal(self) -> Principal:
        if self._principal is None:
            raise ApiAuthError("missing or invalid API key")
        return self._principal

    def authenticate(self, principal: Principal) -> None:
        self._principal = principal
        self._loaders = None

    @property
    def loaders(self) -> Loaders:
        """Cached per HTTP request; uncached on websockets (the context outlives operations)."""
        if self._loaders is None or self.websocket:
            loaders = Loaders(
                self.services.repo,
                self.principal.reach,
                neighbours_limit=self.services.settings.neighbours_per_memory,
                cache=not self.websocket,
            )
            if self.websocket:
                return loaders
            self._loaders = loaders
        return self._loaders
