"""The presentation layer: one formatter per noun (variable, atom, equation, params, source line, call
group), rows, every word in en and zh (``i18n``), escaping, the display protocol and the front end's assets."""
