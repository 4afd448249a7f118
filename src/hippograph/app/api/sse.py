"""The plain-HTTP routes beside GraphQL: an agent turn as Server-Sent Events (for clients
without websockets), and the JSON-lines export and import of a scope subtree."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hippograph.app.access.keys import Principal, Role
from hippograph.app.access.limits import BudgetExceededError
from hippograph.app.api.export import export_lines, import_records, parse_lines
from hippograph.app.api.services import ApiServices
from hippograph.app.api.turns import check_turn, stream_turn
from hippograph.errors import InvalidInputError


class TurnRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scope: str = Field(max_length=2000)
    message: str
    session_id: str | None = None


TURN_BODY: dict[str, Any] = {
    "requestBody": {"required": True, "content": {"application/json": {"schema": TurnRequest.model_json_schema()}}}
}


def turn_request(raw: bytes) -> TurnRequest:
    """The turn a body asks for.

    Raises:
        InvalidInputError: Not JSON, or not a turn request (every problem, never the input).
    """
    try:
        return TurnRequest.model_validate_json(raw)
    except ValidationError as exc:
        raise InvalidInputError("body", problems(exc.errors(include_input=False))) from None


def problems(errors: Sequence[Any]) -> str:
    """Validation errors as one line: ``where: what`` of each, the input never quoted."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e.get('loc', ())) or 'body'}: {e.get('msg', 'invalid')}" for e in errors
    )


def sse(event: str, data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def http_router(principal_dep: Any, services_dep: Any) -> APIRouter:
    router = APIRouter(prefix="/v1")

    @router.post("/turn/stream", response_class=StreamingResponse, openapi_extra=TURN_BODY)
    async def turn_stream(
        request: Request,
        principal: Principal = Depends(principal_dep),
        services: ApiServices = Depends(services_dep),
    ) -> StreamingResponse:
        """One agent turn as ``text/event-stream``: one SSE event per agent event (its ``type``
        as the event name, the event as JSON data). The body is read after the key is checked:
        a caller without a valid key learns nothing about its shape."""
        body = turn_request(await request.body())
        target = principal.target(body.scope, Role.WRITER)
        check_turn(body.message, body.session_id)
        events = stream_turn(services, principal, target, body.message, body.session_id)
        try:
            first = await anext(events)
        except BudgetExceededError:
            raise
        except StopAsyncIteration:  # pragma: no cover - a turn always ends with message_end
            first = None

        async def body_iter() -> AsyncIterator[str]:
            if first is not None:
                yield sse(first.type, first.model_dump(mode="json"))
            async for event in events:
                yield sse(event.type, event.model_dump(mode="json"))

        return StreamingResponse(body_iter(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    @router.get("/export")
    async def export(
        scope: str,
        embeddings: bool = False,
        principal: Principal = Depends(principal_dep),
        services: ApiServices = Depends(services_dep),
    ) -> StreamingResponse:
        """The scope's subtree as JSON lines (header, memories, edges); ids kept."""
        target = principal.target(scope, Role.READER)
        return StreamingResponse(
            export_lines(services.repo.exports, target, embeddings=embeddings), media_type="application/x-ndjson"
        )

    @router.post("/import")
    async def import_(
        request: Request,
        principal: Principal = Depends(principal_dep),
        services: ApiServices = Depends(services_dep),
    ) -> dict[str, Any]:
        """Import JSON lines (admin): every scope in the file must be within the key's subtree;
        the whole file is validated before anything is written. Its size limit is the edge's
        (``max_import_bytes``: 413 before this route runs)."""
        body = await request.body()
        raw = body.decode("utf-8", errors="replace")
        nodes, edges = parse_lines(raw.splitlines())
        for key in {n.scope_key for n in nodes} | {e.scope_key for e in edges}:
            principal.target(key, Role.ADMIN)
        report = await import_records(services.memory, nodes, edges)
        return report.model_dump()

    return router
