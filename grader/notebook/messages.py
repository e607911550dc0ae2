"""What the grader did with a notebook's statements, in the student's terms (English and Korean)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from grader.core.feedback import worded
from grader.core.finding import Cause, Finding, Said
from grader.core.lang import particle

_COLAB = ("google.colab", "google")


def _where(note: dict) -> tuple[str, str]:
    cell, line, file = note.get("cell"), note.get("line"), note.get("file")
    if cell:
        return f"cell {cell}, line {line}", f"셀 {cell}, {line}번째 줄"
    return f"{file or ''} line {line}".strip(), f"{file or ''} {line}번째 줄".strip()


def _origin(detail: str) -> tuple[str, str, str]:
    """'drive:google.colab' -> (name, English source, Korean source) of a missing name."""
    name, _, origin = detail.partition(":")
    if origin.startswith(_COLAB):
        return (name, f"it comes from `{origin}`, which only Colab has",
                f"`{origin}`에서 오는데, 이 모듈은 Colab에만 있습니다")
    if ":" in origin:
        cell, _, line = origin.partition(":")
        return (name, f"cell {cell}, line {line} did not run or failed",
                f"셀 {cell}의 {line}번째 줄이 실행되지 않았거나 실패했습니다")
    if origin:
        return name, f"its import of `{origin}` was skipped", f"`{origin}` import를 건너뛰었습니다"
    return name, "it was never defined", "정의된 적이 없습니다"


def describe(note: dict) -> dict[str, str]:
    """One note as {"en", "ko"}: where, the code, what happened, and why."""
    where_en, where_ko = _where(note)
    code = f"`{note.get('code', '')}`"
    reason, detail = note.get("reason", ""), str(note.get("detail", ""))
    en: str
    ko: str
    if reason == "magic":
        en, ko = ("a notebook command, not Python: not run",
                  "노트북 명령(파이썬 코드가 아님)이라 실행하지 않았습니다")
    elif reason == "cell_magic":
        en = f"a {detail} cell is not Python: the whole cell was not run"
        ko = f"{detail} 셀은 파이썬 코드가 아니어서 셀 전체를 실행하지 않았습니다"
    elif reason == "syntax":
        names = ", ".join(f"`{n}`" for n in note.get("defines", [])[:5])
        en = (f"does not parse ({detail}): this statement was not run, the rest of the cell was"
              + (f"; {names} stays undefined until you fix it" if names else ""))
        ko = (f"문법 오류({detail})라 이 문장은 실행하지 않았고, 셀의 나머지는 실행했습니다"
              + (f". 고치기 전까지 {particle(names, '은')} 정의되지 않습니다" if names else ""))
    elif reason == "notebook_only":
        if detail.startswith(_COLAB):
            en = f"`{detail}` needs Colab: skipped"
            ko = f"{particle(f'`{detail}`', '은')} Colab에서만 됩니다: 건너뛰었습니다"
        else:
            en = f"`{detail}` is for Jupyter itself, not needed for grading: skipped"
            ko = f"{particle(f'`{detail}`', '은')} Jupyter 전용이고 채점에는 필요 없어 건너뛰었습니다"
    elif reason == "plotting":
        en, ko = "plotting is not needed for grading: skipped", "그래프는 채점에 필요 없어 건너뛰었습니다"
    elif reason == "kit":
        en, ko = ("the grading kit itself: not run while grading",
                  "채점 키트 자체라 채점 중에는 실행하지 않았습니다")
    elif reason == "needs":
        name, why_en, why_ko = _origin(detail)
        if detail.partition(":")[2].startswith(_COLAB):
            en, ko = f"needs Colab (`{name}`): skipped", f"Colab이 필요합니다(`{name}`): 건너뛰었습니다"
        else:
            en = f"needs `{name}`, but {why_en}: skipped"
            ko = f"{particle(f'`{name}`', '이')} 필요한데 {why_ko}: 건너뛰었습니다"
    elif reason == "output":
        en, ko = ("output only (print, display, plots): not run while grading",
                  "출력만 하는 코드(print, display, 그래프)라 채점 중에는 실행하지 않았습니다")
    elif reason == "experiment":
        en = f"a `{detail}` run at top level: not run while grading (the grader trains your model itself)"
        ko = f"최상위의 `{detail}` 실행: 채점 중에는 실행하지 않았습니다(채점기가 직접 모델을 학습합니다)"
    elif reason == "unused":
        en = "demo code: nothing the grader calls uses its result, so it was not run"
        ko = "확인용 코드: 채점기가 부르는 코드가 이 결과를 쓰지 않아 실행하지 않았습니다"
    elif reason == "main_guard":
        en, ko = ("an `if __name__ == \"__main__\":` block: not run while grading",
                  "`if __name__ == \"__main__\":` 블록이라 채점 중에는 실행하지 않았습니다")
    elif reason == "slow":
        en = (f"still running after {detail} s (top-level work grading does not need?): "
              "stopped, the next cells still ran")
        ko = (f"{detail}초가 지나도 끝나지 않아 중단했습니다(채점에 필요 없는 최상위 작업?). "
              "다음 셀은 계속 실행했습니다")
    elif reason == "budget":
        en = "the time for top-level work was used up: skipped"
        ko = "최상위 코드에 주는 시간을 다 써서 건너뛰었습니다"
    elif reason == "raised":
        kind = note.get("type", "Exception")
        en = f"raised {kind}: {detail}; the next cells still ran"
        ko = f"{kind} 예외가 발생했습니다: {detail}. 다음 셀은 계속 실행했습니다"
    else:
        en = ko = f"{note.get('action', '')}: {reason} {detail}".strip()
    return {"en": f"{where_en}: {code} {en}", "ko": f"{where_ko}: {code} {ko}"}


def important(note: dict) -> bool:
    """Failures and skips that can cost points; the rest (prints, magics) is listed after them."""
    if note.get("reason") == "needs":  # a chain from a failed cell, not from a skipped Colab or plot import
        return str(note.get("detail", "")).count(":") >= 2
    return note.get("action") in ("failed", "stopped") or note.get("reason") in ("syntax", "budget")


def summarize(notes: Iterable[dict]) -> list[dict]:
    """Notes in report order (what matters first), each with its messages."""
    listed = list(notes)
    ordered = [n for n in listed if important(n)] + [n for n in listed if not important(n)]
    return [dict(n, important=important(n), messages=describe(n)) for n in ordered]


_DEFINES = re.compile(r"^(?:async\s+def|def|class)\s+(\w+)|^(\w+)\s*(?::[^=\n]*)?=(?!=)", re.M)


def defined_names(source: str) -> set[str]:
    """Top-level names the notebook's kept statements define (def, class, NAME = ...)."""
    return {a or b for a, b in _DEFINES.findall(source or "")}


