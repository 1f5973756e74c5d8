"""The bundled Wikidata sample, shipped with the package (``convkgyarn.resources``).

``build_sample.py`` writes ``sample-dump.json`` from fact tables we wrote ourselves."""
