// The activation paths of one recall: its seeds, the memories activation reached, and each edge it took.
// hippograph writes this query with its :param lines filled in: RecallResult.browser_query(). Memories
// reached through a shared session or cue have no memory edge to show; they appear on their own.
// Scopes under erasure (at or below an (:Erasure) marker) show nothing, as in hippograph's own reads.
:param seeds => [];
:param reached => [];
:param sources => [];
:param targets => [];
:param relationships => [];
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
MATCH (m:Memory) WHERE m.id IN $seeds OR m.id IN $reached
WITH m, erasing WHERE none(gone IN erasing WHERE m.scope_key = gone OR m.scope_key STARTS WITH gone + '/')
RETURN m AS source, null AS step, m AS target
UNION
WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
UNWIND range(0, size($sources) - 1) AS i
MATCH (a:Memory {id: $sources[i]})-[r]-(b:Memory {id: $targets[i]}) USING INDEX SEEK a:Memory(id) USING INDEX SEEK b:Memory(id)
WHERE type(r) = $relationships[i]
  AND none(gone IN erasing WHERE a.scope_key = gone OR a.scope_key STARTS WITH gone + '/')
  AND none(gone IN erasing WHERE b.scope_key = gone OR b.scope_key STARTS WITH gone + '/')
RETURN a AS source, r AS step, b AS target
