"""When each submission was handed in, from what the platform recorded, never from the files.

File modification times and git commit dates are the student's to set (``touch``, ``git commit
--date``), so they are never read.  The sources:

* ``--submitted-at times.csv``: ``id,submitted_at`` (ISO 8601 with an offset), id being a roster id or
  a submission name;
* a Gradescope export (Assignment > Review Grades > Export Submissions): ``submission_metadata.yml``
  beside the ``submission_NNN`` folders, one entry per folder with ``:created_at:`` and
  ``:submitters:`` (``:name:``, ``:sid:``, ``:email:``);
* inside Gradescope, ``/autograder/submission_metadata.json`` (``created_at``; the bundle reads it).

What the batch stores is ``DIR/submitted_at.csv`` (``id,submitted_at,source``), whatever the source.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from grader.instructor.term.errors import TermError
from grader.instructor.term.policy import parse_time
from grader.paths import write_atomic

GRADESCOPE_EXPORT = "submission_metadata.yml"


def _normalise(text: str) -> str:
    """Gradescope's Ruby-style ``2026-03-10 23:59:01.123456789 +0900`` as ISO 8601."""
    text = text.strip()
    m = re.fullmatch(r"(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?\s*(Z|[+-]\d\d:?\d\d)?", text)
    if not m:
        return text
    frac = (m.group(3) or "")[:7]
    offset = m.group(4) or ""
    if offset and offset != "Z" and ":" not in offset:
        offset = offset[:3] + ":" + offset[3:]
    return f"{m.group(1)}T{m.group(2)}{frac}{'+00:00' if offset == 'Z' else offset}"


def read_times_csv(path: Path) -> dict[str, datetime]:
    """``id,submitted_at`` rows (any extra columns ignored); a blank time is left out (unknown)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise TermError(f"{path}: cannot read it ({exc})", f"{path}: 읽을 수 없습니다") from None
    reader = csv.DictReader(io.StringIO(text))
    fields = [str(f or "").strip().casefold() for f in (reader.fieldnames or [])]
    if "id" not in fields or "submitted_at" not in fields:
        raise TermError(f"{path}: the header must name the columns id and submitted_at",
                        f"{path}: 머리글에 id와 submitted_at 열이 있어야 합니다")
    times: dict[str, datetime] = {}
    for line, raw in enumerate(reader, start=2):
        row = {str(k or "").strip().casefold(): (v or "").strip() for k, v in raw.items()}
        sid, when = row.get("id", ""), row.get("submitted_at", "")
        if not sid or not when:
            continue
        try:
            stamp = parse_time(_normalise(when), f"line {line}")
        except TermError as exc:
            raise TermError(f"{path}: {exc.en}", f"{path}: {exc.ko}") from None
        key = sid.casefold()
        if key in times and times[key] != stamp:
            raise TermError(f"{path}: line {line}: {sid} has two different times",
                            f"{path}: {line}행: {sid}의 시각이 두 개입니다")
        times[key] = stamp
    return times


def _tolerant_loader() -> type:
    """PyYAML's safe loader that reads Ruby tags (``!ruby/object:BigDecimal``) as plain values."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def plain(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> object:
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        return loader.construct_scalar(node)

    Loader.add_multi_constructor("!", plain)
    return Loader


def read_gradescope_export(path: Path) -> dict[str, datetime]:
    """Submission folder name, and each submitter's sid and email -> ``:created_at:``."""
    try:
        import yaml
    except ModuleNotFoundError:
        raise TermError(f"{path}: reading a Gradescope export needs PyYAML (pip install pyyaml)",
                        f"{path}: Gradescope 내보내기를 읽으려면 PyYAML이 필요합니다") from None
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_tolerant_loader())  # noqa: S506 (safe + tags)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TermError(f"{path}: not a readable Gradescope submission_metadata.yml ({exc})",
                        f"{path}: 읽을 수 있는 Gradescope submission_metadata.yml이 아닙니다") from None
    if not isinstance(data, dict):
        raise TermError(f"{path}: expected one entry per submission folder",
                        f"{path}: 제출 폴더마다 항목이 하나씩 있어야 합니다")
    times: dict[str, datetime] = {}
    for folder, entry in data.items():
        if not isinstance(entry, dict) or entry.get(":created_at") is None:
            continue
        raw = entry[":created_at"]
        stamp = (raw if isinstance(raw, datetime)
                 else parse_time(_normalise(str(raw)), f"{folder} :created_at:"))
        if stamp.tzinfo is None:  # PyYAML turns an offset-less timestamp into naive UTC
            stamp = stamp.replace(tzinfo=timezone.utc)
        keys = [str(folder)]
        for who in entry.get(":submitters") or []:
            if isinstance(who, dict):
                keys += [str(who.get(k)) for k in (":sid", ":email") if who.get(k)]
        for key in keys:
            times.setdefault(key.strip().casefold(), stamp)
    return times


