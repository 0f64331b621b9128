"""A backup's document read section by section, so that a restore's memory does not grow with
its marks (papers × criteria × jurors: 43,000 rows at 255 contestants, which json.loads kept
whole beside the rows made of them).

The document is one JSON object (`legacy.json_bytes`). Each section in STREAMED is not kept:
it becomes a `StreamedRows`, which reads the document anew and yields the section's rows one
at a time each time it is walked (once to check them, once to write them). Every other section
is kept as json.loads gives it. Every value is decoded by the standard library's decoder
(`json.JSONDecoder.raw_decode`), so a row reads exactly as json.loads reads it (floats, NaN,
the bound on digits); a document this walk cannot read (not an object, not JSON, a streamed
section twice) is read whole by `legacy.json_document`, which words where it fails."""

import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import BinaryIO

from django.core.exceptions import ValidationError

from grading.backup import legacy
from grading.intake.importers.files import holds_nan, holds_nul

# The sections read row by row; the rest are small beside them.
STREAMED = ("marks",)
_CHUNK = 1024 * 1024
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")
# What reading a zip member or a gzip stream raises on damaged bytes.
DAMAGED = (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError, RuntimeError)

Opener = Callable[[], BinaryIO]


class _NotWalkable(Exception):
    """The document is not an object of sections this reader walks: it is read whole."""


class _Counted(io.RawIOBase):
    """A stream of the document, refused past BACKUP_JSON_MAX_MB whatever its header said."""

    def __init__(self, stream, name: str):
        self.stream, self.name, self.read_bytes = stream, name, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.stream.read(len(buffer))
        self.read_bytes += len(data)
        if self.read_bytes > legacy.max_json_bytes():
            raise legacy.too_large(self.name, "unpacks to")
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.stream.close()
        super().close()


def counted(stream, name: str) -> BinaryIO:
    """`stream`, read in chunks and refused once past the document's bound."""
    return io.BufferedReader(_Counted(stream, name), _CHUNK)


class _Text:
    """The document's text through a window that moves on as values are decoded."""

    def __init__(self, stream: BinaryIO):
        self.text = io.TextIOWrapper(stream, encoding="utf-8")
        self.window, self.at, self.ended = "", 0, False

    def _more(self, at_least: int = 0) -> bool:
        if self.ended:
            return False
        chunk = self.text.read(max(at_least, _CHUNK))
        if not chunk:
            self.ended = True
            return False
        self.window = self.window[self.at :] + chunk
        self.at = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ("" at the end)."""
        while True:
            self.at = _SPACE.match(self.window, self.at).end()
            if self.at < len(self.window):
                return self.window[self.at]
            if not self._more():
                return ""

    def take(self, character: str) -> None:
        if self.peek() != character:
            raise _NotWalkable
        self.at += 1

    def value(self):
        """The next JSON value, decoded as json.loads decodes it."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.window, self.at)
            except json.JSONDecodeError:
                # A value cut by the window's end: read on (as much again as is pending, so
                # that a long value is decoded a few times at most), or it is no JSON.
                if not self._more(len(self.window) - self.at):
                    raise _NotWalkable from None
                continue
            # A number at the window's end may go on in the next chunk.
            if end == len(self.window) and self._more():
                continue
            self.at = end
            return value

    def items(self) -> Iterator:
        """The items of the list that comes next, one at a time."""
        self.take("[")
        if self.peek() == "]":
            self.at += 1
            return
        while True:
            yield self.value()
            after = self.peek()
            self.at += 1
            if after == "]":
                return
            if after != ",":
                raise _NotWalkable

    def sections(self) -> Iterator[str]:
        """The keys of the top-level object; the caller reads each one's value in turn."""
        self.take("{")
        if self.peek() == "}":
            self.at += 1
        else:
            while True:
                key = self.value()
                if not isinstance(key, str):
                    raise _NotWalkable
                self.take(":")
                yield key
                after = self.peek()
                self.at += 1
                if after == "}":
                    break
                if after != ",":
                    raise _NotWalkable
        if self.peek() != "":
            raise _NotWalkable  # more after the object: json.loads words it


class StreamedRows:
    """A section of the document, read row by row from the file each time it is walked. The
    first reading counted its rows and noted what PostgreSQL cannot store (a NUL character,
    NaN), so that the restore refuses them before anything else, as for the other sections."""

    def __init__(self, opener: Opener, key: str, name: str, damaged: str):
        self.opener, self.key, self.name, self.damaged = opener, key, name, damaged
        self.count = 0
        self.holds_nul = False
        self.holds_nan = False

    def __len__(self) -> int:
        return self.count

    def note(self, row) -> None:
        self.count += 1
        self.holds_nul = self.holds_nul or holds_nul(row)
        self.holds_nan = self.holds_nan or holds_nan(row)

    def __iter__(self) -> Iterator:
        read = 0
        try:
            with self.opener() as stream:
                text = _Text(stream)
                for key in text.sections():
                    if key != self.key:
                        text.value()
                        continue
                    for row in text.items():
                        read += 1
                        yield row
                    break
        except (_NotWalkable, UnicodeDecodeError, ValueError, RecursionError):
            read = -1
        except DAMAGED:
            raise ValidationError(self.damaged) from None
        if read != self.count:
            raise ValidationError(
                f"{self.name} changed while it was being restored; nothing was restored. "
                "Restore it again."
            )


def document_read(opener: Opener, name: str, *, damaged: str):
    """The document `opener` opens (a new binary stream each call, `counted`), its STREAMED
    sections as `StreamedRows`; a document this walk cannot read is read whole, as json.loads
    reads it. `name` names the document in sentences; `damaged` is said when its bytes cannot
    be read (a damaged archive)."""
    try:
        with opener() as stream:
            text = _Text(stream)
            document = {}
            for key in text.sections():
                if key in STREAMED and key in document:
                    raise _NotWalkable  # twice: json.loads keeps the last
                if key in STREAMED and text.peek() == "[":
                    rows = StreamedRows(opener, key, name, damaged)
                    for row in text.items():
                        rows.note(row)
                    document[key] = rows
                else:
                    document[key] = text.value()
            return document
    except (_NotWalkable, UnicodeDecodeError, ValueError, RecursionError):
        pass
    except DAMAGED:
        raise ValidationError(damaged) from None
    try:
        with opener() as stream:
            data = stream.read()
    except DAMAGED:
        raise ValidationError(damaged) from None
    return legacy.json_document(data, name)


def streamed(document) -> list[StreamedRows]:
    """The document's sections read row by row (none for a document in memory)."""
    if not isinstance(document, dict):
        return []
    return [value for value in document.values() if isinstance(value, StreamedRows)]


def materialized(document):
    """The document with its streamed sections read into lists (a whole document, as
    json.loads gives it)."""
    if not streamed(document):
        return document
    return {
        key: list(value) if isinstance(value, StreamedRows) else value
        for key, value in document.items()
    }
