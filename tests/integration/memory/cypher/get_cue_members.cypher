// Test inspection: the memories attached to one cue of a scope chain.
MATCH (c:Cue {kind: $kind, key: $key})<-[:HAS_CUE]-(m:Memory)
WHERE c.scope_key IN $visible
RETURN collect(DISTINCT m.id) AS ids
