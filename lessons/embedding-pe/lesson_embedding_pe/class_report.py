"""The reversal experiment across a class: this lesson's block of a batch's summary.html.

``ReportHooks.class_sections`` (grader/engine/lesson_api.py): every student's accuracy per mode and length
(the mean over seeds), the class's spread of it as a table and a dot chart (the kit's, handed in as
``charts``), the bag-of-tokens bound beside it. Shown for a class whose results record the experiment
(``artifacts["experiment"]``, experiment.py's schema); a batch of results without one has no block.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from markupsafe import escape

from grader.author import ClassCharts, Section
from lesson_embedding_pe.leetlog.unsure import TA_EN

KNOWN_BOUND = {8: 0.317, 12: 0.266}  # bag-of-tokens bound, vocab 10 (docs/contract.md)
MODE_ORDER = ("none", "sin", "learned")  # the table's order within a length; other modes after, by name
# each mode's colour in every chart of the experiment (here and report/charts.py); a mode the
# lesson does not have takes the kit's next spare colour
MODE_COLOURS = {"none": "#9e9e9e", "sin": "#1f77b4", "learned": "#d62728"}

TITLE = ("Reversal experiment across students", "학생별 순서 뒤집기 실험")
INTRO = ("<p>{n} students reported numbers; each dot is one student's accuracy averaged over seeds, "
         "the dashed line the bag-of-tokens bound. /\n학생 {n}명이 결과를 냈습니다. 점 하나가 한 학생(시드 "
         "평균)이고, 점선은 위치 정보 없이 가능한 최선(bag-of-tokens 상한)입니다.</p>")
NO_NUMBERS = ('<p class="muted">No experiment numbers in these results (the experiment is reported by the '
              "hidden suite). /\n이 결과에는 실험 수치가 없습니다(실험은 숨은 테스트가 기록합니다).</p>")
HEADER = ("<tr><th>Mode / 모드</th><th>Length / 길이</th><th>Students / 학생</th><th>Mean / 평균</th>"
          "<th>Median / 중앙값</th><th>Min–max</th><th>Bound / 상한</th></tr>")
ALT = "experiment accuracies / 실험 정확도"


def _lengths(mapping: Any) -> dict[int, float]:
    out: dict[int, float] = {}
    for k, v in (mapping or {}).items() if isinstance(mapping, dict) else []:
        try:
            out[int(k)] = float(v)
        except (TypeError, ValueError):
            continue
    return out


def experiment_runs(art: Any) -> list[dict]:
    """The runs of one student's experiment artifact (experiment.py's schema, or a plain list).

    The student's own experiment first; the grader's component runs when that is absent.
    """
    if isinstance(art, list):
        return [r for r in art if isinstance(r, dict)]
    if not isinstance(art, dict):
        return []
    for key in ("student", "component"):
        part = art.get(key)
        if isinstance(part, dict) and isinstance(part.get("runs"), list) and part["runs"]:
            return [r for r in part["runs"] if isinstance(r, dict)]
    for key in ("rows", "runs"):
        if isinstance(art.get(key), list):
            return [r for r in art[key] if isinstance(r, dict)]
    return []


def experiment_summary(results: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Each student's accuracy per mode and length (mean over seeds), summarised over the class."""
    per: dict[tuple[str, int], list[float]] = {}
    bound: dict[int, float] = dict(KNOWN_BOUND)
    students = 0
    for res in results:
        art = (res.get("artifacts") or {}).get("experiment")
        mine: dict[tuple[str, int], list[float]] = {}
        for run in experiment_runs(art):
            for length, acc in _lengths(run.get("acc_by_length")).items():
                mine.setdefault((str(run.get("mode", "?")), length), []).append(acc)
        if not mine:
            continue
        students += 1
        if isinstance(art, dict):
            bound.update(_lengths(art.get("bound")))
        for key, accs in mine.items():
            per.setdefault(key, []).append(statistics.fmean(accs))
    if not per:
        return None
    order = {m: i for i, m in enumerate(MODE_ORDER)}
    table = [{"mode": m, "length": n, "n": len(v), "mean": statistics.fmean(v),
              "median": statistics.median(v), "min": min(v), "max": max(v), "bound": bound.get(n)}
             for (m, n), v in sorted(per.items(),
                                     key=lambda kv: (kv[0][1], order.get(kv[0][0], 9), kv[0][0]))]
    return {"students": students, "table": table, "values": per, "bound": bound}


def experiment_plot(exp: dict[str, Any] | None, charts: ClassCharts) -> str | None:
    """Every student as a dot, per mode and length; the bag-of-tokens bound dashed."""
    if not exp:
        return None
    keys = [(row["mode"], row["length"]) for row in exp["table"]]
    return charts.dots([f"{m}\nT={n}" for m, n in keys], [exp["values"][key] for key in keys],
                       [m for m, _ in keys], refs=[exp["bound"].get(n) for _, n in keys],
                       ref_label="bag-of-tokens bound / bag-of-tokens 상한",
                       y_title="token accuracy / 토큰 정확도", colours=MODE_COLOURS)


