"""Knowledge-graph ingest: Wikidata dumps into DuckDB."""
