"""Questions about one statement's details (qualifiers: when it started, ended, held),
references to things, and the nouns and questions of elliptic follow-ups."""

from __future__ import annotations

VOICE_QUALIFIED: dict[tuple[str, str], tuple[str, str, str]] = {
    # not "win": it misreads for a title a place receives ("win the Fairtrade Town")
    ("P166", "P585"): ("when did {S} receive the [a]?", "in what year was {S} given the [a]?",
                       "when was {S} awarded the [a]?"),
    ("P1411", "P585"): ("when was {S} nominated for the [a]?", "in what year did {S} get a "
                        "nomination for the [a]?", "when did {S} receive a nomination for the "
                        "[a]?"),
    ("P26", "P580"): ("when did {S} marry [a]?", "when did {S} and [a] get married?",
                      "in what year did {S} wed [a]?"),
    ("P26", "P582"): ("when did {S's} marriage to [a] end?", "when did {S} and [a] split up?",
                      "when did {S} stop being married to [a]?"),
    ("P451", "P580"): ("when did {S} start dating [a]?", "when did {S} and [a] get together?",
                       "since when was {S} in a relationship with [a]?"),
    ("P451", "P582"): ("when did {S} and [a] break up?", "when did {S's} relationship with "
                       "[a] end?", "when did {S} stop dating [a]?"),
    ("P39", "P580"): ("when did {S} become [a]?", "when did {S} take office as [a]?",
                      "when did {S's} term as [a] begin?"),
    ("P39", "P582"): ("when did {S's} term as [a] end?", "when did {S} stop serving as [a]?",
                      "in what year did {S's} term as [a] end?"),
    ("P39", "P1365"): ("who did {S} succeed as [a]?", "whom did {S} replace as [a]?",
                       "who was [a] before {S:o}?"),
    ("P39", "P1366"): ("who succeeded {S:o} as [a]?", "who took over from {S:o} as [a]?",
                       "who was [a] after {S:o}?"),
    ("P35", "P580"): ("when did [a] become the head of state of {S:o}?", "since when has [a] "
                      "been the head of state of {S:o}?", "in what year did [a] become the head "
                      "of state of {S:o}?"),
    ("P35", "P582"): ("when did [a] stop being the head of state of {S:o}?", "when was [a] no "
                      "longer the head of state of {S:o}?", "in what year did [a] stop being "
                      "the head of state of {S:o}?"),
    ("P6", "P580"): ("when did [a] become the head of government of {S:o}?", "since when has "
                     "[a] led the government of {S:o}?", "when did [a] take over the government "
                     "of {S:o}?"),
    ("P6", "P582"): ("when did [a] stop leading the government of {S:o}?", "when was [a] no "
                     "longer the head of government of {S:o}?", "when did [a] leave the "
                     "government of {S:o}?"),
    ("P1082", "P585"): ("when did {S} have [a] inhabitants?", "in what year was the "
                        "population of {S:o} counted as [a]?", "when did {S} have a population "
                        "of [a]?"),
    ("P166", "P1686"): ("for which work did {S} receive the [a]?", "what work did {S} win the "
                        "[a] for?", "which work earned {S:o} the [a]?"),
    ("P1411", "P1686"): ("for which work was {S} nominated for the [a]?", "what work was {S} "
                         "nominated for the [a] for?", "which work earned {S:o} a nomination "
                         "for the [a]?"),
    ("P161", "P453"): ("which character did [a] play in {S:o}?", "who did [a] portray in {S:o}?",
                       "what role did [a] have in {S:o}?"),
}

TEXT_QUALIFIED: dict[tuple[str, str], tuple[str, str, str]] = {
    ("P166", "P585"): ("year {S} won [a]", "{S} [a] year", "date {S} received [a]"),
    ("P26", "P580"): ("{S} [a] wedding date", "year {S} married [a]", "{S} marriage to [a] date"),
    ("P26", "P582"): ("{S} [a] divorce date", "end of {S} marriage to [a]", "year {S} and [a] "
                      "split"),
    ("P39", "P580"): ("{S} [a] start of term", "year {S} became [a]", "{S} took office as [a]"),
    ("P39", "P1365"): ("{S} predecessor as [a]", "who {S} succeeded as [a]", "{S} [a] predecessor"),
    ("P39", "P1366"): ("{S} successor as [a]", "{S} [a] successor", "{S} [a] succeeded by"),
    ("P39", "P582"): ("{S} [a] end of term", "year {S} left office as [a]", "{S} term as [a] "
                      "ended"),
    ("P1082", "P585"): ("{S} population [a] year", "year of {S} population count",
                        "date of {S} population figure [a]"),
}


