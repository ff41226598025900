"""English function words: what a question says without saying what it is about, and every other
list of words brain_core leaves out of something. One base list (``FUNCTION_WORDS``); each use that
needs a different list says here how it differs and why, so a change to one is seen beside the others.
Recall leaves them out of the keyword query and confidence out of a question's content words."""

FUNCTION_WORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves s t don didn doesn isn wasn weren won
ve ll re d m o y also ever
""".split())

# Recall's stop words: the function words and the verbs of asking ("tell me", "do you remember").
STOPWORDS = FUNCTION_WORDS | frozenset("tell know remember say said".split())

# The everyday words a mishearing of a proper noun must not be taken for (glossary matching, spoken questions).
COMMON_WORDS = frozenset(
    """a about above after again against all also always am an and another any are around as at
    away back be because been before being below better between both but by came can come could
    day did do does doing done down during each even every few first for from further get give
    go going good got great had has have having he her here hers him his how i if in into is it
    its just know last let like little look made make many may me might more most much must my
    never new next no nor not now of off often on once one only or other others our out over own
    owned owns people really right said same say says see she should since so some something
    still such take than thank thanks that the their them then there these they thing things
    think this those three through time to today too two under until up us very want was way we
    well were what when where which while who whom why will with without would year yes yet you
    your yours""".split()
)

# The pieces a tokenizer that splits on apostrophes leaves of a contraction ("don't" -> don, t).
CONTRACTION_PIECES = frozenset("s t don didn doesn isn wasn weren won ve ll re d m o y".split())

# What a key made from a sentence leaves out (text/slug.py): articles, conjunctions, pronouns and
# the verb "be". Short on purpose, and frozen: the same sentence must make the same key in every
# version, or a page rebuilt by a newer version would be written beside the old one.
KEY_FILLER = frozenset("a an the and or but of to in on at for with is are was were be been it this that "
                       "we i you they he she our my your their as by from so do does did not no".split())

# What an action item's words are compared without, and its task is written without ("will add the
# queue" -> "will add queue"): only the smallest words, since "not" or "their" change a task.
ACTION_FILLER = frozenset("a an the to of for on in and or with by is be it this that our we".split())

# What the offline answer ignores when it picks a record's best sentences (llm/none.py): recall's
# stop words and the words of asking Aida to keep something ("note", "save", "please", "aida"). Its
# tokenizer keeps contractions whole, and it counts "also", "ever", "against" and the reflexive
# pronouns as content.
ANSWER_STOP = (STOPWORDS | frozenset("aida done mention mentioned note noted please save saved".split())) - (
    CONTRACTION_PIECES | frozenset("against also ever herself himself ourselves theirs themselves yourself "
                                   "yourselves".split()))

# What an abstract weighs sentences without (text/abstract.py): the function words a summary can
# lose, with the modal verbs and "one"/"two"; the pronouns and prepositions that tell a sentence's
# roles (him, them, between, because, ...) count as content there.
SUMMARY_STOP = (FUNCTION_WORDS | frozenset("may might must one two".split())) - (
    CONTRACTION_PIECES | frozenset("above against am because below between both doing down during each ever few "
                                   "further her hers herself him himself his itself me myself nor now off once other "
                                   "ours ourselves out own same theirs them themselves through too until up while whom "
                                   "yours yourself yourselves".split()))

# What a harvested statement's key and content words leave out (harvest/distill.py): the words that
# say how something was stated (decided, always, must, prefer, rule, team), not what it is about, so
# "We decided to always use pnpm" and "Use pnpm" make the same key. Frozen like KEY_FILLER: a
# statement harvested again must make the same key, or it would not supersede the first.
STATEMENT_STOP = frozenset(
    "a an the and or but so to of in on at by for with from as is are was were be been being it its this that "
    "these those we i you he she they our my your their me us them go going went decided decide decision agreed "
    "always never must dont don't do not make sure should would could will shall let lets let's from now forward "
    "then than also just only please prefer rather like want use using used policy rule team every each all any "
    "because since which when where there here into over after before about what who how why".split()
)
