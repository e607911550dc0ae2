"""What check() says it read, and the log it could not see left out of its score.

A notebook's log is one of its Markdown cells, which a kernel's input history lacks: check() reads it from the
notebook file a front end names (grader/jupyter/where.py). Where none names one, check() says so, and which
log file it graded in its place; a log it did not see (no log file beside the notebook, or only the blank
template a notebook student never fills in) is left out of the score rather than deducted, the sentence
saying so and how to grade it (``results["check_note"]``, read by check()'s text and HTML views).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grader.core.lang import particle

if TYPE_CHECKING:
    from grader.engine.lesson_api import Lesson
    from grader.jupyter.where import FoundNotebook


def note_the_log(results: dict[str, Any], notebook: FoundNotebook | None, log_file: str | None,
                 lesson: Lesson | None) -> None:
    """Give ``results`` its ``check_note`` ({"en", "ko", "left_out"}), leaving out the log checks of a log
    check() did not see."""
    if results.get("error"):
        return
    if notebook is not None:
        if notebook.how == "colab":
            en, ko = "Colab's open notebook", "Colab에 열린 노트북"
        else:
            en, ko = f"{notebook.where} (as last saved)", f"{notebook.where}(마지막 저장본)"
        results["check_note"] = {"en": f"Read: the cells this kernel ran, and the Markdown of {en}.",
                                 "ko": f"읽은 것: 이 커널이 실행한 셀과 {ko}의 마크다운 셀.", "left_out": 0.0}
        return
    where_en = ("check() could not find which notebook file this kernel runs (neither Jupyter, VS Code nor "
                "Colab said), so it graded the cells this kernel ran")
    where_ko = ("check()가 이 커널이 실행하는 노트북 파일을 찾지 못했습니다"
                "(Jupyter, VS Code, Colab 모두 알려 주지 않음). 그래서 이 커널이 실행한 셀을 채점했습니다")
    documents = {t.name: t for t in (lesson.tasks if lesson is not None else ()) if t.document}
    logged = [t for t in results.get("tests") or [] if t.get("task") in documents]
    if not logged:  # no log graded in this run (-k another task, or a lesson without one)
        results["check_note"] = {"en": where_en + ".", "ko": where_ko + ".", "left_out": 0.0}
        return
    title_en = " / ".join(t.en for t in documents.values())
    title_ko = " / ".join(t.ko for t in documents.values())
    # still its blank template: every check of it "not started" (the record's status, core/finding.py)
    blank = all((t.get("feedback") or {}).get("status") == "not_started" for t in logged)
    how_en = ("To grade it, save the notebook and run `grade` on the .ipynb file, or call "
              "check(path=\"your_notebook.ipynb\").")
    how_ko = ("채점하려면 노트북을 저장하고 .ipynb 파일로 `grade`를 실행하거나 "
              "check(path=\"노트북.ipynb\")를 호출하세요.")
    if log_file is not None and not blank:  # a filled log file: graded, and named
        results["check_note"] = {
            "en": f"{where_en}, and the {title_en} in {log_file}, not a Markdown cell of this notebook. "
                  f"{how_en}",
            "ko": f"{where_ko}. {particle(title_ko, '는')} 이 노트북의 마크다운 셀이 아니라 {log_file}에서 "
                  f"읽었습니다. {how_ko}",
            "left_out": 0.0}
        return
    lost = _leave_out(results, set(documents))
    seen_en = (f" It found {log_file}, still the blank template, which is not this notebook's log cell."
               if log_file is not None else "")
    seen_ko = (f" {particle(log_file, '는')} 아직 빈 양식이고, 이 노트북의 기록 셀이 아닙니다."
               if log_file is not None else "")
    results["check_note"] = {
        "en": f"{where_en}; it could not read the {title_en} in this notebook's Markdown cells.{seen_en} "
              f"The {title_en} ({lost:g} points) is left out of this score, not deducted. {how_en}",
        "ko": f"{where_ko}. 이 노트북의 마크다운 셀에 있는 {particle(title_ko, '은')} 읽지 못했습니다."
              f"{seen_ko} "
              f"{title_ko}({lost:g}점)은 이 점수에서 빼 두었을 뿐 감점하지 않았습니다. {how_ko}",
        "left_out": lost}


def _leave_out(results: dict[str, Any], tasks: set[str]) -> float:
    """Drop ``tasks``' checks from ``results`` (their tests, task rows, points, what the hidden suite
    would take of them); the points left out."""
    dropped = [t for t in results.get("tests") or [] if t.get("task") in tasks]
    results["tests"] = [t for t in results.get("tests") or [] if t.get("task") not in tasks]
    for name in tasks:
        (results.get("tasks") or {}).pop(name, None)
    score = sum(float(t.get("score") or 0.0) for t in dropped)
    top = sum(float(t.get("max_score") or 0.0) for t in dropped)
    results["score"] = round(float(results.get("score", 0.0)) - score, 6)
    results["max_score"] = round(float(results.get("max_score", 0.0)) - top, 6)
    artifacts = results.get("artifacts") or {}
    if isinstance(artifacts.get("at_submission"), list):
        artifacts["at_submission"] = [e for e in artifacts["at_submission"] if e.get("task") not in tasks]
    results["left_out_tasks"] = sorted(tasks)
    return top
