"""Neural re-rankers in torch (extra ``neural``): DRMM and MatchPyramid over frozen word embeddings."""
