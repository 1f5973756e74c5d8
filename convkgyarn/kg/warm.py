"""Imported once by the parse workers' fork server, so every worker starts warm: the worker
code and Arrow (whose first conversion imports pandas) are loaded before any worker forks."""

import pyarrow as pa

import convkgyarn.kg.worker  # noqa: F401 - the worker's code
from convkgyarn.kg.extract import TABLES, schema_of

pa.array(["warm"], type=pa.string())
for _table in TABLES:
    schema_of(_table)
