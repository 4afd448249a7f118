// The scope tree: one scope, its ancestors and descendants, linked by PARENT (child → parent).
// Scopes under erasure (at or below an (:Erasure) marker) show nothing, as in hippograph's own reads.
:param scope_key => "org:demo";
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (s:Scope {key: $scope_key})
WHERE none(gone IN erasing WHERE s.key = gone OR s.key STARTS WITH gone + '/')
OPTIONAL MATCH up = (s)-[:PARENT*1..]->(:Scope)
OPTIONAL MATCH down = (d:Scope)-[:PARENT*1..]->(s)
WHERE none(gone IN erasing WHERE d.key = gone OR d.key STARTS WITH gone + '/')
RETURN s, up, down
