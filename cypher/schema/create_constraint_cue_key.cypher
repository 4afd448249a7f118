// transaction: autocommit
// One Cue node per (scope, kind, key): writers MERGE cues on all three properties, so under this
// constraint two concurrent writers of a new cue meet on one node (the second waits on the
// first's lock) instead of creating two. Its backing index serves recall's cue seeks.
CREATE CONSTRAINT cue_key IF NOT EXISTS FOR (c:Cue) REQUIRE (c.scope_key, c.kind, c.key) IS UNIQUE
