"""The reports as people read them: in Korean, on a phone, on GitHub, on Gradescope, for the class.

The buggy example (public + hidden, hidden tests at visibility `hidden`) and the reference are
graded once; Korean and English pages are rendered from the same results.json. The two, as a class,
give summary.html. Chromium checks the 390 px layout where installed.
"""

from __future__ import annotations

import base64
import html as htmllib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.report.classpages import clip_words, write_class_report
from grader.report.gradescope import build_gradescope
from grader.report.i18n import STRINGS
from grader.report.render import render_html, render_markdown, render_summary_md, write_reports
from grader.report.view import student_output
from lesson_embedding_pe.report.texts import TEXT as LESSON_TEXT
from tests.conftest import built_once

ROOT = Path(__file__).resolve().parents[1]
PHONE = 390  # CSS px: an iPhone 12-15 in portrait


@pytest.fixture(scope="module")
def buggy(tmp_path_factory: pytest.TempPathFactory, cli_graded: Callable[[str], Path]) -> dict:
    """examples/buggy graded with the hidden suite, its reports hidden (the run's one such grade,
    conftest's cli_graded), with its pages rendered again in both languages beside a copy of it."""
    graded = cli_graded("buggy")

    def render(out: Path) -> None:
        shutil.copytree(graded, out, dirs_exist_ok=True)
        results = json.loads((out / "results.json").read_text())
        for lang in ("en", "ko"):
            write_reports(results, out / lang, lang, "examples/buggy")

    out = built_once(tmp_path_factory, "report_reading-buggy", render)  # read only, by every worker
    results = json.loads((out / "results.json").read_text())
    return {"results": results, "out": out, "pages": {lang: out / lang for lang in ("en", "ko")}}


def visible_text(page: str) -> str:
    """What a reader sees outside code: text nodes and alt text, plus the plots' SVG text."""
    svgs = [base64.b64decode(m).decode("utf-8")
            for m in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)]
    plot_text = " ".join(" ".join(re.findall(r"<text[^>]*>([^<]*)</text>", s)) for s in svgs)
    alts = " ".join(re.findall(r'alt="([^"]*)"', page))
    body = re.sub(r"<(code|pre|style|script|title)\b.*?</\1>", " ", page, flags=re.S)
    body = re.sub(r"<[^>]+>", " ", body)
    return htmllib.unescape(f"{body} {alts} {plot_text}")


# Every English UI string of the kit and of the lesson's own blocks that has a Korean one (words of 4+
# letters, so that a single "T=8" or "#" is not counted), and the strings the issue found left in English.
ENGLISH_UI = sorted(({en for en, ko in (*STRINGS.values(), *LESSON_TEXT.values())
                      if en != ko and re.search(r"[A-Za-z]{4,}", en)
                     and "{" not in en} | {"Difficulty", "Likely cause", "bag-of-tokens bound",
                                           "token accuracy", "cross-entropy loss"})
                    # single words that also occur in torch's own error text and in Korean prose ("optimizer
                    # step"); as labels they are checked below, where they would appear
                    - {"Expected", "step"})
# Latin words a Korean label may hold: names from the code and the lesson's symbols
ALLOWED_LATIN = {"none", "sin", "learned", "LeetCode", "T", "n", "train_reversal", "TokenAndPosEmbedding",
                 "evaluate", "weight", "tying", "buffer", "forward",
                 "bag", "of", "tokens"}  # "bag-of-tokens 상한": the one term of the stubs, lesson and reports


