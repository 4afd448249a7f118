// Test-only: the plain lookup index cues had before their uniqueness constraint.
CREATE INDEX cue_scope_kind_key IF NOT EXISTS FOR (c:Cue) ON (c.scope_key, c.kind, c.key)
