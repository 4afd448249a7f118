// transaction: read
// The agent turn's small reads in one round trip (beside recall, before the model): the scope's
// own working memories and its own pending-trigger candidates (each exactly what
// search_scope_layer reads for that layer), and what the scope sees of the persona (exactly
// what search_persona reads, on the same (scope_key, label) seeks). A part not wanted
// ($working, $prospective, $persona false) is an empty list and reads nothing. Scopes under
// erasure (at or below an (:Erasure) marker) read nothing: the erase's tombstone.
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
WITH [k IN $visible WHERE none(gone IN erasing WHERE k = gone OR k STARTS WITH gone + '/')] AS visible
RETURN
  COLLECT {
    MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, layer)
    WHERE $working
      AND m.scope_key = $scope_key AND $scope_key IN visible
      AND m.layer = $working_layer
      AND NOT coalesce(m.retracted, false)
    RETURN m {.*, embedding: null} AS m
    ORDER BY m.created_at DESC, m.id
  } AS working,
  COLLECT {
    MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, layer)
    WHERE $prospective
      AND m.scope_key = $scope_key AND $scope_key IN visible
      AND m.layer = $prospective_layer
      AND NOT coalesce(m.retracted, false)
    RETURN m {.*, embedding: null} AS m
    ORDER BY m.created_at DESC, m.id
  } AS prospective,
  COLLECT {
    MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, label)
    WHERE $persona
      AND m.scope_key IN visible
      AND m.layer = $semantic_layer
      AND m.label STARTS WITH $prefix
      AND NOT coalesce(m.retracted, false)
    RETURN m {.*, embedding: null} AS m
    ORDER BY m.created_at DESC, m.id
    LIMIT $limit
  } + COLLECT {
    MATCH (m:Memory) USING INDEX SEEK m:Memory(scope_key, label)
    WHERE $persona
      AND m.scope_key IN visible
      AND m.layer = $semantic_layer
      AND m.label = $identity
      AND NOT coalesce(m.retracted, false)
    RETURN m {.*, embedding: null} AS m
    ORDER BY m.created_at DESC, m.id
    LIMIT $limit
  } AS persona
