"""Version 1 backups: the contest's document alone, plain or gzipped JSON, each scanned page's
PNG as base64 inside it ("png" instead of "image"). export_contest wrote them before the archive
(grading.backup.archive); they still restore, through import_contest and the console alike."""

import gzip
import json
import zlib
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError

MB = 1024 * 1024
_CHUNK = MB


def max_json_bytes() -> int:
    """The bound on a backup's document, unpacked (settings.BACKUP_JSON_MAX_MB)."""
    return settings.BACKUP_JSON_MAX_MB * MB


def too_large(name: str, what: str) -> ValidationError:
    return ValidationError(
        f"{name} {what} more than {settings.BACKUP_JSON_MAX_MB} MB of JSON "
        "(BACKUP_JSON_MAX_MB), more than any contest's backup; import the file export_contest "
        "wrote, or set BACKUP_JSON_MAX_MB higher."
    )


def _gunzip(path: Path) -> bytearray:
    """The unpacked bytes, read in chunks and refused as soon as they pass the bound: 8 MB of
    gzip can hold 800 MB."""
    data = bytearray()
    try:
        with gzip.open(path) as stream:
            while chunk := stream.read(_CHUNK):
                data += chunk
                if len(data) > max_json_bytes():
                    raise too_large(path.name, "unpacks to")
    except (OSError, EOFError, zlib.error):
        raise ValidationError(f"{path.name} looks gzipped but cannot be unpacked.") from None
    return data


def legacy_read(path: Path, magic: bytes) -> dict:
    """A version 1 backup file (plain or gzipped JSON, told by `magic`, its first bytes)."""
    if magic[:2] == b"\x1f\x8b":
        data = _gunzip(path)
    elif path.stat().st_size > max_json_bytes():
        raise too_large(path.name, "holds")
    else:
        data = path.read_bytes()
    return json_document(data, path.name)


def json_document(data: bytes | bytearray, name: str):
    """The parsed JSON, or a sentence naming `name` and where it stops being JSON."""
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValidationError(f"{name} is not UTF-8 text.") from None
    except json.JSONDecodeError as error:
        raise ValidationError(
            f"{name} is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}."
        ) from None
    except ValueError:  # json.loads refuses an integer of more than 4300 digits this way
        raise ValidationError(f"{name} holds a number with too many digits.") from None
    except RecursionError:
        raise ValidationError(
            f"{name} is not a backup: its lists or objects are nested too deeply."
        ) from None


def json_bytes(document: dict) -> bytes:
    """Canonical UTF-8 JSON (sorted keys), as every version writes its document."""
    return (json.dumps(document, ensure_ascii=False, sort_keys=True, indent=1) + "\n").encode()
