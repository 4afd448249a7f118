// transaction: write
// A re-embedding's state, so that running it again resumes: the target embedder, the phase
// (vectors, copy, cleanup) and the last memory id done in it. All null: none under way.
MERGE (v:HippographSchema {id: 'hippograph'})
SET v.reembed_model = $model, v.reembed_dimensions = $dimensions, v.reembed_similarity = $similarity,
    v.reembed_phase = $phase, v.reembed_cursor = $cursor
RETURN v.reembed_phase AS phase
