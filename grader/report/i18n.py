"""The fixed strings every lesson's reports share (HTML, Markdown, Gradescope, terminal, text, CI), in English
and Korean. A lesson's own texts live in its package and reach the page in its report blocks
(ReportHooks.sections); a skip its suites explain carries its own words in results.json (``messages``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STRINGS: dict[str, tuple[str, str]] = {
    "title": ("Grading feedback", "채점 피드백"),
    "score": ("Score", "점수"),
    "submission": ("Submission", "제출물"),
    "suites": ("Suites", "테스트 묶음"),
    # which tests ran, as a student reads it (the sandbox's isolation is in "How this was graded")
    "ran_public": ("public tests", "공개 테스트"),
    "ran_hidden": ("hidden tests", "숨은 테스트"),
    "ran_both": ("public and hidden tests", "공개·숨은 테스트"),
    "tasks": ("Tasks", "과제 항목"),
    "task": ("Task", "항목"),
    "points": ("Points", "점수"),
    "tests_passed": ("Checks passed", "통과한 검사"),  # a check, as the cards and every count say
    "top_fixes": ("Top three things to fix", "가장 먼저 고칠 세 가지"),
    "nothing_to_fix": ("Nothing to fix: every check passed.",
                       "고칠 것이 없습니다: 모든 검사를 통과했습니다."),
    "nothing_failed_pending": ("Every check this run ran passed, but the deduction above comes when you "
                               "submit: fix it now to keep those points.",
                               "이번 실행의 검사는 모두 통과했지만, 위의 감점은 제출할 때 반영됩니다. "
                               "그 점수를 지키려면 지금 고치세요."),
    "nothing_failed_taken": ("Every check this run ran passed, but a TA read {parts} and took {points} "
                             "point(s) (the reason is above): fix that part.",
                             "이번 실행의 검사는 모두 통과했지만, 조교가 {parts} 부분을 읽고 {points}점을 "
                             "감점했습니다(이유는 위에 있습니다): 그 부분을 고치세요."),
    "given_back_note": ("The instructor's adjustment gave back {n} of these points.",
                        "강사 조정으로 이 중 {n}점을 돌려받았습니다."),
    "nothing_to_fix_filtered": ("Nothing to fix in the {n} checks this run (-k {keyword}) ran; checks "
                                "outside the filter did not run.",
                                "이번 실행(-k {keyword})이 돌린 검사 {n}개에는 고칠 것이 없습니다. 필터 "
                                "밖의 검사는 실행하지 않았습니다."),
    "filtered_full_lost": ("Your last full run still loses {lost} points elsewhere.",
                           "마지막 전체 채점에서는 다른 곳에서 아직 {lost}점을 잃고 있습니다."),
    "report_at_filtered": ("This filtered run's report: {html}", "이번 일부 채점의 보고서: {html}"),
    "failed_tests": ("Failed checks", "실패한 검사"),
    "hidden_at_submit": ("The hidden tests still run when you submit.",
                         "숨은 테스트는 제출할 때 따로 실행됩니다."),
    "all_passed": ("All checks passed.", "모든 검사를 통과했습니다."),
    "expected": ("Expected", "기대한 것"),
    "found": ("Found", "실제 결과"),
    "cause": ("Likely cause", "원인 추정"),
    "fix": ("How to fix", "고치는 방법"),
    "message": ("Message", "메시지"),
    "reproduce": ("Reproduce locally", "내 컴퓨터에서 재현"),
    "hidden_reproduce": ("Closest check you can run (this task's public tests)",
                         "직접 돌려 볼 수 있는 가장 가까운 검사(이 과제의 공개 테스트)"),
    "hidden_note": ("Hidden test: it runs when you submit; the public tests of the same task are your "
                    "closest check.",
                    "숨은 테스트: 제출할 때 실행됩니다. 같은 항목의 공개 테스트로 먼저 확인하세요."),
    "check": ("Check", "검사 항목"),
    "status_passed": ("passed", "통과"),
    # a check passed provisionally (results.json ta_checks): the student learns only that a TA reads it
    "ta_reads_part": ("passed for now: a TA will read part of this ({keys}); no point is taken for it now",
                      "지금은 통과: 이 중 일부({keys})는 조교가 직접 읽습니다. 지금은 감점하지 않습니다"),
    "ta_read_part": ("passed; a TA read part of this ({keys}): the final total says what they decided",
                     "통과. 이 중 일부({keys})는 조교가 읽었습니다. 결정은 최종 점수에 있습니다"),
    "status_failed": ("failed", "실패"),
    "status_error": ("error", "오류"),
    "status_timeout": ("timeout", "시간 초과"),
    "log_points": ("Log points", "기록 점수"),
    "environment": ("How this was graded", "채점 환경"),
    "isolation": ("Isolation", "격리 수준"),
    "versions": ("Versions", "버전"),
    "duration": ("Duration", "소요 시간"),
    "restarts": ("Worker restarts", "작업 프로세스 재시작"),
    "dropped": ("Ignored files", "무시한 파일"),
    "skipped": ("Skipped tests", "건너뛴 테스트"),
    "unreadable": ("The submission could not be read", "제출물을 읽을 수 없습니다"),
    "review_flagged": ("Listed for an instructor's review: points resting on the grader's own checks "
                       "are withheld",
                       "강사 검토 대상: 채점기 자체 검사에 기대는 점수는 보류되었습니다"),
    # after the instructor's decision (results["final"]["review"]): the banner says it, never stale
    "review_pending": ("Listed for an instructor's review: points resting on the grader's own checks "
                       "are withheld until the instructor decides",
                       "강사 검토 대상: 채점기 자체 검사에 기대는 점수는 강사가 결정할 때까지 보류됩니다"),
    "review_accepted": ("Reviewed by the instructor and accepted: the withheld points your checks earned "
                        "are restored",
                        "강사가 검토해 승인했습니다: 보류되었던 점수 중 검사를 통과한 만큼 복원되었습니다"),
    "review_rejected": ("Reviewed by the instructor: the withheld points stay withheld",
                        "강사가 검토했습니다: 보류된 점수는 그대로 보류됩니다"),
    "truncated": ("This report was cut to stay under {limit}; the full report is feedback.html.",
                  "{limit} 제한 때문에 보고서를 줄였습니다. 전체 내용은 feedback.html에 있습니다."),
    "more_output": ("Details", "자세히"),
    "grading": ("Grading", "채점 중"),
    "worker_output": ("Output printed by your code", "코드가 출력한 내용"),
    "withheld": ("Above: the tests you can see now. {n} more tests are graded; their results and points "
                 "appear when the instructor publishes them.",
                 "위 내용은 지금 볼 수 있는 테스트입니다. 테스트 {n}개가 더 채점되었고, 그 결과와 점수는 "
                 "강사가 공개할 때 보입니다."),
    # the term (grader/instructor/term): results["final"], the total after the late policy and decisions
    "final_total": ("Final total (after the course's late policy and the instructor's decisions)",
                    "최종 점수(과목의 지각 규정과 강사의 결정 반영)"),
    "excused": ("excused by the instructor: this work does not count toward your grade",
                "강사가 면제함: 이 과제는 성적에 들어가지 않습니다"),
    "final_on_time": ("Submitted on time: the final total is the grader's score.",
                      "기한 안에 제출: 최종 점수는 채점 점수와 같습니다."),
    "skip_no_cuda": ("no CUDA device on this machine (the simulated-CUDA test covers it)",
                     "이 컴퓨터에는 CUDA 장치가 없습니다(시뮬레이션한 CUDA 테스트가 대신 확인합니다)"),
    "text_head": ("Grade", "채점 결과"),
    "text_unreadable": ("Submission unreadable", "제출물을 읽을 수 없습니다"),
    "text_to_fix": ("To fix:", "고칠 것:"),
    "text_ignored": ("Ignored", "무시한 항목"),
    "converted": ("Read with a conversion", "변환해서 읽은 파일"),
    "text_skipped": ("Skipped", "건너뜀"),
    "ci_hidden_details": ("Hidden test: its details are not shown.",
                          "숨은 테스트입니다: 자세한 내용은 공개되지 않습니다."),
    "ci_more_problems": ("{n} more problems: see the job summary.",
                         "{n}개의 문제가 더 있습니다: 작업 요약을 보세요."),
    "ci_weak_isolation": ("The hidden suite ran without namespace isolation: the student's code could have "
                          "read it. Run with --isolation namespaces as root.",
                          "숨은 테스트를 namespaces 격리 없이 실행했습니다: 학생 코드가 숨은 테스트를 읽을 "
                          "수 있었습니다. root 권한으로 --isolation namespaces를 지정해 실행하세요."),
    "ci_score": ("Score {score}", "점수 {score}"),
    "ci_group_one": ("{title}: 1 test not passed (-{lost} points)", "{title}: 테스트 1개 실패 (-{lost}점)"),
    "ci_group": ("{title}: {n} tests not passed (-{lost} points)", "{title}: 테스트 {n}개 실패 (-{lost}점)"),
    "ci_cell": ("cell {cell}", "셀 {cell}"),
    "ci_unreadable": ("The submission could not be read", "제출물을 읽을 수 없습니다"),
    "ci_passed": ("Passed", "통과"),
    "ci_to_fix": ("To fix", "고칠 것"),
    "generated": ("Generated by the grade command", "grade 명령으로 생성"),
    # since the last run, and filtered runs (report/changes.py)
    "change_head": ("{delta} since the last run ({when})", "지난 실행({when}) 이후 {delta}점"),
    "change_none": ("No change since the last run ({when})", "지난 실행({when}) 이후 바뀐 점수 없음"),
    "change_now_passes": ("{task} now passes", "{task}: 이제 통과"),
    "change_now_fails": ("{task} now fails ({delta})", "{task}: 이제 실패({delta}점)"),
    "change_better": ("{task} {delta}, still failing", "{task}: {delta}점, 아직 실패"),
    "change_worse": ("{task} {delta}", "{task}: {delta}점"),
    "change_still_fails": ("{task} still fails", "{task}: 아직 실패"),
    "change_more_still": ("{n} more still failing", "그 밖에 {n}개 아직 실패"),
    "filter_banner": ("Filtered run (-k {keyword}): only {n} checks ran, so this is not your score.",
                      "일부만 채점했습니다(-k {keyword}): 검사 {n}개만 실행했으므로 이 점수는 전체 점수가 "
                      "아닙니다."),
    "filter_full": ("Your full run ({score} / {max_score}) is kept in {report}.",
                    "전체 채점 결과({score} / {max_score})는 {report}에 그대로 있습니다."),
    "filter_here": ("This run's report: {report}.", "이번 실행의 보고서: {report}."),
    "other_lesson": (
        "This folder belongs to the {title} lesson ({why}), and it was graded as {graded}: these points are "
        "not your score. Run `grade --lesson {name}` (or `grade` without --lesson){kept}.",
        "이 폴더는 {title} 실습의 것입니다({why}). 그런데 {graded} 실습으로 채점했으므로 이 점수는 "
        "여러분의 점수가 아닙니다. `grade --lesson {name}`(또는 --lesson 없이 `grade`)를 실행하세요{kept}."),
    "other_lesson_project": ("its pyproject.toml says lesson = \"{name}\"",
                             "pyproject.toml에 lesson = \"{name}\" 설정이 있음"),
    "other_lesson_files": ("it holds {files}", "{files}이(가) 있음"),
    "other_lesson_kept": ("; that lesson's results in this folder are kept",
                          ". 이 폴더에 있던 그 실습의 결과는 그대로 둡니다"),
    "filter_no_full": ("Run grade without -k for your score.",
                       "전체 점수를 보려면 -k 없이 grade를 실행하세요."),
    # one card per mistake (report/cards.py)
    "card_count": ("{n} checks, one cause", "검사 {n}개, 원인 하나"),
    # a cause whose checks lie in more than one task: the card's points are theirs together
    "card_count_tasks": ("{n} checks in {k} tasks, one cause", "과제 {k}개의 검사 {n}개, 원인 하나"),
    "not_started": ("Not started yet", "아직 시작하지 않은 항목"),
    # {where}: " (embedding.py:12, ...)", or nothing where no place is known; the code there may be a
    # function or a class, so the fix names neither
    "not_started_line": ("not attempted yet: {n} checks stop at NotImplementedError{where}. Write your code "
                         "in place of the raise, then {rerun}.",
                         "아직 구현하지 않았습니다: 검사 {n}개에서 NotImplementedError가 "
                         "발생합니다{where}. raise 자리에 코드를 작성한 뒤 {rerun}."),
    "not_started_line_one": ("not attempted yet: its check stops at NotImplementedError{where}. Write your "
                             "code in place of the raise, then {rerun}.",
                             "아직 구현하지 않았습니다: 검사에서 NotImplementedError가 발생합니다{where}. "
                             "raise 자리에 코드를 작성한 뒤 {rerun}."),
    "not_finished": ("{n} checks still stop at NotImplementedError{where}; the rest of this task already "
                     "earns points. Write what is missing, then {rerun}.",
                     "검사 {n}개에서 아직 NotImplementedError가 발생합니다{where}. 이 항목의 나머지는 이미 "
                     "점수를 받았습니다. 빠진 부분을 구현한 뒤 {rerun}."),
    # what to run again, by where the feedback is read: a shell, or a notebook's kernel
    "rerun_grade": ("run `grade` again", "`grade`를 다시 실행하세요"),
    "rerun_check": ("run `check()` again", "`check()`를 다시 실행하세요"),
    # a document the lesson grades (Layout.log_name), still as its template left it; in a notebook, the
    # cell that holds it (a record's document "cell:N")
    "document_cell": ("the log in cell {n}", "{n}번 셀의 기록"),
    "not_started_log": ("not started yet: {document} is still the blank template ({n} checks). Fill "
                        "it in as you solve the problems.",
                        "아직 시작하지 않았습니다: {document_is} 빈 양식 그대로입니다(검사 {n}개). "
                        "문제를 풀면서 채우세요."),
    "checks_failed": ("{n} failed checks: {m} causes", "실패한 검사 {n}개, 원인 {m}개"),
    "checks_failed_one": ("{n} failed checks: one cause", "실패한 검사 {n}개, 원인 하나"),
    "check_failed_one": ("1 failed check", "실패한 검사 1개"),
    # the parts add up to n: {c} checks under the causes' cards, {k} in the tasks not started
    "checks_failed_idle": ("{n} failed checks: {c} from {causes}, and {k} in {tasks} not started",
                           "실패한 검사 {n}개: 원인 {m}가지로 {c}개, 시작하지 않은 항목에서 {k}개"),
    "n_causes": ("{m} causes", "원인 {m}가지"),
    "one_cause_of": ("one cause", "원인 한 가지"),
    "tasks_word": ("tasks", "항목"),
    "task_word": ("a task", "항목"),
    "fix_first": ("Fix {name} first: the same mistake makes {n} {titles} checks fail too. {why}",
                  "{name}부터 고치세요: 같은 실수 때문에 {titles} 검사 {n}개도 실패합니다. {why}"),
    "fix_first_one": ("Fix {name} first: the same mistake makes a {titles} check fail too. {why}",
                      "{name}부터 고치세요: 같은 실수 때문에 {titles} 검사 1개도 실패합니다. {why}"),
    "follows": ("fails because of {name} (above)", "위의 {name} 때문에 실패"),
    "other_causes": ("Other causes", "그 밖의 원인"),
    "more_causes": ("… and {n} more", "… 그 밖에 {n}개"),
    "report_at": ("The full report: {html}", "전체 보고서: {html}"),
    # points the hidden checks will take at submission for what a public run already sees (pending.py)
    "at_submit_head": ("When you submit, the hidden checks take −{points} more for what this run already "
                       "shows:",
                       "제출하면 이번 실행에서 이미 보이는 것 때문에 숨은 검사에서 {points}점이 더 "
                       "깎입니다:"),
    "at_submit_item": ("{title} (−{points}): {text}", "{title} (−{points}): {text}"),
    "at_submit_tag": ("−{points} when you submit", "제출할 때 −{points}"),
    # the chips beside a task or check: the number says what it is
    "chip_lost": ("−{n} {points}", "−{n}점"),
    "chip_none_lost": ("costs nothing", "감점 없음"),
    "chip_worth": ("worth {n} {points}", "배점 {n}점"),
    "every_check": ("Every failed check ({n}), with its command, is in {html} and feedback.md.",
                    "실패한 검사 {n}개 모두와 재현 명령은 {html_and} feedback.md에 있습니다."),
    "the_one_check": ("The failed check, with its command, is in {html} and feedback.md.",
                      "실패한 검사와 재현 명령은 {html_and} feedback.md에 있습니다."),
    # a check's two tables as a picture (report/table_figure.py; the lesson's words: ReportHooks.figure_texts)
    "fig_scale": ("Colour: blue −1, white 0, red +1.", "색: 파랑 −1, 흰색 0, 빨강 +1."),
    # feedback.md is a file beside feedback.html, or a CI job's summary with feedback.html uploaded: the
    # words hold in both (no "job's artifact" to a student at a desk)
    "fig_where": ("Both tables are drawn in feedback.html, the page written with this report.",
                  "두 표의 그림은 이 보고서와 함께 만들어진 feedback.html에 있습니다."),
}


def suites_ran(suites: list[str], lang: str) -> str:
    """Which tests ran, in words ("public tests"), for the score line."""
    key = ("ran_both" if {"public", "hidden"} <= set(suites) else
           "ran_hidden" if "hidden" in suites else "ran_public" if "public" in suites else "")
    return translate(key, lang) if key else ", ".join(suites)


def translate(key: str, lang: str, **fmt: object) -> str:
    en, ko = STRINGS[key]
    text = ko if lang == "ko" else en
    return text.format(**fmt) if fmt else text


# Skip reasons the suites write in English -> their key here (anything else is shown as written).
SKIP_REASONS = {STRINGS["skip_no_cuda"][0]: "skip_no_cuda"}


def skip_reason(reason: str, lang: str, messages: Mapping[str, Any] | None = None) -> str:
    """A skipped test's reason in ``lang``: the skip's own ``messages`` where it has them (a lesson's rule,
    such as a problem that does not count), else the kit's text for a reason it knows, else as written."""
    if messages and messages.get("en", "").strip() == reason.strip():
        return messages.get(lang) or reason
    key = SKIP_REASONS.get(reason.strip())
    return translate(key, lang) if key else reason


def status_word(status: str, lang: str) -> str:
    return translate(f"status_{status}", lang) if f"status_{status}" in STRINGS else status
