"""Write the bundled KG sample (``sample-dump.json``) in Wikidata's JSON dump format.

The facts below were written by the convkgyarn team from public knowledge; ids
are real Wikidata ids. Sitelink maps are abbreviated stand-ins whose size
approximates the entity's real sitelink count (our popularity signal).

Run ``python wikidata/build_sample.py`` to regenerate the dump after editing.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from pathlib import Path

OUT = Path(__file__).with_name("sample-dump.json")
MODIFIED = "2024-11-01T00:00:00Z"
WIKIS = [f"{c}wiki" for c in (
    "en de fr es it ja nl pl pt ru sv uk zh ar ca cs da fa fi he hu id ko ms no ro sr tr vi "
    "bg el et eu gl hr hy ka kk lt lv mk sk sl sq ta th ur uz az be bn bs cy eo ga hi is jv "
    "kn la lb ml mn mr my ne pa ps si so sw te tg tl tt ug yo zu af am an ast ba bar bcl bh "
    "bpy br ce ckb co cv diq dv fo fy gd gn gu ha haw ht ia ie ig ilo io kab kbd kg ki kl km "
    "ku kw ky lad lg li lij lmo ln lo mg mhr mi min mt mwl mzn na nah nap nds new nn nov oc "
    "om or os pam pap pms pnb qu rm rn rue rw sa sah sc scn sco sd se sg sh simple sn srn ss "
    "st stq su szl tet ti tk tn to tpi ts tw ty udm ve vec vep vls vo wa war wo wuu xal xh "
    "yi za zea".split())]


@dataclass(frozen=True)
class V:
    """A typed data value."""

    type: str
    value: object
    datatype: str


def D(iso: str) -> V:  # noqa: N802 - short constructors keep the tables readable
    """A date: 1961-08-04 (day), 2010-12 (month) or 1960 (year)."""
    parts = iso.split("-")
    precision = {1: 9, 2: 10, 3: 11}[len(parts)]
    y, m, d = (parts + ["00", "00"])[:3]
    return V("time", {"time": f"+{int(y):04d}-{m}-{d}T00:00:00Z", "timezone": 0, "before": 0,
                      "after": 0, "precision": precision,
                      "calendarmodel": "http://www.wikidata.org/entity/Q1985727"}, "time")


def N(amount: float | int, unit: str | None = None) -> V:  # noqa: N802
    unit_uri = f"http://www.wikidata.org/entity/{unit}" if unit else "1"
    return V("quantity", {"amount": f"+{amount}", "unit": unit_uri}, "quantity")


def S(text: str, datatype: str = "string") -> V:  # noqa: N802
    return V("string", text, datatype)


def T(text: str) -> V:  # noqa: N802
    return V("monolingualtext", {"text": text, "language": "en"}, "monolingualtext")


def C(lat: float, lon: float) -> V:  # noqa: N802
    return V("globecoordinate", {"latitude": lat, "longitude": lon, "altitude": None,
                                 "precision": 0.0001,
                                 "globe": "http://www.wikidata.org/entity/Q2"}, "globe-coordinate")


PROPERTIES = {
    "P31": ("instance of", "wikibase-item"),
    "P21": ("sex or gender", "wikibase-item"),
    "P106": ("occupation", "wikibase-item"),
    "P569": ("date of birth", "time"),
    "P19": ("place of birth", "wikibase-item"),
    "P570": ("date of death", "time"),
    "P20": ("place of death", "wikibase-item"),
    "P27": ("country of citizenship", "wikibase-item"),
    "P26": ("spouse", "wikibase-item"),
    "P451": ("unmarried partner", "wikibase-item"),
    "P40": ("child", "wikibase-item"),
    "P22": ("father", "wikibase-item"),
    "P25": ("mother", "wikibase-item"),
    "P166": ("award received", "wikibase-item"),
    "P39": ("position held", "wikibase-item"),
    "P463": ("member of", "wikibase-item"),
    "P102": ("member of political party", "wikibase-item"),
    "P69": ("educated at", "wikibase-item"),
    "P800": ("notable work", "wikibase-item"),
    "P57": ("director", "wikibase-item"),
    "P161": ("cast member", "wikibase-item"),
    "P577": ("publication date", "time"),
    "P136": ("genre", "wikibase-item"),
    "P495": ("country of origin", "wikibase-item"),
    "P364": ("original language of film or TV show", "wikibase-item"),
    "P2047": ("duration", "quantity"),
    "P840": ("narrative location", "wikibase-item"),
    "P449": ("original broadcaster", "wikibase-item"),
    "P2437": ("number of seasons", "quantity"),
    "P1113": ("number of episodes", "quantity"),
    "P580": ("start time", "time"),
    "P582": ("end time", "time"),
    "P585": ("point in time", "time"),
    "P17": ("country", "wikibase-item"),
    "P36": ("capital", "wikibase-item"),
    "P38": ("currency", "wikibase-item"),
    "P37": ("official language", "wikibase-item"),
    "P35": ("head of state", "wikibase-item"),
    "P6": ("head of government", "wikibase-item"),
    "P1082": ("population", "quantity"),
    "P625": ("coordinate location", "globe-coordinate"),
    "P30": ("continent", "wikibase-item"),
    "P571": ("inception", "time"),
    "P740": ("location of formation", "wikibase-item"),
    "P527": ("has part(s)", "wikibase-item"),
    "P264": ("record label", "wikibase-item"),
    "P373": ("Commons category", "string"),
    "P18": ("image", "commonsMedia"),
    "P856": ("official website", "url"),
    "P1559": ("name in native language", "monolingualtext"),
    "P3373": ("sibling", "wikibase-item"),
}

# Items used as values (types, places, awards, genres ...): label, description, P31 values.
VALUE_ITEMS: dict[str, tuple[str, str, list[str]]] = {
    "Q5": ("human", "common name of Homo sapiens", []),
    "Q6581097": ("male", "male gender", []),
    "Q6581072": ("female", "female gender", []),
    "Q11424": ("film", "sequence of images that give the impression of movement", []),
    "Q5398426": ("television series", "connected set of television program episodes", []),
    "Q5741069": ("rock band", "musical ensemble which performs rock music", []),
    "Q515": ("city", "large human settlement", []),
    "Q1549591": ("big city", "city with a population of more than 100,000", []),
    "Q5119": ("capital city", "seat of government of a country or region", []),
    "Q408804": ("borough of New York City", "administrative division of New York City", []),
    "Q6256": ("country", "distinct territorial body or political entity", []),
    "Q3624078": ("sovereign state", "state that has the highest authority over a territory", []),
    "Q33999": ("actor", "person who acts in a production", []),
    "Q10800557": ("film actor", "actor who works in film", []),
    "Q10798782": ("television actor", "actor who appears in television", []),
    "Q82955": ("politician", "person involved in politics", []),
    "Q40348": ("lawyer", "legal professional", []),
    "Q36180": ("writer", "person who uses written words", []),
    "Q177220": ("singer", "person who sings", []),
    "Q488205": ("singer-songwriter", "musician who writes and performs songs", []),
    "Q855091": ("guitarist", "person who plays the guitar", []),
    "Q753110": ("songwriter", "person who writes songs", []),
    "Q386854": ("drummer", "percussionist who plays the drum kit", []),
    "Q36834": ("composer", "person who creates music", []),
    "Q639669": ("musician", "person who plays or composes music", []),
    "Q1028181": ("painter", "person who paints", []),
    "Q2252262": ("rapper", "artist who performs rap music", []),
    "Q183945": ("record producer", "person who oversees music recordings", []),
    "Q131524": ("entrepreneur", "person who starts businesses", []),
    "Q43845": ("businessperson", "person involved in business", []),
    "Q486748": ("pianist", "musician who plays the piano", []),
    "Q4610556": ("model", "person who poses for art, fashion or advertising", []),
    "Q2526255": ("film director", "person who directs films", []),
    "Q28389": ("screenwriter", "writer of scripts for films or television", []),
    "Q3282637": ("film producer", "person who supervises film production", []),
    "Q169470": ("physicist", "scientist who studies physics", []),
    "Q5716684": ("dancer", "person who dances", []),
    "Q30": ("United States of America", "country in North America", []),
    "Q145": ("United Kingdom", "country in north-west Europe", []),
    "Q142": ("France", "country in western Europe", []),
    "Q183": ("Germany", "country in central Europe", []),
    "Q17": ("Japan", "island country in East Asia", []),
    "Q16": ("Canada", "country in North America", []),
    "Q408": ("Australia", "country in Oceania", []),
    "Q29": ("Spain", "country in south-west Europe", []),
    "Q801": ("Israel", "country in western Asia", []),
    "Q244": ("Barbados", "island country in the Caribbean", []),
    "Q155": ("Brazil", "country in South America", []),
    "Q49": ("North America", "continent", []),
    "Q46": ("Europe", "continent", []),
    "Q48": ("Asia", "continent", []),
    "Q18094": ("Honolulu", "capital city of Hawaii", []),
    "Q16555": ("Houston", "city in Texas, United States", []),
    "Q43196": ("Cincinnati", "city in Ohio, United States", []),
    "Q49145": ("New Haven", "city in Connecticut, United States", []),
    "Q33405": ("Little Rock", "capital city of Arkansas, United States", []),
    "Q1342": ("Pittsburgh", "city in Pennsylvania, United States", []),
    "Q3141": ("Melbourne", "city in Victoria, Australia", []),
    "Q2807": ("Madrid", "capital city of Spain", []),
    "Q1218": ("Jerusalem", "city in the Middle East", []),
    "Q1055": ("Hamburg", "city in Germany", []),
    "Q10686": ("Belfast", "capital city of Northern Ireland", []),
    "Q1930": ("Ottawa", "capital city of Canada", []),
    "Q3114": ("Canberra", "capital city of Australia", []),
    "Q1522": ("New Mexico", "state of the United States of America", []),
    "Q800": ("Costa Rica", "country in Central America", []),
    "Q62": ("San Francisco", "city in California, United States", []),
    "Q11696": ("President of the United States", "head of state and head of government of the "
               "United States", []),
    "Q11699": ("Vice President of the United States", "second-highest office in the executive "
               "branch of the U.S. government", []),
    "Q14213": ("United States Secretary of State", "head of the U.S. Department of State", []),
    "Q35637": ("Nobel Peace Prize", "one of the five Nobel Prizes", []),
    "Q102427": ("Academy Award for Best Picture", "Academy Award", []),
    "Q103916": ("Academy Award for Best Actor", "Academy Award", []),
    "Q103618": ("Academy Award for Best Actress", "Academy Award", []),
    "Q103360": ("Academy Award for Best Director", "Academy Award", []),
    "Q29552": ("Democratic Party", "political party in the United States", []),
    "Q29468": ("Republican Party", "political party in the United States", []),
    "Q9626": ("Conservative Party", "political party in the United Kingdom", []),
    "Q49762": ("Christian Democratic Union of Germany", "political party in Germany", []),
    "Q49088": ("Columbia University", "private university in New York City", []),
    "Q49122": ("Harvard Law School", "law school of Harvard University", []),
    "Q13371": ("Harvard University", "private university in Massachusetts", []),
    "Q21578": ("Princeton University", "private university in New Jersey", []),
    "Q154804": ("Leipzig University", "university in Leipzig, Germany", []),
    "Q192088": ("Eton College", "boarding school in Berkshire, England", []),
    "Q4917": ("United States dollar", "currency of the United States", []),
    "Q25224": ("pound sterling", "currency of the United Kingdom", []),
    "Q4916": ("euro", "currency of the eurozone", []),
    "Q8146": ("Japanese yen", "currency of Japan", []),
    "Q1104069": ("Canadian dollar", "currency of Canada", []),
    "Q259502": ("Australian dollar", "currency of Australia", []),
    "Q1860": ("English", "West Germanic language", []),
    "Q150": ("French", "Romance language", []),
    "Q188": ("German", "West Germanic language", []),
    "Q5287": ("Japanese", "East Asian language", []),
    "Q11399": ("rock music", "genre of popular music", []),
    "Q37073": ("pop music", "genre of popular music", []),
    "Q83440": ("country music", "genre of American popular music", []),
    "Q11401": ("hip hop music", "music genre", []),
    "Q45981": ("rhythm and blues", "music genre", []),
    "Q9794": ("reggae", "music genre from Jamaica", []),
    "Q211756": ("dance-pop", "music genre", []),
    "Q183412": ("EMI", "British record label", []),
    "Q208909": ("Parlophone", "British record label", []),
    "Q213710": ("Apple Records", "record label founded by the Beatles", []),
    "Q1194456": ("Roc Nation", "entertainment company", []),
    "Q1054574": ("romance film", "film genre", []),
    "Q846544": ("disaster film", "film genre", []),
    "Q130232": ("drama film", "film genre", []),
    "Q157443": ("comedy film", "film genre", []),
    "Q471839": ("science fiction film", "film genre", []),
    "Q188473": ("action film", "film genre", []),
    "Q319221": ("adventure film", "film genre", []),
    "Q157394": ("fantasy film", "film genre", []),
    "Q369747": ("war film", "film genre", []),
    "Q170238": ("sitcom", "genre of comedy programs", []),
    "Q13974": ("NBC", "American television network", []),
    "Q23633": ("HBO", "American television network", []),
    "Q7727": ("minute", "unit of time", []),
}

HUMAN, MALE, FEMALE = "Q5", "Q6581097", "Q6581072"
POTUS = "Q11696"
OSCAR_ACTOR, OSCAR_ACTRESS, OSCAR_DIRECTOR, OSCAR_PICTURE = (
    "Q103916", "Q103618", "Q103360", "Q102427")
MINUTE = "Q7727"


def P(prop: str, value: str | V, **quals: str | V | list) -> tuple:  # noqa: N802
    """A claim: property, value and qualifiers (start=, end=, at=, or a P-id)."""
    names = {"start": "P580", "end": "P582", "at": "P585"}
    return (prop, value, {names.get(k, k): v for k, v in quals.items()})


def person(qid, label, desc, sitelinks, gender, occupations, born, *claims, aliases=(),
           birthplace=None, citizenship=("Q30",)):
    base = [P("P31", HUMAN), P("P21", gender)] + [P("P106", o) for o in occupations]
    base.append(P("P569", D(born)))
    if birthplace:
        base.append(P("P19", birthplace))
    base += [P("P27", c) for c in citizenship]
    return dict(id=qid, label=label, desc=desc, sitelinks=sitelinks, aliases=list(aliases),
                claims=base + list(claims))


def work(qid, label, desc, sitelinks, kind, *claims, aliases=()):
    return dict(id=qid, label=label, desc=desc, sitelinks=sitelinks, aliases=list(aliases),
                claims=[P("P31", kind)] + list(claims))


ENTITIES = [
    # --- United States politics -------------------------------------------------------
    person("Q76", "Barack Obama", "president of the United States from 2009 to 2017", 330,
           MALE, ["Q82955", "Q40348"], "1961-08-04",
           P("P26", "Q13133", start=D("1992-10-03")),
           P("P39", POTUS, start=D("2009-01-20"), end=D("2017-01-20")),
           P("P166", "Q35637", at=D("2009")),
           P("P69", "Q49088"), P("P69", "Q49122"), P("P102", "Q29552"),
           P("P373", S("Barack Obama")), P("P18", S("President Barack Obama.jpg", "commonsMedia")),
           P("P856", S("https://barackobama.com", "url")), P("P1559", T("Barack Obama")),
           aliases=["Barack Hussein Obama II", "Obama"], birthplace="Q18094"),
    person("Q13133", "Michelle Obama", "lawyer and writer, first lady of the United States "
           "from 2009 to 2017", 140, FEMALE, ["Q40348", "Q36180"], "1964-01-17",
           P("P26", "Q76", start=D("1992-10-03")),
           P("P69", "Q21578"), P("P69", "Q49122"), P("P102", "Q29552"),
           aliases=["Michelle LaVaughn Robinson Obama"], birthplace="Q1297"),
    person("Q6279", "Joe Biden", "president of the United States from 2021 to 2025", 250,
           MALE, ["Q82955", "Q40348"], "1942-11-20",
           P("P39", POTUS, start=D("2021-01-20"), end=D("2025-01-20")),
           P("P39", "Q11699", start=D("2009-01-20"), end=D("2017-01-20")),
           P("P102", "Q29552"), aliases=["Joseph Robinette Biden Jr.", "Biden"]),
    person("Q22686", "Donald Trump", "president of the United States since 2025 and from "
           "2017 to 2021", 260, MALE, ["Q82955", "Q43845"], "1946-06-14",
           P("P39", POTUS, start=D("2017-01-20"), end=D("2021-01-20")),
           P("P39", POTUS, start=D("2025-01-20")),
           P("P102", "Q29468"), aliases=["Donald John Trump", "Trump"], birthplace="Q18424"),
    person("Q207", "George W. Bush", "president of the United States from 2001 to 2009", 220,
           MALE, ["Q82955", "Q1028181"], "1946-07-06",
           P("P39", POTUS, start=D("2001-01-20"), end=D("2009-01-20")),
           P("P102", "Q29468"), aliases=["George Walker Bush", "Bush"], birthplace="Q49145"),
    person("Q1124", "Bill Clinton", "president of the United States from 1993 to 2001", 230,
           MALE, ["Q82955", "Q40348"], "1946-08-19",
           P("P26", "Q6294", start=D("1975-10-11")), P("P40", "Q229671"),
           P("P39", POTUS, start=D("1993-01-20"), end=D("2001-01-20")),
           P("P102", "Q29552"), aliases=["William Jefferson Clinton"]),
    person("Q6294", "Hillary Clinton", "United States secretary of state from 2009 to 2013",
           170, FEMALE, ["Q82955", "Q40348"], "1947-10-26",
           P("P26", "Q1124", start=D("1975-10-11")), P("P40", "Q229671"),
           P("P39", "Q14213", start=D("2009-01-21"), end=D("2013-02-01")),
           P("P102", "Q29552"), aliases=["Hillary Rodham Clinton"], birthplace="Q1297"),
    person("Q229671", "Chelsea Clinton", "daughter of Bill and Hillary Clinton", 45, FEMALE,
           ["Q36180"], "1980-02-27", P("P22", "Q1124"), P("P25", "Q6294"),
           birthplace="Q33405"),
    # --- European politics --------------------------------------------------------------
    person("Q567", "Angela Merkel", "chancellor of Germany from 2005 to 2021", 210, FEMALE,
           ["Q82955", "Q169470"], "1954-07-17", P("P69", "Q154804"), P("P102", "Q49762"),
           aliases=["Angela Dorothea Merkel"], birthplace="Q1055", citizenship=("Q183",)),
    person("Q3052772", "Emmanuel Macron", "president of France since 2017", 160, MALE,
           ["Q82955"], "1977-12-21", aliases=["Emmanuel Jean-Michel Frédéric Macron", "Macron"],
           citizenship=("Q142",)),
    person("Q180589", "Boris Johnson", "prime minister of the United Kingdom from 2019 to 2022",
           150, MALE, ["Q82955", "Q36180"], "1964-06-19", P("P69", "Q192088"),
           P("P102", "Q9626"), aliases=["Alexander Boris de Pfeffel Johnson"],
           birthplace="Q60", citizenship=("Q145",)),
    person("Q9682", "Elizabeth II", "queen of the United Kingdom from 1952 to 2022", 240, FEMALE,
           [], "1926-04-21", P("P570", D("2022-09-08")), P("P40", "Q43274"),
           aliases=["Queen Elizabeth II", "Elizabeth Alexandra Mary"], birthplace="Q84",
           citizenship=("Q145",)),
    person("Q43274", "Charles III", "king of the United Kingdom since 2022", 180, MALE,
           [], "1948-11-14", P("P25", "Q9682"),
           aliases=["King Charles III", "Charles, Prince of Wales"], birthplace="Q84",
           citizenship=("Q145",)),
    # --- The Beatles and friends ------------------------------------------------------------
    work("Q1299", "The Beatles", "English rock band", 190, "Q5741069",
         P("P571", D("1960")), P("P740", "Q24826"),
         P("P527", "Q1203"), P("P527", "Q2599"), P("P527", "Q2643"), P("P527", "Q2632"),
         P("P136", "Q11399"), P("P136", "Q37073"),
         P("P264", "Q183412"), P("P264", "Q208909"), P("P264", "Q213710"),
         aliases=["Beatles", "the Fab Four"]),
    person("Q1203", "John Lennon", "English singer-songwriter, member of the Beatles", 170, MALE,
           ["Q488205", "Q855091"], "1940-10-09",
           P("P570", D("1980-12-08")), P("P20", "Q60"),
           P("P26", "Q117012", start=D("1969-03-20"), end=D("1980-12-08")),
           P("P40", "Q311238"), P("P463", "Q1299"),
           aliases=["John Winston Ono Lennon"], birthplace="Q24826", citizenship=("Q145",)),
    person("Q2599", "Paul McCartney", "English singer-songwriter, member of the Beatles", 150,
           MALE, ["Q488205", "Q36834"], "1942-06-18",
           P("P26", "Q228899", start=D("1969-03-12"), end=D("1998-04-17")), P("P463", "Q1299"),
           aliases=["Sir Paul McCartney", "James Paul McCartney"], birthplace="Q24826",
           citizenship=("Q145",)),
    person("Q2643", "George Harrison", "English musician, lead guitarist of the Beatles", 120,
           MALE, ["Q855091", "Q177220", "Q753110"], "1943-02-25",
           P("P570", D("2001-11-29")), P("P20", "Q65"), P("P463", "Q1299"),
           birthplace="Q24826", citizenship=("Q145",)),
    person("Q2632", "Ringo Starr", "English drummer of the Beatles", 110, MALE,
           ["Q386854", "Q177220", "Q10800557"], "1940-07-07", P("P463", "Q1299"),
           aliases=["Richard Starkey"], birthplace="Q24826", citizenship=("Q145",)),
    person("Q117012", "Yoko Ono", "Japanese-American artist and musician", 100, FEMALE,
           ["Q639669", "Q1028181", "Q36834"], "1933-02-18",
           P("P26", "Q1203", start=D("1969-03-20"), end=D("1980-12-08")), P("P40", "Q311238"),
           birthplace="Q1490", citizenship=("Q17", "Q30")),
    person("Q311238", "Sean Lennon", "American musician, son of John Lennon and Yoko Ono", 40,
           MALE, ["Q488205", "Q855091"], "1975-10-09", P("P22", "Q1203"), P("P25", "Q117012"),
           aliases=["Sean Ono Lennon"], birthplace="Q60"),
    person("Q228899", "Linda McCartney", "American photographer and musician", 50, FEMALE,
           ["Q177220", "Q639669"], "1941-09-24", P("P570", D("1998-04-17")),
           P("P26", "Q2599", start=D("1969-03-12"), end=D("1998-04-17")),
           aliases=["Linda Louise Eastman"]),
    # --- Singers --------------------------------------------------------------------------
    person("Q26876", "Taylor Swift", "American singer-songwriter", 170, FEMALE,
           ["Q488205", "Q855091"], "1989-12-13", P("P136", "Q83440"), P("P136", "Q37073"),
           aliases=["Taylor Alison Swift"]),
    person("Q36153", "Beyoncé", "American singer, songwriter and actress", 170, FEMALE,
           ["Q177220", "Q33999"], "1981-09-04", P("P26", "Q62766", start=D("2008-04-04")),
           P("P136", "Q45981"), P("P136", "Q37073"),
           aliases=["Beyoncé Knowles", "Beyoncé Giselle Knowles-Carter", "Queen Bey"],
           birthplace="Q16555"),
    person("Q62766", "Jay-Z", "American rapper and businessman", 110, MALE,
           ["Q2252262", "Q183945", "Q131524"], "1969-12-04",
           P("P26", "Q36153", start=D("2008-04-04")), P("P136", "Q11401"),
           aliases=["Shawn Corey Carter", "Jay Z", "Hova"], birthplace="Q18419"),
    person("Q36844", "Rihanna", "Barbadian singer and businesswoman", 160, FEMALE,
           ["Q177220", "Q43845"], "1988-02-20", P("P264", "Q1194456"),
           P("P136", "Q37073"), P("P136", "Q9794"),
           aliases=["Robyn Rihanna Fenty"], citizenship=("Q244",)),
    person("Q1744", "Madonna", "American singer, songwriter and actress", 170, FEMALE,
           ["Q177220", "Q33999"], "1958-08-16",
           P("P26", "Q44221", start=D("1985-08-16"), end=D("1989")),
           P("P136", "Q37073"), P("P136", "Q211756"), aliases=["Madonna Louise Ciccone"]),
    person("Q2831", "Michael Jackson", "American singer and dancer, the King of Pop", 200, MALE,
           ["Q177220", "Q753110", "Q5716684"], "1958-08-29",
           P("P570", D("2009-06-25")), P("P20", "Q65"),
           P("P26", "Q237324", start=D("1994-05-26"), end=D("1996")),
           P("P136", "Q37073"), P("P136", "Q45981"),
           aliases=["Michael Joseph Jackson", "King of Pop", "MJ"]),
    person("Q237324", "Lisa Marie Presley", "American singer-songwriter", 50, FEMALE,
           ["Q488205"], "1968-02-01", P("P570", D("2023-01-12")),
           P("P26", "Q2831", start=D("1994-05-26"), end=D("1996"))),
    # --- Film: Titanic, Avatar ------------------------------------------------------------
    work("Q44578", "Titanic", "1997 film directed by James Cameron", 120, "Q11424",
         P("P57", "Q42574"), P("P161", "Q38111"), P("P161", "Q202765"),
         P("P577", D("1997-12-19")), P("P136", "Q1054574"), P("P136", "Q846544"),
         P("P136", "Q130232"), P("P495", "Q30"), P("P364", "Q1860"),
         P("P2047", N(194, MINUTE)), P("P166", OSCAR_PICTURE, at=D("1998"))),
    work("Q24871", "Avatar", "2009 film directed by James Cameron", 110, "Q11424",
         P("P57", "Q42574"), P("P161", "Q82085"), P("P161", "Q102124"),
         P("P577", D("2009-12-18")), P("P136", "Q471839"), P("P136", "Q188473"),
         P("P136", "Q319221"), P("P495", "Q30"), P("P364", "Q1860"),
         P("P2047", N(162, MINUTE))),
    person("Q42574", "James Cameron", "Canadian filmmaker", 120, MALE,
           ["Q2526255", "Q28389", "Q3282637"], "1954-08-16",
           P("P166", OSCAR_DIRECTOR, at=D("1998")), P("P800", "Q44578"), P("P800", "Q24871"),
           aliases=["James Francis Cameron"], citizenship=("Q16", "Q30")),
    person("Q38111", "Leonardo DiCaprio", "American actor and film producer", 150, MALE,
           ["Q33999", "Q10800557", "Q3282637"], "1974-11-11",
           P("P166", OSCAR_ACTOR, at=D("2016")), P("P451", "Q152208"),
           aliases=["Leonardo Wilhelm DiCaprio", "Leo DiCaprio"], birthplace="Q65"),
    person("Q202765", "Kate Winslet", "English actress", 110, FEMALE,
           ["Q33999", "Q10800557"], "1975-10-05", P("P166", OSCAR_ACTRESS, at=D("2009")),
           aliases=["Kate Elizabeth Winslet"], citizenship=("Q145",)),
    person("Q82085", "Sam Worthington", "Australian actor", 70, MALE, ["Q33999"], "1976-08-02",
           citizenship=("Q408",)),
    person("Q102124", "Sigourney Weaver", "American actress", 90, FEMALE,
           ["Q33999", "Q10800557"], "1949-10-08", birthplace="Q60"),
    person("Q152208", "Gisele Bündchen", "Brazilian model", 90, FEMALE, ["Q4610556"],
           "1980-07-20", P("P451", "Q38111"), citizenship=("Q155",)),
    # --- Film: Spielberg, Hanks -----------------------------------------------------------
    person("Q8877", "Steven Spielberg", "American filmmaker", 150, MALE,
           ["Q2526255", "Q3282637", "Q28389"], "1946-12-18",
           P("P26", "Q235020", start=D("1985-11-27"), end=D("1989-02-02")),
           P("P26", "Q40162", start=D("1991-10-12")),
           P("P166", OSCAR_DIRECTOR, at=D("1994")), P("P166", OSCAR_DIRECTOR, at=D("1999")),
           P("P800", "Q167726"), P("P800", "Q165817"),
           aliases=["Steven Allan Spielberg"], birthplace="Q43196"),
    person("Q40162", "Kate Capshaw", "American actress", 40, FEMALE, ["Q33999"], "1953-11-03",
           P("P26", "Q8877", start=D("1991-10-12"))),
    person("Q235020", "Amy Irving", "American actress", 35, FEMALE, ["Q33999"], "1953-09-10",
           P("P26", "Q8877", start=D("1985-11-27"), end=D("1989-02-02"))),
    work("Q167726", "Jurassic Park", "1993 film directed by Steven Spielberg", 100, "Q11424",
         P("P57", "Q8877"), P("P161", "Q106706"), P("P161", "Q172678"),
         P("P577", D("1993-06-11")), P("P136", "Q471839"), P("P136", "Q319221"),
         P("P840", "Q800"), P("P495", "Q30"), P("P364", "Q1860"), P("P2047", N(127, MINUTE))),
    work("Q165817", "Saving Private Ryan", "1998 film directed by Steven Spielberg", 80,
         "Q11424", P("P57", "Q8877"), P("P161", "Q2263"), P("P577", D("1998-07-24")),
         P("P136", "Q369747"), P("P136", "Q130232"), P("P495", "Q30"), P("P364", "Q1860"),
         P("P2047", N(169, MINUTE))),
    person("Q2263", "Tom Hanks", "American actor and filmmaker", 140, MALE,
           ["Q33999", "Q10800557", "Q2526255", "Q3282637"], "1956-07-09",
           P("P166", OSCAR_ACTOR, at=D("1994")), P("P166", OSCAR_ACTOR, at=D("1995")),
           P("P800", "Q134773"), aliases=["Thomas Jeffrey Hanks"]),
    work("Q134773", "Forrest Gump", "1994 film directed by Robert Zemeckis", 90, "Q11424",
         P("P57", "Q187364"), P("P161", "Q2263"), P("P577", D("1994-07-06")),
         P("P136", "Q157443"), P("P136", "Q130232"), P("P495", "Q30"), P("P364", "Q1860"),
         P("P2047", N(142, MINUTE)), P("P166", OSCAR_PICTURE, at=D("1995"))),
    person("Q187364", "Robert Zemeckis", "American filmmaker", 70, MALE,
           ["Q2526255", "Q3282637", "Q28389"], "1951-05-14",
           P("P166", OSCAR_DIRECTOR, at=D("1995")), P("P800", "Q134773"),
           aliases=["Robert Lee Zemeckis"], birthplace="Q1297"),
    person("Q106706", "Jeff Goldblum", "American actor and musician", 70, MALE,
           ["Q33999", "Q486748"], "1952-10-22", birthplace="Q1342"),
    person("Q172678", "Samuel L. Jackson", "American actor", 110, MALE,
           ["Q33999", "Q10800557", "Q3282637"], "1948-12-21",
           aliases=["Samuel Leroy Jackson"], birthplace="Q61"),
    # --- Film: Marvel ---------------------------------------------------------------------
    work("Q192724", "Iron Man", "2008 superhero film", 80, "Q11424",
         P("P161", "Q165219"), P("P161", "Q172678"), P("P161", "Q239453"),
         P("P577", D("2008-05-02")), P("P136", "Q471839"), P("P136", "Q188473"),
         P("P495", "Q30"), P("P364", "Q1860"), P("P2047", N(126, MINUTE))),
    work("Q217020", "Thor", "2011 superhero film directed by Kenneth Branagh", 70, "Q11424",
         P("P57", "Q55294"), P("P161", "Q54314"), P("P161", "Q37876"), P("P161", "Q172678"),
         P("P577", D("2011-05-06")), P("P136", "Q157394"), P("P136", "Q471839"),
         P("P840", "Q1522"), P("P495", "Q30"), P("P364", "Q1860"), P("P2047", N(115, MINUTE))),
    person("Q165219", "Robert Downey Jr.", "American actor", 120, MALE,
           ["Q33999", "Q10800557", "Q3282637"], "1965-04-04",
           aliases=["Robert John Downey Jr.", "RDJ"], birthplace="Q11299"),
    person("Q239453", "Leslie Bibb", "American actress", 35, FEMALE, ["Q33999"], "1974-11-17"),
    person("Q54314", "Chris Hemsworth", "Australian actor", 100, MALE, ["Q33999", "Q10798782"],
           "1983-08-11", P("P26", "Q230123", start=D("2010-12")),
           aliases=["Christopher Hemsworth"], birthplace="Q3141", citizenship=("Q408",)),
    person("Q230123", "Elsa Pataky", "Spanish actress and model", 50, FEMALE,
           ["Q33999", "Q4610556"], "1976-07-18", P("P26", "Q54314", start=D("2010-12")),
           birthplace="Q2807", citizenship=("Q29",)),
    person("Q37876", "Natalie Portman", "Israeli-American actress", 130, FEMALE,
           ["Q33999", "Q10800557", "Q3282637"], "1981-06-09",
           P("P166", OSCAR_ACTRESS, at=D("2011")), P("P69", "Q13371"),
           aliases=["Natalie Hershlag"], birthplace="Q1218", citizenship=("Q30", "Q801")),
    person("Q55294", "Kenneth Branagh", "British actor and film director", 80, MALE,
           ["Q33999", "Q2526255"], "1960-12-10", birthplace="Q10686", citizenship=("Q145",)),
    # --- Pitt, Jolie, Aniston, Friends, Madonna's Sean Penn -------------------------------------
    person("Q35332", "Brad Pitt", "American actor and film producer", 150, MALE,
           ["Q33999", "Q10800557", "Q3282637"], "1963-12-18",
           P("P26", "Q32522", start=D("2000-07-29"), end=D("2005-10-02")),
           P("P26", "Q13909", start=D("2014-08-23"), end=D("2019-04-12")),
           aliases=["William Bradley Pitt"]),
    person("Q13909", "Angelina Jolie", "American actress and filmmaker", 150, FEMALE,
           ["Q33999", "Q10800557", "Q2526255"], "1975-06-04",
           P("P26", "Q7516", start=D("1996-03-28"), end=D("1999")),
           P("P26", "Q35332", start=D("2014-08-23"), end=D("2019-04-12")),
           aliases=["Angelina Jolie Voight"], birthplace="Q65"),
    person("Q7516", "Jonny Lee Miller", "British actor", 50, MALE, ["Q33999", "Q10798782"],
           "1972-11-15", P("P26", "Q13909", start=D("1996-03-28"), end=D("1999")),
           citizenship=("Q145",)),
    person("Q32522", "Jennifer Aniston", "American actress", 120, FEMALE,
           ["Q33999", "Q10798782", "Q3282637"], "1969-02-11",
           P("P26", "Q35332", start=D("2000-07-29"), end=D("2005-10-02")),
           aliases=["Jennifer Joanna Aniston", "Jen Aniston"]),
    work("Q79784", "Friends", "American television sitcom", 110, "Q5398426",
         P("P161", "Q32522"), P("P136", "Q170238"), P("P449", "Q13974"), P("P495", "Q30"),
         P("P364", "Q1860"), P("P580", D("1994-09-22")), P("P582", D("2004-05-06")),
         P("P2437", N(10)), P("P1113", N(236))),
    work("Q23572", "Game of Thrones", "American fantasy drama television series", 120,
         "Q5398426", P("P449", "Q23633"), P("P495", "Q30"), P("P364", "Q1860"),
         P("P580", D("2011-04-17")), P("P582", D("2019-05-19")),
         P("P2437", N(8)), P("P1113", N(73)), aliases=["GoT"]),
    person("Q44221", "Sean Penn", "American actor and film director", 90, MALE,
           ["Q33999", "Q10800557", "Q2526255"], "1960-08-17",
           P("P26", "Q1744", start=D("1985-08-16"), end=D("1989")),
           P("P166", OSCAR_ACTOR, at=D("2004")), P("P166", OSCAR_ACTOR, at=D("2009")),
           aliases=["Sean Justin Penn"]),
    # --- Countries ------------------------------------------------------------------------
    work("Q30", "United States of America", "country in North America", 330, "Q3624078",
         P("P31", "Q6256"), P("P36", "Q61"), P("P38", "Q4917"), P("P37", "Q1860"),
         P("P30", "Q49"), P("P1082", N(331449281), at=D("2020-04-01")),
         P("P6", "Q76", start=D("2009-01-20"), end=D("2017-01-20")),
         P("P6", "Q22686", start=D("2017-01-20"), end=D("2021-01-20")),
         P("P6", "Q6279", start=D("2021-01-20"), end=D("2025-01-20")),
         P("P571", D("1776-07-04")), aliases=["United States", "USA", "US", "America"]),
    work("Q145", "United Kingdom", "country in north-west Europe", 320, "Q3624078",
         P("P31", "Q6256"), P("P36", "Q84"), P("P38", "Q25224"), P("P37", "Q1860"),
         P("P30", "Q46"), P("P35", "Q9682", start=D("1952-02-06"), end=D("2022-09-08")),
         P("P35", "Q43274", start=D("2022-09-08")),
         P("P6", "Q180589", start=D("2019-07-24"), end=D("2022-09-06")),
         aliases=["UK", "Britain", "United Kingdom of Great Britain and Northern Ireland"]),
    work("Q142", "France", "country in western Europe", 330, "Q3624078",
         P("P31", "Q6256"), P("P36", "Q90"), P("P38", "Q4916"), P("P37", "Q150"),
         P("P30", "Q46"), P("P35", "Q3052772", start=D("2017-05-14")),
         aliases=["French Republic"]),
    work("Q183", "Germany", "country in central Europe", 330, "Q3624078",
         P("P31", "Q6256"), P("P36", "Q64"), P("P38", "Q4916"), P("P37", "Q188"),
         P("P30", "Q46"), P("P6", "Q567", start=D("2005-11-22"), end=D("2021-12-08")),
         aliases=["Federal Republic of Germany", "Deutschland"]),
    work("Q17", "Japan", "island country in East Asia", 320, "Q3624078",
         P("P31", "Q6256"), P("P36", "Q1490"), P("P38", "Q8146"), P("P37", "Q5287"),
         P("P30", "Q48"), aliases=["Nippon"]),
    work("Q16", "Canada", "country in North America", 320, "Q3624078",
         P("P31", "Q6256"), P("P36", "Q1930"), P("P38", "Q1104069"), P("P37", "Q1860"),
         P("P37", "Q150"), P("P30", "Q49")),
    work("Q408", "Australia", "country in Oceania", 320, "Q3624078",
         P("P31", "Q6256"), P("P36", "Q3114"), P("P38", "Q259502"), P("P37", "Q1860"),
         aliases=["Commonwealth of Australia"]),
    # --- Cities ---------------------------------------------------------------------------
    work("Q60", "New York City", "most populous city in the United States", 280, "Q515",
         P("P31", "Q1549591"), P("P17", "Q30"), P("P1082", N(8804190), at=D("2020-04-01")),
         P("P625", C(40.7128, -74.006)), aliases=["NYC", "New York", "the Big Apple"]),
    work("Q65", "Los Angeles", "city in California, United States", 250, "Q515",
         P("P31", "Q1549591"), P("P17", "Q30"), P("P1082", N(3898747), at=D("2020-04-01")),
         P("P625", C(34.0522, -118.2437)), aliases=["LA", "L.A.", "City of Angels"]),
    work("Q1297", "Chicago", "city in Illinois, United States", 230, "Q515",
         P("P31", "Q1549591"), P("P17", "Q30"), P("P1082", N(2746388), at=D("2020-04-01")),
         P("P625", C(41.8781, -87.6298)), aliases=["Windy City"]),
    work("Q61", "Washington, D.C.", "capital city of the United States", 240, "Q5119",
         P("P31", "Q1549591"), P("P17", "Q30"), P("P1082", N(689545), at=D("2020-04-01")),
         P("P625", C(38.895, -77.0367)), aliases=["Washington", "D.C."]),
    work("Q84", "London", "capital and largest city of the United Kingdom", 290, "Q5119",
         P("P31", "Q1549591"), P("P17", "Q145"), P("P1082", N(8799800), at=D("2021-03-21")),
         P("P625", C(51.5072, -0.1275))),
    work("Q90", "Paris", "capital and largest city of France", 290, "Q5119",
         P("P31", "Q1549591"), P("P17", "Q142"), P("P625", C(48.8567, 2.3508)),
         aliases=["City of Light"]),
    work("Q64", "Berlin", "capital and largest city of Germany", 280, "Q5119",
         P("P31", "Q1549591"), P("P17", "Q183"), P("P625", C(52.52, 13.405))),
    work("Q1490", "Tokyo", "capital city of Japan", 260, "Q5119",
         P("P31", "Q1549591"), P("P17", "Q17"), P("P625", C(35.6895, 139.6917))),
    work("Q24826", "Liverpool", "city in Merseyside, England", 150, "Q515",
         P("P31", "Q1549591"), P("P17", "Q145"), P("P625", C(53.4075, -2.9919))),
    work("Q18419", "Brooklyn", "borough of New York City", 100, "Q408804", P("P17", "Q30")),
    work("Q11299", "Manhattan", "borough of New York City", 120, "Q408804", P("P17", "Q30")),
    work("Q18424", "Queens", "borough of New York City", 90, "Q408804", P("P17", "Q30")),
]


def _statement_id(entity: str, prop: str, n: int) -> str:
    return f"{entity}${str(uuid.uuid5(uuid.NAMESPACE_URL, f'{entity}/{prop}/{n}')).upper()}"


def _snak(prop: str, value: str | V) -> dict:
    if isinstance(value, str):
        kind = "wikibase-property" if value.startswith("P") else "wikibase-item"
        entity_type = "property" if kind == "wikibase-property" else "item"
        dv = {"value": {"entity-type": entity_type, "numeric-id": int(value[1:]), "id": value},
              "type": "wikibase-entityid"}
        datatype = kind
    else:
        dv = {"value": value.value, "type": value.type}
        datatype = value.datatype
    return {"snaktype": "value", "property": prop, "datavalue": dv, "datatype": datatype}


def _lang(text: str) -> dict:
    return {"en": {"language": "en", "value": text}}


def _item(qid: str, label: str, desc: str, aliases: list[str], sitelinks: int,
          claims: list[tuple]) -> dict:
    grouped: dict[str, list] = {}
    for n, (prop, value, quals) in enumerate(claims):
        stmt = {"mainsnak": _snak(prop, value), "type": "statement",
                "id": _statement_id(qid, prop, n), "rank": "normal"}
        if quals:
            stmt["qualifiers"] = {q: [_snak(q, v)] for q, v in quals.items()}
            stmt["qualifiers-order"] = list(quals)
        grouped.setdefault(prop, []).append(stmt)
    return {
        "type": "item", "id": qid, "labels": _lang(label), "descriptions": _lang(desc),
        "aliases": {"en": [{"language": "en", "value": a} for a in aliases]} if aliases else {},
        "claims": grouped,
        "sitelinks": {w: {"site": w, "title": label, "badges": []} for w in WIKIS[:sitelinks]},
        "lastrevid": 1, "modified": MODIFIED,
    }


def build() -> list[dict]:
    entities = []
    for pid, (label, datatype) in PROPERTIES.items():
        entities.append({"type": "property", "id": pid, "datatype": datatype,
                         "labels": _lang(label), "descriptions": {}, "aliases": {},
                         "claims": {}, "lastrevid": 1, "modified": MODIFIED})
    main_ids = {e["id"] for e in ENTITIES}
    for e in ENTITIES:
        entities.append(_item(e["id"], e["label"], e["desc"], e["aliases"], e["sitelinks"],
                              e["claims"]))
    for qid, (label, desc, types) in VALUE_ITEMS.items():
        if qid not in main_ids:
            entities.append(_item(qid, label, desc, [], 20, [("P31", t, {}) for t in types]))
    return entities


def main() -> None:
    entities = build()
    lines = ["["] + [json.dumps(e, ensure_ascii=False) + "," for e in entities[:-1]]
    lines += [json.dumps(entities[-1], ensure_ascii=False), "]"]
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(entities)} entities to {OUT}")


if __name__ == "__main__":
    main()
