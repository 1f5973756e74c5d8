"""German search queries: the nouns a fact is typed with ("Schweiz Hauptstadt",
"Hauptstadt Schweiz"), which also make the elliptic follow-ups ("Und die Hauptstadt?").
Each entry: "gender:Noun" (m, f, n, pl), the first is the noun of the follow-up."""

from __future__ import annotations


def _nouns(spec: str) -> dict[str, tuple[tuple[str, str], ...]]:
    out = {}
    for line in spec.strip().splitlines():
        pid, rest = line.split("=", 1)
        out[pid.strip()] = tuple(tuple(n.strip().split(":", 1)) for n in rest.split(","))
    return out


TEXT_NOUNS = _nouns("""
P569 = n:Geburtsdatum, m:Geburtstag, n:Geburtsjahr
P19 = m:Geburtsort, f:Geburtsstadt, f:Herkunft
P570 = n:Todesdatum, m:Todestag, n:Sterbedatum
P20 = m:Sterbeort, m:Todesort, f:Sterbestadt
P27 = f:Staatsangehörigkeit, f:Nationalität, f:Staatsbürgerschaft
P26 = m:Ehepartner, f:Ehe, m:Partner
P40 = pl:Kinder, pl:Söhne und Töchter, m:Nachwuchs
P22 = m:Vater, m:Papa, pl:Eltern
P25 = f:Mutter, f:Mama, pl:Eltern
P3373 = pl:Geschwister, pl:Brüder und Schwestern, pl:Familie
P106 = m:Beruf, f:Tätigkeit, m:Job
P166 = pl:Auszeichnungen, pl:Preise, pl:Ehrungen
P1411 = pl:Nominierungen, pl:Preisnominierungen, pl:nominiert für
P39 = pl:Ämter, pl:Positionen, pl:politische Ämter
P102 = f:Partei, f:Parteizugehörigkeit, f:politische Partei
P69 = f:Ausbildung, n:Studium, f:Universität
P108 = m:Arbeitgeber, f:Firma, m:Arbeitsplatz
P800 = pl:Werke, pl:bekanntesten Werke, pl:Hauptwerke
P136 = n:Genre, f:Stilrichtung, f:Musikrichtung
P1303 = n:Instrument, pl:Instrumente, n:Musikinstrument
P641 = f:Sportart, m:Sport, f:Disziplin
P54 = pl:Vereine, pl:Mannschaften, pl:Stationen
P413 = f:Position, f:Spielposition, f:Rolle im Team
P2031 = m:Karrierebeginn, m:Karrierestart, n:aktiv seit
P2032 = n:Karriereende, m:Rücktritt, n:aktiv bis
P140 = f:Religion, m:Glaube, f:Konfession
P103 = f:Muttersprache, f:Erstsprache, f:Sprache
P1412 = pl:Sprachen, pl:Sprachkenntnisse, pl:Fremdsprachen
P937 = m:Arbeitsort, m:Wirkungsort, f:Wirkungsstätte
P551 = m:Wohnort, m:Wohnsitz, m:Lebensort
P101 = n:Fachgebiet, n:Arbeitsgebiet, n:Forschungsgebiet
P412 = f:Stimmlage, n:Stimmfach, f:Stimme
P411 = m:Heiligenstatus, f:Heiligsprechung, f:Verehrung
P1038 = f:Verwandtschaft, pl:Verwandten, f:Familie
P509 = f:Todesursache, f:Todesart, m:Grund des Todes
P2067 = f:Masse, n:Gewicht, f:Atommasse
P2348 = f:Epoche, m:Zeitraum, f:Zeit
P1441 = pl:Auftritte, pl:Werke, pl:Vorkommen
P607 = pl:Kriege, pl:Konflikte, pl:Schlachten
P119 = f:Grabstätte, n:Grab, m:Begräbnisort
P2048 = f:Höhe, f:Größe, f:Körpergröße
P57 = m:Regisseur, f:Regie, m:Filmemacher
P161 = f:Besetzung, pl:Darsteller, pl:Schauspieler
P58 = n:Drehbuch, m:Drehbuchautor, pl:Autoren
P50 = m:Autor, m:Verfasser, m:Schriftsteller
P175 = m:Interpret, m:Sänger, m:Künstler
P86 = m:Komponist, f:Filmmusik, f:Musik
P676 = m:Texter, m:Liedtext, m:Songtext
P577 = n:Erscheinungsdatum, n:Erscheinungsjahr, f:Veröffentlichung
P495 = n:Herkunftsland, n:Produktionsland, f:Herkunft
P364 = f:Originalsprache, f:Sprache, f:Filmsprache
P407 = f:Sprache, f:Originalsprache, f:Textsprache
P826 = f:Tonart, f:Tonalität, f:Tonlage
P2047 = f:Laufzeit, f:Länge, f:Dauer
P17 = n:Land, m:Staat, n:Staatsgebiet
P30 = m:Kontinent, m:Erdteil, f:Weltregion
P36 = f:Hauptstadt, m:Regierungssitz, m:Hauptort
P131 = f:Region, n:Bundesland, n:Verwaltungsgebiet
P37 = f:Amtssprache, pl:Amtssprachen, f:Landessprache
P35 = n:Staatsoberhaupt, m:Staatschef, n:Oberhaupt
P6 = m:Regierungschef, f:Regierung, f:Regierungsspitze
P38 = f:Währung, n:Geld, n:Zahlungsmittel
P47 = pl:Nachbarländer, pl:Nachbarn, pl:Grenzen
P1082 = f:Einwohnerzahl, pl:Einwohner, f:Bevölkerung
P2046 = f:Fläche, f:Größe, f:Gesamtfläche
P610 = f:höchste Erhebung, f:höchste Bergspitze, m:Gipfel
P1589 = f:tiefste Stelle, f:niedrigste Stelle, f:tiefste Senke
P206 = n:Gewässer, m:Fluss, m:See
P138 = m:Namensgeber, f:Namensherkunft, f:Namensgebung
P1376 = f:Hauptstadt von, m:Verwaltungssitz, f:Hauptstadtfunktion
P1249 = f:Ersterwähnung, f:erste Erwähnung, f:urkundliche Erwähnung
P7959 = f:historische Grafschaft, f:Grafschaft, f:traditionelle Grafschaft
P3075 = f:Staatsreligion, f:offizielle Religion, f:Religion
P2131 = n:BIP, n:Bruttoinlandsprodukt, f:Wirtschaftsleistung
P361 = m:Teil von, f:Zugehörigkeit, n:übergeordnetes Ganzes
P276 = m:Standort, m:Ort, f:Lage
P669 = f:Straße, f:Adresse, f:Anschrift
P190 = pl:Partnerstädte, pl:Städtepartnerschaften, pl:Partnerorte
P571 = n:Gründungsdatum, f:Gründung, n:Gründungsjahr
P576 = f:Auflösung, n:Ende, n:Auflösungsjahr
P112 = m:Gründer, pl:Gründer, pl:Gründerväter
P159 = m:Hauptsitz, f:Zentrale, m:Firmensitz
P749 = f:Muttergesellschaft, m:Mutterkonzern, m:Eigentümer
P488 = m:Vorsitz, f:Leitung, m:Chef
P169 = m:Geschäftsführer, m:CEO, m:Chef
P740 = m:Gründungsort, f:Herkunft, m:Ursprung
P115 = n:Heimstadion, n:Stadion, f:Spielstätte
P2196 = f:Studentenzahl, pl:Studenten, f:Zahl der Studierenden
P1619 = f:Eröffnung, n:Eröffnungsjahr, n:Eröffnungsdatum
P1174 = pl:Besucher, f:Besucherzahl, pl:Besucher pro Jahr
P1373 = pl:Fahrgäste, n:Fahrgastaufkommen, pl:Fahrgastzahlen
P1103 = pl:Gleise, pl:Bahnsteiggleise, f:Gleisanzahl
P1436 = f:Sammlung, f:Sammlungsgröße, pl:Objekte
P575 = f:Entdeckung, n:Entdeckungsjahr, n:Entdeckungsdatum
P189 = m:Fundort, m:Entdeckungsort, m:Ort der Entdeckung
P1086 = f:Ordnungszahl, f:Kernladungszahl, f:Protonenzahl
P1121 = pl:Oxidationsstufen, pl:Oxidationszahlen, f:Wertigkeit
P1108 = f:Elektronegativität, m:Elektronegativitätswert, m:EN-Wert
P1037 = m:Direktor, f:Leitung, m:Leiter
P452 = f:Branche, m:Wirtschaftszweig, m:Geschäftsbereich
P5822 = f:Zulassungsquote, f:Annahmequote, f:Aufnahmequote
P84 = m:Architekt, m:Baumeister, m:Entwurf
P85 = f:Nationalhymne, f:Hymne, f:Landeshymne
P1365 = m:Vorgänger, m:Vorläufer, f:Vorgängerorganisation
P155 = m:Vorgänger, m:Vorläufer, n:Vorgängerwerk
P156 = m:Nachfolger, f:Fortsetzung, n:Nachfolgewerk
P1366 = m:Nachfolger, f:Nachfolgeorganisation, m:Ersatz
P2226 = f:Marktkapitalisierung, m:Börsenwert, m:Marktwert
P4552 = n:Gebirge, m:Gebirgszug, f:Bergkette
P5593 = f:Poissonzahl, f:Querkontraktionszahl, f:Poisson-Zahl
P1088 = f:Mohshärte, f:Härte, f:Ritzhärte
P580 = m:Beginn, m:Anfang, n:Startdatum
P582 = n:Ende, n:Enddatum, m:Schluss
P463 = pl:Mitgliedschaften, pl:Organisationen, f:Mitgliedschaft
P194 = n:Parlament, f:Legislative, f:Volksvertretung
P1336 = m:Gebietsanspruch, pl:Ansprüche, m:Anspruch
P945 = f:Loyalität, f:Gefolgschaft, m:Dienstherr
P1196 = f:Todesart, m:Tod, f:Art des Todes
P1304 = f:Zentralbank, f:Notenbank, f:Nationalbank
P1971 = f:Kinderzahl, f:Anzahl Kinder, pl:Kinder Anzahl
P135 = f:Bewegung, f:Kunstrichtung, f:Strömung
P737 = pl:Vorbilder, pl:Einflüsse, pl:Inspirationen
""")

