"""Curated question patterns for the rules writer, in our own words.

Patterns name the subject with ``{S}`` (subject position), ``{S's}`` (possessive) and
``{S:o}`` (object position). Original questions render these as the type placeholder
(``[actor]``, ``[actor]'s``); deixis questions as ``[he]``, ``[his]``, ``[him]``, which are
filled with a pronoun or "this film"-style phrase when a conversation is assembled.
``[a]`` is the fact's value in qualifier questions, whose answer is ``[b]``.
"""

from __future__ import annotations

# property -> three spoken questions
VOICE: dict[str, tuple[str, str, str]] = {
    "P569": ("when was {S} born?", "what is {S's} date of birth?",
             "do you know when {S} was born?"),
    "P19": ("where was {S} born?", "what is {S's} place of birth?",
            "in which city was {S} born?"),
    "P570": ("when did {S} die?", "what is {S's} date of death?",
             "do you know when {S} passed away?"),
    "P20": ("where did {S} die?", "what is {S's} place of death?",
            "in which city did {S} pass away?"),
    "P27": ("which country is {S} a citizen of?", "what is {S's} nationality?",
            "what country does {S} hold citizenship in?"),
    "P26": ("who has {S} been married to?", "who is {S's} spouse?",
            "who did {S} marry?"),
    "P451": ("who has {S} been in a relationship with?", "who is {S's} partner?",
             "who was {S} romantically involved with?"),
    "P40": ("who are {S's} children?", "what are the names of {S's} children?",
            "who is {S} the parent of?"),
    "P22": ("who is {S's} father?", "who was {S's} dad?", "what is the name of {S's} father?"),
    "P25": ("who is {S's} mother?", "who was {S's} mom?", "what is the name of {S's} mother?"),
    "P3373": ("who are {S's} siblings?", "does {S} have any brothers or sisters?",
              "who is {S} a sibling of?"),
    "P106": ("what does {S} do for a living?", "what is {S's} occupation?",
             "what are {S's} professions?"),
    "P166": ("what awards has {S} received?", "which awards did {S} win?",
             "what honors has {S} been given?"),
    "P1411": ("what has {S} been nominated for?", "which awards was {S} nominated for?",
              "what nominations did {S} get?"),
    "P39": ("what positions has {S} held?", "which offices did {S} hold?",
            "what posts has {S} served in?"),
    "P463": ("what is {S} a member of?", "which groups does {S} belong to?",
             "what is {S} part of?"),
    "P102": ("which political party is {S} a member of?", "what party does {S} belong to?",
             "what is {S's} political party?"),
    "P69": ("where did {S} study?", "where was {S} educated?", "which schools did {S} attend?"),
    "P108": ("who has {S} worked for?", "who is {S's} employer?", "where has {S} been employed?"),
    "P800": ("what are {S's} notable works?", "what is {S} best known for?",
             "which works is {S} famous for?"),
    "P136": ("what genre is {S}?", "which genres is {S} associated with?",
             "what kind of genre does {S} belong to?"),
    "P264": ("which record labels has {S} been signed to?", "what record label is {S} on?",
             "who has released {S's} records?"),
    "P1412": ("what languages does {S} speak?", "which languages can {S} speak?",
              "what languages is {S} able to speak?"),
    "P140": ("what religion does {S} follow?", "what is {S's} religion?",
             "which faith does {S} belong to?"),
    "P2048": ("how tall is {S}?", "what is {S's} height?", "do you know how tall {S} is?"),
    "P57": ("who directed {S}?", "who is the director of {S:o}?", "who was {S} directed by?"),
    "P161": ("who is in the cast of {S:o}?", "who starred in {S:o}?",
             "which actors appear in {S:o}?"),
    "P50": ("who wrote {S}?", "who is the author of {S:o}?", "who was {S} written by?"),
    "P175": ("who performed {S}?", "who is the performer of {S:o}?", "who sang {S}?"),
    "P577": ("when was {S} released?", "what is the release date of {S:o}?",
             "when did {S} come out?"),
    "P495": ("which country is {S} from?", "what is {S's} country of origin?",
             "in which country was {S} made?"),
    "P364": ("what language is {S} in?", "what is the original language of {S:o}?",
             "in which language was {S} made?"),
    "P2047": ("how long is {S}?", "what is the running time of {S:o}?",
              "what is {S's} runtime?"),
    "P840": ("where is {S} set?", "where does {S} take place?",
             "what is the setting of {S:o}?"),
    "P449": ("which network aired {S}?", "what channel broadcast {S}?",
             "who was the original broadcaster of {S:o}?"),
    "P2437": ("how many seasons does {S} have?", "how many seasons of {S} are there?",
              "what is the number of seasons of {S:o}?"),
    "P1113": ("how many episodes does {S} have?", "how many episodes of {S} were made?",
              "what is the episode count of {S:o}?"),
    "P580": ("when did {S} start?", "when did {S} begin?", "what is the start date of {S:o}?"),
    "P582": ("when did {S} end?", "when did {S} finish?", "what is the end date of {S:o}?"),
    "P17": ("which country is {S} in?", "in what country is {S} located?",
            "what country does {S} belong to?"),
    "P131": ("where is {S} located?", "in which region is {S}?",
             "what administrative area is {S} in?"),
    "P36": ("what is the capital of {S:o}?", "which city is {S's} capital?",
            "what is {S's} capital city?"),
    "P38": ("what is the currency of {S:o}?", "what money is used in {S:o}?",
            "which currency does {S} use?"),
    "P37": ("what is the official language of {S:o}?", "which languages are official in {S:o}?",
            "what language is spoken officially in {S:o}?"),
    "P35": ("who is the head of state of {S:o}?", "who has been {S's} head of state?",
            "who are the heads of state of {S:o}?"),
    "P6": ("who is the head of government of {S:o}?", "who has led the government of {S:o}?",
           "who has been {S's} head of government?"),
    "P1082": ("what is the population of {S:o}?", "how many people live in {S:o}?",
              "how many inhabitants does {S} have?"),
    "P30": ("which continent is {S} on?", "on what continent is {S} located?",
            "what continent is {S} part of?"),
    "P571": ("when was {S} founded?", "when was {S} formed?", "what year was {S} established?"),
    "P740": ("where was {S} formed?", "in which city was {S} founded?",
             "where did {S} get started?"),
    "P527": ("what does {S} consist of?", "what are the parts of {S:o}?",
             "who or what makes up {S:o}?"),
    "P2044": ("how high is {S}?", "what is the elevation of {S:o}?",
              "what is the elevation above sea level of {S:o}?"),
    "P138": ("after what is {S} named?", "where does the name of {S:o} come from?",
             "what is the name of {S:o} taken from?"),
    "P206": ("which body of water is {S} near?", "what body of water is {S} next to?",
             "do you know which body of water {S} is near?"),
    "P2031": ("when did {S} start working?", "when did the career of {S:o} begin?",
              "in what year did {S} start working?"),
    "P2032": ("when did {S} stop working?", "when did the career of {S:o} end?",
              "in what year did {S} stop working?"),
    "P413": ("what position does {S} play?", "what position did {S} play on the team?",
             "which position does {S} play on the team?"),
    "P1249": ("when was {S} first mentioned?", "when is {S} first mentioned in writing?",
              "in what year was {S} first mentioned?"),
    "P1344": ("what did {S} take part in?", "what was {S} a participant in?",
              "which events did {S} take part in?"),
    "P607": ("which conflicts did {S} take part in?", "what wars did {S} fight in?",
             "which conflicts did {S} fight in?"),
    "P119": ("where was {S} buried?", "where is {S} buried?", "what is the burial place of "
             "{S:o}?"),
    "P190": ("which cities are twinned with {S:o}?", "what are the twin towns of {S:o}?",
             "which towns is {S} twinned with?"),
    "P112": ("who founded {S:o}?", "who was {S} founded by?", "do you know who founded {S:o}?"),
    "P170": ("who created {S:o}?", "who is the creator of {S:o}?", "who made {S:o}?"),
    "P1196": ("how did {S} die?", "what was the manner of death of {S:o}?",
              "do you know how {S} died?"),
    "P509": ("what did {S} die of?", "what was the cause of death of {S:o}?",
             "do you know what {S} died of?"),
}