def test_korean_report_has_no_english_ui_text_plots_included(buggy: dict) -> None:
    page = (buggy["pages"]["ko"] / "feedback.html").read_text()
    text = visible_text(page)
    left = [s for s in ENGLISH_UI if re.search(rf"(?<![A-Za-z_]){re.escape(s)}(?![A-Za-z_])", text)]
    assert not left, left
    # labels (headings, table headers, card fields, captions) and the plots' own text: Korean only
    labels = [x for x in re.findall(r"<(?:h[1-3]|th|dt|figcaption|summary)[^>]*>([^<]*)<", page)
              if "::" not in x]  # a card's heading is its test id: a name, not UI text
    svgs = [base64.b64decode(m).decode()
            for m in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', page)]
    labels += [t for svg in svgs for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    english = {w for label in labels for w in re.findall(r"[A-Za-z_]+", htmllib.unescape(label))
               if w not in ALLOWED_LATIN and not re.fullmatch(r"test_\w+|[a-z]+_\w+", w)}
    assert not english, english
    # the plots are there, and labelled in Korean
    assert "스텝" in text and "토큰 정확도" in text and "bag-of-tokens 상한" in text
    assert "난이도" in text and "이 컴퓨터에는 CUDA 장치가 없습니다" in text  # LeetCode table, skip reasons
    md = (buggy["pages"]["ko"] / "feedback.md").read_text()
    md_text = re.sub(r"`[^`]*`", " ", md)
    assert not [s for s in ("Difficulty", "Likely cause", "**Expected:**", "**Found:**", "Time", "Space")
                if s in md_text]


def cards(page: str) -> list[tuple[str, list[str]]]:
    """(test id, the fields) of each failed check (one card per cause holds several: report/cards.py)."""
    out = []
    for m in re.finditer(r'<section class="check" id="fail-\d+">\s*<h4>([^<]+)<.*?</section>', page,
                         re.S):
        out.append((m.group(1), re.findall(r"<dt>", m.group(0))))
    return out


def test_cards_have_the_same_structure_in_both_languages(buggy: dict) -> None:
    en = cards((buggy["pages"]["en"] / "feedback.html").read_text())
    ko = cards((buggy["pages"]["ko"] / "feedback.html").read_text())
    assert [i for i, _ in en] == [i for i, _ in ko] and en
    assert [len(d) for _, d in en] == [len(d) for _, d in ko]
    # the structured card is the common case: Expected / Found in both
    assert sum(len(d) >= 3 for _, d in en) >= len(en) // 2


def test_position_zero_hint_is_part_of_what_was_expected(buggy: dict) -> None:
    for lang, exp, found, hint in (("ko", "기대한 것", "실제 결과", "0번 위치"),
                                   ("en", "Expected", "Found", "position 0")):
        page = (buggy["pages"][lang] / "feedback.html").read_text()
        card = re.search(r"test_max_len_one<.*?</article>", page, re.S).group(0)
        expected = re.search(rf"<dt>{exp}</dt><dd>(.*?)</dd>", card, re.S).group(1)
        got = re.search(rf"<dt>{found}</dt><dd>(.*?)</dd>", card, re.S).group(1)
        assert hint in expected and hint not in got, (lang, expected, got)


def test_grader_warnings_are_not_the_students_output(buggy: dict) -> None:
    res = buggy["results"]
    assert "UserWarning" not in res["worker"]["output"]  # the probes raise none (float(loss.detach()))
    # and should one come back (another torch), the report still keeps it out of the student's output
    noisy = ("/runtime/gk_probes.py:199: UserWarning: Converting a tensor with requires_grad=True to a "
             "scalar may lead to unexpected behavior.\nConsider using tensor.detach() first.\n"
             "  losses.append(float(loss))\nprinted by the student\n")
    assert student_output(noisy) == "printed by the student"
    for lang in ("en", "ko"):
        for name in ("feedback.html", "feedback.md"):
            page = (buggy["pages"][lang] / name).read_text()
            assert "UserWarning" not in page and "gk_probes" not in page


def test_one_log_figure_everywhere(buggy: dict) -> None:
    res = buggy["results"]
    task = res["tasks"]["leetcode_log"]
    figure = f"{round(task['score'], 2):g} / {round(task['max_score'], 2):g}"
    review = res["artifacts"]["leetcode_log"]
    assert review["max_points"] != task["max_score"]  # the review rubric is a part of the task, not all of it
    page = (buggy["pages"]["en"] / "feedback.html").read_text()
    assert re.search(r'id="log-points">([^<]+)<', page).group(1) == figure
    rows = dict(re.findall(r"<tr[^>]*><td>(?:&nbsp;)*([^<]+)</td><td class=\"num\">([^<]+)</td></tr>", page))
    # the breakdown is the log task's own tests, one line each: it adds up to the figure
    got = [tuple(float(x) for x in v.split(" / ")) for k, v in rows.items() if k.startswith("problem ")]
    assert len(got) == task["total"] and "of which the review rubric" not in rows
    totals = (sum(g[0] for g in got), sum(g[1] for g in got))
    assert totals == pytest.approx((task["score"], task["max_score"]))
    md = (buggy["pages"]["ko"] / "feedback.md").read_text()
    assert f"기록 점수: **{figure}**" in md
    summary = render_summary_md(dict(res, tests=res["tests"]), "en", "x")  # Gradescope's (visible) summary
    assert "Log points (review rubric)" not in summary


def test_none_mode_bound_carries_its_sampling_error(buggy: dict) -> None:
    exp = buggy["results"]["artifacts"]["experiment"]
    n = exp["component"]["harness"]["eval_samples"]
    b8 = exp["bound"]["8"]
    se = (b8 * (1 - b8) / n) ** 0.5
    for lang, word in (("en", "standard error"), ("ko", "표준오차")):
        page = (buggy["pages"][lang] / "feedback.html").read_text()
        assert f"± {se:.3f}" in page and word in page and str(n) in page
        md = (buggy["pages"][lang] / "feedback.md").read_text()
        assert f"{b8:.3g} ± {se:.3f}" in md


def test_feedback_md_summaries_are_clean_html(buggy: dict) -> None:
    """GitHub renders no Markdown inside raw <summary>: no backslash escapes there."""
    md = (buggy["pages"]["en"] / "feedback.md").read_text()
    summaries = re.findall(r"<summary>(.*?)</summary>", md)
    assert summaries and not any("\\" in s for s in summaries), [s for s in summaries if "\\" in s][:3]
    assert any("test_formula_small[4-6]" in s for s in summaries)


def test_gradescope_visible_output_shows_only_visible_tests(buggy: dict) -> None:
    res = buggy["results"]
    for visibility in ("hidden", "after_published", "after_due_date"):
        shaped = dict(res, tests=[dict(t, visibility=visibility) if t["id"].startswith("hidden/") else t
                                  for t in res["tests"]])
        gs = build_gradescope(shaped, "en", "examples/buggy",
                              render_summary_md(shaped, "en", "examples/buggy"))
        out = gs["output"]
        assert "hidden/" not in out and not any(t["id"].split("::")[-1] in out for t in res["tests"]
                                                if t["id"].startswith("hidden/"))
        public = [t for t in res["tests"] if t["id"].startswith("public/")]
        total = (f"{round(sum(t['score'] for t in public), 2):g} / "
                 f"{round(sum(t['max_score'] for t in public), 2):g}")
        assert f"{total}**" in out and f"/ {res['max_score']:g}" not in out
        assert "more tests are graded" in out
    # what `grade` wrote, with --hidden-visibility hidden
    gs = json.loads((buggy["out"] / "gradescope.json").read_text())
    assert "hidden/" not in gs["output"] and f"/ {res['max_score']:g}" not in gs["output"]


# -- summary.html ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def klass(buggy: dict, reference_results: dict, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """summary.html of a class of two real grades (the reference and the buggy example, graded with the
    hidden suite once for the run), each folder as `grade batch` leaves it; rendered as the batch renders
    its class (grader/report/classpages.py): the page's numbers and words come from the results alone."""
    out = tmp_path_factory.mktemp("class") / "out"
    for name, res in (("alice", reference_results), ("bob", buggy["results"])):
        (out / name).mkdir(parents=True)
        (out / name / "results.json").write_text(json.dumps(dict(res, submission=name)), encoding="utf-8")
        marker = {"name": name, "student_id": name, "status": "graded", "reason": "",
                  "duration": res.get("duration", 1.0)}
        (out / name / "batch.json").write_text(json.dumps(marker), encoding="utf-8")
    write_class_report(out)
    return out


def test_summary_html_numbers_words_and_failures(klass: Path) -> None:
    page = (klass / "summary.html").read_text()
    rows = list(json.loads((d / "results.json").read_text()) for d in klass.iterdir()
                if (d / "results.json").exists())
    scores = sorted(r["score"] for r in rows)
    assert any(s != round(s, 1) for s in scores)  # some score has two decimals (e.g. 69.25)
    for s in scores:
        assert f">{round(s, 2):g}<" in page  # shown exactly, never 69.2 for 69.25
    for status in re.findall(r'<div class="card">([^<]*)<b', page):
        assert "/" in status  # every card says what it counts in both languages
    failure_table = page.split("가장 많이 틀린 테스트부터", 1)[1].split("</table>", 1)[0]
    passed_by_all = {t["id"] for t in rows[0]["tests"]} - {t["id"] for r in rows for t in r["tests"]
                                                           if t["status"] != "passed"}
    assert passed_by_all and not any(f"<code>{i}</code>" in failure_table for i in passed_by_all)
    assert "(×" in failure_table
    # the histogram counts whole students
    svg = base64.b64decode(re.search(r'src="data:image/svg\+xml;base64,([^"]+)" alt="score histogram', page)
                           .group(1)).decode()
    ticks = [t for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)
             if re.fullmatch(r"[0-9.−-]+", t.strip())]
    assert ticks and not any("." in t for t in ticks), ticks


