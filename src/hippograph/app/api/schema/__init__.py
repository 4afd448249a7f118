"""The Strawberry schema: types, queries, mutations, subscriptions, and the extensions that
harden it (depth, tokens, aliases, masked errors, Cypher call counting)."""
