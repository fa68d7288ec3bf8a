"""The interface wording's language: English in the code (gettext's msgid, ``_("{name} ...").format(name=...)``),
Chinese in ``notebooks/zh/translations/_interface.po``, which ``course.py sync`` compiles into ``locale/`` here for
the standard library's gettext (no Babel needed). A Chinese notebook's set-up cell, or ``--zh``, calls use("zh")."""

import gettext
from pathlib import Path

LOCALE_DIR, DOMAIN, LANGUAGES = Path(__file__).resolve().parent / "locale", "course", ("en", "zh")


def translations(language: str) -> gettext.NullTranslations:
    """Used by :func:`use`: the compiled catalog of ``language`` (English: none, the msgids themselves)."""
    if language not in LANGUAGES:
        raise ValueError(f"no language {language!r}; the course has {', '.join(LANGUAGES)}")
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[language], fallback=True)


def use(language: str) -> None:
    """Used by the set-up cell and course.py: from now on this process speaks ``language``."""
    _chosen[:] = [translations(language)]


_chosen = [translations("en")]  # English until use() says otherwise


def _(message: str) -> str:  # ``message`` (English) in the language chosen
    return _chosen[0].gettext(message)


N_ = str  # marks a message of a table for the catalog (the extractor's keyword); _() translates it where it is used
