// transaction: read
// Phase 4 — meta_nodes, the read: semantic memories of the subtree grouped by scope and label
// prefix (the text before ':' or else the first word, lower-cased). META:, SOUL: and
// AGENT_IDENTITY memories are never clustered. Groups of at least $min_cluster are returned
// with up to $max_edges member ids, most important first.
CYPHER replan=skip
MATCH (m:Memory:Semantic)
WHERE m.scope_key STARTS WITH $scope_key AND m.layer = 'semantic'  // the (scope_key, layer) index
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND NOT coalesce(m.retracted, false)
  AND NOT m.label STARTS WITH 'META:' AND NOT m.label STARTS WITH 'SOUL:'
  AND NOT m.label STARTS WITH 'AGENT_IDENTITY'
WITH m, toLower(trim(CASE WHEN m.label CONTAINS ':' THEN split(m.label, ':')[0]
                          ELSE split(trim(m.label), ' ')[0] END)) AS prefix
WHERE size(prefix) >= $min_prefix_length AND NOT prefix IN $stopwords
WITH m.scope_key AS scope_key, prefix, m
ORDER BY m.importance DESC, m.id
WITH scope_key, prefix, collect(m) AS members
WHERE size(members) >= $min_cluster
RETURN scope_key, prefix, size(members) AS size,
       [x IN members[..$max_edges] | x.id] AS member_ids,
       [x IN members[..5] | x.label] AS sample_labels
ORDER BY scope_key, prefix
