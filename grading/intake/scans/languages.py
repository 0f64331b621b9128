"""The answer language a scan import's page map may give each contestant, in an optional
`language` column: checked here (a name, the same on every row of one contestant) and written
with the contestant's paper in the import's transaction. The console's own bulk lines
(`grading.console.answer_languages`) check a language with the same sentence."""

from collections import defaultdict
from pathlib import PurePath

from grading.models import Paper, language_name

LANGUAGE_MAX = Paper._meta.get_field("answer_language").max_length


def answer_language_check(text: str, *, where: str) -> tuple[str, list[str]]:
    """An answer language as typed (`language_name`: spaces tidied, a name typed in lower case
    capitalised), or the sentence that refuses it."""
    language = " ".join(text.split())
    if not language:
        return "", [f"{where}: the language is missing."]
    if len(language) > LANGUAGE_MAX:
        return "", [f"{where}: “{language}” is longer than {LANGUAGE_MAX} characters."]
    if ";" in language or "(" in language:
        return "", [f"{where}: “{language}” is not one language's name; give one per paper."]
    return language_name(language), []


def map_languages(ranges, *, map_name: str) -> tuple[dict[str, str], list[str]]:
    """Each contestant's language from the page map's rows that give one (their code is the
    file's name without its extension), and a sentence for each row whose language differs
    from the contestant's first, or is not a language's name. Case and spaces aside, two
    spellings are one language (as `language_key` compares them); the first is kept."""
    first: dict[str, tuple[str, int]] = {}
    problems = []
    rows_of: dict[str, list[int]] = defaultdict(list)
    for page_range in ranges:
        if not page_range.language:
            continue
        where = f"{map_name}, row {page_range.row}, column language"
        language, sentences = answer_language_check(page_range.language, where=where)
        if sentences:
            problems += sentences
            continue
        code = PurePath(page_range.file).stem
        rows_of[code].append(page_range.row)
        known, row = first.setdefault(code, (language, page_range.row))
        if known.casefold() != language.casefold():
            problems.append(
                f"{where}: “{language}” is not the language row {row} gives contestant {code} "
                f"(“{known}”); every row of one contestant names the same language."
            )
    return {code: language for code, (language, _) in first.items()}, problems
