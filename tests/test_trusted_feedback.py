"""Feedback a student trusts: one cause across checks, counts that add up, words for the place.

Real grades of real submissions: the corpus's `.data` tying copy, a plain-attribute table, a
concatenated sin|cos table and the stubs. Each page (terminal, feedback.html, feedback.md) is read
back and its numbers added up against results.json, never against the code that wrote them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pace
import pytest
from rich.console import Console

from grader.core.lang import particle
from grader.report.render import render_html, render_markdown
from grader.report.terminal import summary_renderables
from lesson_embedding_pe.paths import SUITES as EMBEDDING_SUITES
from tests.conftest import CORPUS, ROOT, grade


def terminal(results: dict, lang: str = "en") -> str:
    console = Console(width=100, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    for item in summary_renderables(results, lang, "exercises"):
        console.print(item, highlight=False)
    return console.export_text()


@pytest.fixture(scope="module")
def tying() -> dict:
    return grade(CORPUS / "bug_tie_data_copy", hidden=True, keyword="tied or count_params")


@pytest.fixture(scope="module")
def plain_table() -> dict:
    return grade(CORPUS / "bug_pe_plain_attr", hidden=True,
                 keyword="buffer or to_meta or cuda_simulated or double_gives")


@pytest.fixture(scope="module")
def concat() -> dict:
    return grade(CORPUS / "bug_concat_sincos", hidden=False)


@pytest.fixture(scope="module")
def stub(cli_graded: Callable[[str], Path]) -> dict:
    """The untouched stubs graded with the public suite, as `grade` wrote it (once per run:
    tests/conftest.py ``cli_graded``)."""
    return json.loads((cli_graded("stub") / "results.json").read_text(encoding="utf-8"))


def failed_ids(results: dict) -> set[str]:
    return {t["id"] for t in results["tests"] if t["status"] != "passed"}


def cards_of(page: str) -> list[str]:
    return re.findall(r'<article class="card[^"]*" data-checks="\d+">.*?</article>', page, re.S)


def test_count_params_doubled_by_a_copied_head_is_one_card_that_says_fix_tying_first(tying):
    failed = failed_ids(tying)
    assert any("count_params" in i for i in failed) and any("tied" in i for i in failed)
    for lang, first in (("en", "Fix the tying first"), ("ko", "가중치 공유부터 고치세요")):
        page = render_html(tying, lang, "exercises")
        cards = cards_of(page)
        assert len(cards) == 1, "the tying and the count it doubles are one mistake"
        assert all(i in cards[0] for i in failed)
        assert first in cards[0] and 'data-first="tying"' in cards[0]
        # the count check comes after the tying checks, marked as following from them
        heads = re.findall(r"<h4>([^<]*)<", cards[0])
        assert [("count_params" in h) for h in heads] == sorted("count_params" in h for h in heads)
        text = terminal(tying, lang)
        assert first in text
        assert "Other causes" not in text and "그 밖의 원인" not in text
        md = render_markdown(tying, lang, "exercises")
        assert first in md.replace("\\", "")


def test_a_plain_attribute_table_explains_the_device_checks(plain_table):
    failed = failed_ids(plain_table)
    device = [i for i in failed if "[sin]" in i]
    assert device, "the plain attribute must fail a device check"
    cards = cards_of(render_html(plain_table, "en", "exercises"))
    assert len(cards) == 1 and all(i in cards[0] for i in failed)
    assert "Fix the buffer first" in cards[0]


def test_no_cause_is_borrowed_where_the_cause_check_passes(concat):
    # a table bug fails sinusoidal_pe only; nothing here is tying or a buffer
    page = render_html(concat, "en", "exercises")
    assert "first:" not in page.lower().replace("fix the", "")
    assert 'class="first"' not in page


@pytest.mark.parametrize("case", ["tying", "plain_table", "concat", "stub"])
def test_every_count_on_every_page_adds_up_to_results_json(case, request):
    results = request.getfixturevalue(case)
    n = len(failed_ids(results))
    for lang in ("en", "ko"):
        page = render_html(results, lang, "exercises")
        head = re.search(r"<h2>(?:Failed checks|실패한 검사) \((\d+)\)</h2>", page)
        assert head and int(head.group(1)) == n
        shown = sum(int(x) for x in re.findall(r'data-checks="(\d+)"', page))
        assert shown == n, "every failed check is in exactly one card or not-started line"
        line = re.search(r'id="cards-count">([^<]*)<', page)
        if line:
            text = line.group(1)
            numbers = [int(x) for x in re.findall(r"\d+", text)]
            assert numbers[0] == n
            n_cards = len(cards_of(page))
            in_cards = sum(int(x) for x in re.findall(r'<article class="card[^"]*" data-checks="(\d+)"',
                                                       page))
            assert "1 causes" not in text and "1 tasks" not in text
            if re.search(r"not started|시작하지 않은", text):  # "n: c from m causes, and k in tasks ..."
                assert numbers[-1] == n - in_cards and in_cards in numbers[1:-1]  # the parts add up
                one = "one cause" in text or "원인 한 가지" in text
                assert one == (n_cards == 1) and (one or n_cards in numbers[1:-1])
            else:
                assert (numbers[1] if len(numbers) > 1 else 1) == n_cards
        md = render_markdown(results, lang, "exercises")
        assert re.search(rf"### (?:Failed checks|실패한 검사) \({n}\)", md)
        every = re.search(r"(?:Every failed check \((\d+)\)|실패한 검사 (\d+)개 모두)",
                          terminal(results, lang))
        one = re.search(r"The failed check, with its command|실패한 검사와 재현 명령",
                        terminal(results, lang))
        assert (one and n == 1) if every is None else int(every.group(1) or every.group(2)) == n > 1


def test_the_terminal_and_markdown_never_point_at_a_picture(concat):
    # the pages without a picture keep the diagnosis, without words that point at one
    for lang, words in (("en", ("in the picture",)), ("ko", ("그림에서", "그림의"))):
        for page in (terminal(concat, lang), render_markdown(concat, lang, "exercises")):
            assert not any(w in page for w in words)
            assert "sin" in page and ("interleaves" in page or "번갈아" in page)
        assert any(w in render_html(concat, lang, "exercises") for w in words)


@pytest.mark.parametrize(("word", "josa", "expected"), [
    ("다음 주 월요일", "가", "다음 주 월요일이"),   # ㄹ final: 이
    ("파일", "으로", "파일로"),                     # ㄹ final: 로, not 으로
    ("집", "으로", "집으로"),                       # other final: 으로
    ("학교", "으로", "학교로"),                     # vowel: 로
    ("사과", "을", "사과를"), ("책", "를", "책을"),
    ("버퍼", "과", "버퍼와"), ("표", "이라", "표라"), ("행", "이라", "행이라"),
    ("`none`", "은", "`none`은"), ("`pe`", "을", "`pe`를"), ("count_params", "은", "count_params는"),
    ("TinyLM", "은", "TinyLM은"), ("GPU", "가", "GPU가"), ("64000", "이", "64000이"), ("3", "으로", "3으로"),
    ("'2026-13-01'", "가", "'2026-13-01'이"), ("%", "가", "%이(가)"),
    ("가중치 공유(weight tying)", "는", "가중치 공유(weight tying)는"),
    ("pe[:, 0::2]", "로", "pe[:, 0::2]로"),
    ("0.25", "이어야", "0.25여야"), ("1.000000", "이어야", "1.000000이어야"), ("True", "이어야", "True여야"),
    ("(2, 5)", "이어야", "(2, 5)여야"), ("(4, 6)", "여야", "(4, 6)이어야"),
    ("torch.int64", "이어야", "torch.int64여야"), ("logit", "을", "logit을"), ("x.dtype", "가", "x.dtype이"),
    ("Colab", "가", "Colab이"), ("ValueError", "이", "ValueError가"),
    # a power reads '제곱'; another script's digit as its value (these raised KeyError: '²'.isdigit())
    ("O(n²)", "은", "O(n²)은"), ("n³", "로", "n³으로"), ("２", "는", "２는"),
])
def test_korean_particle_follows_the_final_sound(word, josa, expected):
    assert particle(word, josa) == expected


def test_the_change_line_names_titles_in_local_time_and_is_quiet_about_the_unchanged(tying, monkeypatch):
    import time

    from grader.engine.history import summarize
    from grader.report.changes import change_view

    monkeypatch.setenv("TZ", "Asia/Seoul")
    time.tzset()
    try:
        then = time.time() - 60
        same = dict(tying, previous=summarize(tying, then))  # an unrelated edit: the same checks fail
        for lang in ("en", "ko"):
            view = change_view(same, lang)
            assert "still fails" not in view["text"] and "아직 실패" not in view["text"]
            assert view["when"] == time.strftime("%H:%M", time.localtime(then))  # KST, not UTC
            assert "UTC" not in view["text"]
        # worked on the tying, still failing: the task is named, by its title
        fewer = dict(tying, tests=[t for t in tying["tests"] if "count_params" not in t["id"]])
        worked = dict(tying, previous=summarize(fewer, then))
        assert "Weight tying still fails" in change_view(worked, "en")["text"]
        assert "가중치 공유(weight tying): 아직 실패" in change_view(worked, "ko")["text"]
        assert "weight_tying" not in change_view(worked, "en")["text"]
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_notebook_and_exercises_keep_their_own_reports_and_history(tmp_path):
    import shutil
    import subprocess
    import sys

    shutil.copytree(ROOT / "solutions", tmp_path / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "examples" / "notebook.ipynb", tmp_path / "my_lesson.ipynb")

    def grade_cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "grader.cli", *args, "-k", "count_params",
                               "--lang", "en"], cwd=tmp_path, capture_output=True, text=True,
                               timeout=pace.seconds(300))

    first = grade_cli()
    assert first.returncode == 0, first.stderr
    assert "reports/feedback.html" in first.stdout
    notebook = grade_cli("my_lesson.ipynb")
    assert notebook.returncode == 0, notebook.stderr
    assert "reports/my_lesson/feedback.html" in notebook.stdout
    mine = json.loads((tmp_path / "reports" / "my_lesson" / "results.json").read_text())
    assert mine["submission"] == "my_lesson"
    again = grade_cli()
    results = json.loads((tmp_path / "reports" / "results.json").read_text())
    assert results["submission"] == "exercises" and "previous" in results  # its history survived
    assert "since the last run" in again.stdout


def test_the_log_review_matches_korean_particles_to_the_students_words():
    from lesson_embedding_pe.leetlog import review_log

    log = (ROOT / "solutions" / "LEETCODE_LOG.md").read_text(encoding="utf-8")
    # (a day counted from another, '다음 주 월요일', goes to a TA with no date quoted: tests/leetlog_cases)
    for written, expected in (("방학 중", "'방학 중'이 YYYY-MM-DD"),  # ㅇ final: 이
                              ("someday", "'someday'가 YYYY-MM-DD")):  # a vowel: 가
        review = review_log(log.replace("2026-10-05", written)).to_dict()
        korean = " ".join(f["message_ko"] for f in review["findings"])
        assert expected in korean, korean
        assert "'가 YYYY" not in korean.replace(expected, "")


MIN_TEXT_PX = """(() => {
  const sizes = [];
  for (const svg of document.querySelectorAll('svg')) {  // inline: the table beside the formula's
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    for (const t of svg.querySelectorAll('text')) {
      sizes.push(parseFloat(t.getAttribute('font-size')) * scale);
    }
  }
  for (const img of document.querySelectorAll('figure.chart img')) {  // the charts, as data: SVG
    const scale = img.getBoundingClientRect().width / img.naturalWidth;
    const source = atob(img.src.split(',')[1]);
    for (const m of source.matchAll(/font-size="([0-9.]+)"/g)) sizes.push(parseFloat(m[1]) * scale);
  }
  return sizes.length ? Math.min(...sizes) : null;
})()"""


def test_a_phone_reads_every_chart_label_and_every_score(concat, chromium, tmp_path):
    from grader.report.render import write_reports

    for lang in ("en", "ko"):
        out = tmp_path / lang
        write_reports(concat, out, lang, "exercises")
        visit = chromium.visit(out / "feedback.html", {
            "min_text": MIN_TEXT_PX,
            "charts": "document.querySelectorAll('figure.chart img').length",
            "page_width": "document.documentElement.scrollWidth",
            "score_lines": "(() => { const e = document.getElementById('score');"
                           " return e.getBoundingClientRect().height"
                           " / parseFloat(getComputedStyle(e).fontSize); })()",
            "outlines": "[...document.querySelectorAll('[data-wrong]')].every(g =>"
                        " g.querySelectorAll('rect').length === 2"
                        " && [...g.querySelectorAll('rect')].map(r => r.getAttribute('stroke'))"
                        ".includes('#fff'))",
            "wrong": "document.querySelectorAll('[data-wrong]').length",
            # the experiment's table fits the phone; a wide table shows a shadow at the edge it scrolls to
            "tables": "[...document.querySelectorAll('.table-wrap')].map(w => [w.scrollWidth - w.clientWidth,"
                      " getComputedStyle(w).backgroundImage.includes('radial-gradient')])",
        }, width=390)
        assert visit.console_errors == []
        assert visit.values["charts"] > 0 and visit.values["wrong"] > 0
        # chart and table text as rendered at 390 px (to a tenth: sub-pixel layout)
        assert round(visit.values["min_text"], 1) >= 11, visit.values
        assert visit.values["page_width"] <= 390  # the charts scroll in their figure, the page does not
        assert visit.values["score_lines"] < 1.5  # "80.5 / 94.5" on one line, never "80.5 /⏎94.5"
        assert visit.values["outlines"] is True
        assert visit.values["tables"] and all(over <= 0 and shadow for over, shadow in visit.values["tables"])
        (tmp_path / f"phone-{lang}.png").write_bytes(visit.screenshot)


def test_a_task_that_earns_points_is_never_listed_as_not_started(tmp_path):
    import shutil

    sub = tmp_path / "exercises"
    sub.mkdir()
    for name in ("embedding.py", "leetcode.py"):
        shutil.copy(ROOT / "solutions" / name, sub / name)
    shutil.copy(ROOT / "exercises" / "reversal.py", sub / "reversal.py")  # the stub: harness points only
    results = grade(sub, hidden=False, keyword="reversal")
    task = results["tasks"]["reversal_experiment"]
    assert 0 < task["score"] < task["max_score"]
    for lang, words in (("en", "the rest of this task already earns points"),
                        ("ko", "이미 점수를 받았습니다")):
        page = render_html(results, lang, "exercises")
        assert 'id="not-started"' not in page and words in page
        assert len(cards_of(page)) == 1
        text = terminal(results, lang)
        assert "Not started yet" not in text and "아직 시작하지 않은" not in text


@pytest.mark.parametrize("found,expected,twice", [
    (128000, 64000, True), (128000.0, 64000, True), (128001, 64000, False), (64000, 64000, False),
    ("128000", 64000, False), (True, 1, False), (float("inf"), 64000, False), (float("nan"), 64000, False)])
def test_only_a_count_of_exactly_twice_the_tied_size_is_explained_by_the_tying(found, expected, twice):
    from lesson_embedding_pe.causes import counted_twice

    assert counted_twice(found, expected) is twice


def test_a_students_exception_and_a_failed_import_keep_their_place_in_the_record():
    """finding_of: the place the words name goes to the record's ``where``; the words stay as they were."""
    from grader.core.errors import ImportFailed, StudentRaised
    from grader.core.feedback import describe_problem, finding_of

    where = {"file": "embedding.py", "line": 12, "code": "x = 1 / 0"}
    raised = StudentRaised("ZeroDivisionError", "division by zero", where)
    assert describe_problem(raised)[0].en == ("Your code raised ZeroDivisionError: division by zero (at "
                                              "embedding.py:12 `x = 1 / 0`). The test expected a result "
                                              "here.")
    assert finding_of(raised).where == ("embedding.py:12",) and finding_of(raised).status == "failed"
    broken = ImportFailed("embedding", "SyntaxError", "invalid syntax", {"file": "embedding.py", "line": 3})
    record = finding_of(broken)
    assert record.where == ("embedding.py:3",) and record.command == 'python -c "import embedding"'
    assert finding_of(StudentRaised("ValueError", "no")).where == ()


