// The persons the query names ($keys, casefolded; '' entries are padding) that the visible
// scopes know as person cues (read only when the query names someone).
// part: people
// in: visible
// out: named = []
CALL (visible) {
  OPTIONAL MATCH (c:Cue) USING INDEX SEEK c:Cue(scope_key, kind, key)
  WHERE any(nk IN $keys WHERE nk <> '') AND c.scope_key IN visible AND c.kind = 'person'
    AND c.key IN $keys AND c.key <> ''
  RETURN collect(DISTINCT c.key) AS named
}
