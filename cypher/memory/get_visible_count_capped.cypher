// transaction: read
// How many memories the visible scopes hold (of $layers; null: all), counted up to $cap only:
// on Neo4j 5.26 a vector search over so few is an exact scan (store/vector_search.py).
// Parameters: $visible, $layers, $cap.
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
WHERE m.scope_key IN visible AND ($layers IS NULL OR m.layer IN $layers)
WITH m
LIMIT $cap
RETURN count(m) AS n
