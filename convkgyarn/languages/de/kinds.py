"""German follow-ups that build on the answer (the English ``stages.kinds`` tables), in our
own words. Keys as there; ``F(spoken, back, typed, typed_back)``: spoken forms naming the
value ``[a]``, spoken forms referring back (``[v:nom]`` "er"/"sie", ``[in:v]`` "dort",
"davor", "da"), typed queries naming the subject, typed queries leaving it out.

Two choices of wording: a role that names its later holder is said without the holder's
gender ("Wer war vor Angela Merkel Regierungschef?" asks for a predecessor of any gender,
so ``before`` uses ``[S's:m.kw:...]`` or a verb, which no woman named turns feminine);
a role the named value holds agrees with it ("Ist sie auch Regierungschefin?",
``[role:Regierungschef]``).
"""

from __future__ import annotations

from convkgyarn.languages.base import FollowUpForms as F

# -- also: (property just asked, property asked about its value) ---------------------------
def _also(spoken: str, back: str, typed: str, typed_back: str) -> F:
    return F((spoken,), (back,), (typed,), (typed_back,))


def _also_role(spoken: str, back: str, role: str, of: str | None = None) -> F:
    """Typed: "[a] auch Drehbuchautorin von Titanic?", the role agreeing with [a]."""
    typed = f"[a] auch [role:{role}] {of}?" if of else f"[a] auch [role:{role}:S]?"
    return _also(spoken, back, typed, f"[a] auch [role:{role}]?")


ALSO: dict[tuple[str, str], F] = {
    ("P57", "P58"): _also_role("Hat [a:nom] auch das Drehbuch [zu:S] geschrieben?",
                               "Hat [v:nom] auch das Drehbuch geschrieben?", "Drehbuchautor"),
    ("P57", "P162"): _also_role("Hat [a:nom] [S:akk] auch produziert?",
                                "Hat [v:nom] [S:akk] auch produziert?", "Produzent"),
    ("P57", "P161"): _also_role("Hat [a:nom] [in:S] auch selbst mitgespielt?",
                                "Hat [v:nom] auch selbst mitgespielt?", "Darsteller", "[in:S]"),
    ("P58", "P57"): _also_role("Hat [a:nom] [bei:S] auch Regie geführt?",
                               "Hat [v:nom] auch Regie geführt?", "Regisseur"),
    ("P175", "P86"): _also_role("Hat [a:nom] die Musik [zu:S] auch selbst geschrieben?",
                                "Hat [v:nom] die Musik auch selbst geschrieben?", "Komponist"),
    ("P175", "P676"): _also_role("Hat [a:nom] den Text [zu:S] auch selbst geschrieben?",
                                 "Hat [v:nom] den Text auch selbst geschrieben?", "Texter"),
    ("P86", "P676"): _also_role("Hat [a:nom] auch den Text [zu:S] geschrieben?",
                                "Hat [v:nom] auch den Text geschrieben?", "Texter"),
    ("P86", "P175"): _also_role("Hat [a:nom] [S:akk] auch selbst gesungen?",
                                "Hat [v:nom] [S:akk] auch selbst gesungen?", "Interpret"),
    ("P50", "P110"): _also_role("Hat [a:nom] [S:akk] auch illustriert?",
                                "Hat [v:nom] [S:akk] auch selbst illustriert?", "Illustrator"),
    ("P112", "P169"): _also_role("{Ist|War} [a:nom] auch [S's:m.nom:Geschäftsführer]?",
                                 "{Ist|War} [v:nom] auch [role:Geschäftsführer]?",
                                 "Geschäftsführer"),
    ("P112", "P488"): _also_role("{Hat|Hatte} [a:nom] [bei:S] auch den Vorsitz?",
                                 "{Hat|Hatte} [v:nom] auch den Vorsitz?", "Vorsitzender"),
    ("P35", "P6"): _also_role("{Ist|War} [a:nom] auch [S's:m.nom:Regierungschef]?",
                              "{Ist|War} [v:nom] auch [role:Regierungschef]?", "Regierungschef"),
    ("P6", "P35"): _also_role("{Ist|War} [a:nom] auch [S's:n.nom:Staatsoberhaupt]?",
                              "{Ist|War} [v:nom] auch Staatsoberhaupt?", "Staatsoberhaupt"),
    # the value is a place or an institution: "dort"
    ("P19", "P20"): _also("Ist [S:nom] auch [in:a] gestorben?",
                          "Ist [S:nom] auch [in:v] gestorben?",
                          "[S:kw] auch [in:a] gestorben?", "auch [in:a] gestorben?"),
    ("P69", "P108"): _also("Hat [S:nom] auch [an:a] gearbeitet?",
                           "Hat [S:nom] [an:v] auch gearbeitet?",
                           "[S:kw] auch [an:a] gearbeitet?", "auch [an:a] gearbeitet?"),
    ("P108", "P69"): _also("Hat [S:nom] auch [an:a] studiert?",
                           "Hat [S:nom] [an:v] auch studiert?",
                           "[S:kw] auch [an:a] studiert?", "auch [an:a] studiert?"),
    ("P1411", "P166"): _also("Hat [S:nom] [a:akk] am Ende gewonnen?",
                             "Hat [S:nom] [v:akk] am Ende gewonnen?",
                             "[S:kw] [a] am Ende gewonnen?", "[a] am Ende gewonnen?"),
}
# a city's head of government is its mayor
ALSO_BY_KIND: dict[tuple[tuple[str, str], str], F] = {
    (("P35", "P6"), "city"): _also_role("{Ist|War} [a:nom] auch [S's:m.nom:Bürgermeister]?",
                                        "{Ist|War} [v:nom] auch [role:Bürgermeister]?",
                                        "Bürgermeister"),
    (("P6", "P35"), "city"): _also_role("{Ist|War} [a:nom] auch [S's:n.nom:Stadtoberhaupt]?",
                                        "{Ist|War} [v:nom] auch Stadtoberhaupt?",
                                        "Stadtoberhaupt"),
}

