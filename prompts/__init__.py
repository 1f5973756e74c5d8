"""Prompt and in-context example files, shipped with the package (read through
``convkgyarn.resources``). Their content hash is part of every LLM cache key."""
