// transaction: read
// A page of memories, newest first, keyset-paged by (created_at, id).
// $keys: scope keys listed exactly; $prefix: null, or every scope key starting with it.
// Filters (null or [] = any): $layers, $retracted, $superseded, $session_id, $created_after,
// $created_before, $text (lower-case substring of label or content).
// Cursor: $after_created_at, $after_id (null: first page). $limit: page size + 1.
// Scopes under erasure (at or below an (:Erasure) marker) are out of reach: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (m:Memory)
WHERE (m.scope_key IN $keys OR ($prefix IS NOT NULL AND m.scope_key STARTS WITH $prefix))
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
  AND ($layers = [] OR m.layer IN $layers)
  AND ($retracted IS NULL OR coalesce(m.retracted, false) = $retracted)
  AND ($superseded IS NULL OR (m.superseded_by IS NOT NULL) = $superseded)
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND ($created_after IS NULL OR m.created_at >= $created_after)
  AND ($created_before IS NULL OR m.created_at < $created_before)
  AND ($text IS NULL OR toLower(coalesce(m.label, "")) CONTAINS $text
       OR toLower(coalesce(m.content, "")) CONTAINS $text)
  AND ($after_created_at IS NULL OR m.created_at < $after_created_at
       OR (m.created_at = $after_created_at AND m.id < $after_id))
RETURN m {.*, embedding: null} AS m
ORDER BY m.created_at DESC, m.id DESC
LIMIT $limit
