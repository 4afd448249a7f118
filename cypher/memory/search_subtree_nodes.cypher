// transaction: read
// The descendant read: memories of the scope and every scope below it, but for the scopes
// under erasure (at or below an (:Erasure) marker): the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (:Scope {key: $scope_key})<-[:PARENT*0..]-(:Scope)<-[:IN_SCOPE]-(m:Memory)
WHERE ($layers IS NULL OR m.layer IN $layers)
  AND ($ids IS NULL OR m.id IN $ids)
  AND ($label IS NULL OR m.label = $label)
  AND ($label_prefix IS NULL OR m.label STARTS WITH $label_prefix)
  AND ($durability IS NULL OR m.durability = $durability)
  AND ($min_importance IS NULL OR m.importance >= $min_importance)
  AND ($include_retracted OR NOT coalesce(m.retracted, false))
  AND ($created_after IS NULL OR m.created_at >= $created_after)
  AND ($created_before IS NULL OR m.created_at < $created_before)
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
RETURN m {.*, embedding: CASE WHEN $with_embedding THEN m.embedding END} AS m
ORDER BY m.created_at DESC, m.id
LIMIT $limit
