"""convkgyarn: configurable conversational KGQA datasets from Wikidata (ConvKGYarn)."""

__version__ = "0.1.0"
