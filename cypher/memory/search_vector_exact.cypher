// transaction: read
// Exact cosine over every visible memory: correct for any scope, used when the scope's
// share of the index is too small for the approximate path.
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
WHERE m.scope_key IN visible
  AND ($layers IS NULL OR m.layer IN $layers)
  AND m.embedding IS NOT NULL
  AND NOT coalesce(m.retracted, false)
WITH m, vector.similarity.cosine(m.embedding, $vector) AS cosine  // already (1 + cos) / 2, as the index reports
RETURN m.id AS id, cosine AS score
ORDER BY score DESC, id
LIMIT $k
