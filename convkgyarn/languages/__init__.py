"""Languages of the rules path (issue #35): the same plan over the same facts, said in
German, Japanese and Chinese (English keeps its own code path; ``en`` adapts it where that
is cheap). Each language is one ``Language`` (``base.py``) with:

- ``render(value, label, year_only=)``: a value as the language writes it (Babel/CLDR
  dates, numbers, units, currencies; ``values.py``, ``units.py``), None when it cannot be
  said in it; ``asks_year(question)`` and ``year_question_fits(value)``; ``join(items)``.
- ``templates(property_id, qualifier_id, tense, interaction, subject_kind)``: the rules
  writer, ``{phenomenon: [variants]}`` or None when the property is not phrased.
- ``fill(template, subject, reference=None, value=None) -> Filled``: a stored template
  filled for a ``Subject`` named (``reference=None``) or referred to (``"pronoun"``,
  ``"noun"``, ``"zero"``; ``default_reference(subject)`` says which a native speaker
  uses), with the statement's value for ``[a]``. ``Filled.protected`` holds the spans of
  names and values, which ``typo`` never touches.
- ``disfluent``, ``with_transition``, ``typo(text, rng, protected) -> (text, Edit)``.
- ``validate(template, phenomenon, interaction, qualified) -> reason | None``: whether a
  template written elsewhere (an LLM's, ``stages.localise``) can be stored (``checks.py``):
  only this language's placeholders (``slot_of``), in the forms the interaction takes;
  never the answer (``[a]`` without a qualifier, ``[b]``); the subject in original and
  disfluent questions (or, for a qualifier question, the statement's value ``[a]``), a
  form that refers back in deixis questions (a typed follow-up may leave the subject out in
  Japanese and Chinese, and of a qualifier in any language), the subject only as an owner
  in elliptic ones, which are short; a filler, repair or restart in disfluent ones; the
  language's script; and it fills without error for a subject named and as each
  reference. Every rules template passes the same checks.
- ``follow_ups(kind, key, interaction, tense, refer_back=False, subject_kind="other")``
  (and ``follow_up``, the first or None): the follow-ups that build on the answer, the
  kinds of ``stages.kinds`` (see below); ``yes_no(answer)`` answers a yes/no one.

Follow-ups that build on the answer
-----------------------------------
``kind`` is one of ``FOLLOW_UP_KINDS``, keyed as the English tables key them: also (first
property, second property): "Ist er auch Regierungschef?"; before, count, list, verify:
the property; span: "age", "existence" or ("term", property); pair: (property, property
before): "Wo war das?"; where_in: (property, "P17"): "Wo in Polen liegt Targówek?". Every
key of the English tables has spoken forms in both tenses, named and referring back; typed
forms exist wherever the English types (not for list, pair, where_in, which it asks only
aloud: those give none). ``subject_kind`` picks a kind's own wording (a city's head of
government is its mayor: "Bürgermeister", "市長", "市长"). English gives none here: its
forms are ``stages.kinds``, a layer above.

Filling: ``value=`` is the ``Subject`` of the value the form is about (the later holder of
a before question, the person or place an "also" question asks about, the candidate of a
verify question, the country of a where_in question), with ``human``/``gender``/``kind``
so that a language can refer to it. ``[a]`` names it (declined in German); ``[v]`` refers
back to it as the value the turn before named: a person by he/she (named when the gender
is unknown), a place or institution by "dort"/"そこ"/"那里". Named forms take the subject
named or referred to, as originals and deixis do; ``refer_back=True`` forms lean on the
turn before ("da", "davor", "その前", "那时") and are filled with a reference (the caller
names the value instead when its pronoun would be the subject's). Typed forms with
``refer_back=False`` name the subject (fill them named); with ``refer_back=True`` they leave
it out. A count or a span is answered with the bare number (``render(Value("quantity",
"56"))``: the question says "Wie viele Jahre", "何年間", "多少年"; "56年" alone would read as
the year 56); ``yes_no``: "ja"/"nein", "はい"/"いいえ", "是的"/"不是" (every Chinese yes/no
form asks with 是, so 是的/不是 is the echo a speaker answers with).

Placeholders of stored templates
--------------------------------
Original and deixis templates share them; the phenomenon says whether the caller fills
the subject as named (original) or as a reference (deixis). ``{ist|war}`` in the
lexicons is a present | past alternation, resolved when templates are written.

German (``de``)::

    [S:nom] [S:akk] [S:dat] [S:gen]   the subject in a case ("die Schweiz", "der Schweiz";
                                      "er"/"ihn"/"ihm"; "das Land"/"dem Land")
    [S:kw]                            the bare label, for typed keyword queries
    [S's:G.C:Noun]                    Noun (gender G in m f n pl, case C in nom akk dat)
                                      possessed by the subject: "die Hauptstadt der
                                      Schweiz", "die Hauptstadt von Chile", "ihre
                                      Hauptstadt", "die Hauptstadt des Landes"
    [in:S] [von:S] [zu:S] [an:S] ...  the subject after a dative preposition, contracted
                                      ("im Vereinigten Königreich", "zur ..."; "dort")
    [a:nom] [a:akk] [mit:a] ...       the statement's value, declined the same way
    [a]                               the value as it is (a number; a typed query)
    [v:nom] [v:akk] [v:dat]           the value referred back to: "er", "ihn", "ihr";
                                      a person of unknown gender named
    [in:v] [an:v] [bei:v] ...         the value after a preposition: "dort" for a thing,
                                      "bei ihm" for a person
    [role:Noun] [role:Noun:S]         a role the value holds, feminine for a woman
                                      ("Regierungschefin", "Vorsitzende"), with the
                                      subject as owner ("Regierungschefin von Brasilien")

A thing after a preposition referred to is "dort" ("Wie viele Leute studieren dort?"),
or for a work or an event a pronominal adverb ("Wer spielt darin mit?", "das Drehbuch
dazu"), never "in ihm".

Japanese (``ja``)::

    [S:は] [S:が] [S:の] [S:を] [S:に] [S:で] [S:と]
                                      the subject with its particle; a zero reference
                                      drops both ("首都はどこですか？"); "その国の", "彼女は"
    [S]                               the subject without a particle (typed queries)
    [a] [a:と] [a:を] ...              the statement's value, with its particle
    [v] [v:が] [v:で] ...              the value referred back to: "彼が", "彼女の";
                                      "そこで" for a place or an institution

Chinese (``zh``)::

    [S]                               the subject: "德国", "他"/"她"/"它", "这个国家"
                                      (with its measure word); nothing for a zero reference
    [S的]                             the subject as owner: "德国的", "她的", "这座城市的";
                                      nothing for a zero reference
    [a]                               the statement's value
    [v]                               the value referred back to: "他", "她"; "那里" for
                                      a place or an institution (after 在)

English (``en``, adapter only): ``[type]`` the name, ``[he] [him] [his]`` references,
``[a]`` the value, as ``stages.rules_writer`` writes them.
"""

from __future__ import annotations

from functools import cache

from convkgyarn.languages.base import (  # noqa: F401
    FOLLOW_UP_KINDS,
    Edit,
    Filled,
    FollowUpForms,
    Language,
    Subject,
)

CODES = ("en", "de", "ja", "zh")


@cache
def language(code: str) -> Language:
    """The language for a BCP-47 code (en, de, ja, zh); ValueError for any other."""
    if code == "en":
        from convkgyarn.languages.en import English
        return English()
    if code == "de":
        from convkgyarn.languages.de import German
        return German()
    if code == "ja":
        from convkgyarn.languages.ja import Japanese
        return Japanese()
    if code == "zh":
        from convkgyarn.languages.zh import Chinese
        return Chinese()
    raise ValueError(f"no language {code!r}: the rules path has {', '.join(CODES)}")