# -- before: who held it before [a] (the later holder); past in either tense ----------------
_BACK_OFFICE = ("Und wer war vor [v:dat] im Amt?", "Wer war denn vor [v:dat] im Amt?")
BEFORE: dict[str, F] = {
    "P6": F(("Wer führte vor [a:dat] [S's:f.akk:Regierung]?",
             "Wer war vor [a:dat] [S's:m.kw:Regierungschef]?"), _BACK_OFFICE,
            ("[S:kw] Regierungschef vor [a]",), ("Regierungschef vor [a]",)),
    "P35": F(("Wer war vor [a:dat] [S's:n.kw:Staatsoberhaupt]?",), _BACK_OFFICE,
             ("[S:kw] Staatsoberhaupt vor [a]",), ("Staatsoberhaupt vor [a]",)),
    "P26": F(("Mit wem war [S:nom] vor [a:dat] verheiratet?",),
             ("Mit wem war [S:nom] vor [v:dat] verheiratet?",),
             ("[S:kw] Ehepartner vor [a]",), ("Ehepartner vor [a]",)),
    "P54": F(("Für welchen Verein hat [S:nom] vor [a:dat] gespielt?",),
             ("Und für welchen Verein hat [S:nom] davor gespielt?",),
             ("[S:kw] Verein vor [a]",), ("Verein vor [a]",)),
    "P108": F(("Für wen hat [S:nom] vor [a:dat] gearbeitet?",),
              ("Und für wen hat [S:nom] davor gearbeitet?",),
              ("[S:kw] Arbeitgeber vor [a]",), ("Arbeitgeber vor [a]",)),
    "P286": F(("Wer war vor [a:dat] [S's:m.kw:Cheftrainer]?",),
              ("Und wer war vor [v:dat] Trainer?",),
              ("[S:kw] Trainer vor [a]",), ("Trainer vor [a]",)),
    "P488": F(("Wer leitete [S:akk] vor [a:dat]?",),
              ("Und wer hatte vor [v:dat] den Vorsitz?",),
              ("[S:kw] Vorsitz vor [a]",), ("Vorsitz vor [a]",)),
    "P169": F(("Wer leitete [S:akk] vor [a:dat]?",),
              ("Und wer war vor [v:dat] an der Spitze?",),
              ("[S:kw] Geschäftsführer vor [a]",), ("Geschäftsführer vor [a]",)),
    "P1037": F(("Wer leitete [S:akk] vor [a:dat]?",),
               ("Und wer war vor [v:dat] Direktor?",),
               ("[S:kw] Direktor vor [a]",), ("Direktor vor [a]",)),
}
BEFORE_BY_KIND: dict[tuple[str, str], F] = {
    ("P6", "city"): F(("Wer war vor [a:dat] [S's:m.kw:Bürgermeister]?",
                       "Wer regierte [S:akk] vor [a:dat]?"), _BACK_OFFICE,
                      ("[S:kw] Bürgermeister vor [a]",), ("Bürgermeister vor [a]",)),
    ("P488", "university"): F(("Wer war vor [a:dat] [S's:m.kw:Rektor]?",),
                              ("Und wer war vor [v:dat] Rektor?",),
                              ("[S:kw] Rektor vor [a]",), ("Rektor vor [a]",)),
}

