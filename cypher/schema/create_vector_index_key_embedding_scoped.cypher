// transaction: autocommit
// Schema step 6: the keys' vectors with the scope key as a filter property (Cypher 25, Neo4j
// 2026.x), searched per visible scope like memory_embedding_scoped. On 5.26 no key vector index
// is built: recall scans the visible keys exactly (the key_vector fragment's 5.26 form).
CYPHER 25
CREATE VECTOR INDEX key_embedding_scoped IF NOT EXISTS
FOR (m:Key) ON (m.embedding)
WITH [m.scope_key]
// (the dimensions and similarity are the embedder's, written in when the schema is applied)
OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}
