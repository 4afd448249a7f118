// A scope's memories by layer: the live memories of one scope around its Scope node, coloured by layer.
// Edit the scope key; `MATCH (s:Scope) RETURN s.key` lists them.
:param scope_key => "org:demo/user:sam";
:param limit => 150;
MATCH (s:Scope {key: $scope_key})<-[r:IN_SCOPE]-(m:Memory)
WHERE NOT coalesce(m.retracted, false)
RETURN s, r, m
ORDER BY m.layer, m.created_at DESC
LIMIT $limit
