"""English function words: what a question says without saying what it is about. Recall leaves
them out of the keyword query and confidence out of a question's content words, each adding words
of its own."""

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
