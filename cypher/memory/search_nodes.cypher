// transaction: read
// What a scope may see: memories whose scope_key is one of $visible (the scope and its
// ancestors), with optional filters. Empty/null filters match everything.
// Visible keys under erasure (at or below an (:Erasure) marker) are left out: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key)
WHERE m.scope_key IN visible
  AND ($layers IS NULL OR m.layer IN $layers)
  AND ($ids IS NULL OR m.id IN $ids)
  AND ($label IS NULL OR m.label = $label)
  AND ($label_prefix IS NULL OR m.label STARTS WITH $label_prefix)
  AND ($durability IS NULL OR m.durability = $durability)
  AND ($min_importance IS NULL OR m.importance >= $min_importance)
  AND ($include_retracted OR NOT coalesce(m.retracted, false))
  AND ($created_after IS NULL OR m.created_at >= $created_after)
  AND ($created_before IS NULL OR m.created_at < $created_before)
RETURN m {.*, embedding: CASE WHEN $with_embedding THEN m.embedding END} AS m
ORDER BY m.created_at DESC, m.id
LIMIT $limit
