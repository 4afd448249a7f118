// Test-only: back to the schema before the cue uniqueness constraint (migrate() restores it).
DROP CONSTRAINT cue_key IF EXISTS
