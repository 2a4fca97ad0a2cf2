"""Where papers live: the SQLite catalog, the Chroma vectors, the BM25 keyword index, the embedder."""
