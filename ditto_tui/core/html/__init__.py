"""HTML: the html-distance pipeline (``structure``) and what it stands on.

A tokenizer that splits where Go's x/net/html does (``tokenizer``, ``entities``), the
structural features html-distance hashes (``features``), and the sniffing that says whether
a file is a page at all (``sniff``).
"""
