// Every key whose scope key starts with $prefix, whatever links it: its properties (no vector),
// the vector's size, and the memory it is a key of (null: none).
MATCH (k:Key) WHERE k.scope_key STARTS WITH $prefix
OPTIONAL MATCH (k)-[:KEY_OF]->(m:Memory)
RETURN k {.*, embedding: null} AS k, size(k.embedding) AS dims, m.id AS memory_id
ORDER BY k.id
