"""convkgyarn: configurable conversational KGQA datasets from Wikidata (ConvKGYarn).

The library entry point is ``convkgyarn.Project`` (see ``convkgyarn.project``); the
``convkgyarn`` command is a thin layer over it.
"""

__version__ = "0.8.29"
__all__ = ["Project", "__version__", "load_project_config"]


def __getattr__(name: str):
    # lazy: parser worker processes import the package without the whole pipeline
    if name == "Project":
        from convkgyarn.project import Project

        return Project
    if name == "load_project_config":
        from convkgyarn.config import load_project_config

        return load_project_config
    raise AttributeError(f"module 'convkgyarn' has no attribute {name!r}")