# Pronoun and phrase references by type label (deixis for things).
THING_REFERENCES = {
    "film": "this film", "television series": "this series", "city": "this city",
    "big city": "this city", "capital city": "this city", "country": "this country",
    "sovereign state": "this country", "rock band": "this band", "musical group": "this band",
    "album": "this album", "single": "this song", "song": "this song", "book": "this book",
    "literary work": "this book", "video game": "this game", "company": "this company",
    "business": "this company", "university": "this university", "borough of new york city":
    "this borough", "human settlement": "this place", "scholarly article": "this article",
}

# property -> the noun a follow-up can leave the subject out with ("[his] spouse?", "the
# spouse?"); None where no short noun reads well (membership, "located in").
ELLIPSIS_NOUNS: dict[str, str | None] = {
    "P569": "date of birth", "P19": "birthplace", "P570": "date of death",
    "P20": "place of death", "P27": "nationality", "P26": "spouse", "P451": "partner",
    "P40": "children", "P22": "father", "P25": "mother", "P3373": "siblings",
    "P106": "occupation", "P166": "awards", "P1411": "nominations", "P39": "positions",
    # no "And what's his education?" answered "Princeton University"
    "P463": None, "P102": "political party", "P69": None, "P108": "employer",
    "P800": "notable works", "P136": "genre", "P264": "record label", "P1412": "languages",
    "P140": "religion", "P2048": "height", "P57": "director", "P161": "cast", "P50": "author",
    "P175": "performer", "P577": "release date", "P495": "country of origin",
    "P364": "original language", "P2047": "running time", "P840": "setting",
    "P449": "original network", "P2437": "number of seasons", "P1113": "number of episodes",
    "P580": "start date", "P582": "end date", "P17": "country", "P131": None,
    "P36": "capital", "P38": "currency", "P37": "official language", "P35": "head of state",
    "P6": "head of government", "P1082": "population", "P30": "continent",
    "P571": "founding date", "P740": None, "P527": None, "P2044": "elevation",
    "P138": None, "P206": None, "P2031": None, "P2032": None, "P413": "position",
    "P1249": None, "P1344": None, "P607": None, "P119": "burial place", "P190": "twin towns",
    "P112": "founders", "P170": "creator", "P1196": "manner of death", "P509": "cause of death",
}

# qualifier -> follow-ups about the statement just asked ("Who is her spouse?" "When was
# that?"): spoken, then typed.
ELLIPSIS_QUALIFIED: dict[str, tuple[tuple[str, str, str], tuple[str, str, str]]] = {
    "P580": (("when did that start?", "when did that begin?", "and when did that start?"),
             ("start date?", "started when?", "from when?")),
    "P582": (("when did that end?", "and when did that end?", "when was that over?"),
             ("until when?", "until when exactly?", "end date?")),
    "P585": (("when was that?", "and when was that?", "in what year was that?"),
             ("as of when?", "as of which year?", "year of that?")),
}
# A start that still holds is asked "since when?" ("Who leads it?" "Satya Nadella." "Since
# when?"); "when did that start?" is kept for what has ended.
ELLIPSIS_QUALIFIED_PRESENT: dict[str, tuple[tuple[str, str, str], tuple[str, str, str]]] = {
    # never "Since when has that been the case?" (r24-635's raters: a form's words); one
    # "since when?" of three (link-grammar parses no "Since when?", natural as it is: a
    # file of mayors asked it in one voice turn of thirty)
    "P580": (("since when?", "when did that start?", "when did that begin?"),
             ("since when?", "since when exactly?", "start date?")),
}
# ... and of some statements in their own words: "Who is he married to?" "Since when has
# that been the case?" read as a form to readers (issue #33); people ask about the wedding
ELLIPSIS_OF_STATEMENT: dict[tuple[str, str], tuple[tuple[str, str, str], tuple[str, str, str]]] = {
    # no pronoun ("when did they marry?"): a configuration without deixis says none
    ("P26", "P580"): (("when was the wedding?", "and when was the wedding?",
                       "when did the marriage begin?"),
                      ("wedding date?", "married when?", "year of the wedding?")),
    # of the office just named, never the subject: "he" is said in no configuration
    ("P39", "P1365"): (("who held that office before?", "and who held the office before?",
                        "who was in that office before?"),
                       ("predecessor?", "preceded by whom?", "previous holder?")),
    ("P39", "P1366"): (("who held that office next?", "and who took over after that?",
                        "who came next in that office?"),
                       ("successor?", "succeeded by whom?", "next holder?")),
    ("P26", "P582"): (("when did the marriage end?", "and when did the marriage end?",
                       "when did that marriage end?"),
                      ("marriage ended when?", "end of the marriage?", "married until when?")),
    ("P451", "P580"): (("when did the relationship begin?", "and when did the relationship "
                        "start?", "when did that relationship begin?"),
                       ("together since when?", "relationship start?", "start of relationship?")),
    ("P451", "P582"): (("when did the relationship end?", "and when did the relationship "
                        "end?", "when did that relationship end?"),
                       ("split up when?", "relationship end?", "end of relationship?")),
    # an award or a nomination happened at a time, it was not measured as of one: "Paris
    # Jackson awards" "as of when?" asks an award as if it were a population
    # (spoken as any dated statement, ``ELLIPSIS_QUALIFIED``)
    ("P166", "P585"): (ELLIPSIS_QUALIFIED["P585"][0],
                       ("awarded when?", "year received?", "year of that?")),
    ("P1411", "P585"): (ELLIPSIS_QUALIFIED["P585"][0],
                        ("nominated when?", "year nominated?", "year of that?")),
}


