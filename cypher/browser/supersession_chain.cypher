// The supersession chain of a fact: every version of one fact key in a scope, newest superseding older.
:param scope_key => "org:demo/user:sam";
:param fact_key => "sam.employer";
MATCH (f:Memory {scope_key: $scope_key, key: $fact_key})
OPTIONAL MATCH (f)-[r:SUPERSEDES]->(older:Memory)
RETURN f, r, older
ORDER BY f.created_at DESC
