"""Document text as the explorer and the report show it: display forms (``display``), the
side-by-side word diff (``diff``), find in text (``find``) and the id filter (``id_filter``)."""
