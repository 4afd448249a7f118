// The activation paths of one recall: its seeds, the memories activation reached, and each edge it took.
// hippograph writes this query with its :param lines filled in: RecallResult.browser_query(). Memories
// reached through a shared session or cue have no memory edge to show; they appear on their own.
:param seeds => [];
:param reached => [];
:param sources => [];
:param targets => [];
:param relationships => [];
MATCH (m:Memory) WHERE m.id IN $seeds OR m.id IN $reached
RETURN m AS source, null AS step, m AS target
UNION
UNWIND range(0, size($sources) - 1) AS i
MATCH (a:Memory {id: $sources[i]})-[r]-(b:Memory {id: $targets[i]}) USING INDEX SEEK a:Memory(id) USING INDEX SEEK b:Memory(id)
WHERE type(r) = $relationships[i]
RETURN a AS source, r AS step, b AS target
