// transaction: autocommit
// Schema step 8: the keys' vectors with their memory's chain interval (scope_lo, scope_hi) as
// filter properties (Cypher 25, Neo4j 2026.x), searched once per scope chain like
// memory_embedding_chain. Replaces key_embedding_scoped (dropped in step 8). On 5.26 no key
// vector index is built: recall scans the visible keys exactly (the key_vector fragment's 5.26 form).
CYPHER 25
CREATE VECTOR INDEX key_embedding_chain IF NOT EXISTS
FOR (m:Key) ON (m.embedding)
WITH [m.scope_lo, m.scope_hi]
// (the dimensions and similarity are the embedder's, written in when the schema is applied)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}
