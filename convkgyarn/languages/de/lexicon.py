"""German questions per property, in our own words. ``{ist|war}``: present | past form.
Placeholders: see ``convkgyarn.languages`` (``[S:nom]``, ``[S's:f.nom:Hauptstadt]``,
``[in:S]``, ``[a:akk]``, ``[mit:a]``)."""

from __future__ import annotations

V = dict[str, tuple[str, ...]]

VOICE: V = {
    # people
    "P569": ("Wann wurde [S:nom] geboren?", "Was {ist|war} [S's:n.nom:Geburtsdatum]?",
             "Weißt du, wann [S:nom] geboren wurde?"),
    "P19": ("Wo wurde [S:nom] geboren?", "Was {ist|war} [S's:m.nom:Geburtsort]?",
            "In welcher Stadt kam [S:nom] zur Welt?"),
    "P570": ("Wann ist [S:nom] gestorben?", "Wann starb [S:nom]?",
             "Weißt du, wann [S:nom] gestorben ist?"),
    "P20": ("Wo ist [S:nom] gestorben?", "Wo starb [S:nom]?",
            "In welcher Stadt ist [S:nom] gestorben?"),
    "P27": ("Welche Staatsangehörigkeit {hat|hatte} [S:nom]?",
            "Aus welchem Land {kommt|kam} [S:nom]?",
            "Welche Staatsbürgerschaft {besitzt|besaß} [S:nom]?"),
    "P26": ("Mit wem {ist|war} [S:nom] verheiratet?", "Wer {ist|war} [S's:m.nom:Ehepartner]?",
            "Wen hat [S:nom] geheiratet?"),
    "P40": ("Wie {heißen|hießen} [S's:pl.nom:Kinder]?", "Wer {sind|waren} [S's:pl.nom:Kinder]?",
            "Welche Kinder {hat|hatte} [S:nom]?"),
    "P22": ("Wer {ist|war} [S's:m.nom:Vater]?", "Wie {heißt|hieß} [S's:m.nom:Vater]?",
            "Weißt du, wer [S's:m.nom:Vater] {ist|war}?"),
    "P25": ("Wer {ist|war} [S's:f.nom:Mutter]?", "Wie {heißt|hieß} [S's:f.nom:Mutter]?",
            "Weißt du, wer [S's:f.nom:Mutter] {ist|war}?"),
    "P3373": ("Wer {sind|waren} [S's:pl.nom:Geschwister]?", "Welche Geschwister {hat|hatte} "
              "[S:nom]?", "Wie {heißen|hießen} [S's:pl.nom:Geschwister]?"),
    "P106": ("Was {macht|machte} [S:nom] beruflich?", "Welchen Beruf {hat|hatte} [S:nom]?",
             "Als was {arbeitet|arbeitete} [S:nom]?"),
    "P166": ("Welche Auszeichnungen hat [S:nom] bekommen?",
             "Welche Preise hat [S:nom] gewonnen?",
             "Mit welchen Preisen wurde [S:nom] ausgezeichnet?"),
    "P1411": ("Für welche Preise wurde [S:nom] nominiert?", "Wofür war [S:nom] nominiert?",
              "Welche Nominierungen hat [S:nom] erhalten?"),
    "P39": ("Welche Ämter hat [S:nom] bekleidet?", "Welche Positionen hatte [S:nom] inne?",
            "In welchen Ämtern war [S:nom] tätig?"),
    "P102": ("In welcher Partei {ist|war} [S:nom]?", "Welcher Partei {gehört|gehörte} [S:nom] "
             "an?", "Für welche Partei {ist|war} [S:nom] aktiv?"),
    "P69": ("Wo hat [S:nom] studiert?", "Welche Hochschule hat [S:nom] besucht?",
            "Wo wurde [S:nom] ausgebildet?"),
    "P108": ("Für wen {arbeitet|arbeitete} [S:nom]?", "Wer {ist|war} [S's:m.nom:Arbeitgeber]?",
             "Bei wem {ist|war} [S:nom] angestellt?"),
    "P800": ("Wofür {ist|war} [S:nom] bekannt?", "Was {sind|waren} [S's:pl.nom:bekanntesten "
             "Werke]?", "Mit welchen Werken wurde [S:nom] berühmt?"),
    "P136": ("Welches Genre {hat|hatte} [S:nom]?", "Zu welchem Genre {gehört|gehörte} [S:nom]?",
             "In welches Genre {fällt|fiel} [S:nom]?"),
    "P1303": ("Welches Instrument {spielt|spielte} [S:nom]?", "Welche Instrumente "
              "{spielt|spielte} [S:nom]?", "Was für ein Instrument {spielt|spielte} [S:nom]?"),
    "P641": ("Mit welcher Sportart {ist|war} [S:nom] verbunden?", "Um welche Sportart "
             "{geht|ging} es [bei:S]?", "Welche Sportart {gehört|gehörte} [zu:S]?"),
    "P54": ("Für welche Vereine hat [S:nom] gespielt?", "In welchen Mannschaften hat [S:nom] "
            "gespielt?", "Für welches Team {spielt|spielte} [S:nom]?"),
    "P413": ("Auf welcher Position {spielt|spielte} [S:nom]?", "Welche Position {spielt|spielte} "
             "[S:nom]?", "Was für eine Position {hat|hatte} [S:nom] im Team?"),
    "P2031": ("Wann hat [S's:f.nom:Karriere] begonnen?", "{Seit|Ab} wann {ist|war} [S:nom] "
              "aktiv?", "In welchem Jahr begann [S's:f.nom:Karriere]?"),
    "P2032": ("Wann endete [S's:f.nom:Karriere]?", "Bis wann war [S:nom] aktiv?",
              "In welchem Jahr hat [S:nom] aufgehört zu arbeiten?"),
    "P140": ("Welcher Religion {gehört|gehörte} [S:nom] an?", "Welchen Glauben {hat|hatte} "
             "[S:nom]?", "Welche Religion {hat|hatte} [S:nom]?"),
    "P103": ("Was {ist|war} [S's:f.nom:Muttersprache]?", "Welche Muttersprache {hat|hatte} "
             "[S:nom]?", "Mit welcher Sprache ist [S:nom] aufgewachsen?"),
    "P1412": ("Welche Sprachen {spricht|sprach} [S:nom]?", "Welche Sprachen {beherrscht|"
              "beherrschte} [S:nom]?", "In welchen Sprachen {kann|konnte} sich [S:nom] "
              "verständigen?"),
    "P937": ("Wo {arbeitet|arbeitete} [S:nom]?", "In welcher Stadt {ist|war} [S:nom] tätig?",
             "Wo hat [S:nom] gearbeitet?"),
    "P551": ("Wo {wohnt|wohnte} [S:nom]?", "Wo {lebt|lebte} [S:nom]?",
             "In welcher Stadt {lebt|lebte} [S:nom]?"),
    "P101": ("In welchem Bereich {arbeitet|arbeitete} [S:nom]?", "Was {ist|war} "
             "[S's:n.nom:Fachgebiet]?", "Auf welchem Gebiet {forscht|forschte} [S:nom]?"),
    "P412": ("Welche Stimmlage {hat|hatte} [S:nom]?", "Was für eine Stimme {hat|hatte} "
             "[S:nom]?", "In welcher Stimmlage {singt|sang} [S:nom]?"),
    "P411": ("Als was {wird|wurde} [S:nom] verehrt?", "Welchen Heiligenstatus {hat|hatte} "
             "[S:nom]?", "Wie {wird|wurde} [S:nom] von der Kirche verehrt?"),
    "P1038": ("Wer {sind|waren} [S's:pl.nom:Verwandten]?", "Mit wem {ist|war} [S:nom] "
              "verwandt?", "Welche Verwandten {hat|hatte} [S:nom]?"),
    "P509": ("Woran ist [S:nom] gestorben?", "Was war [S's:f.nom:Todesursache]?",
             "Weißt du, woran [S:nom] gestorben ist?"),
    "P2067": ("Wie schwer {ist|war} [S:nom]?", "Was {ist|war} [S's:f.nom:Masse]?",
              "Welche Masse {hat|hatte} [S:nom]?"),
    "P2348": ("Aus welcher Epoche {stammt|stammte} [S:nom]?", "In welcher Epoche lebte "
              "[S:nom]?", "Welcher Zeit {gehört|gehörte} [S:nom] an?"),
    "P1441": ("In welchen Werken {kommt|kam} [S:nom] vor?", "Wo {taucht|tauchte} [S:nom] auf?",
              "In welchem Werk {erscheint|erschien} [S:nom]?"),
    "P607": ("An welchen Kriegen hat [S:nom] teilgenommen?", "In welchen Konflikten hat "
             "[S:nom] gekämpft?", "An welchen Kriegen war [S:nom] beteiligt?"),
    "P119": ("Wo ist [S:nom] begraben?", "Wo liegt [S:nom] begraben?",
             "Wo wurde [S:nom] beigesetzt?"),
    "P2048": ("Wie hoch {ist|war} [S:nom]?", "Welche Höhe {hat|hatte} [S:nom]?",
              "Wie hoch {ragt|ragte} [S:nom] auf?"),
    # works
    "P57": ("Wer hat [bei:S] Regie geführt?", "Wer {ist|war} [S's:m.nom:Regisseur]?",
            "Wer hat [S:akk] gedreht?"),
    "P161": ("Wer {spielt|spielte} [in:S] mit?", "Welche Schauspieler {sind|waren} "
             "[in:S] zu sehen?", "Wer {sind|waren} [S's:pl.nom:Darsteller]?"),
    "P58": ("Wer hat das Drehbuch [zu:S] geschrieben?", "Wer {ist|war} "
            "[S's:m.nom:Drehbuchautor]?", "Von wem {stammt|stammte} das Drehbuch [zu:S]?"),
    "P50": ("Wer hat [S:akk] geschrieben?", "Wer {ist|war} [S's:m.nom:Autor]?",
            "Von wem {stammt|stammte} [S:nom]?"),
    "P175": ("Wer {singt|sang} [S:akk]?", "Wer {ist|war} [S's:m.nom:Interpret]?",
             "Von wem {stammt|stammte} [S:nom]?"),
    "P86": ("Wer hat die Musik [zu:S] komponiert?", "Wer {ist|war} "
            "[S's:m.nom:Komponist]?", "Von wem {stammt|stammte} die Musik [zu:S]?"),
    "P676": ("Wer hat den Text [zu:S] geschrieben?", "Wer {ist|war} [S's:m.nom:Texter]?",
             "Von wem {stammt|stammte} der Text [zu:S]?"),
    "P577": ("Wann ist [S:nom] erschienen?", "Wann kam [S:nom] heraus?",
             "In welchem Jahr ist [S:nom] erschienen?"),
    "P495": ("Aus welchem Land {stammt|stammte} [S:nom]?", "In welchem Land wurde [S:nom] "
             "produziert?", "Was {ist|war} [S's:n.nom:Herkunftsland]?"),
    "P364": ("In welcher Sprache wurde [S:nom] gedreht?", "Was {ist|war} "
             "[S's:f.nom:Originalsprache]?", "In welcher Sprache {ist|war} [S:nom] im "
             "Original?"),
    "P407": ("In welcher Sprache ist [S:nom] verfasst?", "In welcher Sprache wurde [S:nom] "
             "geschrieben?", "Was {ist|war} [S's:f.nom:Sprache]?"),
    "P826": ("In welcher Tonart {steht|stand} [S:nom]?", "Welche Tonart {hat|hatte} [S:nom]?",
             "In welcher Tonart ist [S:nom] geschrieben?"),
    "P2047": ("Wie lang {ist|war} [S:nom]?", "Wie lange {dauert|dauerte} [S:nom]?",
              "Was {ist|war} [S's:f.nom:Laufzeit]?"),
    # places
    "P17": ("In welchem Land {liegt|lag} [S:nom]?", "Zu welchem Land {gehört|gehörte} "
            "[S:nom]?", "In welchem Staat {befindet|befand} sich [S:nom]?"),
    "P30": ("Auf welchem Kontinent {liegt|lag} [S:nom]?", "Zu welchem Kontinent "
            "{gehört|gehörte} [S:nom]?", "Auf welchem Erdteil {befindet|befand} sich [S:nom]?"),
    "P36": ("Was {ist|war} [S's:f.nom:Hauptstadt]?", "Wie {heißt|hieß} [S's:f.nom:Hauptstadt]?",
            "Welche Stadt {ist|war} [S's:f.nom:Hauptstadt]?"),
    "P131": ("In welcher Region {liegt|lag} [S:nom]?", "Wo {liegt|lag} [S:nom]?",
             "Zu welchem Verwaltungsgebiet {gehört|gehörte} [S:nom]?"),
    "P37": ("Was {ist|war} [S's:f.nom:Amtssprache]?", "Welche Sprache {spricht|sprach} man "
            "offiziell [in:S]?", "Welche Amtssprachen {hat|hatte} [S:nom]?"),
    "P35": ("Wer {ist|war} [S's:n.nom:Staatsoberhaupt]?", "Wer {ist|war} [in:S] "
            "Staatsoberhaupt?", "Wer {steht|stand} an [S's:f.dat:Spitze]?"),
    "P6": ("Wer {ist|war} [S's:m.nom:Regierungschef]?", "Wer {führt|führte} die Regierung "
           "[in:S]?", "Wer {regiert|regierte} [S:akk]?"),
    "P38": ("Welche Währung {hat|hatte} [S:nom]?", "Womit {bezahlt|bezahlte} man [in:S]?",
            "Was {ist|war} [S's:f.nom:Währung]?"),
    "P47": ("An welche Länder {grenzt|grenzte} [S:nom]?", "Welche Nachbarländer {hat|hatte} "
            "[S:nom]?", "Woran {grenzt|grenzte} [S:nom]?"),
    "P1082": ("Wie viele Einwohner {hat|hatte} [S:nom]?", "Wie viele Menschen {leben|lebten} "
              "[in:S]?", "Wie hoch {ist|war} [S's:f.nom:Einwohnerzahl]?"),
    "P2046": ("Wie groß {ist|war} [S:nom]?", "Welche Fläche {hat|hatte} [S:nom]?",
              "Wie groß {ist|war} [S's:f.nom:Fläche]?"),
    "P610": ("Was {ist|war} die höchste Erhebung [in:S]?", "Wo {liegt|lag} der höchste Punkt "
             "[in:S]?", "Welcher Berg {ist|war} der höchste [in:S]?"),
    "P1589": ("Wo {liegt|lag} der tiefste Punkt [in:S]?", "Was {ist|war} die tiefste Stelle "
              "[in:S]?", "Welcher Ort {liegt|lag} am tiefsten [in:S]?"),
    "P206": ("An welchem Gewässer {liegt|lag} [S:nom]?", "An welchem Fluss oder See "
             "{liegt|lag} [S:nom]?", "Welches Gewässer {liegt|lag} [bei:S]?"),
    "P138": ("Wonach {ist|war} [S:nom] benannt?", "Nach wem oder was {ist|war} [S:nom] "
             "benannt?", "Woher {kommt|kam} [S's:m.nom:Name]?"),
    "P1376": ("Wovon {ist|war} [S:nom] die Hauptstadt?", "Für welches Gebiet {ist|war} [S:nom] "
              "die Hauptstadt?", "Welches Gebiet {hat|hatte} [S:akk] als Hauptstadt?"),
    "P1249": ("Wann wurde [S:nom] zum ersten Mal erwähnt?", "Wann wurde [S:nom] erstmals "
              "urkundlich erwähnt?", "In welchem Jahr wurde [S:nom] erstmals erwähnt?"),
    "P7959": ("Zu welcher historischen Grafschaft {gehört|gehörte} [S:nom]?", "In welcher "
              "traditionellen Grafschaft {liegt|lag} [S:nom]?", "Welcher historischen "
              "Grafschaft {ist|war} [S:nom] zugeordnet?"),
    "P3075": ("Was {ist|war} [S's:f.nom:Staatsreligion]?", "Welche Religion {ist|war} [in:S] "
              "offiziell?", "Welche Staatsreligion {hat|hatte} [S:nom]?"),
    "P2131": ("Wie hoch {ist|war} [S's:n.nom:Bruttoinlandsprodukt]?", "Welches BIP "
              "{hat|hatte} [S:nom]?", "Wie groß {ist|war} [S's:f.nom:Wirtschaftsleistung]?"),
    "P361": ("Wozu {gehört|gehörte} [S:nom]?", "Wovon {ist|war} [S:nom] ein Teil?",
             "Zu welchem größeren Ganzen {gehört|gehörte} [S:nom]?"),
    "P276": ("Wo {befindet|befand} sich [S:nom]?", "Wo {ist|war} [S:nom]?",
             "An welchem Ort {ist|war} [S:nom]?"),
    "P669": ("In welcher Straße {liegt|lag} [S:nom]?", "An welcher Straße {befindet|befand} "
             "sich [S:nom]?", "Was {ist|war} [S's:f.nom:Adresse]?"),
    "P190": ("Welche Partnerstädte {hat|hatte} [S:nom]?", "Was {sind|waren} "
             "[S's:pl.nom:Partnerstädte]?", "Mit welchen Städten {ist|war} [S:nom] "
             "partnerschaftlich verbunden?"),
    # organisations and things
    "P571": ("Wann wurde [S:nom] gegründet?", "Wann ist [S:nom] entstanden?",
             "In welchem Jahr wurde [S:nom] gegründet?"),
    "P576": ("Wann wurde [S:nom] aufgelöst?", "Wann hörte [S:nom] auf zu bestehen?",
             "Bis wann gab es [S:akk]?"),
    "P112": ("Wer hat [S:akk] gegründet?", "Von wem wurde [S:nom] gegründet?",
             "Wer {sind|waren} [S's:pl.nom:Gründer]?"),
    "P159": ("Wo {ist|war} [S's:m.nom:Hauptsitz]?", "In welcher Stadt {sitzt|saß} [S:nom]?",
             "Wo {befindet|befand} sich [S's:f.nom:Zentrale]?"),
    "P749": ("Zu welcher Organisation {gehört|gehörte} [S:nom]?", "Was {ist|war} "
             "[S's:f.nom:Muttergesellschaft]?", "Wem {gehört|gehörte} [S:nom]?"),
    "P488": ("Wer {leitet|leitete} [S:akk]?", "Wer {führt|führte} den Vorsitz [bei:S]?",
             "Wer {steht|stand} an [S's:f.dat:Spitze]?"),
    "P169": ("Wer {ist|war} [S's:m.nom:Geschäftsführer]?", "Wer {leitet|leitete} [S:akk]?",
             "Wer {ist|war} [S's:m.nom:Chef]?"),
    "P740": ("Wo wurde [S:nom] gegründet?", "In welcher Stadt entstand [S:nom]?",
             "Woher {kommt|kam} [S:nom] ursprünglich?"),
    "P115": ("Wo {spielt|spielte} [S:nom]?", "Was {ist|war} [S's:n.nom:Heimstadion]?",
             "In welchem Stadion {spielt|spielte} [S:nom]?"),
    "P2196": ("Wie viele Studierende {hat|hatte} [S:nom]?", "Wie viele Studenten {sind|waren} "
              "[an:S] eingeschrieben?", "Wie viele Leute {studieren|studierten} [an:S]?"),
    "P1619": ("Wann wurde [S:nom] eröffnet?", "Wann ging [S:nom] in Betrieb?",
              "In welchem Jahr wurde [S:nom] eröffnet?"),
    "P1174": ("Wie viele Besucher {hat|hatte} [S:nom] pro Jahr?", "Wie viele Menschen "
              "{besuchen|besuchten} [S:akk] jährlich?", "Wie hoch {ist|war} "
              "[S's:f.nom:Besucherzahl]?"),
    "P1373": ("Wie viele Fahrgäste {nutzen|nutzten} [S:akk] täglich?", "Wie viele Reisende "
              "{hat|hatte} [S:nom] am Tag?", "Wie hoch {ist|war} [S's:n.nom:Fahrgastaufkommen]?"),
    "P1103": ("Wie viele Bahnsteiggleise {hat|hatte} [S:nom]?", "Wie viele Gleise {hat|hatte} "
              "[S:nom]?", "Über wie viele Gleise {verfügt|verfügte} [S:nom]?"),
    "P1436": ("Wie viele Objekte {umfasst|umfasste} [S's:f.nom:Sammlung]?", "Wie groß {ist|war} "
              "[S's:f.nom:Sammlung]?", "Wie viele Stücke {besitzt|besaß} [S:nom]?"),
    "P575": ("Wann wurde [S:nom] entdeckt?", "In welchem Jahr wurde [S:nom] entdeckt?",
             "Wann hat man [S:akk] entdeckt?"),
    "P189": ("Wo wurde [S:nom] entdeckt?", "In welchem Land wurde [S:nom] entdeckt?",
             "Wo hat man [S:akk] gefunden?"),
    "P1086": ("Welche Ordnungszahl {hat|hatte} [S:nom]?", "Was {ist|war} "
              "[S's:f.nom:Ordnungszahl]?", "Wie viele Protonen {hat|hatte} [S:nom]?"),
    "P1121": ("Welche Oxidationsstufen {hat|hatte} [S:nom]?", "Welche Oxidationszahlen kann "
              "[S:nom] annehmen?", "Was {sind|waren} [S's:pl.nom:Oxidationsstufen]?"),
    "P1108": ("Wie hoch {ist|war} [S's:f.nom:Elektronegativität]?", "Welche Elektronegativität "
              "{hat|hatte} [S:nom]?", "Wie elektronegativ {ist|war} [S:nom]?"),
}

