// transaction: read
// Phase 10 — episodic_summary, the read: per scope of the subtree holding more than
// $max_events episodic events (summaries excluded), the oldest events in chunks of $fold_size,
// as many chunks as it takes to get back to $max_events or fewer (at most $max_folds chunks),
// with the scope's latest summary so far (the new ones chain to it).
CYPHER replan=skip
MATCH (e:Memory:Episodic)
WHERE e.scope_key STARTS WITH $scope_key AND e.layer = 'episodic'  // the (scope_key, layer) index
  AND (e.scope_key = $scope_key OR e.scope_key STARTS WITH $subtree_prefix)
  AND NOT coalesce(e.retracted, false)
WITH e, e.label = 'META:episodic_summary' AS summary
WHERE summary OR NOT e.label STARTS WITH 'META:'
WITH e, summary ORDER BY coalesce(e.occurred_at, e.created_at), e.id
WITH e.scope_key AS scope_key,
     collect(CASE WHEN summary THEN NULL ELSE e END) AS events,
     collect(CASE WHEN summary THEN e.id END) AS summaries
WHERE size(events) > $max_events
WITH scope_key, events, summaries[-1] AS previous,
     toInteger(ceil(toFloat(size(events) - $max_events) / $fold_size)) AS folds
UNWIND range(0, CASE WHEN folds > $max_folds THEN $max_folds ELSE folds END - 1) AS f
WITH scope_key, previous, f, events[f * $fold_size .. (f + 1) * $fold_size] AS chunk
RETURN scope_key, previous, f AS fold,
       [x IN chunk | {id: x.id, label: x.label, content: x.content,
                      at: coalesce(x.occurred_at, x.created_at)}] AS events
ORDER BY scope_key, fold
LIMIT $max_folds
