// transaction: write
// Erase, step 3: at most $batch of the nodes hanging off the subtree's scopes (memories with
// their edges and cue links, cues, pending links, leases, runs, audit entries) in one
// transaction; the caller repeats until nothing is left, so no transaction outgrows the
// memory pool and a crash loses at most one batch of progress. Returns what it deleted.
MATCH (:Scope {key: $scope_key})<-[:PARENT*0..]-(:Scope)<-[:IN_SCOPE|RAN_IN]-(x)
WITH DISTINCT x LIMIT $batch
WITH collect(x) AS xs
WITH xs, size([x IN xs WHERE x:Memory]) AS memories
FOREACH (x IN xs | DETACH DELETE x)
RETURN size(xs) AS deleted, memories
