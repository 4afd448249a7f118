// transaction: read
// How many live memories of the layers a scope sees (the N of fulltext z-scores).
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
WHERE m.scope_key IN $visible AND ($layers IS NULL OR m.layer IN $layers)
RETURN count(m) AS n
