// transaction: read
// Phase 12 — procedural_promotion, the read: episodic events (not turns, not summaries) of the
// subtree from the last $window seconds, grouped by scope and normalised action label
// (lower-cased, $separators as spaces, number-only words dropped). An action seen at least
// $min_occurrences times, and not yet a skill visible from that scope under the same
// normalised label (draft, approved, rejected or authored), is a candidate. Ordinary chat
// turns are not actions, the agent's tool calls in them are (`action` events PART_OF the turn).
// With each candidate, the embeddings of its (≤ 20 latest) events, for the similarity check,
// and the properties (JSON) of its 5 latest (an action event's `steps`: the calls it made).
CYPHER replan=skip
MATCH (e:Memory:Episodic)
WHERE e.scope_key STARTS WITH $scope_key AND e.layer = 'episodic'  // the (scope_key, layer) index
  AND (e.scope_key = $scope_key OR e.scope_key STARTS WITH $subtree_prefix)
  AND NOT coalesce(e.retracted, false)
  AND NOT e.label STARTS WITH 'META:'
  AND NOT coalesce(e.properties, '') CONTAINS '"kind": "turn"'
  AND coalesce(e.occurred_at, e.created_at) >= $now - $window
WITH e, [w IN split(reduce(s = toLower(coalesce(e.label, '')), c IN $separators | replace(s, c, ' ')), ' ')
         WHERE w <> '' AND NOT w =~ '[0-9]+'] AS words
WITH e, reduce(acc = '', w IN words | CASE WHEN acc = '' THEN w ELSE acc + ' ' + w END) AS action
WHERE size(action) >= $min_chars
WITH e, action ORDER BY coalesce(e.occurred_at, e.created_at) DESC, e.id
WITH e.scope_key AS scope_key, action, collect(e) AS events
WHERE size(events) >= $min_occurrences
  AND NOT EXISTS {
    MATCH (p:Memory:Procedural)
    WHERE p.scope_key STARTS WITH split(scope_key, '/')[0]
      AND (p.scope_key = scope_key OR scope_key STARTS WITH p.scope_key + '/')
    WITH p, toLower(CASE WHEN toLower(p.label) STARTS WITH 'authored:' THEN substring(p.label, 9)
                         ELSE p.label END) AS plabel
    WITH p, [w IN split(reduce(s = plabel, c IN $separators | replace(s, c, ' ')), ' ')
             WHERE w <> '' AND NOT w =~ '[0-9]+'] AS pwords
    WITH reduce(acc = '', w IN pwords | CASE WHEN acc = '' THEN w ELSE acc + ' ' + w END) AS paction
    WHERE paction = action
  }
RETURN scope_key, action, size(events) AS occurrences,
       [x IN events[..20] | x.id] AS evidence_ids,
       [x IN events[..20] WHERE x.embedding IS NOT NULL | x.embedding] AS vectors,
       [x IN events[..5] | coalesce(x.content, x.label)] AS examples,
       [x IN events[..5] | x.properties] AS example_properties,
       [x IN events | coalesce(x.occurred_at, x.created_at)][-1] AS first_at,
       [x IN events | coalesce(x.occurred_at, x.created_at)][0] AS last_at
ORDER BY occurrences DESC, last_at DESC, scope_key, action
LIMIT $max_per_run