def anaphoric_forms(property_id: str, qualifier_id: str, tense: str
                    ) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The follow-ups about the statement just answered, spoken and typed: the statement's
    own words, else its qualifier's ("since when?" for a start that still holds)."""
    return ELLIPSIS_OF_STATEMENT.get((property_id, qualifier_id)) or (
        tense == "present" and ELLIPSIS_QUALIFIED_PRESENT.get(qualifier_id)) or \
        ELLIPSIS_QUALIFIED.get(qualifier_id)


# -- details of one statement (issue #33): joining and leaving, start and end of a role
_JOINS = {  # property -> (spoken start, spoken end) verbs: "when did {S} join [a]?"
    # (a school's and an employer's verbs say what the subject did there: "When did she
    # leave Yale University?", its first mention, "assumes she studied there without
    # asking", r59's reader; "When did she stop studying at Yale University?" read worse
    # to two head-to-head raters than "leave", s26)
    "P108": (("start working for", "begin working for", "start working at"),
             ("stop working for", "stop working at", "stop working for")),
    "P69": (("begin studying at", "start studying at", "begin studying at"),
            ("finish studying at", "finish at", "finish studying at")),
    "P54": (("join", "sign for", "join"), ("leave", "stop playing for", "leave")),
    "P102": (("join", "become a member of", "join"), ("leave", "quit", "leave")),
    "P463": (("join", "become a member of", "join"), ("leave", "stop being a member of",
                                                      "leave")),
    "P551": (("move to", "settle in", "move to"), ("leave", "move away from", "leave")),
    "P937": (("start working in", "begin working in", "start working in"),
             ("stop working in", "leave", "stop working in")),
    "P1416": (("become affiliated with", "join", "join"), ("leave", "part ways with",
                                                           "leave")),
}
for _pid, (_start, _end) in _JOINS.items():
    VOICE_QUALIFIED[(_pid, "P580")] = (f"when did {{S}} {_start[0]} [a]?",
                                       f"when did {{S}} {_start[1]} [a]?",
                                       f"in what year did {{S}} {_start[2]} [a]?")
    VOICE_QUALIFIED[(_pid, "P582")] = (f"when did {{S}} {_end[0]} [a]?",
                                       f"when did {{S}} {_end[1]} [a]?",
                                       f"in what year did {{S}} {_end[2]} [a]?")
    TEXT_QUALIFIED[(_pid, "P580")] = ("year {S} joined [a]", "{S} [a] start date",
                                      "{S} joined [a] when")
    TEXT_QUALIFIED[(_pid, "P582")] = ("year {S} left [a]", "{S} [a] end date",
                                      "{S} left [a] when")
del _pid, _start, _end

