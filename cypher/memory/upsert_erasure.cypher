// transaction: write
// Erase, step 1 (one small transaction): the tombstone. An (:Erasure {key}) marker records that
// an erase of $scope_key is under way (a crashed erase is resumed by erasing again) and how
// many memories it started with; every read leaves out the scopes at or below a marker from
// this commit on. The subtree's Scope nodes get `erasing` too, for people looking in Browser.
// No marker and no rows when the scope does not exist.
MATCH (root:Scope {key: $scope_key})
OPTIONAL MATCH (root)<-[:PARENT*0..]-(d:Scope)
WITH root, collect(DISTINCT d) AS scopes
FOREACH (d IN scopes | SET d.erasing = true)
WITH root, COUNT { (root)<-[:PARENT*0..]-(:Scope)<-[:IN_SCOPE]-(:Memory) } AS memories
MERGE (e:Erasure {key: $scope_key})
  ON CREATE SET e.started_at = $now, e.memories = memories
RETURN e.memories AS memories, e.started_at AS started_at
