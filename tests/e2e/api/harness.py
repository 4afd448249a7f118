"""The e2e harness of the API: a real uvicorn server in a thread, an HTTP GraphQL client and a
fresh tenant tree per test."""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from pydantic import SecretStr

from hippograph.app.access.keys import Role, create_key
from hippograph.app.access.repository import KeyRepository
from hippograph.app.api.app import create_app
from hippograph.app.api.lifespan import ModelFactory
from hippograph.app.api.settings import ApiSettings
from hippograph.app.settings import Settings
from hippograph.scope import Scope


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    url: str
    server: uvicorn.Server
    thread: threading.Thread

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/graphql"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def start_server(
    neo4j_server: tuple[str, str], data_dir: Path, *, model_factory: ModelFactory | None = None, **api: Any
) -> Server:
    uri, password = neo4j_server
    settings = Settings(neo4j_uri=uri, neo4j_password=SecretStr(password), data_dir=data_dir)
    port = free_port()
    app = create_app(settings, ApiSettings(port=port, embedder="hashing", **api), model_factory=model_factory)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws="websockets-sansio", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 120
    while not server.started:
        if not thread.is_alive() or time.time() > deadline:
            raise RuntimeError("the API server did not start")
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}"
    while httpx.get(url + "/readyz", timeout=30).status_code != 200:  # as a load balancer waits
        if time.time() > deadline:
            raise RuntimeError("the API server did not get ready")
        time.sleep(0.05)
    return Server(url, server, thread)


class Client:
    """A GraphQL client over real HTTP with one API key."""

    def __init__(self, url: str, token: str | None) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=url, headers=headers, timeout=60)

    def post(self, query: str, **variables: Any) -> httpx.Response:
        return self.http.post("/graphql", json={"query": query, "variables": variables})

    def gql(self, query: str, **variables: Any) -> dict[str, Any]:
        response = self.post(query, **variables)
        assert response.status_code == 200, response.text
        body: dict[str, Any] = response.json()
        return body

    def data(self, query: str, **variables: Any) -> dict[str, Any]:
        body = self.gql(query, **variables)
        assert not body.get("errors"), body["errors"]
        data: dict[str, Any] = body["data"]
        return data


@dataclass
class Tenant:
    """A fresh org with a child user, a grandchild conversation and a sibling user."""

    org: Scope
    user: Scope
    conversation: Scope
    sibling: Scope
    url: str
    repo: KeyRepository

    async def key(self, scope: Scope, role: Role | str, **kwargs: Any) -> str:
        _, token = await create_key(self.repo, scope, role, **kwargs)
        return token

    def client(self, token: str | None) -> Client:
        return Client(self.url, token)
