// Retracted memories and why: soft-retracted memories of a scope and its subtree (restorable until pruned),
// with the retraction's reason, actor and phase.
// Scopes under erasure (at or below an (:Erasure) marker) show nothing, as in hippograph's own reads.
:param scope_key => "org:demo/user:sam";
:param limit => 50;
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (m:Memory)
WHERE (m.scope_key = $scope_key OR m.scope_key STARTS WITH $scope_key + "/") AND m.retracted = true
  AND none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
RETURN datetime({epochMillis: toInteger(m.retracted_at * 1000)}) AS retracted, m.layer AS layer,
       CASE WHEN coalesce(m.label, "") <> "" THEN m.label ELSE left(m.content, 80) END AS memory, m.retraction AS why, m.id AS id
ORDER BY m.retracted_at DESC
LIMIT $limit