VOICE_BY_KIND: dict[tuple[str, str], tuple[str, ...]] = {
    ("P136", "person"): ("Für welches Genre {ist|war} [S:nom] bekannt?", "In welchem Genre "
                         "{ist|war} [S:nom] zu Hause?", "Welchem Genre {wird|wurde} [S:nom] "
                         "zugerechnet?"),
    ("P641", "person"): ("Welchen Sport {treibt|trieb} [S:nom]?", "In welcher Sportart "
                         "{ist|war} [S:nom] aktiv?", "Welche Sportart {betreibt|betrieb} "
                         "[S:nom]?"),
    ("P641", "club"): ("Welche Sportart {betreibt|betrieb} [S:nom]?", "In welcher Sportart "
                       "{tritt|trat} [S:nom] an?", "Für welche Sportart {ist|war} [S:nom] "
                       "bekannt?"),
    ("P2067", "person"): ("Wie viel {wiegt|wog} [S:nom]?", "Wie schwer {ist|war} [S:nom]?",
                          "Was {ist|war} [S's:n.nom:Gewicht]?"),
    ("P2067", "element"): ("Was ist [S's:f.nom:Atommasse]?", "Welche Atommasse hat [S:nom]?",
                           "Wie groß ist die Atommasse [von:S]?"),
    ("P2048", "person"): ("Wie groß {ist|war} [S:nom]?", "Welche Körpergröße {hat|hatte} "
                          "[S:nom]?", "Wie groß {ist|war} [S:nom] eigentlich?"),
    ("P577", "film"): ("Wann kam [S:nom] in die Kinos?", "Wann ist [S:nom] erschienen?",
                       "In welchem Jahr kam [S:nom] heraus?"),
    ("P577", "book"): ("Wann wurde [S:nom] veröffentlicht?", "Wann ist [S:nom] erschienen?",
                       "In welchem Jahr erschien [S:nom]?"),
    ("P140", "country"): ("Welche Religion {ist|war} [in:S] verbreitet?", "Welcher Religion "
                          "{gehört|gehörte} man [in:S] an?", "Welche Religion {prägt|prägte} "
                          "[S:akk]?"),
    ("P17", "person"): ("Aus welchem Land {kommt|kam} [S:nom]?", "Mit welchem Land {ist|war} "
                        "[S:nom] verbunden?", "Welchem Land {ist|war} [S:nom] zugeordnet?"),
    ("P17", "event"): ("In welchem Land {findet|fand} [S:nom] statt?", "In welchem Land "
                       "{wird|wurde} [S:nom] ausgetragen?", "Wo {findet|fand} [S:nom] statt?"),
    ("P276", "event"): ("Wo {findet|fand} [S:nom] statt?", "Wo {wird|wurde} [S:nom] "
                        "ausgetragen?", "An welchem Ort {findet|fand} [S:nom] statt?"),
    ("P276", "artwork"): ("Wo {hängt|hing} [S:nom]?", "Wo kann man [S:akk] sehen?",
                          "In welchem Museum {ist|war} [S:nom]?"),
    ("P488", "university"): ("Wer {leitet|leitete} [S:akk]?", "Wer {ist|war} "
                             "[S's:m.nom:Rektor]?", "Wer {steht|stand} an [S's:f.dat:Spitze]?"),
    ("P6", "city"): ("Wer {ist|war} [S's:m.nom:Bürgermeister]?", "Wer {regiert|regierte} "
                     "[S:akk]?", "Wer {ist|war} [in:S] Bürgermeister?"),
    ("P47", "city"): ("An welche Orte {grenzt|grenzte} [S:nom]?", "Welche Nachbarorte "
                      "{hat|hatte} [S:nom]?", "Woran {grenzt|grenzte} [S:nom]?"),
    ("P571", "building"): ("Wann wurde [S:nom] gebaut?", "Wann wurde [S:nom] errichtet?",
                           "In welchem Jahr wurde [S:nom] fertiggestellt?"),
    ("P571", "artwork"): ("Wann ist [S:nom] entstanden?", "Wann wurde [S:nom] geschaffen?",
                          "In welchem Jahr entstand [S:nom]?"),
    ("P571", "band"): ("Wann hat sich [S:nom] gegründet?", "Wann wurde [S:nom] gegründet?",
                       "In welchem Jahr entstand [S:nom]?"),
    ("P571", "country"): ("Wann wurde [S:nom] gegründet?", "Wann ist [S:nom] entstanden?",
                          "{Seit wann gibt|Ab wann gab} es [S:akk]?"),
    ("P571", "city"): ("Wann wurde [S:nom] gegründet?", "Wann ist [S:nom] entstanden?",
                       "{Seit wann gibt|Ab wann gab} es [S:akk]?"),
    ("P576", "company"): ("Wann wurde [S:nom] aufgelöst?", "Wann hat [S:nom] dichtgemacht?",
                          "In welchem Jahr wurde [S:nom] geschlossen?"),
    ("P576", "building"): ("Wann wurde [S:nom] abgerissen?", "Wann wurde [S:nom] "
                           "abgetragen?", "In welchem Jahr wurde [S:nom] abgerissen?"),
    ("P576", "band"): ("Wann hat sich [S:nom] aufgelöst?", "Wann hat sich [S:nom] getrennt?",
                       "In welchem Jahr löste sich [S:nom] auf?"),
}
for _kind in ("organisation", "company", "club", "university"):
    VOICE_BY_KIND[("P17", _kind)] = (
        "In welchem Land {ist|war} [S:nom] ansässig?", "Aus welchem Land {kommt|kam} [S:nom]?",
        "Zu welchem Land {gehört|gehörte} [S:nom]?")
