// A second Cue node beside the first cue of the scope that two or more memories share, with
// the same (scope_key, kind, key, name), holding half of those memories' HAS_CUE links: the
// state two writers merging one new cue at once could leave before cues were unique.
// $scope_key: the scope whose cue is split. Returns the split cue's kind and key (no row:
// no cue of the scope has two memories).
MATCH (c:Cue {scope_key: $scope_key})<-[:HAS_CUE]-(:Memory)
WITH c, count(*) AS members
WHERE members >= 2
WITH c ORDER BY c.kind, c.key LIMIT 1
MATCH (c)-[:IN_SCOPE]->(s:Scope)
MATCH (c)<-[h:HAS_CUE]-(:Memory)
WITH c, s, collect(h) AS links
CREATE (d:Cue)
SET d = properties(c)
CREATE (d)-[:IN_SCOPE]->(s)
WITH c, d, links[..size(links) / 2] AS moved
UNWIND moved AS h
WITH c, d, h, startNode(h) AS m
DELETE h
CREATE (m)-[:HAS_CUE]->(d)
RETURN c.kind AS kind, c.key AS key, count(*) AS moved
