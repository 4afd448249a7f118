"""Issue 13 #3 in the library: hostile scope ids (separators, look-alikes, NFC and NFD forms,
very long, empty, control characters) in random scope trees, and Cypher / Lucene syntax in every
text field. Every id is either refused with InvalidScopeError or names a scope that sees exactly
its own and its ancestors' memories through every read (list, get, recall, count); every text is
stored literally or refused, and never runs. The tally counts the cases tried and the leaks."""

from __future__ import annotations

import unicodedata
import uuid
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hippograph.embeddings import HashingEmbeddings
from hippograph.errors import InvalidInputError, InvalidScopeError
from hippograph.memory import Memory
from hippograph.scope import Scope
from hippograph.store import GraphStore
from tests.support.memory_internals import internals

HOSTILE_IDS = (
    "",
    " ",
    "acme",
    "acme2",
    "ACME",
    "\u0430cme",  # Cyrillic а: looks like acme
    "caf\u00e9",
    unicodedata.normalize("NFD", "caf\u00e9"),  # the same word, NFC and NFD
    "a/b",
    "a:b",
    "a`b",
    "a\\b",
    "org:acme/user:x",
    "../..",
    "*",
    "%",
    "'",
    '"',
    "$x",
    "{}",
    "a)",
    "x\u200bx",
    "\u202eevil",
    "a\x00b",
    "a\nb",
    "\t",
    "\x7f",
    "x" * 128,
    "x" * 129,
    "x" * 5000,
    "' OR 1=1 --",
    "x`) WITH n MATCH (m) DETACH DELETE m //",
    "user:*",
    "title:(a OR b)~2",
)
INJECTIONS = (
    "x`) WITH n MATCH (m) DETACH DELETE m //",
    "'}) MATCH (m) DETACH DELETE m RETURN 1 //",
    "$(row.relationship) CALL db.labels() YIELD label RETURN label",
    'title:(a OR b)~2 AND content:"x" NOT y^4 +z -w [a TO z] {b TO c} /re.ex/ \\* ? && || !',
    "*:* OR scope_key:*",
    "\\",
    '"',
    "((((((((((",
    "~" * 300,
    "AND OR NOT",
)
ids = st.one_of(st.sampled_from(HOSTILE_IDS), st.text(max_size=40))
trees = st.lists(st.tuples(ids, st.integers(0, 8)), min_size=2, max_size=6)


def _fresh_root() -> Scope:
    return Scope.root("org", f"hostile-{uuid.uuid4().hex[:10]}")


def _build(root: Scope, spec: list[tuple[str, int]], tally: Counter[str]) -> list[Scope]:
    """Scopes below ``root``: entry i hangs below an earlier accepted scope (or root)."""
    scopes: list[Scope] = [root]
    for ident, parent in spec:
        tally["hostile scope ids tried"] += 1
        try:
            scopes.append(scopes[parent % len(scopes)].child("user", ident))
        except InvalidScopeError:
            tally["hostile scope ids refused"] += 1
    return scopes


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(spec=trees)
async def test_hostile_scope_trees_see_only_their_own_and_ancestors(
    store: GraphStore, tally: Counter[str], spec: list[tuple[str, int]]
) -> None:
    tenant = _fresh_root()
    memory = Memory(store, HashingEmbeddings())
    scopes = list(dict.fromkeys(_build(tenant, spec, tally)))  # NFC and NFD stay two scopes
    secrets = {}
    for i, scope in enumerate(scopes):
        node = await memory.remember(scope, f"secret {i}", f"The secret number {i} is kestrel{i}.")
        secrets[node.id] = scope
    try:
        for reader in scopes:
            allowed = {nid for nid, owner in secrets.items() if owner.key in reader.ancestor_keys()}
            seen = {n.id for n in await store.query_nodes(reader, limit=None)} & set(secrets)
            recalled = {i.node.id for i in (await memory.recall(reader, "secret number kestrel")).items}
            got = {nid for nid in secrets if await store.get_node(reader, nid) is not None}
            tally["isolation reads checked"] += 3 + len(secrets)
            leaks = (seen | (recalled & set(secrets)) | got) - allowed
            tally["leaks found"] += len(leaks)
            assert not leaks, f"{reader.key!r} read {[secrets[n].key for n in leaks]}"
            assert seen == got == allowed, f"{reader.key!r} misses its own or an ancestor's memory"
    finally:
        await internals(memory).engine.drain()
        await store.delete_subtree(tenant)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.one_of(st.sampled_from(INJECTIONS), st.text(min_size=1, max_size=300)))
async def test_cypher_and_lucene_in_text_is_stored_literally_or_refused(
    store: GraphStore, tally: Counter[str], text: str
) -> None:
    tenant = _fresh_root()
    memory = Memory(store, HashingEmbeddings())
    canary = tenant.child("user", "canary")
    own = tenant.child("user", "writer")
    sentinel = await memory.remember(canary, "canary", "The canary sings.")
    tally["hostile texts tried"] += 1
    try:
        try:
            node = await memory.remember(own, text, text)
        except InvalidInputError:
            tally["hostile texts refused"] += 1
        else:
            stored = await store.get_node(own, node.id)
            assert stored is not None and (stored.label, stored.content) == (node.label, node.content)
            assert node.content == text.strip() or node.content in text, "changed beyond trimming"
        try:
            result = await memory.recall(own, text)
        except InvalidInputError:
            tally["hostile queries refused"] += 1
        else:
            assert all(item.node.scope_key in own.ancestor_keys() for item in result.items)
        assert [n.id for n in await store.query_subtree(canary, limit=None)] == [sentinel.id], "the canary changed"
    finally:
        await internals(memory).engine.drain()
        await store.delete_subtree(tenant)


async def test_text_without_words_neither_breaks_recall_nor_dedup(store: GraphStore) -> None:
    """Found by the test above: '²¹' embeds to the zero vector; stored, it made every exact-scan
    recall (and dedup) of its scope fail in Neo4j's cosine, and as a query it failed both channels."""
    scope = _fresh_root()
    memory = Memory(store, HashingEmbeddings())
    try:
        lisbon = await memory.remember(scope, "Ana's city", "Ana lives in Lisbon.")
        wordless = await memory.remember(scope, "²¹", "²¹")
        await memory.remember(scope, "¹²", "¹²")  # dedup against a wordless memory
        stored = await store.get_node(scope, wordless.id, with_embedding=True)
        assert stored is not None and stored.embedding is None
        result = await memory.recall(scope, "Where does Ana live?")
        assert result.items[0].node.id == lisbon.id
        await memory.recall(scope, "²¹")  # a query without direction: fulltext alone
    finally:
        await internals(memory).engine.drain()
        await store.delete_subtree(scope)