# -- spans: how many years, answered with the bare number -----------------------------------
SPANS: dict[object, F] = {
    # after the question about the death: "da" is the date just named
    "age": F(("Wie alt ist [S:nom] geworden?",),
             ("Wie alt war [S:nom] da?", "Wie alt ist [S:nom] also geworden?"),
             ("[S:kw] Alter beim Tod",), ("Alter beim Tod",)),
    "existence": F(("Wie viele Jahre hat [S:nom] bestanden?",),
                   ("Wie viele Jahre hat [S:nom] also bestanden?",),
                   ("[S:kw] Dauer des Bestehens",), ("Dauer des Bestehens",)),
    ("term", "P6"): F(("Wie viele Jahre hat [a:nom] [S:akk] regiert?",),
                      ("Wie viele Jahre war [v:nom] also im Amt?",),
                      ("[S:kw] [a] Jahre im Amt",), ("[a] Jahre im Amt",)),
    ("term", "P35"): F(("Wie viele Jahre war [a:nom] [S's:n.kw:Staatsoberhaupt]?",),
                       ("Wie viele Jahre war [v:nom] also im Amt?",),
                       ("[S:kw] [a] Jahre im Amt",), ("[a] Jahre im Amt",)),
    ("term", "P39"): F(("Wie viele Jahre war [S:nom] [a:nom]?",),
                       ("Wie viele Jahre hatte [S:nom] dieses Amt inne?",),
                       ("[S:kw] Jahre als [a]",), ("Jahre als [a]",)),
    ("term", "P26"): F(("Wie viele Jahre war [S:nom] [mit:a] verheiratet?",),
                       ("Wie viele Jahre waren die beiden verheiratet?",),
                       ("[S:kw] [a] Jahre verheiratet",), ("Jahre verheiratet [mit:a]",)),
    ("term", "P54"): F(("Wie viele Jahre hat [S:nom] für [a:akk] gespielt?",),
                       ("Wie viele Jahre hat [S:nom] [bei:v] gespielt?",),
                       ("[S:kw] Jahre [bei:a]",), ("Jahre [bei:a]",)),
    ("term", "P108"): F(("Wie viele Jahre hat [S:nom] für [a:akk] gearbeitet?",),
                        ("Wie viele Jahre hat [S:nom] [bei:v] gearbeitet?",),
                        ("[S:kw] Jahre [bei:a]",), ("Jahre [bei:a]",)),
    ("term", "P69"): F(("Wie viele Jahre hat [S:nom] [an:a] studiert?",),
                       ("Wie viele Jahre hat [S:nom] [an:v] studiert?",),
                       ("[S:kw] Jahre [an:a]",), ("Jahre [an:a]",)),
    ("term", "P488"): F(("Wie viele Jahre hat [a:nom] [S:akk] geleitet?",),
                        ("Wie viele Jahre stand [v:nom] also an der Spitze?",),
                        ("[S:kw] [a] Jahre Vorsitz",), ("[a] Jahre Vorsitz",)),
}
SPANS_BY_KIND: dict[tuple[object, str], F] = {
    (("term", "P6"), "city"): F(("Wie viele Jahre war [a:nom] [S's:m.nom:Bürgermeister]?",),
                                ("Wie viele Jahre war [v:nom] also im Amt?",),
                                ("[S:kw] [a] Jahre im Amt",), ("[a] Jahre im Amt",)),
}

