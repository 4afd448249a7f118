// transaction: autocommit
// The plain lookup index over (scope_key, kind, key) gives way to the cue_key constraint, whose
// own index has the same properties (Neo4j allows one index per schema).
DROP INDEX cue_scope_kind_key IF EXISTS
