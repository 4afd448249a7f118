"""pytest fixtures for the fake Anthropic Messages API.

Import both fixtures into a test module (or a conftest) to use them::

    from tests.support.fixtures_anthropic import fake_anthropic, fake_anthropic_server  # noqa: F401

    async def test_x(fake_anthropic: FakeAnthropic) -> None:
        fake_anthropic.enqueue(FakeReply.of_text("hi"))
        model = AnthropicModel(api_key="test", base_url=fake_anthropic.base_url)

One server runs per test session; each test gets it with an empty queue and no
recorded requests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hippograph.testing.fake_anthropic import FakeAnthropic, FakeAnthropicServer


@pytest.fixture(scope="session")
def fake_anthropic_server() -> Iterator[FakeAnthropicServer]:
    """The fake API server, started once per session and stopped at the end."""
    server = FakeAnthropicServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_anthropic(fake_anthropic_server: FakeAnthropicServer) -> Iterator[FakeAnthropic]:
    """The fake API, reset for this test; ``base_url`` points the SDK at it."""
    fake = fake_anthropic_server.fake
    fake.reset()
    yield fake
    fake.reset()
