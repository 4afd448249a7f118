// The scope tree: one scope, its ancestors and descendants, linked by PARENT (child → parent).
:param scope_key => "org:demo";
MATCH (s:Scope {key: $scope_key})
OPTIONAL MATCH up = (s)-[:PARENT*1..]->(:Scope)
OPTIONAL MATCH down = (:Scope)-[:PARENT*1..]->(s)
RETURN s, up, down
