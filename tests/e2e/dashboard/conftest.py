"""The dashboard's tests run the API's e2e fixtures: one real server per session, a tenant per test."""

from tests.e2e.api.conftest import api_repo, api_server, api_tenant

__all__ = ["api_repo", "api_server", "api_tenant"]
