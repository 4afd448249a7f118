"""The Strawberry schema: types, queries, mutations, subscriptions, and the extensions that
harden it (depth, tokens, aliases, masked errors, Cypher call counting)."""

__all__: list[str] = []  # the schema is built by hippograph.app.api.schema.build; import its modules
