"""Rankers to audit: lexical (BM25, QLM, tf-idf through pyserini/Lucene) and embedding averages (add, si)."""
