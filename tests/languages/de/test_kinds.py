"""German follow-ups that build on the answer, filled for real subjects and values: the
value referred back to (er/sie, dort, davor, da), roles that agree with the woman named and
never with the predecessor asked for, cases after prepositions, plural subjects."""

from __future__ import annotations

from convkgyarn.languages import Subject, language
from convkgyarn.languages.de import grammar

de = language("de")
MALE, FEMALE = "Q6581097", "Q6581072"
CHINA = Subject("Volksrepublik China", kind="country", type_label="sovereign state")
BRAZIL = Subject("Brasilien", kind="country", type_label="sovereign state")
GERMANY = Subject("Deutschland", kind="country", type_label="sovereign state")
SWITZERLAND = Subject("Schweiz", kind="country", type_label="sovereign state")
NETHERLANDS = Subject("Niederlande", kind="country", type_label="sovereign state")
VIRGIN_ISLANDS = Subject("Amerikanische Jungferninseln", kind="other")
SOVIET_UNION = Subject("Sowjetunion", kind="country", type_label="historical country")
UAE = Subject("Vereinigte Arabische Emirate", kind="country", type_label="sovereign state")
FRANCE = Subject("Frankreich", kind="country", type_label="sovereign state")
USA = Subject("Vereinigte Staaten", kind="country", type_label="sovereign state")
POLAND = Subject("Polen", kind="country", type_label="sovereign state")
TARGOWEK = Subject("Targówek", kind="other")
RENNES = Subject("Rennes", kind="city", type_label="big city")
BONN = Subject("Bonn", kind="city", type_label="city")
CLUNY_BROWN = Subject("Cluny Brown auf Freiersfüßen", kind="film", type_label="film")
LEGIA = Subject("Legia Warschau", kind="other")
BEETHOVEN = Subject("Ludwig van Beethoven", True, MALE, "person")
MERYL = Subject("Meryl Streep", True, FEMALE, "person")
MICHAEL = Subject("Michael Jackson", True, MALE, "person")
ANDROS = Subject("Andros Townsend", True, MALE, "person")
XI = Subject("Xi Jinping", True, MALE, "person")
LI = Subject("Li Keqiang", True, MALE, "person")
BOLSONARO = Subject("Jair Bolsonaro", True, MALE, "person")
ROUSSEFF = Subject("Dilma Rousseff", True, FEMALE, "person")
MERKEL = Subject("Angela Merkel", True, FEMALE, "person")
APPERE = Subject("Nathalie Appéré", True, FEMALE, "person")
LUBITSCH = Subject("Ernst Lubitsch", True, MALE, "person")
GUMMER = Subject("Don Gummer", True, MALE, "person")
DEBBIE_ROWE = Subject("Debbie Rowe", True)  # no gender: named, never a guessed pronoun


def ask(kind, key, subject, reference=None, value=None, *, tense="present", back=False,
        interaction="voice", i=0, subject_kind=None):
    forms = de.follow_ups(kind, key, interaction, tense, back, subject_kind or subject.kind)
    return de.fill(forms[i], subject, reference, value).text


def test_before_names_the_later_holder_and_refers_back_to_him():
    assert ask("before", "P35", CHINA, None, XI) == \
        "Wer war vor Xi Jinping Staatsoberhaupt der Volksrepublik China?"
    assert ask("before", "P35", CHINA, "noun", XI, back=True) == "Und wer war vor ihm im Amt?"
    assert ask("before", "P26", MICHAEL, "pronoun", DEBBIE_ROWE, back=True) == \
        "Mit wem war er vor Debbie Rowe verheiratet?"
    assert ask("before", "P54", ANDROS, None, LEGIA) == \
        "Für welchen Verein hat Andros Townsend vor Legia Warschau gespielt?"
    assert ask("before", "P54", ANDROS, "pronoun", LEGIA, back=True) == \
        "Und für welchen Verein hat er davor gespielt?"


def test_the_predecessor_is_asked_for_without_the_later_holders_gender():
    assert ask("before", "P6", GERMANY, None, MERKEL) == \
        "Wer führte vor Angela Merkel die Regierung von Deutschland?"
    assert ask("before", "P6", GERMANY, None, MERKEL, i=1) == \
        "Wer war vor Angela Merkel Regierungschef von Deutschland?"
    assert ask("before", "P6", RENNES, None, APPERE) == \
        "Wer war vor Nathalie Appéré Bürgermeister von Rennes?"
    assert ask("before", "P6", GERMANY, "noun", MERKEL, back=True) == \
        "Und wer war vor ihr im Amt?"


def test_also_roles_agree_with_the_person_named():
    assert ask("also", ("P35", "P6"), BRAZIL, None, ROUSSEFF) == \
        "Ist Dilma Rousseff auch die Regierungschefin von Brasilien?"
    assert ask("also", ("P35", "P6"), BRAZIL, "noun", BOLSONARO, back=True) == \
        "Ist er auch Regierungschef?"
    assert ask("also", ("P35", "P6"), BRAZIL, "noun", ROUSSEFF, back=True, tense="past") == \
        "War sie auch Regierungschefin?"
    assert ask("also", ("P35", "P6"), BRAZIL, None, ROUSSEFF, interaction="text") == \
        "Dilma Rousseff auch Regierungschefin von Brasilien?"
    assert ask("also", ("P6", "P35"), CHINA, None, LI, interaction="text") == \
        "Li Keqiang auch Staatsoberhaupt der Volksrepublik China?"
    assert ask("also", ("P112", "P488"), GERMANY, None, MERKEL, back=True,
               interaction="text") == "Angela Merkel auch Vorsitzende?"
    assert grammar.feminine("Vorsitzender") == "Vorsitzende"
    assert grammar.feminine("Staatsoberhaupt") == "Staatsoberhaupt"


