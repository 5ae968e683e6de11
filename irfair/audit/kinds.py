"""The kinds of rows an audit has: the user's systems and the two reference runs, each reference run named as its
kind (one declaration, imported wherever a row's kind is asked)."""
PERFECT = "perfect"
RANDOM = "random"
SYSTEM = "system"
KINDS = (PERFECT, RANDOM, SYSTEM)