VOICE_BY_KIND[("P136", "film")] = VOICE["P136"]

# (property, qualifier) -> questions about the statement; [a] is its value
VOICE_QUALIFIED: dict[tuple[str, str], tuple[str, ...]] = {
    ("P6", "P580"): ("{Seit wann ist|Ab wann war} [a:nom] [S's:m.nom:Regierungschef]?",
                     "Wann wurde [a:nom] [S's:m.nom:Regierungschef]?",
                     "Wann hat [a:nom] das Amt übernommen?"),
    ("P6", "P582"): ("Bis wann war [a:nom] [S's:m.nom:Regierungschef]?",
                     "Wann endete die Amtszeit [von:a]?", "Wann hat [a:nom] das Amt abgegeben?"),
    ("P36", "P580"): ("{Seit wann ist|Ab wann war} [a:nom] [S's:f.nom:Hauptstadt]?",
                      "Wann wurde [a:nom] [S's:f.nom:Hauptstadt]?",
                      "In welchem Jahr wurde [a:nom] [S's:f.nom:Hauptstadt]?"),
    ("P38", "P580"): ("{Seit wann ist|Ab wann war} [a:nom] [S's:f.nom:Währung]?",
                      "Wann wurde [a:nom] [S's:f.nom:Währung]?",
                      "In welchem Jahr wurde [a:nom] [S's:f.nom:Währung]?"),
    ("P35", "P580"): ("{Seit wann ist|Ab wann war} [a:nom] [S's:n.nom:Staatsoberhaupt]?",
                      "Wann wurde [a:nom] [S's:n.nom:Staatsoberhaupt]?",
                      "Wann hat [a:nom] das Amt angetreten?"),
    ("P35", "P582"): ("Bis wann war [a:nom] [S's:n.nom:Staatsoberhaupt]?",
                      "Wann endete die Amtszeit [von:a]?",
                      "Wann hat [a:nom] das Amt abgegeben?"),
    ("P26", "P580"): ("{Seit wann ist [S:nom] [mit:a] verheiratet|Wann hat [S:nom] "
                      "[a:akk] geheiratet}?", "Wann hat [S:nom] [a:akk] geheiratet?",
                      "In welchem Jahr haben [S:nom] und [a:nom] geheiratet?"),
    ("P26", "P582"): ("Bis wann war [S:nom] [mit:a] verheiratet?",
                      "Wann endete [S's:f.nom:Ehe] [mit:a]?",
                      "Wann haben sich [S:nom] und [a:nom] getrennt?"),
    ("P39", "P580"): ("{Seit wann ist|Ab wann war} [S:nom] [a:nom]?", "Wann wurde [S:nom] "
                      "[a:nom]?", "In welchem Jahr wurde [S:nom] [a:nom]?"),
    ("P39", "P1365"): ("Wen löste [S:nom] als [a:nom] ab?", "Auf wen folgte [S:nom] als [a:nom]?",
                       "Wessen Nachfolger wurde [S:nom] als [a:nom]?"),
    ("P39", "P1366"): ("Wer löste [S:akk] als [a:nom] ab?", "Wer folgte als [a:nom] auf [S:akk]?",
                       "Wer übernahm das Amt als [a:nom] von [S:dat]?"),
    ("P39", "P582"): ("Bis wann war [S:nom] [a:nom]?", "Wann endete [S's:f.nom:Amtszeit] als "
                      "[a:nom]?", "In welchem Jahr hörte [S:nom] als [a:nom] auf?"),
    ("P54", "P580"): ("{Seit wann spielt|Ab wann spielte} [S:nom] für [a:akk]?",
                      "Wann ist [S:nom] [zu:a] gewechselt?",
                      "Wann hat [S:nom] [bei:a] unterschrieben?"),
    ("P54", "P582"): ("Bis wann hat [S:nom] für [a:akk] gespielt?",
                      "Wann hat [S:nom] [a:akk] verlassen?", "Wann ging [S:nom] [von:a] weg?"),
    ("P108", "P580"): ("{Seit wann arbeitet|Ab wann arbeitete} [S:nom] für [a:akk]?",
                       "Wann hat [S:nom] [bei:a] angefangen?",
                       "In welchem Jahr kam [S:nom] [zu:a]?"),
    ("P108", "P582"): ("Bis wann hat [S:nom] für [a:akk] gearbeitet?",
                       "Wann hat [S:nom] [a:akk] verlassen?", "Wann hörte [S:nom] [bei:a] auf?"),
    ("P69", "P580"): ("Wann hat [S:nom] [an:a] angefangen?", "Ab wann war [S:nom] [an:a]?",
                      "In welchem Jahr kam [S:nom] [an:a]?"),
    ("P69", "P582"): ("Wann hat [S:nom] [an:a] den Abschluss gemacht?", "Bis wann war "
                      "[S:nom] [an:a]?", "Wann hat [S:nom] [a:akk] verlassen?"),
    ("P166", "P585"): ("Wann hat [S:nom] [a:akk] bekommen?", "In welchem Jahr wurde [S:nom] "
                       "[mit:a] ausgezeichnet?", "Wann hat [S:nom] [a:akk] gewonnen?"),
    ("P1411", "P585"): ("Wann wurde [S:nom] für [a:akk] nominiert?", "In welchem Jahr war "
                        "[S:nom] für [a:akk] nominiert?", "Wann bekam [S:nom] die Nominierung "
                        "für [a:akk]?"),
    ("P1082", "P585"): ("In welchem Jahr hatte [S:nom] [a] Einwohner?", "Wann wurden [in:S] "
                        "[a] Einwohner gezählt?", "Von wann ist die Zahl von [a] Einwohnern?"),
    ("P488", "P580"): ("{Seit wann leitet|Ab wann leitete} [a:nom] [S:akk]?", "Wann hat [a:nom] "
                       "den Vorsitz übernommen?", "In welchem Jahr hat [a:nom] den Vorsitz "
                       "übernommen?"),
}
QUALIFIED_BY_KIND: dict[tuple[str, str, str], tuple[str, ...]] = {
    ("P6", "P580", "city"): ("{Seit wann ist|Ab wann war} [a:nom] [S's:m.nom:Bürgermeister]?",
                             "Wann wurde [a:nom] [S's:m.nom:Bürgermeister]?",
                             "Wann hat [a:nom] das Amt übernommen?"),
    ("P6", "P582", "city"): ("Bis wann war [a:nom] [S's:m.nom:Bürgermeister]?",
                             "Wann endete die Amtszeit [von:a]?",
                             "Wann hat [a:nom] das Amt abgegeben?"),
}

