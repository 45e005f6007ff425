"""Families: how near documents group, and how a family is shown.

Chain families as ditto makes them and their statistics (``clusters``), star families
(``star``), families that respect an ignore list (``ignore_aware``), every family at one k
held compactly (``listing``), a family's paths and bridges (``paths``), its tree by k
(``tree``) and the notes that say what it is (``notes``).
"""
