// One scope node by key.
MATCH (s:Scope {key: $key})
RETURN s {.key, .kind, .id, .depth} AS scope
