// A scope's memories by layer: the live memories of one scope around its Scope node, coloured by layer.
// Edit the scope key; `MATCH (s:Scope) RETURN s.key` lists them.
// Scopes under erasure (at or below an (:Erasure) marker) show nothing, as in hippograph's own reads.
:param scope_key => "org:demo/user:sam";
:param limit => 150;
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (s:Scope {key: $scope_key})<-[r:IN_SCOPE]-(m:Memory)
WHERE NOT coalesce(m.retracted, false) AND none(gone IN erasing WHERE s.key = gone OR s.key STARTS WITH gone + '/')
RETURN s, r, m
ORDER BY m.layer, m.created_at DESC
LIMIT $limit