# nouns that depend on the kind of subject (a city's head of government is its mayor)
TEXT_NOUNS_BY_KIND = {
    ("P6", "city"): (("m", "Bürgermeister"), ("f", "Stadtregierung"), ("n", "Stadtoberhaupt")),
    ("P47", "city"): (("pl", "Nachbarorte"), ("pl", "Nachbargemeinden"),
                      ("pl", "angrenzende Orte")),
    ("P488", "university"): (("m", "Rektor"), ("f", "Hochschulleitung"), ("f", "Leitung")),
    ("P136", "person"): (("n", "Genre"), ("f", "Stilrichtung"), ("n", "Fach")),
    ("P2048", "person"): (("f", "Körpergröße"), ("f", "Größe"), ("f", "Körperlänge")),
    ("P2067", "person"): (("n", "Gewicht"), ("n", "Körpergewicht"), ("f", "Masse")),
}
# no elliptic follow-up reads well for these ("Und der Teil von?")
NO_ELLIPSIS = frozenset({"P1376", "P361", "P138", "P2031", "P2032", "P1441"})

# typed follow-ups per qualifier, and queries about a statement ([a] its value)
TEXT_QUALIFIED: dict[tuple[str, str], tuple[str, ...]] = {
    ("P6", "P580"): ("[S:kw] [a] Amtsantritt", "[a] Regierungschef seit", "[a] im Amt seit"),
    ("P6", "P582"): ("[S:kw] [a] Amtsende", "[a] Regierungschef bis", "[a] im Amt bis"),
    ("P36", "P580"): ("[S:kw] Hauptstadt [a] seit", "[a] Hauptstadt ab wann",
                      "[S:kw] [a] Hauptstadt Beginn"),
    ("P38", "P580"): ("[S:kw] Währung [a] seit", "[S:kw] [a] Einführung",
                      "[S:kw] [a] Währung seit"),
    ("P35", "P580"): ("[S:kw] [a] Amtsantritt", "[a] Staatsoberhaupt seit", "[a] im Amt seit"),
    ("P35", "P582"): ("[S:kw] [a] Amtsende", "[a] Staatsoberhaupt bis", "[a] im Amt bis"),
    ("P26", "P580"): ("[S:kw] [a] Hochzeit", "[S:kw] [a] verheiratet seit", "[S:kw] [a] Heirat"),
    ("P26", "P582"): ("[S:kw] [a] Scheidung", "[S:kw] [a] Trennung", "[S:kw] [a] verheiratet bis"),
    ("P39", "P580"): ("[S:kw] [a] seit", "[S:kw] [a] Amtsantritt", "[S:kw] [a] Beginn"),
    ("P39", "P582"): ("[S:kw] [a] bis", "[S:kw] [a] Amtsende", "[S:kw] [a] Ende"),
    ("P39", "P1365"): ("[S:kw] [a] Vorgänger", "[S:kw] Vorgänger als [a]", "[S:kw] [a] davor"),
    ("P39", "P1366"): ("[S:kw] [a] Nachfolger", "[S:kw] Nachfolger als [a]", "[S:kw] [a] danach"),
    ("P54", "P580"): ("[S:kw] [a] seit", "[S:kw] Wechsel [a]", "[S:kw] [a] Beginn"),
    ("P54", "P582"): ("[S:kw] [a] bis", "[S:kw] Abschied [a]", "[S:kw] [a] Ende"),
    ("P108", "P580"): ("[S:kw] [a] seit", "[S:kw] [a] Beginn", "[S:kw] [a] Einstieg"),
    ("P108", "P582"): ("[S:kw] [a] bis", "[S:kw] [a] Ende", "[S:kw] [a] Ausstieg"),
    ("P69", "P580"): ("[S:kw] [a] Studienbeginn", "[S:kw] [a] seit", "[S:kw] [a] Beginn"),
    ("P69", "P582"): ("[S:kw] [a] Abschluss", "[S:kw] [a] bis", "[S:kw] [a] Abschlussjahr"),
    ("P166", "P585"): ("[S:kw] [a] Jahr", "[S:kw] [a] verliehen", "[S:kw] [a] wann"),
    ("P1411", "P585"): ("[S:kw] [a] Nominierung Jahr", "[S:kw] [a] nominiert", "[S:kw] [a] wann"),
    ("P1082", "P585"): ("[S:kw] [a] Einwohner Jahr", "[S:kw] Einwohnerzahl Stand",
                        "[S:kw] Bevölkerung Stichtag"),
    ("P488", "P580"): ("[S:kw] [a] Vorsitz seit", "[a] Vorsitz Beginn", "[S:kw] [a] seit"),
}
