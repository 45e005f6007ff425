"""The words the explorer and the CLI use, explained: a help section to show as it is.

:data:`GLOSSARY` is Markdown (renderable by Textual's ``Markdown`` widget, readable as
plain text). Every figure in it is checked against the code by ``tests/core/test_glossary.py``.
"""

from __future__ import annotations

__all__ = ["GLOSSARY"]

GLOSSARY = """\
## Words used here

**Fingerprint**: 64 bits (16 hex digits) summing up a document (SimHash). The *ditto*
pipeline hashes runs of 4 characters (`--char`) of the text with tags stripped, letters
lowercased and spacing collapsed; the *html* pipeline hashes the page's tag structure,
not its words. Similar documents get fingerprints that differ in few bits.

**Distance**: the number of bits in which two fingerprints differ (0 to 64). Distance 0
means the same fingerprint: the same features, not necessarily the same bytes.

**Similarity %**: 1 − distance/64, as a percentage. Distance 2 is 96.88%; unrelated
documents are about 32 bits apart, 50%.

**k**: the largest distance at which two documents are linked into one family. A larger
k gives bigger, looser families. The index is built for **K**, the largest k offered
(`--max-k`).

**Chain** grouping (ditto's clusters): two documents share a family when a chain of
documents joins them, each step within k. A chain can drift, so its ends may be far
apart.

**Star** grouping: each family has a centre and every member is within k of it, so any
two members are at most 2k apart. Centres are taken greedily, the fingerprint with the
most documents within k first.

**Representative**: the member that stands for its family. Chain: the medoid, the member
with the smallest total distance to all others (ties: the smallest id). Star: the centre.

**Distance to the representative**: in a family's member list, how far each member's
fingerprint is from the representative's (0 for the representative and its copies). In
the neighbours list, the distance is to the document you asked about.

**Diameter**: the largest distance between two members of a family. Star families stay
within 2k; a chain family can go far above k, and when its diameter is above both 2k and
k+4 it says *try star grouping*. Above 4096 distinct fingerprints in one family the
diameter is an upper bound (twice the largest distance to the representative, at most 64).

**Members** count the documents of a family; **size** is a file's length in bytes.
*empty files* marks a family of empty documents; *identical fingerprints* one whose
members are all at distance 0.

**Index blocks**, as in `index blocks at K=8 (9): 0✓ 1✗ 2✓ …`: the 64 bits cut into K+1
runs of neighbouring bits (block i holds bits i·64/(K+1) up to, not including,
(i+1)·64/(K+1), rounded down, bit 0 being the lowest; at K=8, nine blocks of 7 or 8
bits). ✓: the two fingerprints agree on every bit of that block; ✗: at least one bit
differs. Each differing bit spoils at most one block, so at distance d ≤ K at least
K+1−d blocks agree; no ✓ at all means the distance is above K. That is how ditto's
banded index finds every pair within K without comparing all pairs. (ditto-tui's own
index may cut the bits differently, with the same guarantee: its results are exact.)

**Skipped**: files not fingerprinted, each with its reason (binary, too large, not
HTML, a second name of a file already counted, …).
"""
