"""Curated question patterns for the rules writer, in our own words.

Patterns name the subject with ``{S}`` (subject position), ``{S's}`` (possessive) and
``{S:o}`` (object position). Original questions render these as the type placeholder
(``[actor]``, ``[actor]'s``); deixis questions as ``[he]``, ``[his]``, ``[him]``, which are
filled with a pronoun or "this film"-style phrase when a conversation is assembled.
``[a]`` is the fact's value in qualifier questions, whose answer is ``[b]``.

The tables live in four modules (voice, text, details, sentences); this package holds them
under one name, as the rules writer, kinds and assembly read them.
"""

from __future__ import annotations

from convkgyarn.stages.lexicon.voice import (  # noqa: F401
    VOICE, VOICE_BY_KIND)
from convkgyarn.stages.lexicon.text import (  # noqa: F401
    TEXT, TEXT_NOUNS)
from convkgyarn.stages.lexicon.details import (  # noqa: F401
    ELLIPSIS_NOUNS, ELLIPSIS_OF_STATEMENT, ELLIPSIS_QUALIFIED, ELLIPSIS_QUALIFIED_PRESENT,
    TEXT_QUALIFIED, THING_REFERENCES, VOICE_QUALIFIED, anaphoric_forms)
from convkgyarn.stages.lexicon.sentences import (  # noqa: F401
    SENTENCES, SENTENCE_NOUNS)
