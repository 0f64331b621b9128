"""Markdown from AI explanations to safe HTML, shared by pages and PDFs.

AI output is hostile by default: it may carry <script>, event handlers or javascript: links, in
markdown or raw HTML. Markdown is rendered first, then the whole result goes through nh3 (the
Ammonia sanitizer) with an allow-list, so nothing executable survives."""

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
    return mark_safe(clean)  # noqa: S308 - sanitized by nh3 just above
