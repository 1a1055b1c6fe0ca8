"""The catalogue of words shown to the reader, one module per view; each holds ``WORDS``, one entry a key:
``key: (en, zh)``, or ``(en, zh, en_one)`` with the English singular (``1 equation``). ``present.i18n`` merges
the parts (a key defined twice is an error) and says them (``t``)."""
