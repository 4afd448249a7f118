// Test inspection: every Cue node of one scope (one row per node, duplicates included) with the
// memories attached to it and how many IN_SCOPE relationships it has.
MATCH (c:Cue)
WHERE c.scope_key = $scope_key
RETURN c.kind AS kind, c.key AS key, [(c)<-[:HAS_CUE]-(m:Memory) | m.id] AS members,
       COUNT { (c)-[:IN_SCOPE]->(:Scope) } AS in_scope
