// The keys the recall may read: $visible (the scope's ancestor keys; '' entries are padding)
// less those at or below an (:Erasure) marker, whose erase has started; and whether any of them
// holds a key ((:Key)-[:KEY_OF]->(:Memory)): one index seek, so a recall over scopes without
// keys searches no key index.
// in:
// out: visible, keyed
CALL () {
  WITH COLLECT { MATCH (e:Erasure) RETURN e.key } AS erasing
  WITH [sk IN $visible WHERE sk <> '' AND none(gone IN erasing WHERE sk = gone OR sk STARTS WITH gone + '/')] AS visible
  RETURN visible, EXISTS { MATCH (k:Key) USING INDEX SEEK k:Key(scope_key) WHERE k.scope_key IN visible } AS keyed
}