def _num(value: float | None) -> str:
    """Three significant digits, as the kit's reports write a number (report/render.py); "–" for none."""
    if value is None:
        return "–"
    return f"{float(value):.3g}" if abs(float(value)) < 1000 else f"{float(value):.0f}"


def _row(row: dict[str, Any]) -> str:
    return (f'<tr><td><code>{escape(row["mode"])}</code></td><td class="n">{row["length"]}</td>'
            f'<td class="n">{row["n"]}</td>\n<td class="n">{_num(row["mean"])}</td>'
            f'<td class="n">{_num(row["median"])}</td>\n'
            f'<td class="n">{_num(row["min"])}–{_num(row["max"])}</td>'
            f'<td class="n">{_num(row["bound"])}</td></tr>')


def experiment_html(exp: dict[str, Any] | None, image: str | None) -> str:
    """The block's body: the intro, the chart and the table; a note where no student has numbers."""
    if not exp:
        return NO_NUMBERS
    picture = f'<img src="{escape(image)}" alt="{ALT}">' if image else ""
    rows = "\n".join(_row(row) for row in exp["table"])
    return (f'{INTRO.format(n=exp["students"])}\n{picture}<div class="table-wrap"><table>\n{HEADER}\n{rows}\n'
            "</table></div>")


TA_TITLE = ("LeetCode log parts a TA reads", "조교가 읽을 LeetCode 기록")
TA_INTRO = ("<p>The log reader takes a point only when it is sure. These parts it could not place: they "
            "cost nothing now. They are in <code>grade review DIR</code>, beside the flagged submissions; "
            "read each and decide with <code>grade review DIR ID --check KEY --confirm|--take --reason "
            "...</code>: the decision is kept across reruns, bound to the part it judged, and its reason "
            "shown to the student. /\n"
            "채점기는 확실할 때만 감점합니다. 아래는 채점기가 확신하지 못해 지금은 감점하지 않은 "
            "부분입니다. <code>grade review DIR</code>에 표시된 제출물과 함께 나옵니다. 읽어 보고 "
            "<code>grade review DIR ID --check KEY --confirm|--take --reason ...</code>로 결정하세요.</p>")


def unsure_parts(results: Sequence[Mapping[str, Any]]) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """(submission, its unsure log findings) of each student with any (leetlog/unsure.py)."""
    out = []
    for res in results:
        log = (res.get("artifacts") or {}).get("leetcode_log")
        found = [f for f in (log.get("findings") or []) if isinstance(f, Mapping)
                 and f.get("severity") == "unsure"] if isinstance(log, Mapping) else []
        if found:
            out.append((str(res.get("submission", "?")), found))
    return out


def _key(finding: Mapping[str, Any]) -> str:
    """The check's key in grade review (logta.py)."""
    from lesson_embedding_pe.logta import check_key

    return check_key(finding)


def _state(decision: Any) -> str:
    if not isinstance(decision, Mapping):
        return "pending / 결정 대기"
    return {"confirm": "confirmed / 확인", "take": f"points taken {decision.get('points', 0):g} / 감점",
            "void": "pending again: the part changed / 다시 결정 대기"}.get(str(decision.get("decision")),
                                                                       "pending / 결정 대기")


def ta_section(results: Sequence[Mapping[str, Any]]) -> Section | None:
    """The TA's queue of the log: each unsure part with its line and the student's words there."""
    queue = unsure_parts(results)
    if not queue:
        return None
    items = []
    for who, found in queue:
        source = str(((next(r for r in results if str(r.get("submission", "?")) == who).get("artifacts")
                       or {}).get("leetcode_log") or {}).get("source") or "").splitlines()
        res = next(r for r in results if str(r.get("submission", "?")) == who)
        decided = (res.get("final") or {}).get("checks") or {}
        rows = "".join(
            f"<li><code>{escape(_key(f))}</code> ({escape(_state(decided.get(_key(f))))}): "
            f"{escape(str(f.get('message_en', '')).replace(TA_EN, '').strip())}"
            + (f"<br><code>{escape(source[f['line'] - 1].strip())}</code> (line {f['line']})"
               if isinstance(f.get("line"), int) and 0 < f["line"] <= len(source) else "") + "</li>"
            for f in found)
        items.append(f"<details><summary>{escape(who)} ({len(found)})</summary><ul>{rows}</ul></details>")
    share = f"<p>{len(queue)} of {len(results)} students / 학생 {len(results)}명 중 {len(queue)}명</p>"
    return Section("log-ta", *TA_TITLE, html=f"{TA_INTRO}\n{share}\n" + "\n".join(items), markdown="")


def class_sections(results: Sequence[Mapping[str, Any]], charts: ClassCharts) -> list[Section]:
    """The experiment's block, for a class whose results record the experiment, and the log parts a TA
    reads, for a class with any (none otherwise)."""
    sections = []
    if any("experiment" in (res.get("artifacts") or {}) for res in results):
        exp = experiment_summary(results)
        html = experiment_html(exp, experiment_plot(exp, charts))
        sections.append(Section("experiment", *TITLE, html=html, markdown=""))  # no Markdown form
    ta = ta_section(results)
    if ta is not None:
        sections.append(ta)
    return sections