VOICE_QUALIFIED.update({
    ("P937", "P585"): ("when did {S} work in [a]?", "in what year did {S} work in [a]?",
                       "when was {S} working in [a]?"),
    ("P551", "P585"): ("when did {S} live in [a]?", "in what year did {S} live in [a]?",
                       "when was {S} living in [a]?"),
    ("P27", "P580"): ("when did {S} become a citizen of [a]?", "since when has {S} been a "
                      "citizen of [a]?", "in what year did {S} become a citizen of [a]?"),
    ("P27", "P582"): ("when did {S} stop being a citizen of [a]?", "when was {S} no longer "
                      "a citizen of [a]?", "in what year did {S} lose citizenship of [a]?"),
    ("P17", "P580"): ("since when has {S} been part of [a]?", "when did {S} become part of "
                      "[a]?", "in what year did {S} become part of [a]?"),
    ("P17", "P582"): ("when was {S} no longer part of [a]?", "when did {S} stop being part of "
                      "[a]?", "in what year did {S} stop being part of [a]?"),
    ("P131", "P580"): ("since when has {S} been part of [a]?", "when did {S} become part of "
                       "[a]?", "in what year did {S} become part of [a]?"),
    ("P131", "P582"): ("when was {S} no longer part of [a]?", "when did {S} stop being part of "
                       "[a]?", "in what year did {S} stop being part of [a]?"),
    ("P36", "P580"): ("when did [a] become the capital of {S:o}?", "since when has [a] been "
                      "the capital of {S:o}?", "in what year did [a] become {S's} capital?"),
    ("P36", "P582"): ("when did [a] stop being the capital of {S:o}?", "when was [a] no longer the "
                      "capital of {S:o}?", "in what year did [a] stop being {S's} capital?"),
    ("P38", "P580"): ("when did {S} start using [a]?", "since when has [a] been the currency "
                      "of {S:o}?", "in what year did {S} adopt [a]?"),
    ("P38", "P582"): ("when did {S} stop using [a]?", "when was [a] no longer the currency of "
                      "{S:o}?", "in what year did {S} give up [a]?"),
    ("P37", "P580"): ("when did [a] become an official language of {S:o}?", "since when has "
                      "[a] been official in {S:o}?", "in what year did [a] become official in "
                      "{S:o}?"),
    ("P37", "P582"): ("when did [a] stop being an official language of {S:o}?", "when was [a] no "
                      "longer official in {S:o}?", "in what year did [a] stop being official "
                      "in {S:o}?"),
    ("P1376", "P580"): ("when did {S} become the capital of [a]?", "since when has {S} been "
                        "the capital of [a]?", "in what year did {S} become the capital of "
                        "[a]?"),
    ("P1376", "P582"): ("when did {S} stop being the capital of [a]?", "when was {S} no "
                        "longer the capital of [a]?", "in what year did {S} stop being the capital "
                        "of [a]?"),
    ("P169", "P580"): ("when did [a] become the CEO of {S:o}?", "since when has [a] run "
                       "{S:o}?", "in what year did [a] take charge of {S:o}?"),
    ("P169", "P582"): ("when did [a] step down as CEO of {S:o}?", "when did [a] stop running "
                       "{S:o}?", "in what year did [a] leave {S:o}?"),
    ("P286", "P580"): ("when did [a] become the coach of {S:o}?", "since when has [a] coached "
                       "{S:o}?", "in what year did [a] take over {S:o}?"),
    ("P286", "P582"): ("when did [a] stop coaching {S:o}?", "when did [a] leave {S:o}?",
                       "in what year did [a] stop coaching {S:o}?"),
    ("P488", "P580"): ("when did [a] become the chair of {S:o}?", "since when has [a] chaired "
                       "{S:o}?", "in what year did [a] take the chair of {S:o}?"),
    ("P488", "P582"): ("when did [a] stop chairing {S:o}?", "when did [a] step down as chair "
                       "of {S:o}?", "in what year did [a] step down as chair of {S:o}?"),
    ("P127", "P580"): ("when did [a] take over {S:o}?", "since when has [a] owned {S:o}?",
                       "in what year did [a] acquire {S:o}?"),
    ("P127", "P582"): ("when did [a] stop owning {S:o}?", "when did [a] sell {S:o}?",
                       "in what year did [a] sell {S:o}?"),
    ("P195", "P580"): ("when did [a] acquire {S:o}?", "since when has {S} been in the "
                       "collection of [a]?", "in what year did {S} join the collection of "
                       "[a]?"),
    ("P195", "P582"): ("when did {S} leave the collection of [a]?", "when was {S} no longer in "
                       "the collection of [a]?", "in what year did [a] part with {S:o}?"),
    ("P1435", "P580"): ("when was {S} given [a] status?", "since when has {S} had [a] status?",
                        "in what year did {S} get [a] status?"),
    ("P85", "P580"): ("when did [a] become the anthem of {S:o}?", "since when has [a] been "
                      "{S's} anthem?", "in what year did {S} adopt [a] as its anthem?"),
    ("P1365", "P585"): ("when did {S} replace [a]?", "in what year did {S} replace [a]?",
                        "when did {S} take over from [a]?"),
    ("P1366", "P585"): ("when was {S} replaced by [a]?", "in what year did [a] replace {S:o}?",
                        "when did [a] take over from {S:o}?"),
    ("P1373", "P585"): ("in what year did {S} have [a] passengers a day?", "when did {S} have [a] "
                        "passengers a day?", "which year saw [a] daily passengers at {S:o}?"),
    ("P1436", "P585"): ("in what year did {S} hold [a] items?", "when did {S} have [a] items "
                        "in its collection?", "which year did {S} count [a] items?"),
    ("P421", "P580"): ("since when has {S} used [a]?", "when did {S} switch to [a]?",
                       "in what year did {S} adopt [a]?"),
    ("P421", "P582"): ("when did {S} stop using [a]?", "when did {S} switch away from [a]?",
                       "in what year did {S} give up [a]?"),
    ("P1174", "P585"): ("in what year did {S} have [a] visitors?", "when did {S} get [a] "
                        "visitors?", "which year saw [a] visitors at {S:o}?"),
    ("P2196", "P585"): ("in what year did {S} have [a] students?", "when did {S} have [a] "
                        "students?", "which year did {S} count [a] students?"),
    ("P1128", "P585"): ("in what year did {S} have [a] employees?", "when did {S} employ [a] "
                        "people?", "which year did {S} have [a] employees?"),
})