def test_a_kit_check_the_buffer_explains_keeps_its_words_and_gains_the_link():
    """The hidden suite's dtype check after .double() is testkit's: it carries the lesson's "buffer" cause
    as ``explained_by`` in its record, and its words stay the kit's."""
    import torch

    from grader.core.feedback import GradeFailure
    from grader.core.testkit import check_dtype

    suite = (EMBEDDING_SUITES / "hidden" / "test_embedding.py")
    assert "explained_by=_buffer_explains(mode)" in suite.read_text(encoding="utf-8")
    with pytest.raises(GradeFailure) as info:
        check_dtype(torch.zeros(2), torch.float64, "mode='sin': output after .double()",
                    explained_by="buffer")
    assert info.value.finding.explained_by == "buffer"
    assert info.value.message.en == ("mode='sin': output after .double(): expected dtype torch.float64; "
                                     "found torch.float32.")


def test_a_cause_cut_to_one_line_ends_at_a_sentence_or_a_space_never_inside_code() -> None:
    from grader.report.terminal import _first_line

    code = "`scores.masked_fill(~mask, float('-inf')).softmax(-1)`"
    long = f"The mask is applied after the softmax: fill the scores with {code} first, " + "then " * 30
    cut = _first_line(long)
    assert len(cut) <= 162 and cut.endswith(" …") and cut.count("`") % 2 == 0, cut
    said = "가중치 공유부터 고치세요: 같은 실수 때문에 count_params 검사도 실패합니다. " * 4
    cut = _first_line(said)
    assert cut.endswith("실패합니다. …") and said.startswith(cut[:-2]) and len(cut) <= 162, cut
    assert _first_line("short and whole") == "short and whole"


