"""A lesson's own blocks of a batch's summary.html (``ReportHooks.class_sections``, report/class_sections.py):
the lesson the class's results record draws them, with the kit's charts; a lesson that declares none has
none.
"""

from __future__ import annotations

import base64
import json
import textwrap
from pathlib import Path

import pytest

from grader.engine.lesson_api import Section
from grader.report import classpages
from grader.report.class_sections import CHARTS, heading
from grader.report.plots import PALETTE, UNLISTED, colour
from lesson_embedding_pe import class_report

LESSON_SOURCE = """
from pathlib import Path
from grader.engine.lesson_api import Layout, Lesson, ReportHooks, Section, Task

SEEN = []

{hook}


LESSON = Lesson(name="Tiny", tasks=(Task("unit", "Unit", "단위"),), layout=Layout(modules=("tiny",)),
                {field})
"""

CLASS_HOOK = "report=ReportHooks(class_sections=class_sections),"

SPREAD = """
def class_sections(results, charts):
    SEEN.append(list(results))
    scores = [r["score"] for r in results if r]
    image = charts.dots(["all"], [scores], ["all"], refs=[0.5], ref_label="half", y_title="score")
    return [Section("spread", "Spread <of> scores", "점수 분포", f'<img src="{image}" alt="spread">', "")]
"""


def _lesson(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, hook: str = "", field: str = "",
            ) -> str:
    """A lesson module named ``name`` on sys.path, with ``hook``'s source and ``field`` in its LESSON."""
    source = textwrap.dedent(LESSON_SOURCE).format(hook=hook, field=field)
    (tmp_path / "lessons").mkdir(exist_ok=True)
    (tmp_path / "lessons" / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "lessons"))
    return name


def _class(folder: Path, module: str, scores: dict[str, float], artifacts: dict | None = None) -> Path:
    """A graded class folder whose results record ``module`` as their lesson."""
    for name, score in scores.items():
        d = folder / name
        d.mkdir(parents=True)
        results = {"schema": 1, "submission": name, "score": score, "max_score": 1.0, "isolation": "process",
                   "lesson": {"name": module, "module": module, "version": "1",
                              "tasks": [{"name": "unit", "en": "Unit", "ko": "단위"}]},
                   "tasks": {"unit": {"score": score, "max_score": 1.0, "passed": 1, "total": 1}},
                   "tests": [{"id": "public/test_unit.py::test_x", "task": "unit", "status": "passed",
                              "score": score, "max_score": 1.0, "message": ""}],
                   "artifacts": artifacts or {}}
        (d / "results.json").write_text(json.dumps(results), encoding="utf-8")
        (d / "batch.json").write_text(json.dumps({"name": name, "student_id": name, "status": "graded",
                                                  "reason": "", "duration": 1.0}), encoding="utf-8")
    return folder


def _svg(uri: str) -> str:
    assert uri.startswith("data:image/svg+xml;base64,")
    return base64.b64decode(uri.split(",", 1)[1]).decode("utf-8")


def test_the_recorded_lessons_blocks_sit_under_a_bilingual_heading(tmp_path, monkeypatch) -> None:
    module = _lesson(tmp_path, monkeypatch, "tiny_class_lesson", SPREAD, CLASS_HOOK)
    out = _class(tmp_path / "batch", module, {"ann": 0.25, "ben": 1.0})
    html = classpages.write_class_report(out).summary.read_text(encoding="utf-8")
    # the heading escaped, both languages; the lesson's markup as it gave it, just before the kit's next block
    start = html.index("<h2>Spread &lt;of&gt; scores / 점수 분포</h2>\n<img src=\"data:image/svg+xml;base64,")
    assert html.index('alt="spread">\n\n<h2>From the grader') > start
    seen = __import__(module).SEEN
    assert [r["submission"] for r in seen[-1]] == ["ann", "ben"]  # every student's results, in class order
    svg = _svg(html[html.index("data:image/svg+xml", start):html.index('" alt="spread"')])
    assert svg.count("<circle") == 2 and "half" in svg


def test_a_lesson_without_the_hook_adds_no_block(tmp_path, monkeypatch) -> None:
    """Even for results holding what another lesson's block reads (an ``experiment`` artifact)."""
    module = _lesson(tmp_path, monkeypatch, "tiny_plain_lesson")
    runs = [{"mode": "sin", "acc_by_length": {"8": 1.0}}]
    out = _class(tmp_path / "batch", module, {"ann": 1.0}, {"experiment": {"student": {"runs": runs}}})
    html = classpages.write_class_report(out).summary.read_text(encoding="utf-8")
    assert "Reversal experiment" not in html and "No experiment numbers" not in html
    assert "</table>\n\n\n<h2>From the grader" in html  # nothing between the test table and the steps


def test_a_hook_that_gives_no_section_is_a_lessons_bug_said_as_such(tmp_path, monkeypatch) -> None:
    hook = "def class_sections(results, charts):\n    return ['<p>not a Section</p>']\n"
    module = _lesson(tmp_path, monkeypatch, "tiny_broken_lesson", hook, CLASS_HOOK)
    out = _class(tmp_path / "batch", module, {"ann": 1.0})
    with pytest.raises(TypeError, match="class_sections gave str, not a lesson_api.Section"):
        classpages.write_class_report(out)


def test_heading() -> None:
    assert heading(Section("k", "Runs", "실행", "", "")) == "Runs / 실행"
    assert heading(Section("k", "Runs", "", "", "")) == "Runs"
    assert heading(Section("k", "Runs", "Runs", "", "")) == "Runs"


def test_the_kits_dots_colour_by_series_and_draw_nothing_without_values() -> None:
    svg = _svg(CHARTS.dots(["a", "b", "c"], [[0.1, 0.2], [0.3], [0.9]], ["sin", "rope", "sin"],
                           refs=[0.5, None, 0.5]))
    circles = svg.count("<circle")
    assert circles == 4 and svg.count(PALETTE[0]) >= 3  # the first series' colour, for both of its groups
    assert PALETTE[1] in svg  # the second series, the next one
    assert CHARTS.dots(["a"], [[]], ["sin"]) is None


def test_a_lesson_fixes_its_series_colours_and_the_others_take_the_kits_spare_ones() -> None:
    fixed = class_report.MODE_COLOURS  # this lesson's modes
    svg = _svg(CHARTS.dots(["a", "b", "c"], [[0.1], [0.2], [0.3]], ["learned", "rope", "none"],
                           colours=fixed))
    spare = [c for c in PALETTE if c not in fixed.values()]
    assert fixed["learned"] in svg and fixed["none"] in svg and spare[0] in svg
    modes = ["sin", "rope", "learned", "alibi"]
    assert [colour(m, modes, fixed) for m in modes] == [fixed["sin"], spare[0], fixed["learned"], spare[1]]
    assert [colour(m, ["x", "y"]) for m in ("x", "y")] == list(PALETTE[:2])  # no lesson colours: in order
    assert colour("z", ["x"], fixed) == UNLISTED


def test_this_lessons_block_needs_results_that_record_the_experiment() -> None:
    assert class_report.class_sections([{"artifacts": {"leetcode_log": {}}}, {}], CHARTS) == []
    empty = {"artifacts": {"experiment": {"student": {"runs": []}}}}
    [section] = class_report.class_sections([empty], CHARTS)
    assert section.key == "experiment" and "No experiment numbers" in section.html