# property -> three search-style queries (lower case, never starting with a wh-word)
TEXT: dict[str, tuple[str, str, str]] = {
    "P569": ("{S} birthday", "{S} date of birth", "birth date of {S:o}"),
    "P19": ("{S} birthplace", "{S} place of birth", "city {S} was born in"),
    "P570": ("{S} date of death", "{S} death date", "day {S} died"),
    "P20": ("{S} place of death", "city {S} died in", "{S} death place"),
    "P27": ("{S} nationality", "{S} citizenship", "country of citizenship of {S:o}"),
    "P26": ("{S} spouse", "{S} husband or wife", "person married to {S:o}"),
    "P451": ("{S} partner", "{S} relationship", "partner of {S:o}"),
    "P40": ("{S} children", "{S} kids", "children of {S:o}"),
    "P22": ("{S} father", "{S} dad", "father of {S:o}"),
    "P25": ("{S} mother", "{S} mom", "mother of {S:o}"),
    "P106": ("{S} occupation", "{S} profession", "{S} job"),
    "P166": ("{S} awards", "awards won by {S:o}", "{S} honors"),
    "P39": ("{S} positions held", "offices held by {S:o}", "{S} political offices"),
    "P463": ("{S} memberships", "groups {S} belongs to", "{S} membership"),
    "P102": ("{S} political party", "{S} party", "party of {S:o}"),
    "P69": ("{S} education", "{S} alma mater", "schools attended by {S:o}"),
    "P800": ("{S} notable works", "{S} best known works", "famous works of {S:o}"),
    "P136": ("{S} genre", "genres of {S:o}", "{S} music genre"),
    "P57": ("{S} director", "director of {S:o}", "{S} directed by"),
    "P161": ("{S} cast", "cast of {S:o}", "actors in {S:o}"),
    "P577": ("{S} release date", "{S} release year", "release date of {S:o}"),
    "P2047": ("{S} runtime", "{S} length", "running time of {S:o}"),
    "P2437": ("{S} number of seasons", "seasons of {S:o}", "{S} season count"),
    "P1113": ("{S} number of episodes", "episodes of {S:o}", "{S} episode count"),
    "P36": ("{S} capital", "capital of {S:o}", "{S} capital city"),
    "P38": ("{S} currency", "currency of {S:o}", "money used in {S:o}"),
    "P1082": ("{S} population", "population of {S:o}", "{S} number of inhabitants"),
    "P571": ("{S} founded", "{S} founding date", "year {S} was formed"),
    "P527": ("{S} members", "{S} parts", "members of {S:o}"),
}

# (property, qualifier) -> three spoken questions; [a] is the fact's value, [b] the answer
VOICE_QUALIFIED: dict[tuple[str, str], tuple[str, str, str]] = {
    ("P166", "P585"): ("when did {S} receive the [a]?", "in what year was {S} given the [a]?",
                       "when did {S} win the [a]?"),
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
    "P463": None, "P102": "political party", "P69": "education", "P108": "employer",
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
    "P580": (("when did that start?", "and when was that?", "when was that?"),
             ("since when?", "and since when?", "start date?")),
    "P582": (("when did that end?", "and when did that end?", "when was that over?"),
             ("until when?", "and until when?", "end date?")),
    "P585": (("when was that?", "and when was that?", "in what year was that?"),
             ("date?", "and the date?", "year?")),
}
