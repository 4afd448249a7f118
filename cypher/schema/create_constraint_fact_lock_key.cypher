// transaction: autocommit
// One lock node per (scope, fact key): semantic writes MERGE and lock it inside their
// transaction, so concurrent writers of one key (or of one scope's dedup) queue in the database.
CREATE CONSTRAINT fact_lock_key IF NOT EXISTS FOR (l:FactLock) REQUIRE (l.scope_key, l.key) IS UNIQUE