TEXT_QUALIFIED.update({
    ("P27", "P580"): ("year {S} became citizen of [a]", "{S} [a] citizenship since",
                      "{S} citizen of [a] since when"),
    ("P27", "P582"): ("year {S} lost [a] citizenship", "{S} [a] citizenship until",
                      "{S} citizen of [a] until when"),
    ("P17", "P580"): ("year {S} became part of [a]", "{S} part of [a] since",
                      "{S} [a] since when"),
    ("P17", "P582"): ("year {S} stopped being part of [a]", "{S} part of [a] until",
                      "{S} [a] until when"),
    ("P131", "P580"): ("year {S} became part of [a]", "{S} part of [a] since",
                       "{S} [a] since when"),
    ("P131", "P582"): ("year {S} stopped being part of [a]", "{S} part of [a] until",
                       "{S} [a] until when"),
    ("P36", "P580"): ("year [a] became capital of {S:o}", "{S} capital [a] since",
                      "[a] capital of {S:o} since when"),
    ("P36", "P582"): ("year [a] stopped being capital of {S:o}", "{S} capital [a] until",
                      "[a] capital of {S:o} until when"),
    ("P38", "P580"): ("year {S} adopted [a]", "{S} [a] currency since", "{S} uses [a] since"),
    ("P38", "P582"): ("year {S} stopped using [a]", "{S} [a] currency until",
                      "{S} used [a] until"),
    # "year [a] became {S's} leader", not "... took office in {S:o}": typed with deixis a
    # place after "in" reads "in it" ("year [a] became [his] leader"); and within ten words
    # ("year Donald Trump became head of government of United States of America" is not)
    ("P6", "P580"): ("year [a] became {S's} leader", "{S} [a] start of term",
                     "[a] head of government of {S:o} since"),
    ("P6", "P582"): ("year [a] stopped being {S's} leader", "{S} [a] end of term",
                     "[a] head of government of {S:o} until"),
    ("P35", "P580"): ("year [a] became head of state of {S:o}", "{S} [a] start of reign or term",
                      "[a] head of state of {S:o} since"),
    ("P35", "P582"): ("year [a] stopped being head of state of {S:o}",
                      "{S} [a] end of reign or term", "[a] head of state of {S:o} until"),
    ("P1082", "P585"): ("{S} population [a] year", "year of {S} population count",
                        "{S} [a] inhabitants year"),
    ("P166", "P585"): ("year {S} won [a]", "{S} [a] year", "date {S} received [a]"),
    ("P1411", "P585"): ("year {S} nominated for [a]", "{S} [a] nomination year",
                        "{S} [a] nomination date"),
    ("P451", "P580"): ("year {S} started dating [a]", "{S} [a] relationship start",
                       "{S} and [a] together since"),
    ("P451", "P582"): ("year {S} and [a] broke up", "{S} [a] breakup date",
                       "{S} and [a] split when"),
    ("P161", "P453"): ("[a] role in {S:o}", "{S} [a] character", "character played by [a] in "
                       "{S:o}"),
    ("P1365", "P585"): ("year {S} replaced [a]", "{S} replaced [a] when",
                        "{S} [a] replacement date"),
    ("P1366", "P585"): ("year [a] replaced {S:o}", "{S} replaced by [a] when",
                        "{S} [a] replacement date"),
    ("P421", "P580"): ("year {S} switched to [a]", "{S} [a] since", "{S} uses [a] since"),
    ("P421", "P582"): ("year {S} stopped using [a]", "{S} [a] until", "{S} used [a] until"),
    ("P166", "P1686"): ("{S} [a] for which work", "work that won {S:o} [a]",
                        "{S} [a] winning work"),
})