def read_sources(path: Path) -> dict[str, str]:
    """The stored file's ``source`` column: where each id's time came from ("" when not said)."""
    if not path.exists():
        return {}
    reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8-sig")))
    return {str(r.get("id") or "").strip().casefold(): str(r.get("source") or "").strip() for r in reader}


def write_times(path: Path, times: dict[str, datetime], source: str | dict[str, str]) -> None:
    """``DIR/submitted_at.csv``; ``source`` one for all, or per id (a merge keeps each id's own)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id", "submitted_at", "source"])
    for key in sorted(times):
        w.writerow([key, times[key].isoformat(), source if isinstance(source, str) else source.get(key, "")])
    write_atomic(path, buf.getvalue())


def canonical(times: dict[str, datetime], aliases: dict[str, str], what: str) -> dict[str, datetime]:
    """``times`` keyed by each student's one id: a submission name and the id it stands for are one
    student (``aliases``: folded name or id -> id). Two different times for one student are refused."""
    out: dict[str, datetime] = {}
    named: dict[str, str] = {}
    for key, stamp in times.items():
        sid = aliases.get(key.strip().casefold(), key).strip().casefold()
        if sid in out and out[sid] != stamp:
            raise TermError(f"{what}: {named[sid]} and {key} are one student ({sid}) with two different "
                            "times",
                            f"{what}: {named[sid]}와(과) {key}은(는) 같은 학생({sid})인데 시각이 다릅니다")
        out[sid], named[sid] = stamp, key
    return out


@dataclass(frozen=True)
class Replaced:
    """A stored time a correction replaced: said to the instructor, never silently."""

    id: str
    old: datetime
    new: datetime

    def line(self) -> str:
        return (f"{self.id}: {self.old.isoformat()} -> {self.new.isoformat()} (replaced) / "
                f"{self.id}: {self.old.isoformat()}을(를) {self.new.isoformat()}(으)로 바꿨습니다")


@dataclass(frozen=True)
class Counted:
    """What a times file did to the stored times, said to the instructor."""

    added: int
    changed: int
    same: int
    kept: int

    def words(self) -> str:
        return (f"{self.added} added, {self.changed} changed, {self.same} unchanged, {self.kept} kept / "
                f"추가 {self.added}, 변경 {self.changed}, 같음 {self.same}, 유지 {self.kept}")


def merge_times(path: Path, new: dict[str, datetime], source: str, *, replace: bool = False,
                aliases: dict[str, str] | None = None) -> tuple[Counted, list[Replaced]]:
    """Store ``new`` into ``path``: the students it names updated, the others kept (all replaced with
    ``replace``). With ``aliases``, stored and new times are keyed by the student's id first, so a
    correction naming a student by submission name replaces the time stored under the id. Returns what
    changed (added, changed, unchanged, kept: the same file given twice says 0 added, 0 changed) and
    each stored time it changed."""
    old = {} if replace or not path.exists() else read_times_csv(path)
    sources = {} if replace else read_sources(path)
    if aliases:
        fold = {k: aliases.get(k, k).strip().casefold() for k in old}
        sources = {fold.get(k, aliases.get(k, k).strip().casefold()): v for k, v in sources.items()}
        old = canonical(old, aliases, str(path))
        new = canonical(new, aliases, source)
    replaced = [Replaced(k, old[k], t) for k, t in sorted(new.items()) if k in old and old[k] != t]
    counted = Counted(added=len(set(new) - set(old)), changed=len(replaced),
                      same=sum(1 for k, t in new.items() if k in old and old[k] == t),
                      kept=len(set(old) - set(new)))
    write_times(path, {**old, **new}, {**sources, **dict.fromkeys(new, source)})
    return counted, replaced


def times_for(times: dict[str, datetime], *keys: str) -> datetime | None:
    for key in keys:
        hit = times.get(key.strip().casefold())
        if hit is not None:
            return hit
    return None
