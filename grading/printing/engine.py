"""WeasyPrint, the one module that imports it: a printout loads nothing but the bundled fonts
and its scanned pages, and each thread keeps one font configuration. Imported on the first
printout (`grading.printing.pdf`), so that starting a command or a page does not load it."""

import shutil
import ssl
import threading
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

import weasyprint
from weasyprint.text.fonts import FontConfiguration
from weasyprint.urls import URLFetcher

from grading.printing.assets import FONT_DIR, SCAN_DATA_URL


class _FontsOnly(URLFetcher):
    """Printouts load nothing but the bundled fonts and the PNG pages put in them as data:
    URLs: no network, no other local file, whatever an explanation may contain."""

    def fetch(self, url, headers=None):
        if url.startswith(SCAN_DATA_URL):
            return super().fetch(url, headers)
        if url.startswith("file:"):
            path = Path(url2pathname(urlsplit(url).path)).resolve()
            if path.is_relative_to(FONT_DIR):
                return super().fetch(url, headers)
        raise ValueError(f"A printout may load only its fonts; {url} was refused.")


# Printouts never fetch over the network (`_FontsOnly`), yet WeasyPrint's fetcher builds an HTTPS
# handler, which loads the system's certificates into a new context: a third of a small paper's
# rendering time. Given this context, it loads none; nothing ever connects with it.
_NO_NETWORK = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)

# Building a font configuration and loading the @font-face files costs about a quarter of a
# small paper's rendering time; one configuration per thread is reused for every paper.
_local = threading.local()


def _font_config() -> FontConfiguration:
    config = getattr(_local, "font_config", None)
    if config is None:
        config = _local.font_config = FontConfiguration()
    return config


def document(html: str):
    """The rendered WeasyPrint document of `html`, with this thread's font configuration."""
    fetcher = _FontsOnly(ssl_context=_NO_NETWORK)
    return weasyprint.HTML(string=html, url_fetcher=fetcher).render(font_config=_font_config())


def forget_font_config() -> None:
    _local.font_config = None


def drop_font_config() -> None:
    config = getattr(_local, "font_config", None)
    _local.font_config = None
    # Documents rendered in this process may still hold the configuration in reference cycles,
    # so its finalizer cannot be relied on to have run: remove its font folder here.
    folder = getattr(config, "_folder", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