def test_clip_words_never_cuts_a_word() -> None:
    text = "expected a registered buffer named pe; found none " * 10
    cut = clip_words(text, 300)
    assert len(cut) <= 302 and cut.endswith(" …") and text.startswith(cut[:-2])
    assert text[len(cut) - 2] == " " or text[len(cut) - 2:len(cut) - 1] in " ,;:"
    assert clip_words("short", 300) == "short"


# -- phones ------------------------------------------------------------------------------------


OVERFLOW = """(() => { const W = document.documentElement.clientWidth; const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= W + 1) continue;
    let p = el.parentElement, scrolls = false;
    while (p) { if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX)) { scrolls = true; break; }
                p = p.parentElement; }
    if (!scrolls) out.push(el.tagName + ' ' + (el.textContent || '').slice(0, 40));
  }
  return out.slice(0, 10); })()"""


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_feedback_is_readable_on_a_phone(buggy: dict, chromium, lang: str, tmp_path: Path) -> None:
    visit = chromium.visit(buggy["pages"][lang] / "feedback.html", {
        "width": "document.documentElement.scrollWidth", "overflow": OVERFLOW,
        "keep_all": "getComputedStyle(document.querySelector('dd')).wordBreak",
    }, width=PHONE)
    assert visit.console_errors == [] and visit.network_requests == []
    assert visit.values["width"] <= PHONE and visit.values["overflow"] == [], visit.values
    assert visit.values["keep_all"] == ("keep-all" if lang == "ko" else "normal")
    (tmp_path / f"phone-{lang}.png").write_bytes(visit.screenshot)


