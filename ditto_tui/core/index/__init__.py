"""The near-duplicate index: every pair within k, exact, for every k at once.

``near_index`` holds the live :class:`~ditto_tui.core.index.near_index.NearIndex`; it is
built from the all-pairs join (``pairs``), the Hamming-radius tables (``probe``) and the
merge order that gives families at every k without a new join (``hierarchy``).
"""
