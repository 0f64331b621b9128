"""Markdown from AI explanations to safe HTML, shared by pages and PDFs.

Raw HTML in an explanation is text, not markup: linguists write graphemes in angle brackets
(<ng>, <a>, <s>, <title>), and a model's output may hold tags on purpose or by accident. Either
way a juror must read what the system wrote, so Python-Markdown is run without its raw-HTML
handling and escapes every "<" in text itself. Escaping by hand before markdown would escape
twice inside code spans and blocks, which markdown escapes on its own.

AI output is hostile by default: it may still carry javascript: links in markdown. The rendered
HTML goes through nh3 (the Ammonia sanitizer) with an allow-list, so nothing executable
survives."""

import re

import markdown
import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown.extensions import Extension

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


class _HtmlAsText(Extension):
    """Markdown's raw HTML (blocks and inline tags) left as text, which the serializer escapes;
    autolinks (<https://…>) are markdown, not HTML, and stay links."""

    def extendMarkdown(self, md):
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")


_ATTRIBUTES = {"th": {"align"}, "td": {"align"}, "a": {"href", "title"}, "ol": {"start"}}


def render_markdown(text: str) -> SafeString:
    html = markdown.markdown(
        text or "",
        extensions=["tables", "fenced_code", "sane_lists", _HtmlAsText()],
        output_format="html",
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
