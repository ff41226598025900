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
