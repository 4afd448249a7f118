// How many memories the visible scopes hold (of $layers; null: all), counted up to $cap only:
// on Neo4j 5.26 a vector search over so few is an exact scan (store/vector_search.py).
// Parameters: $visible, $layers, $cap.
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
WHERE m.scope_key IN $visible AND ($layers IS NULL OR m.layer IN $layers)
WITH m
LIMIT $cap
RETURN count(m) AS n
