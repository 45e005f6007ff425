"""Griffe extension for the API pages: Sphinx roles in docstrings become inline code.

The code's docstrings use ``:class:`Name``` and friends (readable in ``help()`` and in
editors); Markdown has no roles, so ``:role:`target``` is rendered as ```target```.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj):`~?([^`]+)`")


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(r"`\1`", obj.docstring.value)
