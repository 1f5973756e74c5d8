"""The planner: which facts a conversation asks, in which order, about which entities.

A conversation is a pure function of its subject, its index (the pass over the subjects),
the configuration and the KG: its generators are seeded by those alone, and it reads the KG
only through the batch's view. That is what lets the stage make conversations batch by
batch, and make one again after its batch loaded an entity it missed, with the same result.

Facts are asked in blocks that belong together (date and place of birth, a marriage and its
dates), in a seeded order. With hops, an answer naming an item with facts of its own may
lead to two or three turns about it, then back to the plan; when the plan runs out, the
conversation moves to an item answered earlier, or back to a topic with facts not yet
asked: at most ``topics`` entities, never a fact twice.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections import Counter, defaultdict, deque
from collections.abc import Sequence
from dataclasses import replace
from itertools import islice

from convkgyarn.config import GenerateConfig
from convkgyarn.progress import counted
from convkgyarn.stages import kinds, salience
from convkgyarn.kg.render import Value, first_year, render
from convkgyarn.stages.assemble import transforms
from convkgyarn.stages.assemble.facts import SPORT, answer_statements, shares_value
from convkgyarn.stages.assemble.records import (
    SHORT_ASKABLE, SHORT_LEFT_OUT, SHORT_PLANNED, Conversation, Drop, EntityFacts, PlannedTurn,
    Turn)
from convkgyarn.stages.assemble.localise import Localiser
from convkgyarn.stages.assemble.realiser import (Realiser, lead_word, occupation_labels, seeded,
                                                sings)
from convkgyarn.stages.assemble.view import THREAD_VALUES_MAX, KGView

# Predicates asked one after the other when an entity has both.
GROUPS = (("P569", "P19"), ("P570", "P20"), ("P22", "P25"), ("P580", "P582"),
          ("P577", "P2047"), ("P571", "P112"), ("P106", "P800"), ("P2031", "P2032"))
# Qualifier follow-ups a person asks about the statement just answered ("Who is her
# spouse?" "Since when?"): the dates of an office, a marriage, a job, a team, a school, a
# leader's term, an award's year. The data dates of figures ("As of when?" after a
# population) and the start of a country's membership or a city's country are not asked.
TERMS = ("P39", "P26", "P451", "P108", "P54", "P69", "P102", "P6", "P35", "P488", "P169",
         "P286", "P1037", "P463")
NATURAL_QUALIFIERS = frozenset({(p, q) for p in TERMS for q in ("P580", "P582")} |
                               {("P166", "P585"), ("P1411", "P585"),
                                # whom an office holder succeeded ("When did he take office
                                # as Prime Minister of Estonia?" "2014." "Who held the
                                # office before?": r58's reader, of fifty politicians)
                                ("P39", "P1365")})
# (Not kept, 0.8.19: since when a country has had its capital or its currency, "What is
# the capital of Australia?" "Canberra." "When did that begin?" "1927." Three head-to-head
# raters found it varied (diversity 9, 7 and 7 pairs of 28 to none) and less relevant and
# less fluent (relevance 3, 5 and 3 pairs to 6, 8 and 10, nearly every loss such a chain:
# "Paris" "508 CE", s27).)
# The order of one statement's questions: its start, whom it followed, its end, who
# followed (``QUALIFIER_ORDER``; others after, by id).
QUALIFIER_ORDER = {"P580": 0, "P1365": 1, "P582": 2, "P1366": 3}
# At most this many questions about one statement's details; the others are asked only to
# reach min_turns: "When did he take office?" "Who held that office before?" and on to
# something else, not "When did that end?" as well (three raters preferred the
# conversation that asked his party or his schools instead, s23). (Not kept, s40: one, so
# "When did his term as Roman emperor begin?" and no "And when did that end?". Three
# head-to-head raters found it more varied, 25 judgements to 3 of 30, but less relevant, 9
# to 17, and less fluent, 1 to 10: a marriage's or a term's end is worth asking.)
STATEMENT_DETAILS_MAX = 2
# A person's facts in the order of a life: birth and family, schooling, the work they are
# known for (anything unlisted), marriage and children, faith, languages and home, death
# and burial.
LIFE_STAGE = {"P1477": 0, "P735": 0, "P734": 0, "P1449": 0, "P569": 0, "P19": 0,
              "P22": 1, "P25": 1, "P3373": 1, "P1038": 1, "P27": 1, "P69": 2,
              "P26": 4, "P451": 4, "P40": 4, "P140": 5, "P103": 5, "P1412": 5, "P551": 5,
              "P172": 5, "P570": 6, "P20": 6, "P509": 6, "P1196": 6, "P119": 6}
WORK_STAGE = 3
POSITION = "P413"  # the position played in a person's sport (``facts.SPORT``)
# Trivia a conversation asks only when it would otherwise be too short (below
# min_turns): facts scoring at most TRIVIA (salience.salience), and facts readers named as
# not worth asking whatever their score (issue #33, the critic of the prototype): heritage
# designation, patron saint, eye and hair colour, "significant event", terrain feature,
# time zone, languages used by a thing, record label of a person, historic county; and
# what the blind ratings marked down (r15): a physicist's Erdős number, an emperor's
# iconographic symbol, "manner of death: natural causes" (the cause of death stays).
TRIVIA = 20
TRIVIA_PROPERTIES = frozenset({"P1435", "P417", "P1340", "P1884", "P793", "P706", "P421",
                               "P2936", "P7959", "P5658", "P1454", "P1336", "P2021", "P4185",
                               "P1196",
                               # a country's legal ages and mains voltage, askable since
                               # 0.8.7 names their units: "What is the country's marriageable
                               # age?" "And its mains voltage?" (r24's rater: not worth asking)
                               "P2884", "P3000", "P2997", "P2998", "P3270", "P3271",
                               "P3001"})
# ... and, of a place or a building, its awards ("Which awards did the country win?" "Lagun
# Onari."; "Which awards did the Museum of Fine Arts of Lyon win?" "Musée de France.", a
# label of French museums, lost both r28 raters' relevance)
TRIVIA_FOR_PLACES = frozenset({"P166"})
PLACE_KINDS = salience.PLACES
AWARDS_ARE_TRIVIA = PLACE_KINDS | {"building", "other"}  # (of no known kind: "Which awards
# did the museum win?" "Musée de France.", a status, r59's reader; 0.8.18)
# ... and of a person, the works they appear in (Plato: "The Divine Comedy") and their
# canonisation ("What rank of sainthood did he hold?"): readers' "odd" (issue #33)
TRIVIA_FOR_PEOPLE = frozenset({"P264", "P1412", "P6886", "P1441", "P411"})
# ... and a native language that is (a variety of) the official language of the person's
# country ("American English" of an American: ``Planner._language_of_the_country``)
NATIVE_LANGUAGE, CITIZENSHIP, OFFICIAL_LANGUAGE = "P103", "P27", "P37"
BIRTHPLACE = "P19"
# Words that name a country's form of state, not another country: "Kingdom of the
# Netherlands" is the Netherlands, "United States of America" the United States; never
# "Equatorial Guinea" Guinea, "South Sudan" Sudan, nor "Democratic Republic of the Congo"
# the Republic of the Congo, nor the People's Republic of China the Republic of China.
FORM_OF_STATE = frozenset({"kingdom", "of", "the", "republic", "federal", "commonwealth",
                           "america"})
PERIOD = "P2348"  # the time period a person lived in: trivia beside a precise life date
# What a character of fiction (``wording.personal``) is first asked: the work it appears in
# ("What is Lisa Simpson a character in?"), not the country it is a citizen of
CHARACTER_WORKS = frozenset({"P1441"})
CHARACTER_WORKS_SALIENCE = 88
# ... and the voice type of a person whose occupations the KG names none in music
# (``realiser.sings``): James Joyce, a writer, sang tenor
VOICE_TYPE = "P412"
# Where a thing is, narrower than its country: one answer its name says is enough to
# leave the question out (``obvious_from_name``).
FINER_PLACES = ("P159", "P131", "P276")
NUMBERED_NEIGHBOURS = ("P155", "P156")  # follows, followed by
CAPITAL_OF = "P1376"
ADMINISTRATIVE_WORD = re.compile(r"\b(partido|region|province|district|county|municipality|"
                                 r"department|prefecture|governorate|oblast|raion|canton|"
                                 r"commune|borough|voivodeship|state|shire|municipio)\b")
# The earliest record of a town beside its founding reads as a contradiction ("When did it
# come into being?" "1220." "When is it first mentioned in records?" "927."): the founding
# is asked.
EARLIEST_RECORD, INCEPTION = "P1249", "P571"
# ... and so does an official opening beside a founding ("When was the Ashmolean Museum
# founded?" "1683." "What year did the museum open?" "1685.": "almost the same thing", r59).
BESIDE_A_FOUNDING = frozenset({EARLIEST_RECORD, "P1619"})
# An honorific ("What is her honorific prefix?" "The Right Honourable.": a database field to
# r59's reader) and the instrument of a person none of whose occupations is in music
# ("What instrument did Douglas Adams play?" "Guitar." as the opener) fill turns only.
HONORIFICS = frozenset({"P511", "P1035"})
INSTRUMENT = "P1303"
# A field of work that restates the occupation just asked ("What was his job?"
# "Physicist." "What field did he work in?" "Physics.") is not worth its turn.
FIELD_OF_WORK = "P101"
# ... and nor is a position held that is an academic title, not an office ("professor"),
# of a person whose occupation is asked (a pope's "pope" is asked)
POSITION_HELD = "P39"
ACADEMIC_TITLE = re.compile(r"((full|associate|assistant|adjunct|visiting|emeritus|honorary) )?"
                            r"(professor|lecturer|docent|reader|research fellow|fellow|"
                            r"privatdozent)")
# ... and nor is the one place a politician worked (the town of the parliament they sat in)
WORK_LOCATION = "P937"
POLITICIAN = re.compile(r"\b(politician|statesman|stateswoman|diplomat)\b", re.I)
# A person whose office or party names their country is not asked it ("What is Taavi
# Rõivas' occupation?" ... "Prime Minister of Estonia" ... "Which country is he a citizen
# of?" "Estonia.": pointless to a blind reader, r58).
SAYS_THE_COUNTRY = ("P39", "P102")
ORGANISATION_COUNTRY = ("P17", "P1001")  # country, applies to jurisdiction
# A character of fiction is not asked the facts of a civil life ("When was Homer Simpson
# born?" "Which country is he a citizen of?": a real-person template applied to a cartoon,
# r58) but to fill turns; what it is in, who created and who voices it are asked.
CIVIL_LIFE = frozenset({"P569", "P19", "P27", "P570", "P20"})
NOT_A_VARIETY = re.compile(r"\bsign language\b|^(old|middle|ancient|classical)\b")
# ... and of a person with no military career, their wars, branch and rank: "What wars did
# he take part in?" of a philosopher or a physicist (Quine, Max Born) reads as a form's
# field, not as what anyone asks of them (a relevance critic of 0.8.13). A career is
# military where the KG says so: a branch or rank held, or an occupation MILITARY names.
MILITARY_FACTS = frozenset({"P607", "P241", "P410"})
MILITARY = re.compile(r"\b(soldier|military|officer|general|admiral|marshal|commander|"
                      r"sailor|marine|naval|army|warrior|knight|mercenary|guerrilla|"
                      r"fighter pilot|resistance fighter|partisan|samurai)\b", re.I)
# The opener of a later conversation about a person: their occupation again rather than a
# field of a form ("What was Steve Clark's nationality?" opened his second conversation,
# its occupation asked in the first): an opener asked before still opens where the best
# opener not asked before is a form's field (FORM_OPENERS) scoring this much lower
# (salience). Not a birth: a head-to-head preferred "When was Vladimir Putin born?" to
# "What does he do for a living?" "Politician." (0.8.14)
OPENER_MARGIN = 20
FORM_OPENERS = frozenset({"P27"})
# Where a thing everyone has heard of lies (in Wikipedia articles in this many languages):
# "In what country is New York City?", "Where is London?" "Greater London." is not worth a
# turn.
FAMOUS = 200
KNOWN_OF_THE_FAMOUS = frozenset({"P17", "P30", "P131",
                                 "P1376"})  # "What is Amsterdam the capital city of?"
# (Not kept, 0.8.8: a famous person's job and nationality as trivia, and the country of a
# thing whose name says a known town, "Legia Warsaw", left out. A blind head-to-head
# preferred "What was Beethoven's occupation?" as the opener, and the University of
# Amsterdam's country to the "When was that?" that filled its turn.)
# (Not kept, 0.8.19: a famous person's birth, not their job, as the opener, where two
# explaining readers called "What does Vladimir Putin do for a living?" a question "almost
# no one would need to ask". Three head-to-head raters preferred it for Beethoven's
# fluency and Constantine's diversity and the job first for Putin's relevance, three
# times each (s26), and on the bundled sample, whose subjects are mostly famous, it made
# more conversations open three questions with one word.)
# Dates of a life known only to the decade or century say little: asked only to fill turns.
LIFE_DATES = frozenset({"P569", "P570"})
MODERN_YEAR = 1800  # ... and from this year on, not asked at all (_vague_modern_life_date)
# P1303 "voice": an actress "plays the voice", and a singer's "Which instruments did he
# play?" "Voice, piano, drum kit." reads as no list a person would give (three head-to-head
# raters of 0.8.23's value labels, which named Michael Jackson's instruments, preferred his
# conversation opening with his birth, s34): an instrument list with it only fills turns
VOICE_INSTRUMENT = "Q17172850"
MAX_TEXT_SUBJECT_WORDS = 6
# A stock profile: what the KG holds of nearly every person, a CV's first lines. A
# little-known person (fewer sitelinks than PROFILE_KNOWN) whose conversation asks nothing
# else is not asked about (generate.profiles): "What is Heleen Plaatzer's occupation?"
# "When was she born?" "What is her nationality?", "What is Junghwan Kim's job?"
# "Researcher." "Who is Kim's employer?" "And since when?" read as forms nobody asked for.
# Blind raters preferred the human conversation on relevance in nearly every such pair;
# of the 69 subjects of entities-635, mostly researchers' records, 56 were asked so. What a
# person is known for (works, offices, teams, awards, field, genre, family) is outside it.
PROFILE = frozenset({"P106", "P569", "P19", "P570", "P20", "P27", "P1412", "P103", "P6886",
                     "P21", "P735", "P734", "P140", "P172", "P2048", "P641", "P1559",
                     "P1532", "P2031", "P2032", "P108", "P69"})
# ... and a place's: a gazetteer line ("How many inhabitants does Ochota have?" "Which
# country is it in?" "Where is it in Poland?" "How large is it?"), for a place as little
# known (Planner._stock_profile_only). Its mayor, founding, namesake or twin towns are
# outside it; a mountain or a lake (salience's "natural") is no such place.
PLACE_PROFILE = frozenset({"P17", "P131", "P276", "P1082", "P2046", "P2044", "P625", "P30",
                           "P706", "P281", "P421", "P206", "P47", "P150", "P4614", "P1376"})
PROFILE_KNOWN = 50
PROFILE_REASON = "nothing to ask about a little-known person or place but a stock profile"
# A later pass over a subject (conversations > subjects) prefers facts the passes before
# it did not ask; with new_fact_share 0 (repeats allowed, so passes are unbounded) it looks
# back this many passes (each look is one plan, no realising).
MAX_EARLIER_PASSES = 3
# ... and its new facts count towards new_fact_share only when worth asking for themselves
# (salience DETAIL or more): China's third conversation, "Where is the lowest point in the
# country?" "How long do people live in it?" "Which side of the road do people drive on?",
# read as a quiz of leftovers (r24's rater preferred the human conversation on relevance)
FURTHER_MIN = salience.DETAIL

# Properties that ask one question in other words: an answer one of them gave is not asked
# again by another, even in part ("What followed the GDR?" "Germany." "What came after
# it?" "Germany, new states of Germany.")
SAME_QUESTION = {**dict.fromkeys(("P156", "P1366"), "after"),
                 **dict.fromkeys(("P155", "P1365"), "before"),
                 **dict.fromkeys(("P361", "P749"), "part of"),
                 **dict.fromkeys(("P131", "P276", "P159"), "where"),
                 **dict.fromkeys(("P103", "P1412"), "language")}
# Where a person lived or worked is not asked when half its places or more are where they
# were born, died, lived or worked by an answer the plan holds: "Where did he work?" "Göttingen."
# "Where did he live?" "Göttingen, Edinburgh, Wrocław." comes "back to the same places"
# (r59's reader), and so does "Where was he born?" "Bonn." "Where did he work?" "Bonn,
# Vienna." The birth and the death stay (they open a life; "Did he also die there?").
LIFE_PLACES = frozenset({"P19", "P20"})
PLACES_LIVED = frozenset({"P551", "P937"})

# When a thing began, by several properties: two of them in the same year are one answer
# ("What year was Dosim Station established?" "2007." "When did it open?" "27 December 2007")
FOUNDING_DATES = frozenset({"P571", "P1619", "P577", "P575", "P580"})
# ... and when a life or a career ended: a career that ended the year he died is his death
# ("When did Tarkovsky stop working?" "1986." beside "When did he die?": a reader's "odd")
ENDING_DATES = frozenset({"P570", "P2032",
                          # ... and a body's dissolution and its end ("When was the party
                          # dissolved?" twice: a reviewer of 0.8.19)
                          "P576", "P582",
                          # ... and a place's closing, a ship's or a machine's retirement
                          "P3999", "P730"})
# Where a thing is, from the broad to the narrow: asked in this order, and the continent not
# at all when something narrower is known (the country says it).
CONTINENT = "P30"
AFTER_ITS_END = frozenset({"P156", "P1366"})  # followed by, replaced by
# (Not kept, 0.8.8: what a college is part of left out after "Where is it?" "Oxford." A
# blind A/B of 40 subjects preferred the conversations that asked "What is the college part
# of?" "University of Oxford." in 7 pairs of 7.)
LOCATION_LEVEL = {"P30": 0, "P17": 1, "P131": 2, "P706": 2, "P276": 3, "P159": 3}
LOCATED = frozenset(LOCATION_LEVEL)
NARROWER_THAN_CONTINENT = LOCATED - {CONTINENT}
# ... and a capital says it as well: "What was the capital of the Weimar Republic?"
# "Berlin." then "On what continent was it?" reads as a quiz of the obvious (four readers
# rated the conversations that asked a state's continent lowest of all on relevance)
SAYS_CONTINENT = NARROWER_THAN_CONTINENT | {"P36"}
# ... and the country not at all for a thing in a town (a college, a club, a museum, a
# company) when the conversation asks which town, and the KG says every answer is one:
# "Where is the college based?" "Oxford." says it (readers marked "What country does it
# belong to?" before or after it as not worth asking); the turn goes to the next fact, and
# the country is asked only to reach min_turns. Places, natural features, events and
# people keep their country.
COUNTRY = "P17"
OCCUPATION = "P106"
LEAGUE = "P118"
TOWN_LEVEL = frozenset({"P131", "P159", "P276"})
KEEP_COUNTRY = PLACE_KINDS | {"natural", "event", "person", "other"}
PLACE_MEASURES = ("P1082", "P2046", "P2044")  # population, area, elevation
# Sides of an entity a conversation asks at most ASPECT_MAX facts about while it has others
# to ask: a checklist of a life (born, where, nationality, died, where, of what) reads as a
# form being filled.
ASPECT_MAX = 2
# ... and at most DATES_MAX questions for a statement's date while it has other facts to
# ask: "When did he start working for the University of Edinburgh?" "And when did that
# end?" "In what year did he enter the University of Wrocław?" "When was that over?" (Max
# Born; a relevance critic of 0.8.13 found such chains "formulaic"; a quarter of our
# questions asked for a date where ConvQuestions asks one in ten). A block of a fact and
# its dates keeps its fact and the dates the allowance leaves ("Who was he married to?"
# "When was the wedding?"). A birth or a founding is a fact of its own, not counted.
DATES_MAX = 2
# ... and at most STARTS_MAX of them when a statement began, while it has other facts to
# ask (in one plan: a refill or a side topic plans its own): "Who leads the government?"
# "Scott Morrison." "When did that begin?" "Who is its head of state?" "Elizabeth II."
# "When did that start?" repeats one pattern (two head-to-head raters' diversity, s26)
STARTS_MAX = 1
# The most blocks ``Planner._kinds_apart`` reorders (the orders it tries grow with them),
# and the amounts asked together however it orders them: height, width, length,
# thickness, depth (vertical, horizontal), diameter; ...
KINDS_APART_MAX_UNITS = 9
AMOUNTS_TOGETHER = (frozenset({"P2048", "P2049", "P2043", "P2610", "P4511", "P5524", "P2386"}),
                    frozenset({"P1082", "P2046"}))  # ... population, area
START = "P580"
# (Not kept, s29: at most one amount a conversation while other facts are left, "How many
# people live in Berlin?" and no "How big is it?". Three head-to-head raters found it more
# varied, 40 pairs to 13 of 114, but less relevant, 14 to 28, and less fluent, 11 to 24:
# a city's area is worth asking beside its population, and what took its place often
# was not: "What was its culture?" "Ancient Rome.", a Chilean town's official language.)
# (the statements whose start is asked "When did that start?": a leader's, a capital's, a
# currency's; "When did the marriage begin?" or "When did he take office as President of
# Chile?" read as questions of their own)
SINCE_WHEN = frozenset({"P6", "P35", "P488", "P169", "P286", "P1037", "P36", "P38"})
# A statement's date cut from the rest of its block is asked alone ("When did he take
# office as President of Chile?") only of a fact this salient (an office held, a team):
# "When did he begin studying at Heidelberg University?" alone is no better than "Who was
# his teacher?" (two head-to-heads, 0.8.14)
DATED_ALONE = 80
# An award or a nomination is never dated alone ("When was he awarded the Inkpot Award?",
# "When was he awarded the Ig Nobel Prize?" of Putin): of the subjects it changed three
# blind head-to-head raters preferred the conversation without it on relevance 12 pairs to
# 3 (s38), Max Born's Nobel Prize and Tarkovsky's Lenin Prize included; the one they missed
# was Meryl Streep's Emmy. "Which awards did he win?" "Knight Bachelor." "In what year was
# that?" is still asked.
NOT_DATED_ALONE = frozenset({"P166", "P1411"})
ASPECT_OF = {**{p: "life" for p in ("P569", "P19", "P27", "P570", "P20", "P509", "P1196",
                                      "P119")},
             **{p: "where" for p in LOCATION_LEVEL},
             **{p: "family" for p in ("P22", "P25", "P3373", "P40")}}
# Follow-ups (generate.follow_ups): what a side topic may be, by its broad kind
# (salience.broad_kind), and the properties after which a city is one (a capital).
THREAD_KINDS = frozenset({"person", "film", "series", "music", "book", "artwork", "game",
                          "band", "club", "university", "company", "organisation"})
# What a side topic to an organisation does not ask: the country it is in, which the person
# or place that led there already says ("Which party is he a member of?" "The Conservative
# Party." "In which country is it based?" "The United Kingdom."), nor the town of its
# offices ("And in which city is it headquartered?" "Tallinn.": three blind raters of a
# held-out set found it less relevant than the person's own facts, 0.8.17)
NOT_OF_AN_ORGANISATION = frozenset({"P17", "P495", "P159"})
THREAD_VIA = frozenset({"P36"})  # not a seat: "Which city is St John's College in?"
# "Oxford." "And what is the town's population?" leaves the college for a gazetteer line (the
# hops a blind rater found unmotivated, issue #33, 0.8.15). A capital's side topic is taken
# wherever it fits, not at follow_share: "What is the capital of the United Kingdom?"
# "London." "And how many people live in the city?" "Who is its elected mayor?" won
# relevance, fluency and diversity in both pairs it made, from each of three head-to-head
# raters (s42), where the side topics drawn to people and works split them
# Roles whose question says what the person does: their occupation is not asked next.
# ("Who is in the cast of Titanic?" "Leonardo DiCaprio." "And what is his job?" "Actor."),
# nor, after an office, the offices held ("Who led the government of the United States?"
# "Barack Obama." "Which offices did he hold?" "President of the United States.")
ROLE_PROPERTIES = frozenset({"P57", "P58", "P50", "P175", "P86", "P170", "P84", "P112",
                             "P676", "P162", "P110", "P6", "P35", "P488", "P169", "P286",
                             "P161", "P725", "P344", "P1040"})
OFFICE_ROLES = frozenset({"P6", "P35", "P488", "P169"})
TWO_OFFICES = frozenset({("P35", "P6"), ("P6", "P35")})
IMPLIED_BY_ROLE = frozenset({"P106"})
IMPLIED_BY_OFFICE = IMPLIED_BY_ROLE | {"P39"}
# The follow-ups every language of a multilingual configuration can say (each language's
# forms: languages.FOLLOW_UP_KINDS; a side topic is plain facts)
LOCALISED_FOLLOW_UPS = frozenset({"thread", "span", "before", "also"})
# What a sportsperson's occupation says ("sport cyclist", "basketball player"): their sport;
# and a competition class that only repeats the sport the occupation or the sport answer
# named ("Basketball." "What class does he compete in?" "Men's basketball."), not one that
# says more ("welterweight", "T54"); and a religious order says the religion ("Which order
# was he a member of?" "Benedictines." "What religion did he follow?" "Catholic Church.":
# a blind rater's "adds nothing")
IMPLIED_BY = {"P641": ("P106",), "P2094": ("P106", "P641"), "P140": ("P611",),
              "P1303": ("P106",)}
# A player named by the instrument: "guitarist" says "guitar", "pianist" "piano", "drummer"
# "drum", "cellist" "cello" ("What did Steve Clark do?" "Guitarist." "Which instruments did
# he play?" "Guitar.": a relevance critic's "obvious" question)
PLAYER_OF = re.compile(r"e?(ist|er|mer)")
IMPLIED_BY_NOUN = {"P106": "the occupation", "P641": "the sport", "P611": "the religious order"}
GENERIC_SPORT_WORDS = frozenset({"sport", "sports", "player", "men's", "women's", "mixed"})

Fact = tuple[str, str | None]  # (property, qualifier or None)
Step = tuple[EntityFacts, str, PlannedTurn, "int | None"]  # entity, type, turn, hop_from


def instrument_stem(label: str) -> str:
    """What a player's noun of the instrument is made from: "piano" -> "pian" (pianist),
    "drum kit" -> "drum" (drummer), "cello" -> "cell" (cellist). A name of several words
    ("bass guitar", "keyboard instrument") has none: "guitarist" does not say the bass."""
    words = label.lower().replace("-", " ").split()
    if len(words) == 2 and words[-1] in ("kit", "set"):
        words = words[:1]
    if len(words) != 1:
        return "\x00"  # no player's noun says it
    stem = words[0].rstrip("aeiou")
    return stem if len(stem) >= 4 else "\x00"


def plays(player: str, stem: str) -> bool:
    """Whether the occupation word names the player of the instrument: the stem and a
    player's ending only ("guitarist", "drummer"), not "organizer", "harpsichordist",
    "bassoonist" or "violinist" (of the viola)."""
    return player.startswith(stem) and PLAYER_OF.fullmatch(player[len(stem):]) is not None


def qualifier_order(qualifier_id: str) -> tuple[int, str]:
    """Where a qualifier's question comes among one statement's (``QUALIFIER_ORDER``)."""
    return QUALIFIER_ORDER.get(qualifier_id, len(QUALIFIER_ORDER)), qualifier_id


def obvious_from_name(e: EntityFacts, answered: list, property_id: str | None = None) -> bool:
    """A fact whose every answer is a thing the subject's name says ("Oxford" for "St
    Peter's College, Oxford"; "University of Oxford" for "University of Oxford Physics
    Department"; "Waterloo" for "Battle of Waterloo"; the "United States of America" for the
    "United States Mint"): no one asks it (the planner leaves it out; numbered neighbours
    it keeps as trivia, ``Planner._trivia``). Where a thing is (``FINER_PLACES``), one answer
    the name says is enough, or one that says the name ("Where is the Museum of Fine Arts of
    Lyon?" "Lyon, 1st arrondissement of Lyon."; "Where is Greenwich in the United
    Kingdom?" "Royal Borough of Greenwich."), as is being the capital only of what bears
    its name ("Karlsruhe Government Region"); and what came before or after an item named
    by its number is the name with another number ("What preceded the 2004 Summer
    Olympics?" "The 2000 Summer Olympics.": ``NUMBERED_NEIGHBOURS``)."""
    name = f" {e.label.lower()} "
    labels = [st.value.label.lower() for st in answered if st.value.value_id]
    if not labels or len(labels) != len(answered):
        return False
    if property_id in NUMBERED_NEIGHBOURS:
        shape = re.sub(r"\d+", "#", name.strip())
        if "#" in shape and all(re.sub(r"\d+", "#", x) == shape for x in labels):
            return True
    named = [len(name.strip()) >= 4 and
             re.search(rf"(?<!\w){re.escape(name.strip())}(?!\w)", x) is not None
             for x in labels]
    if (property_id in FINER_PLACES and any(named)) or (property_id == CAPITAL_OF and all(
            n and ADMINISTRATIVE_WORD.search(x) for n, x in zip(named, labels))):
        return True  # "What is Karlsruhe the capital of?" "Karlsruhe Government Region."
        # (never Guinea-Bissau of Bissau: a country, not a region named after its seat)

    def says(label: str) -> bool:
        short = label.split(" of ")[0]  # "United States" of "United States of America"
        forms = {label, short} if len(short.split()) >= 2 else {label}
        return any(len(form) >= 4 and re.search(rf"(?<!\w){re.escape(form)}(?!\w)", name)
                   for form in forms)
    return any(map(says, labels)) if property_id in FINER_PLACES else all(map(says, labels))


class Planner:
    """Conversations of one configuration over one batch's view."""

    def __init__(self, view: KGView, cfg: GenerateConfig) -> None:
        self.view = view
        self.cfg = cfg
        self.name = cfg.name
        self.realiser = Realiser(view, cfg)
        # generate --language: the other languages every turn is said in as well
        self.localisers = [Localiser(view, cfg, code) for code in cfg.languages
                           if code != "en"]
        self._conversation: tuple[str, int] = ("", 0)
        self._shapes: dict[tuple, list[tuple]] = {}
        self._salient: dict[tuple, tuple[int, bool]] = {}
        self._added: list[Step] = []  # the steps hops and refills added to the plan

    def drop(self, item: str, reason: str, detail: str = "") -> None:
        self.view.trace.drops.append(Drop(item, reason, detail))

    def left_out(self, item: str, reason: str, detail: str = "") -> None:
        """A subject that makes no conversation in any pass: the stage skips it in the next
        passes, and records this drop for it again as if it had been visited."""
        self.drop(item, reason, detail)
        self.view.trace.lasting = True

    # -- one conversation
    def conversation(self, entity_id: str, index: int) -> Conversation | None:
        cfg, view = self.cfg, self.view
        self._conversation = (entity_id, index)
        e = view.entity(entity_id)
        if e is None:
            view.trace.lasting = True
            return None
        unnamed = [loc.english_name for loc in self.localisers if not loc.names(entity_id)]
        if unnamed:  # a Japanese conversation about "Cluny Macpherson" in Latin letters
            self.left_out(entity_id, "no name of its own in a language asked for",
                          ", ".join(unnamed))
            return None
        type_id, facts = view.best_type(e)
        if type_id is None:
            self.left_out(entity_id, "no type with templates covers its facts")
            return None
        least = min(cfg.min_turns, cfg.turns)
        if view.refreshes is not None:  # probes: the changed facts, however few
            facts = [(p, q) for p, q in facts if q is None and view.change(e.id, p)]
            least = 1
        if len(facts) < least:
            self.left_out(entity_id, f"fewer askable facts than generate.min_turns "
                          f"({cfg.min_turns})", counted(len(facts), "askable fact"))
            return None
        namesake = view.namesakes.get(entity_id)
        if namesake is not None:
            other, sitelinks, named_by = namesake
            self.left_out(entity_id, "a better-known entity bears its name (generate.homonyms)",
                          f"{other}, {sitelinks:,} sitelinks" if named_by is None else
                          f"{other}, named by {named_by:,} entities of the KG")
            return None
        if cfg.interaction == "text" and len(e.label.split()) > MAX_TEXT_SUBJECT_WORDS:
            self.left_out(entity_id, "label too long for a search query",
                          f"{len(e.label.split())} words")
            return None
        fact_key = [cfg.seed, entity_id, index, cfg.turns, cfg.related]
        if cfg.hops:
            fact_key += ["hops", cfg.topics, cfg.hop_share]
        if cfg.kinds:
            fact_key += ["kinds", *cfg.kinds, cfg.kind_share]
        if not cfg.same_facts:
            fact_key.append(self.name)
        rng_facts = random.Random(seeded("facts", *fact_key))
        # hops and kinds draw from their own generator (made only when they are on)
        rng_hops = random.Random(seeded("hops", *fact_key)) if cfg.hops or cfg.kinds else None
        if rng_hops is None and cfg.follow_ups:  # follow-ups draw from a generator of their own
            rng_hops = random.Random(seeded("follow", *fact_key, cfg.follow_share))
        rng_style = random.Random(seeded("style", self.name, cfg.seed, entity_id, index))

        related = view.related.get(entity_id) if cfg.related and \
            view.refreshes is None else None
        r_entity = view.entity(related) if related else None
        r_type, r_facts = view.best_type(r_entity) if r_entity else (None, [])
        n_related = min(2, cfg.turns - 2) if r_type and r_facts and cfg.turns >= 3 else 0
        avoid = self.asked_before(e, facts, cfg.turns - n_related, fact_key)
        own = self.plan(e, facts, cfg.turns - n_related, rng_facts, avoid=frozenset(avoid))
        if index:
            planned = frozenset((p.property_id, p.qualifier_id) for p in own)
            new = len(planned - avoid)
            if cfg.new_fact_share and view.refreshes is None and not cfg.entities:
                least_new = max(1, math.ceil(cfg.new_fact_share * len(planned)))
                worth = sum(1 for p, _ in planned - avoid
                            if self._salience(e, p)[0] >= FURTHER_MIN)
                if new < least_new:
                    self.left_out(entity_id, "a further conversation would mostly ask what "
                                  "the ones before it asked (generate.new_fact_share)",
                                  f"{new} of {len(planned)} facts new in conversation "
                                  f"{index + 1}")
                    return None
                if worth < least_new:
                    self.left_out(entity_id, "a further conversation would mostly ask minor "
                                  "facts (generate.new_fact_share)",
                                  f"{worth} of {len(planned)} facts new and worth asking in "
                                  f"conversation {index + 1}")
                    return None
            # the passes after this one read what it planned
            self.keep_plan(fact_key, cfg.turns - n_related, avoid, planned)
        plan: list[Step] = [(e, type_id, p, None) for p in own]
        if n_related:
            plan += [(r_entity, r_type, p, None)
                     for p in self.plan(r_entity, r_facts, n_related, rng_facts)]
        self._added = []  # what hops and refills plan as the walk goes (``short_reason``)
        turns = self.walk(plan, rng_hops, rng_style,
                          {e.id} | ({r_entity.id} if n_related else set()))
        if len(turns) < least:
            self.drop(entity_id, "too few turns could be realised", f"{len(turns)} turns")
            return None
        if view.refreshes is None and not cfg.entities and not cfg.profiles and \
                view.run.sitelinks_known and e.sitelinks < PROFILE_KNOWN and \
                self._stock_profile_only(e, type_id, turns):
            detail = f"{e.sitelinks} sitelinks"
            if index:  # it has a conversation: only this further one is not made
                self.drop(entity_id, "a further conversation would ask only a stock profile "
                          "(generate.profiles)", detail)
            else:
                self.left_out(entity_id, f"{PROFILE_REASON} (generate.profiles)", detail)
            return None
        own_turns = sum(t.subject.id == e.id for t in turns)
        if cfg.hops and not cfg.entities and own_turns < min(2, least) and len(turns) > 1:
            # "In which country is the Transport Studies Unit based?" then four questions
            # about the United Kingdom: a conversation about its country, not about it
            self.left_out(entity_id, "a conversation that moves would be about what it "
                          "moved to, not the subject (one turn of its own)",
                          f"{own_turns} of {len(turns)} turns")
            return None
        if view.refreshes is None and not cfg.entities and all(
                t.planned.property_id in LOCATION_LEVEL for t in turns):
            # "Which country is it in?" "Which part of France?" "Which continent?": nothing
            # but where it is reads as a gazetteer, not a conversation
            self.left_out(entity_id, "nothing to ask but where it is")
            return None
        fact_set = hashlib.sha256("\x1e".join(
            f"{t.subject.id}\x1f{t.planned.property_id}\x1f{t.planned.qualifier_id}\x1f"
            f"{t.statement_id}" for t in turns).encode()).hexdigest()[:16]
        conv_id = hashlib.sha256(f"{self.name}\x1f{cfg.seed}\x1f{entity_id}\x1f{index}\x1f"
                                 f"{fact_set}".encode()).hexdigest()[:16]
        too_few = len(facts) + (len(r_facts) if n_related else 0) \
            if len(facts) < cfg.turns - n_related or len(r_facts) < n_related else None
        short = self.short_reason(too_few, plan + self._added, turns, cfg.turns) \
            if len(turns) < cfg.turns else None
        labels = {}
        for localiser in self.localisers:  # the subject as each language names it
            labels[localiser.code] = (
                localiser.label(e.id) or e.label,
                (localiser.label(r_entity.id) or r_entity.label) if n_related else None)
        return Conversation(conv_id, self.name, cfg.seed, e, type_id,
                            r_entity if n_related else None, fact_set, cfg.turns, short,
                            tuple(turns), labels)

    @staticmethod
    def short_reason(too_few: int | None, steps: list[Step], turns: list[Turn],
                     asked_for: int) -> str:
        """Why a conversation has ``len(turns)`` turns where ``asked_for`` were asked, "why:
        N" (``records.SHORT_*``): fewer askable facts than the turns they were wanted for
        (``too_few``: how many there are, the subject's and a related entity's; None when
        either had enough for its share of the turns); else planned turns left
        out while it was realised (``steps``: the plan and what hops and refills added; no
        phrasing fits, an earlier answer says it), where they account for the shortfall at
        least as much as the plan does; else fewer facts planned than turns (the planner
        left the others out, each with its drop). 0.8.24 said "0 planned turns could not be
        phrased", even "-1", of a plan that was short."""
        if too_few is not None:
            return f"{SHORT_ASKABLE}: {too_few}"
        said = {(t.subject.id, t.planned.property_id, t.planned.qualifier_id) for t in turns}
        left = sum((ent.id, pt.property_id, pt.qualifier_id) not in said
                   for ent, _, pt, _ in steps)
        if left and left >= asked_for - len(steps):
            return f"{SHORT_LEFT_OUT}: {left}"
        return f"{SHORT_PLANNED}: {len(steps)}"

    def asked_before(self, e: EntityFacts, facts: list[Fact], turns: int,
                     fact_key: list) -> set[Fact]:
        """The facts the conversations of the earlier passes over ``e`` planned, each as it
        was planned (avoiding what the ones before it asked): all of them while
        ``new_fact_share`` bounds the passes, else the last ``MAX_EARLIER_PASSES``.

        What a later pass planned is kept for the run (``RunLookups.planned``), so a pass
        replans none of the ones before it (a pass missing there, the first pass's at the
        second, is replanned once and kept): with ``new_fact_share``, what passes up to
        each planned, for the last two passes of a subject; without, the plans of its last
        ``MAX_EARLIER_PASSES`` + 1 passes. The one more kept lets a conversation made again
        (``view.Missing``) find what it read the first time."""
        index = fact_key[2]
        if not index:
            return set()
        if self.cfg.new_fact_share:
            return set(self._kept(e, facts, turns, fact_key, index - 1))
        avoid: set[Fact] = set()
        for earlier in range(max(0, index - MAX_EARLIER_PASSES), index):
            avoid |= self._kept(e, facts, turns, fact_key, earlier)
        return avoid

    def _kept(self, e: EntityFacts, facts: list[Fact], turns: int, fact_key: list,
              index: int) -> frozenset[Fact]:
        """What ``keep_plan`` kept for pass ``index``, or that pass planned again as it was
        (and kept)."""
        key = list(fact_key)
        key[2] = index
        found = self.view.run.planned.get((tuple(key), turns))
        if found is None:
            avoid = self.asked_before(e, facts, turns, key)
            planned = frozenset((p.property_id, p.qualifier_id) for p in self.plan(
                e, facts, turns, random.Random(seeded("facts", *key)),
                avoid=frozenset(avoid)))
            found = self.keep_plan(key, turns, avoid, planned)
        return found

    def keep_plan(self, fact_key: list, turns: int, avoid: set[Fact],
                  planned: frozenset[Fact]) -> frozenset[Fact]:
        """Keep what a pass planned for the passes after it (``asked_before``): with
        ``new_fact_share``, with what the passes before it asked; and let go of what no
        later pass reads."""
        store = self.view.run.planned
        share = bool(self.cfg.new_fact_share)
        kept = frozenset(avoid | planned) if share else planned
        store[(tuple(fact_key), turns)] = kept
        old = list(fact_key)
        old[2] -= 2 if share else MAX_EARLIER_PASSES + 1
        if old[2] >= 0:
            store.pop((tuple(old), turns), None)
        return kept

    # -- planning (which facts), independent of the interaction config under same_facts
    def blocks(self, e: EntityFacts, facts: list[Fact], rng: random.Random,
               cached: bool = True) -> list[list[PlannedTurn]]:
        """The entity's facts grouped into blocks asked together, in a random order
        (``cached``: the blocks' shapes are kept for these facts)."""
        key = (e.id, tuple(facts))
        shapes = self._shapes.get(key) if cached else None
        if shapes is None:
            shapes = self._block_shapes(e, facts)
            if cached:
                self._shapes[key] = shapes
        blocks = []
        for members, qual_prop, stmts, quals in shapes:
            block = [PlannedTurn(e.id, p, None, 0) for p in members]
            if stmts:
                # a marriage and its dates: one statement, its qualifiers right after; of
                # several, the one whose value people know best (``KGView.renown``: the
                # Nobel Prize in Physics, not the Hughes Medal), the draw among equals
                drawn = stmts[int(rng.random() * len(stmts))]
                held = e.properties[qual_prop]
                i = max(stmts, key=lambda j: (self.view.renown(held[j].value), j == drawn))
                block += [PlannedTurn(e.id, qual_prop, q, i) for q in quals
                          if q in e.properties[qual_prop][i].qualifiers]
            blocks.append(block)
        rng.shuffle(blocks)
        return blocks

    @staticmethod
    def _natural(block: list[PlannedTurn]) -> tuple[list[PlannedTurn], list[PlannedTurn]]:
        """A block's turns a person asks, and its qualifier follow-ups no one would ask
        unless nothing else is left ("As of when?" after a population: not
        ``NATURAL_QUALIFIERS``; a statement's questions past ``STATEMENT_DETAILS_MAX``)."""
        kept = [t for t in block if t.qualifier_id is None or
                (t.property_id, t.qualifier_id) in NATURAL_QUALIFIERS]
        details = [t for t in kept if t.qualifier_id is not None]
        kept = [t for t in kept if t not in details[STATEMENT_DETAILS_MAX:]]
        return kept, [t for t in block if t not in kept]

    def _block_shapes(self, e: EntityFacts, facts: list[Fact]) -> list[tuple]:
        """(main properties, qualified property, its statements with qualifiers, qualifiers).
        A qualifier is asked only of a statement the main question answers: "Since when?"
        is about the spouse just named, not an earlier one. Where the main fact is not
        asked, a block of a statement's natural qualifiers alone names its value."""
        mains = [p for p, q in facts if q is None]
        quals: dict[str, list[str]] = defaultdict(list)
        for p, q in facts:
            if q is not None:
                quals[p].append(q)
        used: set[str] = set()
        shapes: list[tuple] = []
        for group in GROUPS:
            members = [p for p in group if p in mains]
            if len(members) > 1:
                shapes.append((members, None, [], []))
                used.update(members)
        for p in mains:
            if p in used:
                continue
            answered_stmts, tense = answer_statements(e, e.properties[p])
            if tense == "present" and any(st.value.value_id in self.view.ended_below.get(
                    (e.id, p), ()) for st in answered_stmts):
                continue  # Piñera's second term, after an ended first: "is" misleads
            if p not in NUMBERED_NEIGHBOURS and obvious_from_name(e, answered_stmts, p):
                continue  # "What is the University of Oxford Physics Department part of?"
            answered = {id(st) for st in answered_stmts}
            stmts = [i for i, st in enumerate(e.properties[p]) if st.unsayable is None
                     and id(st) in answered
                     and not shares_value(e.properties[p], st, tense == "present")
                     and any(q in st.qualifiers for q in quals.get(p, ()))]
            shapes.append(([p], p, stmts, sorted(quals.get(p, ()), key=qualifier_order)))
        for p in sorted(set(quals) - set(mains)):
            # the main fact is not asked (a value without a label: Meryl Streep's awards; too
            # many values; or, in a refill, asked already), but a question naming one value
            # can be: "When was she awarded the National Medal of Arts?" (only qualifiers a
            # person asks of their own, NATURAL_QUALIFIERS; of a value no other statement
            # holds, ever)
            natural = [q for q in sorted(quals[p], key=qualifier_order)
                       if (p, q) in NATURAL_QUALIFIERS]
            if p in NOT_DATED_ALONE:  # "When was he awarded the Inkpot Award?"
                for q in natural:  # an entity's own drop, recorded once a run
                    drop = Drop(f"{e.id}/{p}/{q}", "qualifier not asked: an award's date "
                                "alone is trivia", "")
                    if drop not in self.view.load_drops[e.id]:
                        self.view.load_drops[e.id].append(drop)
                continue
            held = e.properties[p]  # quals come from askable facts: the property is there
            stmts = [i for i, st in enumerate(held) if st.unsayable is None
                     and not shares_value(held, st)
                     and any(q in st.qualifiers for q in natural)]
            if stmts:
                shapes.append(([], p, stmts, natural))
        return shapes

    def _salience(self, e: EntityFacts, property_id: str) -> tuple[int, bool]:
        """How early a person asks the fact, and whether it may open (``salience``)."""
        key = (e.id, property_id)
        found = self._salient.get(key)
        if found is None:
            type_label = self._type_label(e)
            stmts = e.properties[property_id]
            value = stmts[0].value if stmts else None
            if value is None:
                kind = "thing"
            elif value.kind == "item":
                kind = "person" if self.view.is_person(value, property_id) else "thing"
            else:
                kind = {"time": "time", "quantity": "quantity"}.get(value.kind, "thing")
            label = self.view.run.property_labels.get(property_id)
            found = self._salient[key] = (
                salience.salience(property_id, None, type_label, kind, property_label=label,
                                  human=e.human),
                salience.good_opener(property_id, None, type_label, kind,
                                     property_label=label, human=e.human))
            if property_id in CHARACTER_WORKS and not e.human and self.view.someone(e):
                found = self._salient[key] = (CHARACTER_WORKS_SALIENCE, True)
        return found

    def _stock_profile_only(self, e: EntityFacts, type_id: str, turns: list[Turn]) -> bool:
        """Whether every turn asks the subject's stock profile: a person's ``PROFILE``, or
        the ``PLACE_PROFILE`` of a country, a town or a region (``PLACE_KINDS``) or of a
        thing of a type the KG holds no label of that has inhabitants (the districts of
        Warsaw); never for anything else."""
        if e.human:
            profile = PROFILE
        else:
            label = self.view.type_labels.get(type_id)
            place = "P1082" in e.properties if label is None else \
                salience.broad_kind(label, False) in PLACE_KINDS
            if not place:
                return False
            profile = PLACE_PROFILE
        return all(t.subject.id == e.id and t.planned.property_id in profile for t in turns)

    def _type_label(self, e: EntityFacts) -> str | None:
        return self.view.type_labels.get(self.view.best_type(e)[0])

    def _trivia(self, e: EntityFacts, property_id: str) -> bool:
        """A fact not worth a turn unless the conversation is short of facts (``TRIVIA``)."""
        if property_id in TRIVIA_PROPERTIES or (e.human and property_id in TRIVIA_FOR_PEOPLE):
            return True
        if e.human and property_id in MILITARY_FACTS and not self._military(e):
            return True
        if e.human and property_id == NATIVE_LANGUAGE and self._language_of_the_country(e):
            return True
        if e.human and property_id == VOICE_TYPE and not sings(e):
            return True
        if property_id in TRIVIA_FOR_PLACES and not e.human and \
                salience.broad_kind(self._type_label(e), False) in AWARDS_ARE_TRIVIA:
            return True
        if not e.human and e.sitelinks >= FAMOUS and property_id in KNOWN_OF_THE_FAMOUS:
            return True  # "In what country is New York City?" "On what continent is China?"
        if property_id in LIFE_DATES and all(
                (st.value.precision or 0) < 9 for st in e.properties[property_id]):
            return True  # "When was he born?" "The 20th century."
        if property_id == "P1303" and any(st.value.value_id == VOICE_INSTRUMENT
                                          for st in e.properties[property_id]):
            return True
        if property_id == COUNTRY and self._placed_in_town(e):
            return True
        if property_id in NUMBERED_NEIGHBOURS and obvious_from_name(
                e, answer_statements(e, e.properties[property_id])[0], property_id):
            return True  # "What preceded the 2004 Summer Olympics?" only to fill turns
        if property_id in HONORIFICS or (e.human and property_id == INSTRUMENT and
                                         occupation_labels(e) and not sings(e)):
            return True
        if property_id in BESIDE_A_FOUNDING and self._askable(e, INCEPTION):
            return True
        if property_id == FIELD_OF_WORK and e.human and self._restates_occupation(e):
            return True
        if property_id == WORK_LOCATION and e.human and \
                len(e.properties[property_id]) == 1 and any(
                POLITICIAN.search(job) for job in occupation_labels(e)):
            return True  # "Where did he work?" "London." of a 19th-century MP: the seat of
            # a parliament, "a vague question" (a held-out set's reader, 0.8.18); several
            # places say more (Putin's "Moscow, Saint Petersburg, Dresden": three raters
            # preferred it to his nationality, s27)
        if property_id == POSITION_HELD and e.human and occupation_labels(e) and all(
                ACADEMIC_TITLE.fullmatch(st.value.label or "")
                for st in e.properties[property_id]):
            return True  # "What was Max Born's job?" "Physicist, ..., university teacher."
            # "What positions did he hold?" "Professor." (r59's reader: it "repeats Q1"); an
            # office has a name of its own ("Prime Minister of Estonia")
        if property_id == CITIZENSHIP and e.human and (self._country_said(e) or
                                                       self._born_in_the_country(e)):
            return True
        if property_id == PERIOD and e.human and any(
                self._askable(e, p) and all((st.value.precision or 0) >= 9
                                            for st in e.properties[p]) for p in LIFE_DATES):
            return True  # "When was Plato born?" "427 BCE." "What period was he from?"
            # "Ancient Greece." is "almost redundant" (r61's reader)
        if property_id in CIVIL_LIFE and not e.human and self.view.someone(e):
            return True
        return self._salience(e, property_id)[0] <= TRIVIA

    def _offices_apart(self, e: EntityFacts) -> bool:
        """Whether the KG names an office of the head of state or of the head of government
        that the other is not (the monarch of the United Kingdom), rather than one office
        for both (the President of Brazil) or none: ``KGView.offices``."""
        return bool(self.view.offices.get(e.id))

    def _country_said(self, e: EntityFacts) -> bool:
        """Whether every country the person is a citizen of begins a word of the name of an
        office they held or a party they belong to ("Estonia" in "Prime Minister of
        Estonia", in "Estonian Reform Party"), or is the country of such a party or office
        where the KG holds it (the Conservative Party's United Kingdom):
        ``SAYS_THE_COUNTRY``, of offices and parties the plan may ask. A word's start, not
        the whole word: demonyms end in many ways (Japanese, Brazilian, Iranian), at the
        cost of a name that begins another's (Niger in "Nigerian", Dominica in
        "Dominican"), which only leaves the citizenship to fill turns."""
        citizenship = e.properties.get(CITIZENSHIP, ())
        held = [st.value for p in SAYS_THE_COUNTRY if self._askable(e, p)
                for st in e.properties.get(p, ())]
        named = " ".join(v.label or "" for v in held)
        theirs = {st.value.value_id for v in held if v.value_id
                  for other in [self.view.entity(v.value_id)] if other is not None
                  for p in ORGANISATION_COUNTRY for st in other.properties.get(p, ())}

        def said(value) -> bool:
            label = value.label or ""
            return value.value_id in theirs or (
                len(label) >= 4 and re.search(rf"(?<!\w){re.escape(label)}", named) is not None)
        return bool(citizenship) and all(said(st.value) for st in citizenship)

    def _born_in_the_country(self, e: EntityFacts) -> bool:
        """Whether every country the person is a citizen of is the country of their
        birthplace, which the plan may ask: "Where was he born?" "Amsterdam." "Which
        country is he a citizen of?" "The Netherlands." "adds little" (two explaining
        readers, r60 and r61). By id, or by a name the other's holds beside words of a form
        of state (``FORM_OF_STATE``: "Netherlands" in "Kingdom of the Netherlands"): the
        birthplace itself, or its country as the KG holds it."""
        citizenship = e.properties.get(CITIZENSHIP, ())
        if not citizenship or not self._askable(e, BIRTHPLACE):
            return False
        places = [st.value for st in e.properties.get(BIRTHPLACE, ()) if st.value.value_id]
        countries = places + [  # (Plato's "Classical Athens" is both)
            st.value for place in places for other in [self.view.entity(place.value_id)]
            if other is not None
            for st in answer_statements(other, other.properties.get(COUNTRY, ()))[0]]

        def same(a: Value, b: Value) -> bool:
            if a.value_id and a.value_id == b.value_id:
                return True
            x, y = sorted(((a.label or "").lower().split(), (b.label or "").lower().split()),
                          key=len)
            return bool(x) and any(  # the longer, the shorter with words of a form of state
                y[i:i + len(x)] == x and set(y[:i] + y[i + len(x):]) <= FORM_OF_STATE
                for i in range(len(y) - len(x) + 1))
        return bool(countries) and all(any(same(st.value, c) for c in countries)
                                       for st in citizenship)

    def _restates_occupation(self, e: EntityFacts) -> bool:
        """Whether every field of work of the person is a word of an occupation's stem
        (physics of a physicist, "theoretical physics" of a theoretical physicist): the
        field says nothing the occupation did not (``FIELD_OF_WORK``)."""
        jobs = [st.value.label.lower() for st in e.properties.get(OCCUPATION, ())
                if st.value.label]
        fields = [st.value.label.lower() for st in e.properties.get(FIELD_OF_WORK, ())
                  if st.value.label]

        def restated(field: str) -> bool:
            if len(field) < 5:
                return False  # "law", "art": a lawn bowler, a martial artist
            stem = field[:max(6, len(field) - 2)]  # "physics" -> "physic", "music" whole
            for job in jobs:  # the stem at a word's start, then at most an agent's ending
                at = job.find(stem)
                if (at == 0 or (at > 0 and job[at - 1] == " ")) and \
                        len(job[at + len(stem):].split(" ")[0]) <= 4:
                    return True  # physic-ist, mathemati-cian, chemist, music-ian
            return False
        return bool(jobs) and bool(fields) and all(map(restated, fields))

    def _language_of_the_country(self, e: EntityFacts) -> bool:
        """Whether every native language of the person is an official language (P37) of a
        country they are a citizen of, or a variety of one named after it ("American
        English" of English; never a sign language, nor an Old, Middle, Ancient or Classical
        one): "What language did Paris Jackson grow up speaking?" "English." of an American
        says what her country did (a blind rater's least relevant conversations, r51).
        Reads the countries (the view loads them)."""
        spoken = [st.value for st in e.properties.get(NATIVE_LANGUAGE, ())]
        countries = [st.value.value_id for st in e.properties.get(CITIZENSHIP, ())
                     if st.value.value_id]
        if not spoken or not countries:
            return False
        official_ids, official_names = set(), set()
        for country_id in countries:
            country = self.view.entity(country_id)
            if country is not None:
                for st in country.properties.get(OFFICIAL_LANGUAGE, ()):
                    official_ids.add(st.value.value_id)
                    official_names.add((st.value.label or "").lower())
        official_ids.discard(None)
        official_names.discard("")

        def of_the_country(language: Value) -> bool:
            if language.value_id in official_ids:
                return True
            name = (language.label or "").lower()
            return bool(name) and not NOT_A_VARIETY.search(name) and any(
                re.search(rf"(?<!\w){re.escape(o)}$", name) for o in official_names)
        return bool(official_ids or official_names) and all(map(of_the_country, spoken))

    @staticmethod
    def _dated(e: EntityFacts, pt: PlannedTurn) -> bool:
        """Whether the planned turn asks a statement's date ("Since when?", "When was the
        wedding?", "When was she awarded the National Medal of Arts?"). A birth or a
        founding is a fact of its own, asked as such."""
        return pt.qualifier_id is not None and Planner._answer_kind(e, pt) == "date"

    @staticmethod
    def _since_when(pt: PlannedTurn) -> bool:
        """Whether the planned turn asks when a leader's, a capital's or a currency's
        statement began ("Since when?", ``SINCE_WHEN``)."""
        return pt.qualifier_id == START and pt.property_id in SINCE_WHEN

    @staticmethod
    def _military(e: EntityFacts) -> bool:
        """Whether the KG gives the person a military career: a branch (P241) or a rank
        (P410) held, or an occupation whose label ``MILITARY`` names."""
        if e.properties.get("P241") or e.properties.get("P410"):
            return True
        return any(MILITARY.search(st.value.label or "") for st in e.properties.get("P106", ())
                   if st.value is not None)

    @staticmethod
    def _vague_modern_life_date(e: EntityFacts, property_id: str) -> bool:
        """A birth or death of modern times (1800 on) known only to the decade or century:
        "The 20th century." says nothing of a researcher; of a thirteenth-century knight it
        is what anyone knows, and is asked (to fill turns: ``_trivia``)."""
        if property_id not in LIFE_DATES:
            return False
        for st in e.properties[property_id]:
            start = first_year(st.value.label or "") if st.value.kind == "time" else None
            if (st.value.precision or 0) >= 9 or start is None or start < MODERN_YEAR:
                return False
        return True

    def _keeps_country(self, e: EntityFacts) -> bool:
        """Whether the subject is asked its country even with its town (``KEEP_COUNTRY``): a
        place, a natural feature, an event, a person; a thing of no known kind only if it has
        inhabitants, an area or an elevation (``PLACE_MEASURES``: Greenwich, typed as
        nothing a labels file names), not a college whose type has no English label."""
        kind = salience.broad_kind(self._type_label(e), False)
        if kind == "other":
            return any(p in e.properties for p in PLACE_MEASURES)
        return kind in KEEP_COUNTRY

    def _a_town(self, e: EntityFacts, property_id: str) -> bool:
        """Whether every answer of the fact is a settlement by the KG's types, or an item a
        partial dump holds no type of (the Oxford of twenty colleges: "In what country is it
        located?" "The United Kingdom." "Where is the college based?" "Oxford." read to a
        blind reader as two questions asking one thing, r58)."""
        values = [s.value for s in answer_statements(e, e.properties[property_id])[0]]
        return bool(values) and all("settlement" in self.view.kinds_of(v) or
                                    self.view.typeless(v) for v in values)

    def _placed_in_town(self, e: EntityFacts) -> bool:
        """Whether a thing that keeps no country (``_keeps_country``) has a town to be asked
        (askable, and not one its name says): then its country is trivia, asked only to
        fill turns, and the plan is made without it."""
        return not e.human and not self._keeps_country(e) and any(
            self._askable(e, p) and self._a_town(e, p) and not obvious_from_name(
                e, answer_statements(e, e.properties[p])[0], p) for p in TOWN_LEVEL)

    def _askable(self, e: EntityFacts, property_id: str) -> bool:
        """Whether the plan may ask the fact at all (a template for the subject's best type,
        every answer sayable, not too many values: ``facts.askable``): a rule that leaves a
        question to another fact needs that fact asked."""
        return (property_id, None) in self.view.best_type(e)[1]

    def _answer_key(self, e: EntityFacts, pt: PlannedTurn) -> frozenset | None:
        """What a planned turn is answered with, as said: two facts with the same answer
        ("located in" and "headquarters" both Oxford) make one question, not two."""
        values = self._answer_values(e, pt)
        if pt.qualifier_id is None and pt.property_id in FOUNDING_DATES and \
                all(v.kind == "time" for v in values):  # founded 2007, opened 27 December
            return frozenset(("founded", (v.label or "")[:4]) for v in values) or None  # 2007
        if pt.qualifier_id is None and pt.property_id in ENDING_DATES and \
                all(v.kind == "time" for v in values):
            return frozenset(("ended", (v.label or "")[:4]) for v in values) or None
        return frozenset(render(v) for v in values) or None

    def plan(self, e: EntityFacts, facts: list[Fact], turns: int, rng: random.Random,
             cached: bool = True, avoid: frozenset = frozenset(),
             least: int | None = None) -> list[PlannedTurn]:
        """The facts a conversation asks about ``e``, in the order a person asks them.

        Blocks are chosen most salient first (``salience``; a seeded jitter of a few points
        varies conversations among facts of a tier), facts ``avoid`` names (asked in an
        earlier pass) after the others, trivia (salience <= ``TRIVIA``) only when nothing
        else is left, and never a block whose answer an earlier block gives. The first
        block is the most salient good opener (what the entity is known for; for a person
        with a sport and a position played in it, the sport: ``_sport_first``); a person's
        other blocks follow the order of a life (``LIFE_STAGE``), except that after an
        opener about their work the other facts of their work come first: the next
        question follows from the answer ("What does she do?" "Singer." "What kind of
        music does she make?") rather than turning to her birth."""
        blocks, spare = [], []
        for block in self.blocks(e, facts, rng, cached):
            kept, rest = self._natural(block)
            blocks.append(kept)
            spare += rest
        death = next((self._answer_key(e, t) for b in blocks for t in b
                      if t.property_id == "P570" and t.qualifier_id is None), None)
        if death is not None:  # a career that ended when he died: his death is asked
            blocks = [b for b in ([t for t in b if t.qualifier_id is not None or
                                   t.property_id != "P2032" or
                                   self._answer_key(e, t) != death] for b in blocks) if b]
        scored = []
        narrower = {b[0].property_id for b in blocks} & SAYS_CONTINENT
        for n, block in enumerate(blocks):
            if self._vague_modern_life_date(e, block[0].property_id):
                continue  # "When was Riboni born?" "20th century." not even to fill turns
            if block[0].qualifier_id is not None and block[0].property_id in OFFICE_ROLES:
                continue  # "When did Lothar de Maizière take over its government?" names
                # someone no question named: it "assumes the asker already knows him"
                # (r60's reader); the holders are asked where one answer names them
            if self._trivia(e, block[0].property_id) or \
                    (block[0].property_id == CONTINENT and narrower):
                spare += block  # asked only to reach min_turns (a continent: the country,
                continue        # the region or the capital asked says it)
            score, opener = self._salience(e, block[0].property_id)
            opener = opener and block[0].qualifier_id is None  # not "When did he marry X?"
            seen = any((t.property_id, t.qualifier_id) in avoid for t in block)
            scored.append((seen, score <= TRIVIA, -(score + rng.random() * 8), n, opener,
                           block))
        scored.sort(key=lambda x: x[:4])
        good = [x for x in scored if x[4]]
        openers = [x for x in good if not x[0]] or good or \
            [x for x in scored if x[5][0].qualifier_id is None]  # a plain fact, if any
        if e.human and good and openers and not openers[0][0] and \
                openers[0][5][0].property_id in FORM_OPENERS:
            best = min(good, key=lambda x: x[2:4])
            if best[0] and best[2] <= openers[0][2] - OPENER_MARGIN:
                openers = [best]  # "What was Steve Clark's job?" again, not his nationality
        if openers:  # the best opener first, whatever else is chosen
            scored.remove(openers[0])
            scored.insert(0, openers[0])
        chosen: list[list[PlannedTurn]] = []
        size = 0
        said: set = set()
        fits: list[list[PlannedTurn]] = []
        said_in: dict[str, set] = {}  # SAME_QUESTION group -> the values said
        for *_, block in scored:
            keys = [self._answer_key(e, t) for t in block]
            if any(k in said for k in keys if k):
                continue  # one question per answer
            groups = {SAME_QUESTION[t.property_id]: k for t, k in zip(block, keys)
                      if k and t.qualifier_id is None and t.property_id in SAME_QUESTION}
            if any(k & said_in.get(g, set()) for g, k in groups.items()):
                continue  # the same question in other words, answered in part already
            for g, k in groups.items():
                said_in.setdefault(g, set()).update(k)
            said.update(k for k in keys if k)
            fits.append(block)
        fits = self._places_once(e, fits)
        aspects: Counter = Counter()  # at most ASPECT_MAX facts about one side of it
        over: list[list[PlannedTurn]] = []
        dated = 0  # questions answered by a date, at most DATES_MAX
        started = 0  # ... of which at most STARTS_MAX ask when a statement began
        for i, block in enumerate(fits):
            dates = [self._dated(e, t) for t in block]
            allowed = DATES_MAX - dated  # the block's first dates, up to the allowance
            keep = [not d or sum(dates[:k + 1]) <= allowed for k, d in enumerate(dates)]
            begun = [self._since_when(t) for t in block]  # ... and one "Since when?"
            keep = [k and (not b or started + sum(begun[:j + 1]) <= STARTS_MAX)
                    for j, (k, b) in enumerate(zip(keep, begun))]
            if not keep[0]:
                over.append(block)  # a date its first question, none allowed
                continue
            if not all(keep):
                if all(d for d, k in zip(dates, keep) if k) and \
                        self._salience(e, block[0].property_id)[0] < DATED_ALONE:
                    over.append(block)  # "When did he begin studying at Heidelberg?" alone
                    continue            # ranks with no fact of its own
                block = fits[i] = [t for t, k in zip(block, keep) if k]  # no other dates
                dates = [d for d, k in zip(dates, keep) if k]
            if size + len(block) <= turns:
                block_aspects = Counter(ASPECT_OF[t.property_id] for t in block
                                        if t.qualifier_id is None and t.property_id in ASPECT_OF)
                if any(aspects[a] + n > ASPECT_MAX for a, n in block_aspects.items()):
                    over.append(block)  # "When did he die?" "Where?" "Of what?": a third
                    continue            # question about his death only to fill the turns
                aspects.update(block_aspects)
                chosen.append(block)
                size += len(block)
                dated += sum(dates)
                started += sum(map(self._since_when, block))
            if size == turns:
                break
        if size < turns:
            for block in fits:  # fill the rest with the head of a block that did not fit
                if block not in chosen and block not in over:
                    part = block[:turns - size]
                    chosen.append(part)
                    size += len(part)
                if size == turns:
                    break
        for block in over:  # an aspect asked a third time rather than fewer turns
            if size >= turns:
                break
            part = block[:turns - size]
            chosen.append(part)
            size += len(part)
        least = min(self.cfg.min_turns, turns) if least is None else least
        for t in spare:  # an entity with few facts: a data date rather than no conversation
            if size >= least:
                break
            if t.qualifier_id is None:  # a trivia block's fact
                if t.property_id == CONTINENT and any(
                        b[0].property_id in SAYS_CONTINENT for b in chosen):
                    continue  # "Which continent is it on?" "Europe." "Which country?"
                    # "France." reads as a quiz of the obvious even to fill the turns
                key = self._answer_key(e, t)
                if key not in said:
                    chosen.append([t])
                    said.add(key)
                    size += 1
                continue
            for block in chosen:
                if block[0].property_id == t.property_id and block[0].qualifier_id is None \
                        and self._answer_key(e, t) not in said:
                    block.append(t)
                    said.add(self._answer_key(e, t))
                    size += 1
                    break
        located = [i for i, b in enumerate(chosen) if b[0].property_id in LOCATION_LEVEL]
        if len(located) > 1:  # where it is, from the broad to the narrow: the country, then
            ordered = sorted((chosen[i] for i in located),  # the region ("Where in France?"),
                             key=lambda b: LOCATION_LEVEL[b[0].property_id])  # never the
            # country after the town it is in (a trivia country, asked to reach min_turns,
            # included); and one after the other where the first of them was asked: "In
            # what country is Le Tabor?" "France." "Which part of France is it in?", never
            # its elevation between and then "Where is Le Tabor located?"
            rest = [b for i, b in enumerate(chosen) if i not in located]
            chosen = rest[:located[0]] + ordered + rest[located[0]:]
        if e.human and len(chosen) > 2:
            # after what they are known for, what follows from it ("What does he do?"
            # "Footballer." "What position does he play?"), then the rest of a life in order
            # (trivia, asked only to reach min_turns, last)
            work_first = chosen[0][0].property_id not in LIFE_STAGE
            chosen[1:] = sorted(chosen[1:], key=lambda b: (
                self._trivia(e, b[0].property_id),
                not (work_first and b[0].property_id not in LIFE_STAGE),
                LIFE_STAGE.get(b[0].property_id, WORK_STAGE),
                b[0].property_id != OCCUPATION))  # what they do before when they began it
        if e.human:
            chosen = self._sport_first(chosen)
        chosen = self._narrower_first(e, chosen)
        if not e.human:
            chosen = self._sport_first(chosen, LEAGUE)
            chosen = self._what_followed_last(chosen)
            chosen = self._kinds_apart(e, chosen)
        return [t for block in chosen for t in block]

    @staticmethod
    def _answer_values(e: EntityFacts, pt: PlannedTurn) -> tuple[Value, ...]:
        """The values that answer a planned turn: its statement's qualifier values, or the
        values of the statements that answer the fact (``answer_statements``)."""
        stmts = e.properties[pt.property_id]
        if pt.qualifier_id is None:
            return tuple(s.value for s in answer_statements(e, stmts)[0])
        if pt.statement_index >= len(stmts):
            return ()
        return tuple(stmts[pt.statement_index].qualifiers.get(pt.qualifier_id, ()))

    @staticmethod
    def _answer_kind(e: EntityFacts, pt: PlannedTurn) -> str | None:
        """"date" or "amount" where every value answering the planned turn is one, else
        None (an item, a text, a mix, none)."""
        found = {v.kind for v in Planner._answer_values(e, pt)}
        return {"time": "date", "quantity": "amount"}.get(found.pop()) \
            if len(found) == 1 else None

    def _kinds_apart(self, e: EntityFacts,
                     chosen: list[list[PlannedTurn]]) -> list[list[PlannedTurn]]:
        """No two amounts and no two dates of different facts one after the other where
        another order can keep them apart: "How large is the country?" "How big is its
        economy?" asks "two size measurements in a row", and three "When" questions in a
        row are "formulaic" (r61's reader). The blocks are interleaved anew, keeping the
        opener first and where a thing is at the turn it was, asked in one run
        (``LOCATION_LEVEL``); the order among the dates, among the amounts and among the
        other blocks, and a narrower answer before a wider one of any kind
        (``_narrower_first``); and what followed a thing after its dates
        (``_what_followed_last``). Of the orders with the fewest such pairs, the one that
        moves blocks least. A founding and an ending side by side are one run, the founding
        first (never moving an ending that opened: the opener was chosen as one), and
        amounts asked together stay side by side and may come together (``AMOUNTS_TOGETHER``:
        "How tall is the painting?" "How wide?"; "How many people live there?" "How big is
        it?")."""
        def plain_in(block: list[PlannedTurn], group: frozenset) -> bool:
            return block[0].qualifier_id is None and block[0].property_id in group

        def together(a: list[PlannedTurn], b: list[PlannedTurn]) -> bool:
            return a[0].qualifier_id is None and b[0].qualifier_id is None and len(a) == 1 \
                and any({a[0].property_id, b[0].property_id} <= g for g in AMOUNTS_TOGETHER)

        units: list[list[list[PlannedTurn]]] = []
        for block in chosen:
            last = units[-1] if units else None
            if last and plain_in(block, LOCATED) and plain_in(last[-1], LOCATED):
                last.append(block)  # where it is: one run
            elif last and len(last) == 1 and plain_in(block, FOUNDING_DATES) and \
                    plain_in(last[0], ENDING_DATES):
                last.insert(len(units) == 1, block)  # its founding, then its end (an
                # ending that opened stays the opener)
            elif last and len(last) == 1 and ((
                    plain_in(block, ENDING_DATES) and plain_in(last[0], FOUNDING_DATES))
                    or together(last[0], block)):
                last.append(block)
            else:
                units.append([block])
        merged = [block for u in units for block in u]
        if len(units) < 3 or len(units) > KINDS_APART_MAX_UNITS:
            return merged
        head = [self._answer_kind(e, u[0][0]) for u in units]
        tail = [self._answer_kind(e, u[-1][-1]) for u in units]

        def clashes(order: Sequence[int]) -> int:
            return sum(tail[a] is not None and tail[a] == head[b] and
                       not together(units[a][-1], units[b][0])
                       for a, b in zip(order, order[1:]))

        if not clashes(range(len(units))):
            return merged
        offset = [0]  # the turn-block each unit starts at, as planned
        for u in units:
            offset.append(offset[-1] + len(u))
        located = {i for i, u in enumerate(units) if plain_in(u[0], LOCATED)}
        dates = {i for i, u in enumerate(units)
                 if any(plain_in(b, FOUNDING_DATES | ENDING_DATES) for b in u)}
        after = {i for i, u in enumerate(units) if i and plain_in(u[0], AFTER_ITS_END)}
        keys = [{k for b in u for t in b if t.qualifier_id is None
                 for k in (self._answer_key(e, t),) if k} for u in units]
        narrower = {(i, j) for i in range(len(units)) for j in range(i + 1, len(units))
                    if any(k < w for k in keys[i] for w in keys[j])}
        queues = [[i for i in range(1, len(units)) if head[i] == k]
                  for k in ("date", "amount", None)]
        best: tuple | None = None

        def fits(order: list[int]) -> bool:
            at, where = {}, 0
            for i in order:
                at[i] = where
                where += len(units[i])
            return all(at[i] == offset[i] for i in located) and \
                not any(at[a] < at[d] for a in after for d in dates) and \
                all(at[i] < at[j] for i, j in narrower)

        def interleave(order: list[int], at: list[int]) -> None:
            nonlocal best
            if len(order) == len(units):
                if fits(order):
                    score = (clashes(order), sum(abs(n - i) for n, i in enumerate(order)))
                    if best is None or score < best[0]:
                        best = (score, list(order))
                return
            for q, queue in enumerate(queues):
                if at[q] < len(queue):
                    order.append(queue[at[q]])
                    at[q] += 1
                    interleave(order, at)
                    at[q] -= 1
                    order.pop()

        interleave([0], [0, 0, 0])
        if best is None or best[0][0] >= clashes(range(len(units))):
            return merged
        return [block for i in best[1] for block in units[i]]

    @staticmethod
    def _what_followed_last(chosen: list[list[PlannedTurn]]) -> list[list[PlannedTurn]]:
        """What followed a thing (``AFTER_ITS_END``) is asked after when it began and ended:
        "What followed it?" "Germany." "When did East Germany come into being?" comes
        "oddly before asking when the state began" (r61's reader). The opener stays first."""
        dated = [i for i, b in enumerate(chosen) if b[0].qualifier_id is None and
                 b[0].property_id in FOUNDING_DATES | ENDING_DATES]
        if not dated:
            return chosen
        end = dated[-1]
        moving = [i for i in range(1, end) if chosen[i][0].qualifier_id is None and
                  chosen[i][0].property_id in AFTER_ITS_END]
        if not moving:
            return chosen
        rest = [b for i, b in enumerate(chosen) if i not in moving]
        at = end - len(moving) + 1  # right after the last date (every move was before it)
        return rest[:at] + [chosen[i] for i in moving] + rest[at:]

    def _places_once(self, e: EntityFacts,
                     fits: list[list[PlannedTurn]]) -> list[list[PlannedTurn]]:
        """``fits`` without a residence or a place of work half of whose places another
        answer about the person's places names (``PLACES_LIVED``): "Where did he live?"
        "Amsterdam, Los Angeles, New York City." after his birth in Amsterdam says more
        (two head-to-head raters preferred it to his nationality, s26)."""
        def places(t: PlannedTurn) -> frozenset:
            return (self._answer_key(e, t) or frozenset()) if t.qualifier_id is None \
                else frozenset()
        said = set().union(*(places(t) for b in fits for t in b
                             if t.property_id in LIFE_PLACES))
        kept = []
        for block in fits:
            head = block[0]
            if head.qualifier_id is None and head.property_id in PLACES_LIVED:
                key = places(head)
                if key and 2 * len(key & said) >= len(key):
                    continue
                said |= key
            kept.append(block)
        return kept

    def _narrower_first(self, e: EntityFacts,
                        chosen: list[list[PlannedTurn]]) -> list[list[PlannedTurn]]:
        """A block with an answer inside an earlier block's answer goes before it: "Where
        was he born?" "Bonn." then "Where did he work?" "Bonn, Vienna.", never the other way
        round (an answer the conversation already gave). A head-to-head preferred this to
        leaving either out for a lesser fact (0.8.14: "How tall was he?" in its place). The
        opener stays first, where a thing is stays in its order from the broad to the
        narrow, and a position played stays after its sport (``_sport_first``)."""
        keys = [[k for t in block if t.qualifier_id is None
                 for k in (self._answer_key(e, t),) if k] for block in chosen]
        fixed = [block[0].property_id in LOCATION_LEVEL for block in chosen]
        for _ in range(len(chosen)):
            moved = False
            for i in range(2, len(chosen)):
                if fixed[i]:
                    continue
                wider = next((j for j in range(1, i) if not fixed[j] and any(
                    k < w for k in keys[i] for w in keys[j])), None)
                if wider is None or (chosen[i][0].property_id == POSITION and any(
                        b[0].property_id == SPORT for b in chosen[wider:i])):
                    continue
                for column in (chosen, keys, fixed):
                    column.insert(wider, column.pop(i))
                moved = True
                break
            if not moved:
                break
        return chosen

    @staticmethod
    def _sport_first(chosen: list[list[PlannedTurn]],
                     within: str = POSITION) -> list[list[PlannedTurn]]:
        """The sport before what is played within it (a person's position; a club's league,
        ``LEAGUE``), even as the opener: "Which sport is Clarkson involved in?" after "Which
        position does he play?" "Quarterback." asks what the answer said (a rater's
        example), as "Which sport is it a club for?" does after "In which league does ACF
        Fiorentina compete?" "Serie A." (a critic of 0.8.24); "What sport does he play?"
        "American football." "Which position?" follows on."""
        at = {b[0].property_id: i for i, b in reversed(list(enumerate(chosen)))}
        if SPORT in at and within in at and at[within] < at[SPORT]:
            sport = chosen.pop(at[SPORT])
            chosen.insert(at[within], sport)
        return chosen

    # -- the conversation as it goes
    def walk(self, plan: list[Step], rng_hops: random.Random | None,
             rng_style: random.Random, topics: set[str]) -> list[Turn]:
        """Realise the planned turns in order; with hops (or kinds) the conversation may move
        and refill its plan as it goes."""
        cfg = self.cfg
        if not cfg.hops and not cfg.kinds:
            if cfg.follow_ups and self.view.refreshes is None:
                return self._walk_following(plan, rng_hops, rng_style, topics)
            return self._walk_plan(plan, rng_style)  # the plan as it is: no fact recurs in it
        queue = deque(plan)
        turns: list[Turn] = []
        previous: Turn | None = None
        asked: set[tuple] = set()
        came_from: dict[str, int | None] = {t: None for t in topics}
        max_topics = cfg.topics + len(topics) - 1  # a related entity is a topic of its own
        while len(turns) < cfg.turns:
            if not queue:
                if not cfg.hops:
                    break
                more = self.refill(turns, topics, came_from, asked, max_topics, rng_hops)
                self._added += more
                queue.extend(more)
                if not queue:
                    break
            ent, tid, pt, hop_from = queue.popleft()
            fact = (ent.id, pt.property_id, pt.qualifier_id)
            if fact in asked:
                continue
            plain = pt
            if cfg.kinds and pt.qualifier_id is None and rng_hops.random() < cfg.kind_share:
                fits = [k for k in cfg.kinds if kinds.pattern(k, pt.property_id, "voice",
                                                              "present")]
                if fits and turns:  # never the opener: "Is Nordhausen in the Soviet
                    # Union?" as a first question (salience.good_opener: a plain fact)
                    pt = replace(pt, kind=fits[int(rng_hops.random() * len(fits))])
            asked.add(fact)  # tried: asked now, or never askable
            turn = self.realise(ent, tid, pt, previous, rng_style, len(turns) + 1, hop_from,
                                later=self._later(ent, turns), earlier=turns)
            if turn is None and pt is not plain:
                # a kind the fact cannot take ("before" with no holder before): the fact
                # as it was planned, never its own date question left alone ("When did
                # Nathalie Appéré take over ...?" without "Who is Rennes' mayor?")
                turn = self.realise(ent, tid, plain, previous, rng_style, len(turns) + 1,
                                    hop_from, later=self._later(ent, turns), earlier=turns)
            if turn is None:
                continue
            if hop_from is not None and set(turn.answer_ids) <= topics:
                continue  # "this city's country?" "the country we came from": nothing new
            if self._said_before(turn, turns) or self._implied(turn, turns):
                continue
            turns.append(turn)
            previous = turn
            left = cfg.turns - len(turns)
            if not cfg.hops or len(topics) >= max_topics or left < 2:
                continue
            if hop_from is not None and any(q[0].id != ent.id for q in queue):
                continue  # a hop comes back to the subject before the next one: never from
                # the town to its country while the college's own facts wait
            # where people move while the plan has facts left (``moves_to``); ``refill``
            # moves anywhere once it has none
            target = self.hop_target(turn, topics, rng_hops, places=False)
            if target is None or rng_hops.random() >= cfg.hop_share:
                continue
            h_entity, h_type, h_facts = target
            back = 1 if any(q[0].id != h_entity.id for q in queue) else 0
            size = min(rng_hops.choice((2, 2, 3)), left - back)
            if size < 2:
                continue
            hop = [(h_entity, h_type, p, turn.number)
                   for p in self.plan(h_entity, h_facts, size, rng_hops)]
            self._added += hop
            queue.extendleft(reversed(hop))
            topics.add(h_entity.id)
            came_from[h_entity.id] = turn.number
        return turns

    def _walk_plan(self, plan: list[Step], rng_style: random.Random) -> list[Turn]:
        turns: list[Turn] = []
        previous: Turn | None = None
        for ent, tid, pt, _ in plan:
            if len(turns) == self.cfg.turns:
                break
            turn = self.realise(ent, tid, pt, previous, rng_style, len(turns) + 1,
                                later=self._later(ent, turns), earlier=turns)
            if turn is not None and not self._said_before(turn, turns) and \
                    not self._implied(turn, turns):
                turns.append(turn)
                previous = turn
        return turns

    def _walk_following(self, plan: list[Step], rng: random.Random,
                        rng_style: random.Random, topics: set[str]) -> list[Turn]:
        """The plan, with the follow-ups people make (``follow_ups``). After an answer (a
        side topic: of up to ``THREAD_VALUES_MAX`` values), once the turns about its
        statement are asked ("Since when?"): who
        held it before ("And who held the office before her?", ``before_turn``), a yes/no
        question about it ("Did he also write the screenplay?", ``also_turn``), or, for a
        person, work or organisation with facts of its own, a question or two about it
        ("When was he born?", ``thread_target``) and then back to the plan. At most one of
        each kind per conversation, each with the chance ``follow_share`` where it fits
        (an "also" with ``also_share``, by default wherever it fits: three head-to-head
        raters found it follows on and varies the questions, s32; never of a fact the plan
        still asks plainly or the conversation has answered); the turns they take are the
        plan's last (least salient). Draws happen only where a follow-up fits, so a
        conversation with none is the plan as it is."""
        cfg = self.cfg
        queue = deque(plan)
        turns: list[Turn] = []
        previous: Turn | None = None
        asked: set[tuple] = set()
        done: set[str] = set()
        while queue and len(turns) < cfg.turns:
            ent, tid, pt, hop_from = queue.popleft()
            fact = (ent.id, pt.property_id, pt.qualifier_id, pt.kind)
            if fact in asked:
                continue
            if pt.kind == "fact" and (ent.id, pt.property_id, None, "verify") in asked and \
                    (ent.id, pt.property_id, None, "fact") not in asked:
                self.drop(f"{ent.id}/{pt.property_id}/{pt.qualifier_id or ''}",
                          "a yes/no question asked about it already", "")
                continue  # "Is he also its head of government?" "No." then "Who is its
                # head of government?" (three head-to-head raters preferred the
                # conversation without it, s26), or its start, naming a holder no question
                # named ("When did Thongloun Sisoulith become its head of government?")
            if "count" not in done and len(turns) >= 1 and hop_from is None and \
                    cfg.turns - len(turns) >= 2 and self.counts_first(ent, pt) and \
                    rng.random() < (cfg.list_share if cfg.follow_share else 0.0):
                # "How many children does she have?" "Two." "What are their names?" (of
                # the subject: a side topic's count and list would make it two turns of a
                # digression, "How many notable works does he have?" "Two.")
                done.add("count")
                queue.appendleft((ent, tid, pt, hop_from))
                queue.appendleft((ent, tid, replace(pt, kind="count"), hop_from))
                continue
            asked.add(fact)
            turn = self.realise(ent, tid, pt, previous, rng_style, len(turns) + 1, hop_from,
                                later=self._later(ent, turns), earlier=turns)
            if turn is None:
                continue
            if hop_from is not None and set(turn.answer_ids) <= topics | {
                    i for t in turns for i in t.answer_ids}:
                continue  # "What is he known for?" "That film."; "the town's country?" "The
                # United Kingdom" (said already)
            if self._said_before(turn, turns) or self._implied(turn, turns):
                continue
            turns.append(turn)
            previous = turn
            if cfg.turns - len(turns) < 1 or hop_from is not None or \
                    turn.planned.kind != "fact":
                continue
            if turn.planned.qualifier_id is not None:  # "When did that end?" "2022."
                if "span" not in done and (not self.localisers or   # "So how long ...?"
                                           "span" in LOCALISED_FOLLOW_UPS):
                    steps = self.span_turn(ent, tid, turn, asked, said=turns)
                    if steps and rng.random() < cfg.follow_share:
                        queue.appendleft(steps[0])
                        done.add("span")
                continue
            # the turns about the same statement come first ("Since when?")
            at = 0
            while at < len(queue) and queue[at][0].id == ent.id and \
                    queue[at][2].property_id == pt.property_id and \
                    queue[at][2].qualifier_id is not None:
                at += 1
            # what the queue holds, read by each kind below (the queue changes only when
            # one is taken, and then the loop ends)
            pending = {(q[0].id, q[2].property_id) for q in queue}
            plain_ahead = self._plain_ahead(queue, cfg.turns - len(turns))
            for kind in ("span", "before", "also", "thread"):
                if kind in done or (self.localisers and kind not in LOCALISED_FOLLOW_UPS):
                    continue
                steps = self.follow_up(kind, ent, tid, turn, asked, topics, rng,
                                       cfg.turns - len(turns) - at, pending, turns,
                                       plain_ahead)
                # an "also" with its own chance, never where follow_share turns them off
                share = cfg.also_share if kind == "also" and cfg.follow_share else \
                    cfg.follow_share
                if kind == "thread" and cfg.follow_share and steps and \
                        turn.planned.property_id in THREAD_VIA:
                    share = 1.0  # a capital's side topic, wherever it fits (s42)
                if steps and rng.random() < share:
                    for i, step in enumerate(steps):
                        queue.insert(at + i, step)
                    if kind == "thread":
                        topics.add(steps[0][0].id)
                    done.add(kind)
                    break
        return turns

    def counts_first(self, e: EntityFacts, pt: PlannedTurn) -> bool:
        """Whether a fact may be asked as a count first, then as the list it counted: a
        plain fact of a property ``kinds.LIST_AFTER_COUNT`` asks, answered with two values
        or more, as many as its count question counts (the list is the count's items)."""
        if pt.kind != "fact" or pt.qualifier_id is not None or \
                pt.property_id not in kinds.LIST_AFTER_COUNT:
            return False
        stmts = e.properties.get(pt.property_id, ())
        chosen, tense = answer_statements(e, stmts)
        values = {s.value.value_id for s in chosen}
        if len(values) < 2 or None in values:
            return False
        every, now = self.view.item_counts.get((e.id, pt.property_id), (0, 0))
        return len(values) == (every if e.gone or not now or tense == "past" else now)

    @staticmethod
    def _plain_ahead(queue, left: int) -> set[tuple[str, str]]:
        """(entity, property) of the plain facts the plan asks in the turns left."""
        return {(q[0].id, q[2].property_id) for q in islice(queue, left)
                if q[2].kind == "fact" and q[2].qualifier_id is None}

    def follow_up(self, kind: str, e: EntityFacts, type_id: str, turn: Turn, asked: set,
                  topics: set[str], rng: random.Random, left: int,
                  pending: set = frozenset(), said: list = (),
                  plain_ahead: set = frozenset()) -> list[Step]:
        """The steps of one kind of follow-up that fits after ``turn`` (none if it does not
        fit or no turn is left for it)."""
        if left < 1:
            return []
        if kind == "before":
            return self.before_turn(e, type_id, turn, asked)
        if kind == "span":
            return self.span_turn(e, type_id, turn, asked, pending, said)
        if kind == "also":
            found = self.also_turn(e, type_id, turn, asked, said, plain_ahead)
            return [found] if found else []
        target = self.thread_target(turn, topics, rng)
        if target is None:
            return []
        t_entity, t_type, t_facts = target
        size = 2 if left >= 3 and rng.random() < 0.5 else 1
        # the side topic's own plan draws from a generator of its own (seeded by one draw):
        # the rest of the conversation never depends on how many facts a side topic it may
        # not take has (a refresh that changes Titanic's facts leaves James Cameron's
        # conversation as it was, unless it turns to Titanic)
        own = random.Random(rng.getrandbits(64))
        return [(t_entity, t_type, p, turn.number) for p in self.plan(
            t_entity, t_facts, size, own)]

    def span_turn(self, e: EntityFacts, type_id: str, turn: Turn, asked: set,
                  pending: set = frozenset(), said: list = ()) -> list[Step]:
        """"How old was he when he died?" after his death, "How many years did it exist?"
        after its end, "So how many years was he in office?" after the end of a term
        (``kinds.SPANS``, ``kinds.TERM_SPANS``): when the subject's own dates give the
        answer (``Realiser.span``), the start is not still to be asked (its founding after
        how long it lasted reads backwards), and ``said``, the conversation's turns so far,
        did not answer both dates ("When did he start working there?" "1921." "And when did
        that end?" "1933." "How many years did he work there?" is sums, not a question: a
        blind rater's "obvious"; after "When was he born?" and "Where did he die?" his age
        at death is still asked)."""
        pt = turn.planned
        given = {(t.subject.id, t.planned.property_id, t.planned.qualifier_id,
                  t.planned.statement_index if t.planned.qualifier_id else None)
                 for t in said if t.planned.kind == "fact"}
        if pt.qualifier_id == "P582":
            if pt.property_id not in kinds.TERM_SPANS or \
                    (e.id, pt.property_id, "P580", pt.statement_index) in given:
                return []
            st = e.properties[pt.property_id][pt.statement_index]
            planned = PlannedTurn(e.id, pt.property_id, "P582", pt.statement_index, "span",
                                  st.value, span="term")
        elif pt.qualifier_id is None:
            name = next((n for n, spec in kinds.SPANS.items() if pt.property_id in spec[2]
                         and (n != "age" or e.human)
                         and (e.id, spec[0][0]) not in pending
                         and not {(e.id, spec[0][0], None, None),
                                  (e.id, spec[1][0], None, None)} <= given), None)
            if name is None:
                return []
            planned = PlannedTurn(e.id, kinds.SPANS[name][1][0], None, 0, "span", span=name)
        else:
            return []
        if (e.id, planned.property_id, planned.qualifier_id, "span") in asked or \
                self.realiser.span(e, planned) is None:
            return []
        return [(e, type_id, planned, None)]

    def before_turn(self, e: EntityFacts, type_id: str, turn: Turn, asked: set) -> list[Step]:
        """"Who held the office before her?": the turn named the one current holder of a
        property ``kinds.BEFORE`` asks, and the subject's statements name who held it right
        before (``Realiser.predecessor``)."""
        pt = turn.planned
        if pt.property_id not in kinds.BEFORE or len(turn.answer.values) != 1 or \
                turn.answer.tense != "present" or (e.id, pt.property_id, None, "before") in asked:
            return []
        value = turn.answer.values[0]
        if not value.value_id:
            return []
        planned = PlannedTurn(e.id, pt.property_id, None, 0, "before", value)
        if self.realiser.predecessor(e, planned) is None:
            return []
        return [(e, type_id, planned, None)]

    def also_turn(self, e: EntityFacts, type_id: str, turn: Turn, asked: set,
                  said: list = (), plain_ahead: set = frozenset()) -> Step | None:
        """An "also" question that fits right after ``turn`` (``kinds.ALSO``): the turn named
        one value, and the subject holds some value of a property curated after the turn's
        (so "no" says the KG knows other values, not that it is silent, nor that it held the
        value at a lower rank: ``below_best``), every one a known
        item (an unknown value could be the one asked of; a value without a label still says
        "no": the answer is yes or no, never its label); a place of death only of a subject
        who died; never of a fact a turn of the conversation (``said``) asked already (its
        answer said yes or no), nor of one the plan asks plainly in the turns left
        (``plain_ahead``: "Who led its government?" "Ivan Silayev." tells more than "Was
        Mikhail Gorbachev also its head of government?" "No.", which leaves the plain
        question out; a film's cast, not "Did he also act in it?": s32). The first that
        fits, in the table's order."""
        pt = turn.planned
        if pt.kind != "fact" or pt.qualifier_id is not None or turn.subject.id != e.id or \
                len(turn.answer.values) != 1 or not turn.answer.values[0].value_id:
            return None
        value = turn.answer.values[0]
        for second in kinds.also_after(pt.property_id):
            stmts = e.properties.get(second)
            if not stmts or (e.id, second, None, "verify") in asked or \
                    (second in kinds.ALSO_NEEDS_DEATH and not e.gone) or \
                    any(s.value.value_id is None for s in stmts):
                continue
            if value.value_id in self.view.below_best.get((e.id, second), ()) and all(
                    s.value.value_id != value.value_id for s in stmts):
                continue  # held at a lower rank: "No." would be false
            if (e.id, second) in plain_ahead or any(
                    t.subject.id == e.id and t.planned.property_id == second and
                    t.planned.kind == "fact" and t.planned.qualifier_id is None
                    for t in said):
                continue  # already answered, with it or without it: "Who is its head of
                # state?" "Khalifa bin Zayed Al Nahyan." ... "Who leads its government?"
                # "Mohammed bin Rashid Al Maktoum." "Is he also its head of state?"
            if (pt.property_id, second) in TWO_OFFICES and self._offices_apart(e):
                continue  # "Who is the monarch?" "Elizabeth II." "Is she also the head of
                # government?": never, where the two offices have names of their own
            return (e, type_id, PlannedTurn(e.id, second, None, 0, "verify", value,
                                            pt.property_id, turn.answer.tense == "past"),
                    None)
        return None

    def thread_target(self, turn: Turn, topics: set[str], rng: random.Random):
        """What a conversation may turn to for a question or two after ``turn``: a value of
        its answer (of at most ``THREAD_VALUES_MAX``), not a topic yet, with facts of its
        own a side topic may ask (``thread_facts``), where people move (``moves_to``: a
        person, a work or an organisation, a city as a capital; not a country, as a hop
        may).
        One drawn when several can be; returned with those facts."""
        pt = turn.planned
        values = turn.hop_values
        if pt.qualifier_id is not None or len(values) > THREAD_VALUES_MAX:
            return None
        found = []
        for value in values:
            if not value.value_id or value.value_id in topics:
                continue
            target = self.view.entity(value.value_id)
            if target is None:
                continue
            t_type, t_facts = self.view.best_type(target)
            if t_type is None or not t_facts or \
                    not all(loc.names(target.id) for loc in self.localisers):
                continue
            kind = self._kind(target, t_type)
            if kind == "country" or not self.moves_to(turn, target.id, t_type):
                continue  # (not "What are its neighbours?" "Laos, ..." "Which city is Laos'
                # capital?": a quiz, all three head-to-head raters' lesser relevance and
                # diversity in each of three pairs, s42; --hops still moves so)
            t_facts = self.thread_facts(target, t_facts, turn, kind == "organisation")
            if t_facts:
                found.append((target, t_type, t_facts))
        if len(found) < 2:
            return found[0] if found else None
        return found[int(rng.random() * len(found))]

    @staticmethod
    def _side_topic(kind: str, property_id: str) -> bool:
        """Whether a conversation may turn to a thing of this broad kind after a question
        about this property: a person, work or organisation (``THREAD_KINDS``), a city only
        as a capital (``THREAD_VIA``)."""
        return kind in THREAD_KINDS or (kind == "city" and property_id in THREAD_VIA)

    @staticmethod
    def thread_facts(target: EntityFacts, facts: list[Fact], turn: Turn,
                     organisation: bool = False) -> list[Fact]:
        """The facts a side topic may ask: not what the question that led to it implies
        (the occupation of the film's director, the offices of a head of government; of
        an organisation, ``organisation``, its country and the town of its offices), nor a
        qualifier follow-up. (One whose answer names the subject stays: "Who directed
        Jurassic Park?" "Steven Spielberg." "And what are his best-known works?" "Jurassic
        Park, Saving Private Ryan." won diversity 3-0 and tied relevance head to head.)"""
        pid = turn.planned.property_id
        implied = IMPLIED_BY_OFFICE if pid in OFFICE_ROLES else \
            IMPLIED_BY_ROLE if pid in ROLE_PROPERTIES else ()
        if organisation:
            implied = {*implied, *NOT_OF_AN_ORGANISATION}
        if pid in THREAD_VIA:  # a capital: never "Which country is Berlin in?" after
            implied = {*implied, COUNTRY, CAPITAL_OF}  # "Which city is Germany's capital?"
        return [(p, q) for p, q in facts if q is None and p not in implied]

    def _implied(self, turn: Turn, turns: list[Turn]) -> bool:
        """A fact every answer of which an earlier answer of the conversation already says
        in its own name ("What sport is he known for?" "Association football", after "What
        does he do?" "Association football player"): left out, with its reason."""
        if turn.planned.kind != "fact" or not turn.answer.values or \
                any(v.value_id is None for v in turn.answer.values):
            return False
        pid = turn.planned.property_id
        said = [t for t in turns if t.subject.id == turn.subject.id and
                t.planned.property_id in IMPLIED_BY.get(pid, ())]
        if pid == "P2094":  # a competition class: its words beyond "men's" are the sport's
            words = {w for t in said for v in t.answer.values
                     for w in (v.label or "").lower().split()} - GENERIC_SPORT_WORDS
            said = [t for t in said if all(
                w in words for v in turn.answer.values
                for w in (v.label or "").lower().split() if w not in GENERIC_SPORT_WORDS)]
        if pid == "P1303":  # every instrument one an occupation said plays
            players = [w for t in said for v in t.answer.values
                       for w in (v.label or "").lower().split()]
            said = [t for t in said if all(any(plays(w, stem) for w in players)
                                           for stem in (instrument_stem(v.label or "")
                                                        for v in turn.answer.values))]
        if said and turn.subject.human:  # "sport cyclist", "Which sport ...?"
            self.drop(f"{turn.subject.id}/{pid}", "an earlier answer of the conversation says it",
                      IMPLIED_BY_NOUN[said[0].planned.property_id])
            return True
        earlier = [f" {(v.label or '').lower()} " for t in turns if t.planned.kind == "fact"
                   for v in t.answer.values if v.value_id and v.value_id not in
                   turn.answer_ids]
        labels = [(v.label or "").lower() for v in turn.answer.values]
        if not earlier or any(len(label) < 4 for label in labels):
            return False
        if all(any(re.search(rf"(?<!\w){re.escape(label)}(?!\w)", said) for said in earlier)
               for label in labels):
            self.drop(f"{turn.subject.id}/{turn.planned.property_id}",
                      "an earlier answer of the conversation says it",
                      ", ".join(v.label or "" for v in turn.answer.values))
            return True
        return False

    def _said_before(self, turn: Turn, turns: list[Turn]) -> bool:
        """One question per answer: a turn about a subject whose answer an earlier turn
        about it gave (the plan avoids most; a refill or a hop's plan may not) is left out,
        with its reason."""
        if turn.planned.kind not in ("fact", "before"):
            return False  # "2" children and "2" spouses, "yes" and "yes": other questions
        said = frozenset(turn.said)
        items = bool(turn.answer_ids) and all(turn.answer_ids)
        for t in turns:  # (of any subject, either way round, an answer of items: "Who was
            # Putin married to?" "Lyudmila Ocheretnaya." on a side topic, then "What is the
            # name of Maria Vorontsova's mother?" "Lyudmila Ocheretnaya."; a sibling born
            # where the subject was: the same answer twice, which flow_defects counts)
            if (t.subject.id == turn.subject.id or items) and frozenset(t.said) == said and \
                    t.planned.kind in ("fact", "before"):
                self.drop(f"{turn.subject.id}/{turn.planned.property_id}/"
                          f"{turn.planned.qualifier_id or ''}",
                          "an earlier turn of the conversation has the same answer",
                          f"turn {t.number}: {t.planned.property_id}")
                return True
        return False

    def _later(self, ent: EntityFacts, turns: list[Turn]) -> bool:
        """Whether a turn may name its subject the short way ("Jackson"): it was named
        before, and no other name said in the conversation shares its family name ("What
        was Jackson's native language?" right after turns about Paris Jackson reads as
        hers: a newcomer's find)."""
        if not any(t.subject.id == ent.id for t in turns):
            return False
        family = self.view.family_names.get(ent.id)
        if not family:
            return True
        word = re.compile(rf"\b{re.escape(family)}\b")
        others = {t.subject.label for t in turns if t.subject.id != ent.id} | {
            v.label for t in turns for v in t.answer.values
            if v.label and v.value_id != ent.id}
        return not any(word.search(name) for name in others)

    def realise(self, e: EntityFacts, type_id: str, pt: PlannedTurn, previous: Turn | None,
                rng: random.Random, number: int, hop_from: int | None = None,
                later: bool = False, earlier: Sequence[Turn] = ()) -> Turn | None:
        """One planned turn through the realiser and the transforms (None: dropped);
        ``later``: an earlier turn named its subject; ``earlier``: the conversation's turns
        so far (a variant opening as two of them did goes after the others)."""
        ctx = transforms.TurnContext(
            self.cfg, self.view, self.realiser, previous, rng,
            Counter(lead_word(t.question) for t in earlier),
            next((p for t in reversed(earlier) for p in transforms.TRANSITIONS
                  if t.question.startswith(p)), None))
        started = self.realiser.start(e, type_id, pt, number, hop_from)
        if later and isinstance(started, Turn):
            started = replace(started, later_mention=True)
        turn = transforms.realise(started, ctx)
        if isinstance(turn, Drop):
            self.view.trace.drops.append(turn)
            return None
        if self.localisers:  # the same turn in every language, or in none
            locales = {}
            for localiser in self.localisers:
                local = localiser.turn(turn, previous, self._conversation[1])
                if isinstance(local, Drop):
                    self.view.trace.drops.append(local)
                    return None
                locales[localiser.code] = local
            turn = replace(turn, locales=locales)
        return turn

    def refill(self, turns: list[Turn], topics: set[str], came_from: dict, asked: set,
               max_topics: int, rng: random.Random) -> list[Step]:
        """The plan ran out: turns about an item answered earlier (the latest first) while
        topics are left, else more about a topic with facts not yet asked."""
        left = self.cfg.turns - len(turns)
        if len(topics) < max_topics:
            for turn in reversed(turns):
                target = self.hop_target(turn, topics, rng, least=1)
                if target is not None:
                    h_entity, h_type, h_facts = target
                    topics.add(h_entity.id)
                    came_from[h_entity.id] = turn.number
                    return [(h_entity, h_type, p, turn.number)
                            for p in self.plan(h_entity, h_facts, min(left, 4), rng)]
        for turn in reversed(turns):
            ent = self.view.entity(turn.subject.id)
            t_type, t_facts = self.view.best_type(ent)
            rest = [f for f in t_facts if (ent.id, *f) not in asked]
            if any((ent.id, pid, None) in asked for pid in SAYS_CONTINENT):
                # "Which country is Omsk in?" said the continent: never asked to fill
                rest = [f for f in rest if f[0] != CONTINENT]
            if ent.id in came_from:  # a topic moved to, even to fill the turns
                rest = self._facts_moved_to(ent, t_type, rest)
            if rest:  # the end of a conversation: a data date rather than nothing
                return [(ent, t_type, p, came_from.get(ent.id))
                        for p in self.plan(ent, rest, left, rng, cached=False, least=left)]
        return []

    def hop_target(self, turn: Turn, topics: set[str], rng: random.Random, least: int = 2,
                   places: bool = True):
        """An item the turn answered that the conversation can move to: in the KG, not yet a
        topic, with templates for at least ``least`` of its facts and, without ``places``,
        of a kind people move to (``moves_to``). One of the values that can be is picked at
        random."""
        items = [v for v in turn.hop_values if v.value_id and v.value_id not in topics]
        if not places:
            items = [v for v in items if self.moves_to(turn, v.value_id)]
        if not items:
            return None
        value = items[int(rng.random() * len(items))]
        target = self.view.entity(value.value_id)
        if target is None:
            return None
        h_type, h_facts = self.view.best_type(target)
        if h_type is None:
            return None
        h_facts = self._facts_moved_to(target, h_type, h_facts)
        return (target, h_type, h_facts) if len(h_facts) >= least else None

    def _facts_moved_to(self, target: EntityFacts, type_id: str | None,
                        facts: list[Fact]) -> list[Fact]:
        """The facts a conversation that moved to ``target`` may ask of it, by any rule,
        even to fill the turns: of an organisation, never its country or the town of its
        offices (``NOT_OF_AN_ORGANISATION``; a side topic's ``thread_facts`` says the same)."""
        if type_id is None or self._kind(target, type_id) != "organisation":
            return facts
        return [f for f in facts if f[0] not in NOT_OF_AN_ORGANISATION]

    def moves_to(self, turn: Turn, item_id: str, type_id: str | None = None) -> bool:
        """Whether a conversation whose subject still has facts planned moves to this item
        after ``turn`` (issue #33: blind raters of ``--hops``, r42-r50): to a person, a
        work, a band, a club, a university, a company or another organisation (a party), as
        a side topic may (``THREAD_KINDS``; never asked an organisation's country or the
        town of its offices, ``NOT_OF_AN_ORGANISATION``), to a capital of a state that
        still exists ("What is its capital?" "Valletta." "How many people live there?";
        never today's Warsaw from the Second Polish Republic), or from a country to another
        ("What borders Malta?" "Italy." "And what is its capital?"); never from a town, a
        thing or a person to the country or the town it is in ("Which country is Rennes
        in?" "France." "And what is the country's capital?"; "Where did he work?" "London."
        "How many people live there?"; "Where is St John's College?" "Oxford." "What is the
        town's population?"). Once the plan has run out (``refill``) any item will do: a
        long conversation moves on."""
        target = self.view.entity(item_id)
        if target is None:
            return False
        kind = self._kind(target, type_id)
        if kind == "country":
            return self._kind(turn.subject) == "country"
        if kind == "city" and turn.subject.gone:
            return False  # "What was the capital of the Second Polish Republic?" "Warsaw."
            # "And how many people live in the city?": today's city, a state gone (r59)
        return self._side_topic(kind, turn.planned.property_id)

    def _kind(self, e: EntityFacts, type_id: str | None = None) -> str:
        """The broad kind of an entity (``salience.broad_kind`` of ``type_id``, by default
        its best type), "person" for a person."""
        if e.human:
            return "person"
        if type_id is None:
            type_id, _ = self.view.best_type(e)
        return salience.broad_kind(self.view.type_labels.get(type_id), False)
