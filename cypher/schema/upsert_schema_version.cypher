// transaction: write
MERGE (v:HippographSchema {id: 'hippograph'})
SET v.version = $version, v.applied_at = $now, v.steps = $steps
RETURN v.version AS version
