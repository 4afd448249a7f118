// transaction: autocommit
// Schema step 6: keys by scope key (the exact scan of the key vector channel on Neo4j 5.26).
CREATE INDEX key_scope_key IF NOT EXISTS FOR (k:Key) ON (k.scope_key)