# qualifier -> follow-ups about the statement just answered: (spoken, typed)
ELLIPSIS_QUALIFIED: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "P580": (("Wann hat das angefangen?", "Und wann hat das begonnen?", "Ab wann war das so?"),
             ("ab wann war das?", "wann hat das angefangen?", "und seit wann war das?")),
    "P582": (("Und bis wann war das?", "Bis wann ging das?", "Wann hat das aufgehört?"),
             ("bis wann war das?", "und bis wann?", "wann war das zu Ende?")),
    "P585": (("Wann war das?", "Und wann war das?", "In welchem Jahr war das?"),
             ("wann war das?", "in welchem Jahr war das?", "und wann war das?")),
    "P1365": (("Wer hatte das Amt davor inne?", "Und wer war es davor?", "Wer war der Vorgänger?"),
              ("Vorgänger?", "wer davor?", "und davor?")),
    "P1366": (("Wer hatte das Amt danach inne?", "Und wer kam danach?", "Wer war der Nachfolger?"),
              ("Nachfolger?", "wer danach?", "und danach?")),
}
ELLIPSIS_QUALIFIED_PRESENT = {
    "P580": (("Seit wann ist das so?", "Und seit wann?", "Seit wann ist das denn so?"),
             ("seit wann ist das so?", "und seit wann?", "seit wann genau?")),
}