def test_a_worker_that_never_started_is_the_graders_failure_not_the_students_code():
    """Exit 122 is gk_init's or the zygote's "cannot start the worker": never "your code died"."""
    from grader.core.errors import WorkerCrashed
    from grader.core.feedback import describe_problem

    crashed = WorkerCrashed("[Errno 104] Connection reset by peer", "exit status 122")
    message, status = describe_problem(crashed)
    assert status == "error" and "could not start" in message.en and "run it again" in message.en
    assert "Errno" not in message.en + message.ko and "다시 실행하세요" in message.ko
    died, _ = describe_problem(WorkerCrashed("EOF", "killed by SIGKILL: over the memory limit"))
    assert "died" in died.en and "memory limit" in died.en


def test_watch_tells_one_cause_once_with_its_points_as_the_summary_does(concat, tmp_path):
    """`grade --watch`'s view after a grade: the concatenated table's two failed checks are one line,
    with the points and the count the terminal's top three give it, cut to the terminal's width."""
    import json as _json

    from grader.daemon.watch import summary
    from grader.report.terminal import watch_lines

    results_file = tmp_path / "results.json"
    results_file.write_text(_json.dumps(concat))
    for lang, words in (("en", "(−4) (2 checks, one cause): sin and cos are concatenated"),
                        ("ko", "(−4) (검사 2개, 원인 하나): sin과 cos를 이어 붙였습니다")):
        lines = summary("", results_file, lang, 100, lambda r, lg: watch_lines(r, lg, "exercises"))
        assert lines[0] == f"{concat['score']:g} / {concat['max_score']:g}"
        assert [line for line in lines if line.startswith("✗")] == [lines[1]] and words in lines[1]
        assert all(len(line) <= 100 for line in lines)


def test_check_text_tells_one_cause_once_as_its_html_does(concat):
    """check()'s plain-text view (a console, a non-HTML frontend): the two failed checks of the
    concatenated table are one line with their points and count, as in the HTML view and the terminal."""
    from grader.jupyter.check import CheckResult

    for lang, words in (("en", "(−4) (2 checks, one cause): sin and cos are concatenated"),
                        ("ko", "(−4) (검사 2개, 원인 하나): sin과 cos를 이어 붙였습니다")):
        text = repr(CheckResult(concat, lang, None))
        causes = [line for line in text.splitlines() if line.startswith("- ")]
        assert len(causes) == 1 and words in causes[0], text
        assert "test_formula_small" not in text
