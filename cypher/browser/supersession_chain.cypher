// The supersession chain of a fact: every version of one fact key in a scope, newest superseding older.
// Scopes under erasure (at or below an (:Erasure) marker) show nothing, as in hippograph's own reads.
:param scope_key => "org:demo/user:sam";
:param fact_key => "sam.employer";
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (f:Memory {scope_key: $scope_key, key: $fact_key})
WHERE none(gone IN erasing WHERE f.scope_key = gone OR f.scope_key STARTS WITH gone + '/')
OPTIONAL MATCH (f)-[r:SUPERSEDES]->(older:Memory)
WHERE none(gone IN erasing WHERE older.scope_key = gone OR older.scope_key STARTS WITH gone + '/')
RETURN f, r, older
ORDER BY f.created_at DESC