# the long tail of what real conversations ask (each under 16 turns on real-entities-dev)
VOICE.update({
    "P452": ("In welcher Branche {ist|war} [S:nom] tätig?", "Was {macht|machte} [S:nom]?",
             "Zu welcher Branche {gehört|gehörte} [S:nom]?"),
    "P1037": ("Wer {leitet|leitete} [S:akk]?", "Wer {ist|war} [S's:m.nom:Direktor]?",
              "Wer {steht|stand} an [S's:f.dat:Spitze]?"),
    "P5822": ("Wie hoch {ist|war} [S's:f.nom:Zulassungsquote]?", "Wie viel Prozent der "
              "Bewerber {nimmt|nahm} [S:nom] auf?", "Welcher Anteil der Bewerber {wird|wurde} "
              "[an:S] angenommen?"),
    "P84": ("Wer hat [S:akk] entworfen?", "Wer {ist|war} [S's:m.nom:Architekt]?",
            "Von welchem Architekten {stammt|stammte} [S:nom]?"),
    "P85": ("Was {ist|war} [S's:f.nom:Nationalhymne]?", "Wie {heißt|hieß} "
            "[S's:f.nom:Hymne]?", "Welche Hymne {hat|hatte} [S:nom]?"),
    "P1365": ("Was hat [S:nom] ersetzt?", "Wer {ist|war} [S's:m.nom:Vorgänger]?",
              "Worauf folgte [S:nom]?"),
    "P155": ("Was kam vor [S:dat]?", "Worauf {folgt|folgte} [S:nom]?",
             "Was {ist|war} [S's:m.nom:Vorgänger]?"),
    "P156": ("Was kam nach [S:dat]?", "Was {folgt|folgte} auf [S:akk]?",
             "Was {ist|war} [S's:m.nom:Nachfolger]?"),
    "P1366": ("Wodurch wurde [S:nom] ersetzt?", "Wer {ist|war} [S's:m.nom:Nachfolger]?",
              "Was kam nach [S:dat]?"),
    "P2226": ("Wie hoch {ist|war} [S's:f.nom:Marktkapitalisierung]?", "Wie viel {ist|war} "
              "[S:nom] an der Börse wert?", "Welchen Börsenwert {hat|hatte} [S:nom]?"),
    "P4552": ("Zu welchem Gebirge {gehört|gehörte} [S:nom]?", "In welchem Gebirge {liegt|lag} "
              "[S:nom]?", "Welchem Gebirge {ist|war} [S:nom] zugeordnet?"),
    "P5593": ("Wie groß {ist|war} [S's:f.nom:Poissonzahl]?", "Welche Querkontraktionszahl "
              "{hat|hatte} [S:nom]?", "Was {ist|war} [S's:f.nom:Querkontraktionszahl]?"),
    "P1088": ("Wie hart {ist|war} [S:nom]?", "Welche Mohshärte {hat|hatte} [S:nom]?",
              "Was {ist|war} [S's:f.nom:Härte] nach Mohs?"),
    "P580": ("Wann hat [S:nom] begonnen?", "Wann fing [S:nom] an?",
             "{Seit wann gibt|Ab wann gab} es [S:akk]?"),
    "P582": ("Wann hat [S:nom] geendet?", "Wann war [S:nom] vorbei?", "Bis wann gab es [S:akk]?"),
    "P463": ("Wovon {ist|war} [S:nom] Mitglied?", "In welchen Organisationen {ist|war} [S:nom] "
             "Mitglied?", "Welchen Organisationen {gehört|gehörte} [S:nom] an?"),
    "P194": ("Wie {heißt|hieß} [S's:n.nom:Parlament]?", "Was {ist|war} "
             "[S's:f.nom:Legislative]?", "Welches Parlament {hat|hatte} [S:nom]?"),
    "P1336": ("Wer {beansprucht|beanspruchte} [S:akk]?", "Welcher Staat {erhebt|erhob} "
              "Anspruch auf [S:akk]?", "Wer {erhebt|erhob} Gebietsansprüche auf [S:akk]?"),
    "P945": ("Wem {dient|diente} [S:nom]?", "Wem {ist|war} [S:nom] unterstellt?",
             "Für wen {kämpft|kämpfte} [S:nom]?"),
    "P1196": ("Wie ist [S:nom] gestorben?", "Auf welche Weise starb [S:nom]?",
              "Was war [S's:f.nom:Todesart]?"),
    "P1304": ("Was {ist|war} [S's:f.nom:Zentralbank]?", "Wie {heißt|hieß} "
              "[S's:f.nom:Notenbank]?", "Welche Zentralbank {hat|hatte} [S:nom]?"),
    "P1971": ("Wie viele Kinder {hat|hatte} [S:nom]?", "Wie viele Kinder hat [S:nom] "
              "bekommen?", "Wie viele Söhne und Töchter {hat|hatte} [S:nom]?"),
    "P135": ("Zu welcher Bewegung {gehört|gehörte} [S:nom]?", "Welcher Kunstrichtung {ist|war} "
             "[S:nom] zuzuordnen?", "Welcher Strömung {gehört|gehörte} [S:nom] an?"),
    "P737": ("Wer hat [S:akk] beeinflusst?", "Von wem wurde [S:nom] beeinflusst?",
             "Wer {sind|waren} [S's:pl.nom:Vorbilder]?"),
})
