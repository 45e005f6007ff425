"""Explain: why two documents are (or are not) near-duplicates.

The features each document weighs (``features``), the explanation of a distance
(``explanation``), its plain-text form (``text``) and the words used, defined
(``glossary``).
"""
