"""What the backup's table (`grading.backup.table`) is made of: a section of the document (its
model, natural key and columns), a column with its kind and where its value lives, and a value
as the document holds it."""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from django.db import models

from rubrics.models import Contest

_OWN = ""


@dataclass(frozen=True)
class Column:
    name: str
    kind: str
    path: str | None = _OWN
    optional: bool = False

    @property
    def lookup(self) -> str | None:
        return self.name if self.path == _OWN else self.path


@dataclass(frozen=True)
class Section:
    key: str
    model: type[models.Model]
    columns: tuple[Column, ...]
    # The lookup from the model to its contest, and the natural key the rows are sorted by.
    scope: str = ""
    order: tuple[str, ...] = ()
    # What backups written before a field existed lack, and the restore puts in its place.
    defaults: dict = field(default_factory=dict)
    # Time stamps the model sets itself when saved, put back as exported after the write.
    stamps: tuple[str, ...] = ()
    # The model's fields the backup leaves out on purpose (besides the id and the row it
    # belongs to, which the document's nesting and natural keys say).
    left_out: tuple[str, ...] = ()
    # Added after backups of contests without them were written: fields left out of a row while
    # they hold their default (in `defaults`), and a list left out of the document while it is
    # empty, so that a contest that has none exports to the bytes it did before.
    sparse: tuple[str, ...] = ()
    sparse_list: bool = False

    def spec(self) -> dict[str, str]:
        """The fields a row of the document has ({name: kind}, "name?" when it may be null)."""
        return {f"{c.name}?" if c.optional else c.name: c.kind for c in self.columns}

    def rows(self, contest: Contest, *extra: str):
        """The contest's rows of this section as dicts of their lookups (and `extra`), sorted
        by the natural key; one query."""
        return self.rows_where({self.scope: contest}, *extra)

    def rows_where(self, where: dict, *extra: str):
        """The rows that `where` filters (for a section without a contest: a person's facts)."""
        lookups = [c.lookup for c in self.columns if c.lookup is not None]
        return self.model.objects.filter(**where).order_by(*self.order).values(*extra, *lookups)

    def document(self, row: dict) -> dict:
        """The document's row for a row of `rows`: each column read from its lookup."""
        values = {c.name: plain(row[c.lookup]) for c in self.columns if c.lookup is not None}
        return self.written(values)

    def written(self, values: dict) -> dict:
        """A row of the document without its sparse fields that hold their default."""
        return {
            name: value
            for name, value in values.items()
            if name not in self.sparse or value != self.defaults[name]
        }

    def own(self, values: dict, *leave: str) -> dict:
        """The values of the model's own fields in a row read from the document."""
        return {
            c.name: values[c.name] for c in self.columns if c.path == _OWN and c.name not in leave
        }

    def put_back_stamps(self, objects: list, rows: list[dict]) -> None:
        """auto_now(_add) fields are overwritten with now by bulk_create; bulk_update does not."""
        for obj, row in zip(objects, rows, strict=True):
            for name in self.stamps:
                setattr(obj, name, row[name])
        self.model.objects.bulk_update(objects, list(self.stamps), batch_size=500)


def plain(value):
    """A value as the document holds it: decimals as text, times in UTC as ISO 8601."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    return value


def column(spec: str, path: str | None = _OWN) -> Column:
    """A column from "name:kind" ("name?:kind" when it may be null)."""
    name, kind = spec.split(":")
    return Column(name.rstrip("?"), kind, path, optional=name.endswith("?"))


def texts(*names: str) -> tuple[Column, ...]:
    return tuple(Column(name, "text") for name in names)