def test_summary_is_readable_on_a_phone(klass: Path, chromium) -> None:
    visit = chromium.visit(klass / "summary.html", {"width": "document.documentElement.scrollWidth",
                                                    "overflow": OVERFLOW}, width=PHONE)
    assert visit.values["width"] <= PHONE and visit.values["overflow"] == [], visit.values


def test_markdown_is_within_limits_in_korean(buggy: dict) -> None:
    md = render_markdown(buggy["results"], "ko", "examples/buggy")
    assert 0 < len(md.encode()) < 1_000_000 and "실패한 검사" in md
    assert render_html(buggy["results"], "ko", "examples/buggy").startswith("<!DOCTYPE html>")


# -- locations -----------------------------------------------------------------------------------


def test_every_failure_has_a_location_at_the_students_code(buggy: dict) -> None:
    failed = [t for t in buggy["results"]["tests"] if t["status"] != "passed"]
    assert failed and all(t.get("location") for t in failed), [t["id"] for t in failed
                                                               if not t.get("location")]
    for t in failed:
        loc = t["location"]
        source = (ROOT / "examples" / "buggy" / loc["file"]).read_text().splitlines()
        line = source[loc["line"] - 1]
        # the traceback's line in the student's file, or the definition of what the test is about
        assert loc["file"] == "LEETCODE_LOG.md" or line.strip(), (t["id"], loc)
        if line.lstrip().startswith(("def ", "class ")):
            name = re.match(r"\s*(?:def|class)\s+(\w+)", line).group(1)
            assert name in t["id"] or t["task"] in ("sinusoidal_pe", "TokenAndPosEmbedding", "weight_tying",
                                                     "equivariance", "reversal_experiment"), (t["id"], name)
    pe = next(t for t in failed if "test_formula_small" in t["id"])
    assert (ROOT / "examples/buggy/embedding.py").read_text().splitlines()[pe["location"]["line"] - 1] \
        .startswith("def sinusoidal_pe(")
    practice = next(t for t in failed if "my_pow" in t["id"])
    assert (ROOT / "examples/buggy/leetcode.py").read_text().splitlines()[practice["location"]["line"] - 1] \
        .startswith("def my_pow(")


def test_a_notebook_failure_points_at_its_cell(tmp_path: Path) -> None:
    from grader.engine.locate import add_locations

    (tmp_path / "notebook.py").write_text("# --- cell 2 ---\nimport torch\n\n\n# --- cell 5 ---\n"
                                          "def sinusoidal_pe(max_len, d_model):\n    return None\n")
    results = {"tests": [
        {"id": "public/test_pe.py::test_shape_and_dtype", "task": "sinusoidal_pe", "status": "failed"},
        {"id": "public/test_pe.py::test_x", "task": "sinusoidal_pe", "status": "error",
         "location": {"file": "notebook.py", "line": 7}},
        {"id": "public/test_pe.py::test_y", "task": "sinusoidal_pe", "status": "passed"}]}
    add_locations(results, tmp_path, "lesson.ipynb")
    assert results["tests"][0]["location"] == {"file": "lesson.ipynb", "line": 6, "cell": 5}
    assert results["tests"][1]["location"] == {"file": "lesson.ipynb", "line": 7, "cell": 5}
    assert "location" not in results["tests"][2]