def missing_name_hint(notes: Iterable[dict], message: str, source: str = "", *,
                      graded: Iterable[str] = (), not_run: Iterable[tuple[int, str]] = ()
                      ) -> tuple[Said, Finding] | None:
    """For "embedding.py does not define `TinyLM`" in a notebook: why, in the notebook's terms (the
    words and the record, grader/core/finding.py).

    A cell that would have defined it but did not parse or did not run is named; a name spelled
    close to one the notebook defines is pointed out; otherwise the notebook simply has no such
    definition yet: "not attempted", as a stub still raising NotImplementedError reads in a .py file.
    """
    m = re.search(r"`([^`]+)`", message)
    if not m:
        return None
    name = m.group(1)
    listed = list(notes)
    # "Expected `NAME` from your notebook; found none…" / "노트북에 `NAME`이 있어야 하는데 없습니다…"
    expected = Said(f"`{name}` from your notebook", f"노트북에 {particle(f'`{name}`', '이')} 있어야 함")

    def missing(found: Said, fix: Said | None = None, then: str = ". ",
                cause: Cause | None = None) -> tuple[Said, Finding]:
        """``then`` joins the found and the fix: ". " or ": " (a fix that explains what was found)."""
        rest = f"{then}{{fix}}" if fix else "."
        finding = Finding(expected=expected, found=found, fix=fix, cause=cause)
        wording = Said("Expected {expected}; found {found}" + rest, "{expected_stem} 하는데 {found}" + rest)
        return worded(finding, wording), finding

    for n in listed:
        if n.get("reason") == "syntax" and name in n.get("defines", []):
            # as the cell's note says it (describe): that statement was not run, the rest of the cell was;
            # every check it costs shares one cause, the cell (one card, counted once)
            return missing(
                Said(f"none: cell {n['cell']} defines it, but that statement does not parse "
                     f"({n.get('detail', '')}), so it was not run (the rest of the cell was)",
                     f"없습니다: 셀 {n['cell']}에서 정의하지만 그 문장에 문법 오류가 있어"
                     f"({n.get('detail', '')}) 실행하지 않았습니다(셀의 나머지는 실행했습니다)"),
                Said("Fix that line and grade again.", "그 줄을 고친 뒤 다시 채점하세요."),
                cause=Cause("", "", f"missing:syntax:cell {n['cell']}"))
    for n in listed:  # its definition was skipped or failed: say which cell and why
        if name in defined_names(str(n.get("code", ""))):
            why = describe(n)
            return missing(Said(f"none: {why['en']}", f"없습니다: {why['ko']}"))
    later = [n for n, text in not_run if name in defined_names(text)]
    if later:  # check() before that cell ran: the definition is there, the kernel has not run it
        return missing(
            Said(f"none yet: cell {later[0]} defines it but has not run in this kernel",
                 f"아직 없습니다: 셀 {later[0]}에서 정의하지만 이 커널에서 아직 실행하지 않았습니다"),
            Said(f"Run cell {later[0]} (the cell that defines it), then check again.",
                 f"정의하는 셀(셀 {later[0]})을 실행한 뒤 다시 확인하세요."), then=". ")
    # A graded name is never a misspelling of another one (count_params for count_primes).
    candidates = sorted(defined_names(source) - set(graded))
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.75)
    if close:
        return missing(
            Said(f"none, but it defines `{close[0]}`",
                 f"없고, 대신 {particle(f'`{close[0]}`', '이')} 있습니다"),
            Said(f"check the spelling (the grader calls `{name}`).",
                 f"철자를 확인하세요(채점기는 {particle(f'`{name}`', '을')} 부릅니다)."), then=": ")
    if not any(important(n) for n in listed):  # nothing failed or was held back that could have made it
        said = Said(f"Not attempted yet: your notebook does not define `{name}`. Write it in a cell (the "
                    "lesson notebook has its stub), run the cell, and grade again.",
                    f"아직 구현하지 않았습니다: 노트북에 {particle(f'`{name}`', '이')} 없습니다. "
                    "셀에 작성하고"
                    "(lesson.ipynb에 뼈대가 있습니다) 그 셀을 실행한 뒤 다시 채점하세요.")
        return said, Finding(status="not_started")
    return missing(
        Said("none", "없습니다"),
        Said("Check the spelling, that its cell defines it at top level, and the list of cells the grader "
             "did not run or that failed, in the report.",
             "철자, 그 셀의 최상위에서 정의했는지, 그리고 보고서의 '채점기가 실행하지 않았거나 실패한 최상위 "
             "코드' 목록을 확인하세요."))