# -- count: how many; typed "Anzahl ..." --------------------------------------------------
def _count(question: str, noun: str) -> F:
    return F((question,), typed=(f"[S:kw] Anzahl {noun}",),
             typed_back=(f"und wie viele {noun}?",))


COUNT: dict[str, F] = {
    "P40": _count("Wie viele Kinder {hat|hatte} [S:nom]?", "Kinder"),
    "P3373": _count("Wie viele Geschwister {hat|hatte} [S:nom]?", "Geschwister"),
    "P26": _count("Wie oft war [S:nom] {schon |}verheiratet?", "Ehen"),
    "P166": _count("Wie viele Auszeichnungen hat [S:nom] {schon |}bekommen?",
                   "Auszeichnungen"),
    "P1411": _count("Wie viele Nominierungen hat [S:nom] {schon |}bekommen?", "Nominierungen"),
    "P800": _count("Wie viele bedeutende Werke hat [S:nom] geschaffen?", "Hauptwerke"),
    "P1412": _count("Wie viele Sprachen {spricht|sprach} [S:nom]?", "Sprachen"),
    "P161": _count("Wie viele Darsteller {hat|hatte} [S:nom]?", "Darsteller"),
    "P37": _count("Wie viele Amtssprachen {hat|hatte} [S:nom]?", "Amtssprachen"),
    "P47": _count("An wie viele Gebiete {grenzt|grenzte} [S:nom]?", "Nachbargebiete"),
}
COUNT_BY_KIND: dict[tuple[str, str], F] = {
    ("P47", "country"): _count("An wie viele Länder {grenzt|grenzte} [S:nom]?",
                               "Nachbarländer"),
    ("P47", "city"): _count("An wie viele Orte {grenzt|grenzte} [S:nom]?", "Nachbarorte"),
}

# -- the list after its count ("Zwei." "Wie heißen sie?"); spoken only, as in English -------
_NAME_THEM = "Kannst du sie aufzählen?"
LIST: dict[str, F] = {
    "P40": F(("Wie {heißen|hießen} sie?", "Wer {sind|waren} sie?")),
    "P3373": F(("Wie {heißen|hießen} sie?", "Wer {sind|waren} sie?")),
    "P26": F(("Und mit wem?", "Wer waren die Ehepartner?")),
    "P166": F(("Welche Auszeichnungen waren das?", _NAME_THEM)),
    "P1411": F((_NAME_THEM, "Wofür waren die Nominierungen?")),
    "P800": F((_NAME_THEM, "Welche {sind|waren} das?")),
    "P1412": F(("Welche Sprachen {sind|waren} das?", _NAME_THEM)),
    "P37": F(("Welche Sprachen {sind|waren} das?", _NAME_THEM)),
    "P47": F((_NAME_THEM, "Welche {sind|waren} das?")),
}

# -- the second of a pair, about the event just named: they name nothing --------------------
PAIR: dict[tuple[str, str], F] = {
    ("P19", "P569"): F(("Wo war das?", "Und wo war das?")),
    ("P20", "P570"): F(("Wo war das?", "Und wo ist das passiert?")),
    ("P569", "P19"): F(("Und wann war das?", "Wann war das?")),
    ("P570", "P20"): F(("Und wann war das?", "Wann ist das passiert?")),
}

