"""Assemble conversations: small steps over typed records.

    stage.py       the Stage: subjects in their seeded order, batch by batch, staged rows,
                   one transaction that makes the run current; the run id
    view.py        the KG one batch sees: facts, templates, lookups (queries, not KG-wide sets)
    facts.py       rules over facts: which statements answer, tense, sayable values
    planner.py     which facts, in which order, about which entities (blocks, hops, refill)
    realiser.py    answers (facts, counts, yes/no, "before") and questions from templates
    transforms.py  one Turn -> Turn step per phenomenon: deixis, disfluency, ellipsis,
                   typos, transitions
    wording.py     the English assembly adds: names, pronouns, articles, transitions
    records.py     the frozen records passed between the steps
    identity.py    the code a run id covers: the package's import closure
"""

from convkgyarn.stages.assemble.stage import AssembleConversations

__all__ = ["AssembleConversations"]
