CREATE INDEX cue_scope_kind_key IF NOT EXISTS FOR (c:Cue) ON (c.scope_key, c.kind, c.key)