def test_also_places_are_dort():
    assert ask("also", ("P19", "P20"), BEETHOVEN, None, BONN) == \
        "Ist Ludwig van Beethoven auch in Bonn gestorben?"
    assert ask("also", ("P19", "P20"), BEETHOVEN, "pronoun", BONN, back=True) == \
        "Ist er auch dort gestorben?"
    assert ask("also", ("P19", "P20"), BEETHOVEN, "pronoun", BONN, back=True,
               interaction="text") == "Auch in Bonn gestorben?"
    assert ask("also", ("P57", "P58"), CLUNY_BROWN, "noun", LUBITSCH, back=True) == \
        "Hat er auch das Drehbuch geschrieben?"
    assert ask("also", ("P57", "P162"), CLUNY_BROWN, "pronoun", LUBITSCH, back=True) == \
        "Hat er ihn auch produziert?"  # der Film: ihn


def test_spans_lean_on_the_date_just_named():
    assert ask("span", "age", BEETHOVEN) == "Wie alt ist Ludwig van Beethoven geworden?"
    assert ask("span", "age", BEETHOVEN, "pronoun", back=True, tense="past") == \
        "Wie alt war er da?"
    assert ask("span", "existence", SOVIET_UNION) == \
        "Wie viele Jahre hat die Sowjetunion bestanden?"
    assert ask("span", "existence", SOVIET_UNION, "noun", back=True) == \
        "Wie viele Jahre hat das Land also bestanden?"
    assert ask("span", ("term", "P6"), CHINA, None, LI) == \
        "Wie viele Jahre hat Li Keqiang die Volksrepublik China regiert?"
    assert ask("span", ("term", "P54"), ANDROS, "pronoun", LEGIA, back=True) == \
        "Wie viele Jahre hat er dort gespielt?"
    assert ask("span", ("term", "P26"), MERYL, None, GUMMER, interaction="text", back=True) \
        == "Jahre verheiratet mit Don Gummer"


def test_counts_agree_with_plural_subjects():
    assert ask("count", "P37", SWITZERLAND) == "Wie viele Amtssprachen hat die Schweiz?"
    assert ask("count", "P37", NETHERLANDS) == "Wie viele Amtssprachen haben die Niederlande?"
    assert ask("count", "P37", VIRGIN_ISLANDS, tense="past") == \
        "Wie viele Amtssprachen hatten die Amerikanischen Jungferninseln?"
    assert ask("count", "P47", SWITZERLAND) == "An wie viele Länder grenzt die Schweiz?"
    assert ask("count", "P26", MERYL) == "Wie oft war Meryl Streep schon verheiratet?"
    assert ask("count", "P37", SWITZERLAND, interaction="text") == "Schweiz Anzahl Amtssprachen"
    assert ask("list", "P37", SWITZERLAND) == "Welche Sprachen sind das?"
    assert ask("list", "P40", BEETHOVEN, tense="past") == "Wie hießen sie?"


def test_pairs_and_where_in():
    assert ask("pair", ("P19", "P569"), BEETHOVEN) == "Wo war das?"
    assert ask("pair", ("P569", "P19"), BEETHOVEN) == "Und wann war das?"
    assert ask("where_in", ("P131", "P17"), TARGOWEK, None, POLAND) == \
        "Wo in Polen liegt Targówek?"
    assert ask("where_in", ("P131", "P17"), TARGOWEK, None, POLAND, i=1) == \
        "In welchem Teil Polens liegt Targówek?"
    assert ask("where_in", ("P131", "P17"), RENNES, "pronoun", FRANCE, i=1) == \
        "In welchem Teil Frankreichs liegt sie?"  # die Stadt
    assert ask("where_in", ("P131", "P17"), RENNES, "noun", SWITZERLAND, i=1) == \
        "In welchem Teil der Schweiz liegt die Stadt?"


def test_verify_declines_the_candidate():
    assert ask("verify", "P26", MERYL, None, GUMMER) == \
        "Ist Meryl Streep mit Don Gummer verheiratet?"
    assert ask("verify", "P36", UAE, None, Subject("Bamako", kind="city")) == \
        "Ist Bamako die Hauptstadt der Vereinigten Arabischen Emirate?"
    assert ask("verify", "P38", FRANCE, "pronoun", Subject("Euro")) == \
        "Zahlt man dort mit Euro?"
    assert ask("verify", "P495", CLUNY_BROWN, None, USA) == \
        "Stammt Cluny Brown auf Freiersfüßen aus den Vereinigten Staaten?"
    assert ask("verify", "P17", RENNES, None, FRANCE, interaction="text") == \
        "Rennes in Frankreich?"
    assert ask("verify", "P27", MERYL, "pronoun", USA, tense="past") == \
        "Hatte sie die Staatsangehörigkeit der Vereinigten Staaten?"


def test_names_headed_by_a_compound_take_their_article():
    assert grammar.name("Amerikanische Jungferninseln").phrase("dat") == \
        "den Amerikanischen Jungferninseln"
    assert grammar.name("Warschauer Pakt").phrase("gen") == "des Warschauer Pakts"
    assert grammar.name("Polen").phrase("gen") == "Polens"


def test_yes_no():
    assert (de.yes_no(True), de.yes_no(False)) == ("ja", "nein")
