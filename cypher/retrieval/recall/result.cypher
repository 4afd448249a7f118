// The statement's one row: the visible keys, population, the channels' hits, the named persons,
// the edge arrivals with their paths, whether the node cap cut the spread, the session
// representatives, the session and cue arrivals the result reads and how many association
// arrivals there were, and the memories that may rank.
// in: visible, population, vector_hits, fulltext_hits, named, edges, capped_edges, reps, associations, arrivals, nodes
// out:
RETURN visible, population, vector_hits, fulltext_hits, named, edges, capped_edges, reps, associations, arrivals, nodes
