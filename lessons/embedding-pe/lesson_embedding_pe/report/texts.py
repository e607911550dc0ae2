"""This lesson's own report texts (the experiment's table, the LeetCode log review, the table picture),
English and Korean.

The kit's grader/report/i18n.py holds the texts every lesson's report shares; ``t`` looks a key up here
first, then there, so the lesson's blocks read both through one function.
"""

from __future__ import annotations

TEXT: dict[str, tuple[str, str]] = {
    "experiment": ("Sequence-reversal experiment", "순서 뒤집기 실험"),
    "experiment_missing": ("No experiment numbers in this run (the experiment is graded by the hidden "
                           "suite).",
                           "이번 채점에는 실험 결과가 없습니다(실험은 숨은 테스트에서 채점합니다)."),
    "part_student": ("Your experiment: your train_reversal, every model measured by the grader",
                     "내 실험: 내 train_reversal로 학습, 정확도는 채점기가 측정"),
    "part_component": ("The grader's training harness with your TokenAndPosEmbedding",
                       "채점기의 학습 환경에 내 TokenAndPosEmbedding을 넣은 결과"),
    "part_runs": ("Runs", "실행 결과"),
    "your_evaluate": ("your evaluate()", "내 evaluate()"),
    "mode": ("Mode", "모드"),
    "seed": ("Seed", "시드"),
    "steps": ("Steps", "스텝"),
    "final_loss": ("Final train loss", "마지막 학습 손실"),
    "loss_trend": ("Loss over the steps", "스텝별 손실"),  # feedback.md's sparkline column
    "acc_at": ("Accuracy at T={n}", "T={n} 정확도"),
    "bound_row": ("Bag-of-tokens bound (best without positions)",
                  "bag-of-tokens 상한(위치 정보 없이 가능한 최선)"),
    "bound_note": (
        "Without positions a model knows only its own token and the multiset of all tokens (which tokens "
        "occur, and how often), so its best guess is the most common of the other tokens: that accuracy is "
        "the bag-of-tokens bound. `none` should sit on it; `sin` and `learned` should beat it at the "
        "training length.",
        "위치 정보가 없으면 모델은 자기 토큰과, 어떤 토큰이 몇 번 나왔는지(multiset)만 압니다. 그래서 "
        "나머지 토큰 중 가장 많이 나온 토큰을 고르는 것이 최선이고, 그 정확도가 bag-of-tokens 상한입니다. "
        "`none`은 이 값에 머물러야 하고, `sin`과 `learned`는 학습 길이에서 이 값을 넘어야 합니다."),
    "acc_plot": ("Accuracy by length, with the bag-of-tokens bound", "길이별 정확도와 bag-of-tokens 상한"),
    "bound_noise": ("± is one standard error of an accuracy measured on {n} sequences: a `none` accuracy "
                    "within ± of the bound is on the bound, not above it.",
                    "±는 시퀀스 {n}개로 잰 정확도의 표준오차입니다. `none`의 정확도가 상한에서 ± 안쪽이면 "
                    "상한을 넘은 것이 아니라 상한에 있는 것입니다."),
    "log_review": ("LeetCode log review", "LeetCode 기록 검토"),
    "log_missing": ("No LEETCODE_LOG.md in the submission.", "제출물에 LEETCODE_LOG.md가 없습니다."),
    "log_not_graded": ("The LeetCode log was not graded in this run.",
                       "이번 채점에서는 LeetCode 기록을 채점하지 않았습니다."),
    "breakdown": ("Breakdown", "세부 점수"),
    "adjusted": ("the instructor's adjustment ({points})", "강사 조정({points})"),
    "findings": ("Findings", "지적 사항"),
    "no_findings": ("No findings: the log is complete and consistent.",
                    "지적 사항 없음: 기록이 완전하고 일관됩니다."),
    "line": ("Line", "행"),
    "severity": ("Severity", "종류"),
    "sev_error": ("missing/malformed", "누락/형식 오류"),
    "sev_warning": ("warning", "경고"),
    "sev_info": ("note", "참고"),
    "sev_unsure": ("a TA reads this", "조교 확인"),
    "ta_confirmed": ("a TA read this part and confirmed it, no point taken ({reason})",
                     "조교가 이 부분을 읽고 확인했습니다. 감점 없음({reason})"),
    "ta_taken": ("a TA read this part and took {points} point(s): {reason}",
                 "조교가 이 부분을 읽고 {points}점을 감점했습니다: {reason}"),
    # sure or ask (leetlog/unsure.py): what the reader could not place costs nothing; a TA reads it
    "ta_reads": ("A TA will read {n} part(s) of your log the reader could not place (marked \"a TA reads "
                 "this\" below); no point is taken for them now.",
                 "기록에서 채점기가 확신하지 못한 {n}곳(아래 '조교 확인')은 조교가 직접 읽습니다. 지금은 그 "
                 "부분에서 감점하지 않습니다."),
    # no finding, yet not full marks or practice code failing: the page does not call the log flawless
    "no_findings_lost": ("No finding in the log itself; the checks above say where points were lost.",
                         "기록 자체에는 지적 사항이 없습니다. 잃은 점수는 위의 검사 결과에 있습니다."),
    "no_findings_but_linked": ("No findings in the log itself; see the practice code above.",
                               "기록 자체에는 지적 사항이 없습니다. 위의 연습 코드 실패를 확인하세요."),
    "problems": ("Problems", "문제"),
    # named, since the callout follows the whole table (it once read as the last row's)
    "practice_link": ("Your practice code for problem {n} ({function}) fails",
                      "문제 {n}의 연습 코드가 실패합니다({function})"),
    "went_wrong_says": ("Your log's 'what went wrong' (line {line}) says", "기록의 '틀린 이유'({line}행)"),
    "difficulty": ("Difficulty", "난이도"),
    "time": ("Time", "시간"),
    "space": ("Space", "공간"),
    "at_submission": ("counted when you submit", "제출할 때 반영"),
    "loss_curves": ("Training loss per step (each seed thin, the mean over seeds thick)",
                    "스텝별 학습 손실(시드별 가는 선, 시드 평균 굵은 선)"),
    "loss_curves_one": ("Training loss per step (one run per mode)", "스텝별 학습 손실(모드마다 실행 1회)"),
    "steps_note": ("Steps: the training updates each run made (the `steps` it was called with).",
                   "스텝: 각 실행이 한 학습 업데이트 수(호출할 때 받은 `steps`)."),
    "plot_step": ("step", "스텝"),
    "plot_loss": ("cross-entropy loss", "교차 엔트로피 손실"),
    "plot_runs": ("{mode} (n={n})", "{mode} ({n}회)"),
    "plot_bound": ("bag-of-tokens bound", "bag-of-tokens 상한"),
    "plot_accuracy": ("token accuracy", "토큰 정확도"),
    # the picture of a failed table check (figure.py; drawn by the kit's report/table_figure.py)
    "fig_found": ("Your table {shape}", "내 표 {shape}"),
    "fig_expected": ("The formula's table {shape}", "수식의 표 {shape}"),
    "fig_found_forward": ("Rows your forward added {shape}", "내 forward가 더한 행 {shape}"),
    "fig_expected_forward": ("Rows it should add {shape}", "더해야 하는 행 {shape}"),
    "fig_rows": ("position p ↓", "위치 p ↓"),
    "fig_cols": ("column j →", "열 j →"),
    "fig_title": ("Your table beside the formula's", "내 표와 수식의 표"),
    "fig_count": ("{n} of {total} cells wrong (outlined in your table).",
                  "{total}칸 중 {n}칸이 틀렸습니다(내 표에 테두리로 표시)."),
    "fig_count_forward": ("{n} of {total} cells wrong (outlined in the rows your forward added).",
                          "{total}칸 중 {n}칸이 틀렸습니다(내 forward가 더한 행에 테두리로 표시)."),
    "fig_crop": ("Showing rows {rows} of {n_rows} and columns {cols} of {n_cols}.",
                 "{n_rows}행 중 {rows}행, {n_cols}열 중 {cols}열만 보입니다."),
    "fig_grid": ("Wrong cells of your table (■ wrong, · right; rows are positions, columns dimensions)",
                 "내 표의 틀린 칸(■ 틀림, · 맞음; 행은 위치, 열은 차원)"),
}


def t(key: str, lang: str, **fmt: object) -> str:
    """``key`` in ``lang``: the lesson's text, else the kit's."""
    if key not in TEXT:
        from grader.author import translate  # the kit's report texts: loaded by a report, not by grading

        return translate(key, lang, **fmt)
    en, ko = TEXT[key]
    text = ko if lang == "ko" else en
    return text.format(**fmt) if fmt else text