# -- where in the country just named ([a], always named) ------------------------------------
WHERE_IN: dict[tuple[str, str], F] = {
    (narrow, "P17"): F(("Wo [in:a] {liegt|lag} [S:nom]?",
                        "In welchem Teil [a:gen] {liegt|lag} [S:nom]?"))
    for narrow in ("P131", "P276")
}

# -- verify: is [a] (true or a plausible false candidate) the value? -----------------------
_verify = F.one_each


VERIFY: dict[str, F] = {
    "P26": _verify("{Ist|War} [S:nom] [mit:a] verheiratet?", "[S:kw] verheiratet [mit:a]?",
                   "verheiratet [mit:a]?"),
    "P19": _verify("Wurde [S:nom] [in:a] geboren?", "[S:kw] geboren [in:a]?",
                   "geboren [in:a]?"),
    "P20": _verify("Ist [S:nom] [in:a] gestorben?", "[S:kw] gestorben [in:a]?",
                   "gestorben [in:a]?"),
    "P27": _verify("{Hat|Hatte} [S:nom] die Staatsangehörigkeit [a:gen]?",
                   "[S:kw] Staatsangehörigkeit [a]?", "Staatsangehörigkeit [a]?"),
    "P22": _verify("{Ist|War} [a:nom] [S's:m.nom:Vater]?", "[a] [S's:m.kw:Vater]?",
                   "[a] der Vater?"),
    "P25": _verify("{Ist|War} [a:nom] [S's:f.nom:Mutter]?", "[a] [S's:f.kw:Mutter]?",
                   "[a] die Mutter?"),
    "P40": _verify("{Ist|War} [a:nom] ein Kind [von:S]?", "[a] Kind [von:S]?",
                   "[a] eines der Kinder?"),
    "P69": _verify("Hat [S:nom] [an:a] studiert?", "[S:kw] Studium [an:a]?", "Studium [an:a]?"),
    "P166": _verify("Hat [S:nom] [a:akk] bekommen?", "[S:kw] [a] bekommen?", "[a] bekommen?"),
    "P102": _verify("{Ist|War} [S:nom] Mitglied [in:a]?", "[S:kw] Mitglied [in:a]?",
                    "Mitglied [in:a]?"),
    "P57": _verify("Hat [a:nom] [bei:S] Regie geführt?", "[S:kw] Regie [a]?", "Regie [a]?"),
    "P50": _verify("Hat [a:nom] [S:akk] geschrieben?", "[S:kw] Autor [a]?", "Autor [a]?"),
    "P161": _verify("Hat [a:nom] [in:S] mitgespielt?", "[S:kw] Besetzung [a]?",
                    "[a] in der Besetzung?"),
    "P36": _verify("{Ist|War} [a:nom] [S's:f.nom:Hauptstadt]?", "[a] [S's:f.kw:Hauptstadt]?",
                   "Hauptstadt [a]?"),
    # "mit Euro bezahlen" takes no article, whatever the currency
    "P38": _verify("{Zahlt|Zahlte} man [in:S] mit [a]?", "[S:kw] Währung [a]?", "Währung [a]?"),
    "P30": _verify("{Liegt|Lag} [S:nom] [in:a]?", "[S:kw] [in:a]?", "[in:a]?"),
    "P17": _verify("{Liegt|Lag} [S:nom] [in:a]?", "[S:kw] [in:a]?", "[in:a]?"),
    "P495": _verify("{Stammt|Stammte} [S:nom] [aus:a]?", "[S:kw] [aus:a]?", "[aus:a]?"),
}

TABLES = {"also": ALSO, "before": BEFORE, "span": SPANS, "count": COUNT, "list": LIST,
          "pair": PAIR, "where_in": WHERE_IN, "verify": VERIFY}
BY_KIND = {"also": ALSO_BY_KIND, "before": BEFORE_BY_KIND, "span": SPANS_BY_KIND,
           "count": COUNT_BY_KIND}
