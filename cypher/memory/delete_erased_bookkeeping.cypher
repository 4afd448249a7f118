// transaction: write
// Erase, step 2c: the ancestors' bookkeeping that names the erased subtree ($scope_key and
// below) or one of its memories: audit entries about them, pending links to them, and a
// consolidation lease's merge watermark pointing at one (reset to the start of its second).
// Runs before the memories are deleted, while their ids can still be told apart.
CALL () {
  MATCH (a:AuditEntry)
  WHERE a.scope_key IN $ancestor_keys
    AND (EXISTS { MATCH (e:Memory {id: a.target}) USING INDEX SEEK e:Memory(id)
                  WHERE e.scope_key = $scope_key OR e.scope_key STARTS WITH $subtree_prefix }
         OR coalesce(a.detail, '') CONTAINS ('"' + $scope_key + '"')
         OR coalesce(a.detail, '') CONTAINS ('"' + $subtree_prefix))
  DETACH DELETE a
  RETURN count(*) AS audit
}
CALL () {
  MATCH (p:PendingLink)
  WHERE p.scope_key IN $ancestor_keys
    AND EXISTS { MATCH (e:Memory) WHERE e.id IN [p.source, p.target]
                 AND (e.scope_key = $scope_key OR e.scope_key STARTS WITH $subtree_prefix) }
  DETACH DELETE p
  RETURN count(*) AS pending
}
CALL () {
  MATCH (l:ConsolidationLease)
  WHERE l.scope_key IN $ancestor_keys AND l.merge_watermark_id IS NOT NULL
    AND EXISTS { MATCH (e:Memory {id: l.merge_watermark_id}) USING INDEX SEEK e:Memory(id)
                 WHERE e.scope_key = $scope_key OR e.scope_key STARTS WITH $subtree_prefix }
  SET l.merge_watermark_id = ''
  RETURN count(*) AS watermarks
}
RETURN audit, pending, watermarks
