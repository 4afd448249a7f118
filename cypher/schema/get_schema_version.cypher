// transaction: read
OPTIONAL MATCH (v:HippographSchema {id: 'hippograph'})
RETURN v.version AS version
