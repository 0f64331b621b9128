"""Reading raw model text in the benchmarking prompt's shape, `Answer:` then the answers then
`Explanation:` then markdown, with the light repairs models make necessary. Every repair leaves a
note on the solution so that jurors know what the parser changed."""

import json
import re
from dataclasses import dataclass, field

from django.utils.translation import ngettext

# A label at the start of a line: "Answer:", "**Answer:**", "**Answer**:", "## Explanation".
_LABEL = re.compile(
    r"^[ \t]*(?P<hashes>\#{1,6}[ \t]*)?(?P<open>[*_]{1,3})?"
    r"(?P<word>answers?|explanation)"
    r"(?P<mid>[*_]{1,3})?[ \t]*(?P<colon>:)?[ \t]*(?P<close>[*_]{1,3})?",
    re.IGNORECASE | re.MULTILINE,
)
_FENCE_AROUND = re.compile(r"\A\s*```[^\n]*\n(?P<body>.*?)\n?[ \t]*```\s*\Z", re.DOTALL)
_FENCE_LINE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$")
# "10.", "1)", "(3)", "7a.", "a)", "(b)": followed by a space, so that "1.5" stays a number.
_ITEM_LABEL = re.compile(r"^\s*(?P<label>\(?\d+[a-z]?\)|\d+[a-z]?\.|\(?[a-z]\))(?:\s+|$)")
_BULLET = re.compile(r"^\s*[-*+•][ \t]+")
_EMPHASIS = re.compile(r"^(?P<mark>\*\*|__|\*|_)(?P<text>\S(?:.*\S)?)(?P=mark)$")


@dataclass
class RawOutput:
    answer_text: str
    explanation: str
    notes: list[str] = field(default_factory=list)


def _label(match: re.Match) -> bool:
    """A real label: with a colon, or alone on its line as a heading or in bold."""
    if match.group("colon"):
        return True
    decorated = match.group("hashes") or match.group("open")
    line_end = match.string.find("\n", match.end())
    rest = match.string[match.end() : None if line_end < 0 else line_end]
    return bool(decorated) and not rest.strip()


def _decorated(match: re.Match) -> bool:
    return any(match.group(name) for name in ("hashes", "open", "mid"))


def _end(match: re.Match) -> int:
    """Where the text after a label starts: "Answer: **C**" keeps the emphasis of its answer."""
    if match.group("close") and not match.group("open"):
        return match.start("close")
    return match.end()


def split_raw_output(text: str) -> RawOutput:
    """The answer part (repaired, ready for `split_answer_text`) and the explanation."""
    labels = [match for match in _LABEL.finditer(text) if _label(match)]
    answer = next((m for m in labels if m.group("word").lower().startswith("answer")), None)
    explanation = next((m for m in labels if m.group("word").lower() == "explanation"), None)
    notes = []
    for match, name in ((answer, "Answer:"), (explanation, "Explanation:")):
        if match and _decorated(match):
            notes.append(f"Removed markdown emphasis around the “{name}” label.")
    if answer and explanation and explanation.start() > answer.start():
        answer_text = text[_end(answer) : explanation.start()]
        explanation_text = text[_end(explanation) :]
    elif answer and explanation:
        explanation_text = text[_end(explanation) : answer.start()]
        answer_text = text[_end(answer) :]
    elif answer:
        answer_text = text[_end(answer) :]
        explanation_text = text[: answer.start()]
        if explanation_text.strip():
            notes.append(
                "No “Explanation:” label: the text before “Answer:” was kept as the explanation."
            )
    elif explanation:
        answer_text = text[: explanation.start()]
        explanation_text = text[_end(explanation) :]
        notes.append("No “Answer:” label: the text before “Explanation:” was read as the answer.")
    else:
        answer_text, explanation_text = text, ""
        notes.append(
            "No “Answer:” or “Explanation:” label: the whole output was read as the answer."
        )
    if answer and answer.group("open") and not answer.group("close"):
        # "**Answer: C, B, A**": the emphasis closes at the end of the answer.
        mark = answer.group("open")
        if answer_text.rstrip().endswith(mark):
            answer_text = answer_text.rstrip()[: -len(mark)]
    answer_text, answer_notes = repair_answer(answer_text)
    return RawOutput(
        answer_text=answer_text, explanation=explanation_text.strip(), notes=notes + answer_notes
    )


def repair_answer(text: str) -> tuple[str, list[str]]:
    """Remove code fences, list markers, item labels and emphasis from an answer part."""
    notes = []
    around = _FENCE_AROUND.match(text)
    if around:
        text = around.group("body")
        notes.append("Removed a code fence around the answer.")
    elif any(_FENCE_LINE.match(line) for line in text.split("\n")):
        text = "\n".join(line for line in text.split("\n") if not _FENCE_LINE.match(line))
        notes.append("Removed code fence lines from the answer.")
    text = text.strip()
    if text.startswith("["):
        try:
            if isinstance(json.loads(text), list):
                return text, notes
        except (ValueError, RecursionError):  # not JSON, a too-long number, too deep
            pass
    bullets, labels, emphasised = 0, [], 0
    lines = []
    for line in text.split("\n"):
        line = line.strip()
        if _BULLET.match(line):
            line = _BULLET.sub("", line, count=1)
            bullets += 1
        label = _ITEM_LABEL.match(line)
        if label and line[label.end() :].strip():
            labels.append(label.group("label"))
            line = line[label.end() :]
        emphasis = _EMPHASIS.match(line.strip())
        if emphasis:
            line = emphasis.group("text")
            emphasised += 1
        lines.append(line.strip())
    if bullets:
        notes.append(
            f"Removed list markers at the start of {ngettext('%d line', '%d lines', bullets) % bullets}."
        )
    if labels:
        shown = ", ".join(f"“{label}”" for label in labels[:3]) + (", …" if len(labels) > 3 else "")
        notes.append(
            f"Removed item labels at the start of {ngettext('%d line', '%d lines', len(labels)) % len(labels)} ({shown})."
        )
    if emphasised:
        notes.append(
            "Removed markdown emphasis around "
            f"{ngettext('%d answer', '%d answers', emphasised) % emphasised}."
        )
    return "\n".join(lines), notes


def json_list_note(text: str | None) -> list[str]:
    """A note when an answer looks like a JSON list but is not one, so it is read line by line
    (as the competition's scorer does) and the juror knows why the items look odd."""
    if text is None or not text.strip().startswith("["):
        return []
    try:
        if isinstance(json.loads(text.strip()), list):
            return []
    except (ValueError, RecursionError):  # not JSON, a too-long number, too deep
        pass
    return [
        "The answer starts like a JSON list but is not valid JSON; it was read one answer per line."
    ]
