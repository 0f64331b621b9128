"""Markdown from AI explanations to safe HTML, shared by pages and PDFs.

AI output is hostile by default: it may carry <script>, event handlers or javascript: links, in
markdown or raw HTML. Markdown is rendered first, then the whole result goes through nh3 (the
Ammonia sanitizer) with an allow-list, so nothing executable survives."""

import re

import markdown
import nh3
from django.utils.safestring import SafeString, mark_safe

_TAGS = {
    "p",
    "br",
    "hr",
    "em",
    "strong",
    "b",
    "i",
    "u",
    "s",
    "sub",
    "sup",
    "code",
    "pre",
    "kbd",
    "blockquote",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
    "a",
}
# A word this long gets a zero-width space every _CHUNK characters: AI output may hold a line of
# 100,000 characters without a space, which WeasyPrint takes minutes to break into lines (the
# time grows with the square of the word's length) and a browser shows as one endless line.
_LONG_WORD = re.compile(r"[^\s<>&\u200b]{80,}")
_CHUNK = 40
# Text between tags; nh3's output escapes "<" in text, so a "<" always starts a tag.
_TEXT = re.compile(r">([^<]+)")


def _soft_breaks(html: str) -> str:
    def chunked(match: re.Match) -> str:
        word = match.group()
        return "\u200b".join(word[i : i + _CHUNK] for i in range(0, len(word), _CHUNK))

    return _TEXT.sub(lambda m: ">" + _LONG_WORD.sub(chunked, m.group(1)), html)


_ATTRIBUTES = {"th": {"align"}, "td": {"align"}, "a": {"href", "title"}, "ol": {"start"}}


def render_markdown(text: str) -> SafeString:
    html = markdown.markdown(
        text or "", extensions=["tables", "fenced_code", "sane_lists"], output_format="html"
    )
    clean = nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    # Only text is touched (">" ends each tag), and only runs without "&", so no entity is split.
    return mark_safe(_soft_breaks(clean))  # noqa: S308 - sanitized by nh3 just above
