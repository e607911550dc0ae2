"""Issue 43: new logs written as students write them, each with the verdict a TA would give.

Each case is a log under tests/leetlog_cases/ (and, where its claims are held to code, the leetcode.py
beside it, of the same name, run and counted here as the grade does in the worker: tests/measure_here.py).
A verdict is the points, the sure findings (error or warning: what the student loses) and the unsure ones
(what a TA reads, no point taken). None of these logs is generated:
they are the layouts and claims the issue found the reader got wrong (a log in a code fence, every line
quoted, a table with a column per problem, 반말 labels, code-switching inside a line, section numbers,
numbered lists with reasons in parentheses, a log the reader cannot place, a vague problem name, an
undefined variable, an amortized claim, and claims the student's own code contradicts).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from lesson_embedding_pe.leetlog import catalog, parse_log, review_log
from lesson_embedding_pe.leetlog.code import coverage
from lesson_embedding_pe.leetlog.review import MAX_POINTS
from lesson_embedding_pe.logta import _group_of, check_key
from tests.measure_here import measure_in

CASES = Path(__file__).resolve().parent / "leetlog_cases"
FULL = MAX_POINTS
# (problem, field, code)
Verdict = tuple[float, list[tuple[int, str, str]], list[tuple[int, str, str]]]

VERDICTS: dict[str, Verdict] = {
    # containers and layouts: a complete log is never marked down, nothing unsure
    "fenced_en": (FULL, [], []),
    "quoted_ko": (FULL, [], []),
    "details_html": (FULL, [], []),
    "transposed_table": (FULL, [], []),
    "banmal_ko": (FULL, [], []),
    "codeswitch": (FULL, [], []),
    "section_numbers": (FULL, [], []),
    "numbered_parens": (FULL, [], []),
    "numbered_reasons_en": (FULL, [], []),
    # the log as U+33D2 ('O(㏒n)', 'O(n ㏒ ㏒ n)'), as a Korean IME types it: read as log (was a sure bad_bigo
    # on each, 5.0/6)
    "unicode_log_symbol_en": (FULL, [], []),
    # Big-O spelled as students do ('`O(lg n)`', 'O(N log(log N))', 'O(1) extra', 'O(N) auxiliary') under a
    # problem named 'Count Prime (204)', LeetCode's title in the singular (was unsure: an unknown problem)
    "bigo_spellings_en": (FULL, [], []),
    # a Korean grade for the difficulty ('난이도: 중', of 상/중/하) is Medium, as the whole answer only (was a
    # sure bad_difficulty; '진행 중' names no level)
    "korean_grade_words_ko": (FULL, [], []),
    # a KPT retrospective after both problems ('- Problem: 경계값을 자주 놓침'): 'Problem' is KPT's, naming no
    # LeetCode problem and labelling nothing else (was told "The log has 3 problems", info)
    "kpt_retro_ko": (FULL, [], []),
    # Integer to Roman as a string of num 'I's rewritten by replacements: its O(num) is what the code does
    # (was a sure complexity_worse on both claims against greedy's O(1), "likely times out")
    "roman_replace_chain_en": (FULL, [], []),
    # a Velog post (table of contents, the solution's code between fields) that leaves out a space complexity:
    # exactly that field, and no sentence quoted (the time's own answer was quoted as the "nearest sentence")
    "velog_missing_space_ko_mistake": (FULL - 0.75, [(1, "space", "missing_field")], []),
    # complexities written without O(...) under a 'Big-O' label: 'log n' (in words) and '1', 'n' (bare) alike
    # go to a TA (the bare ones were a sure no_bigo, 5.0/6)
    "bigo_colon_words_en": (FULL, [], [(1, "space", "unsure_no_bigo"), (1, "time", "unsure_no_bigo"),
                                       (2, "space", "unsure_no_bigo"), (2, "time", "unsure_no_bigo")]),
    # layouts found after the issue's: YAML front matter ('title:' is no problem), a '| Field | Answer |'
    # table under each problem's heading, a bold label with its answer on the next line, setext headings
    # over plain 'Label: value' lines, emoji before labels, the problem named in its heading, '---' rules
    # between problems (no front matter: it holds the log)
    "front_matter": (FULL, [], []),
    "field_answer_tables": (FULL, [], []),
    "label_above_value": (FULL, [], []),
    "setext_plain": (FULL, [], []),
    "emoji_labels": (FULL, [], []),
    "problem_in_heading_ko": (FULL, [], []),
    "rules_between_problems": (FULL, [], []),
    # a row-per-problem table whose first column counts the rows: '| 2 | 204. Count Primes |' is problem
    # 204, not '2. Add Two Numbers' (a sure warning on a correct claim)
    "numbered_table_rows": (FULL, [], []),
    # the problem said in a heading as 'LeetCode 204'; each field under its own '###' heading, 'Solved'
    # answered by ticking a task list's box; the option not chosen struck out ('~~alone~~')
    "day_headings_lc_number": (FULL, [], []),
    "field_headings_task_list": (FULL, [], []),
    "struck_out_option": (FULL, [], []),
    # labels as questions ('What was your first idea?' over its answer, 'Time Complexity = …'), in
    # brackets ('(난이도) Medium': was 1.25/6, every value lost), and with no mark at all
    "questions_en": (FULL, [], []),
    "bracket_labels_ko": (FULL, [], []),
    "labels_without_marks": (FULL, [], []),
    # a warm-up note on 202. Happy Number (Easy) ahead of the two Medium problems: those two are graded,
    # as a third problem is never graded (was 4.5/6: the note graded as problem 1, Count Primes dropped)
    "warm_up_first_ko": (FULL, [], []),
    "dash_labels_ko": (FULL, [], []),  # '난이도 - Medium': a label (a missing field's quote is no glued pair)
    # a line above the first heading that names the problems by their links is the page's preamble, not a
    # problem (was problem 1 of 3, every field missing: 3.25/6); a note naming related problems is no problem
    "preamble_links_en": (FULL, [], []),
    # a redo date with the month's name, as Notion exports a date ('December 21, 2026') or as English writes
    # it ('21 Dec 2026'): a date (was a sure 'bad_date', 5.75/6)
    "notion_export_en": (FULL, [], []),
    "month_name_dates_en": (FULL, [], []),
    # a redo date with the year last, as the US writes it ('12/21/2026'): a date (was a sure 'bad_date'); the
    # Big-O of |n| and a 'where n is …' clause read as the plain claims
    "year_last_date_en": (FULL, [], []),
    # 'Solved alone? Yes': a bare yes answers the question its label asks (was a sure 'bad_solved')
    "solved_alone_yes_en": (FULL, [], []),
    # '혼자 (힌트 X)', '혼자, 풀이 ❌': a hint or a solution marked as not used is alone (was a sure
    # 'bad_solved'); a reason ahead of its claim in a field ('… 지우므로 O(n log log n)')
    "no_hint_marks_ko": (FULL, [], []),
    # LeetCode's tabs as Korean students write them: '에디토리얼 보고', '디스커스 보고 풀었음' are after a
    # solution ('에디토리얼 안 보고' alone); was a sure bad_solved, and with no redo date the real mistake,
    # redo_date_missing, went unsaid
    # a redo date marked not applicable after solving alone ('해당 없음', '—'): empty, as '-' and 'N/A' are
    # (was a sure bad_date warning on each)
    "redo_not_applicable_ko": (FULL, [], []),
    # where else students read a solution ('블로그 보고', '구글링해서', '답지 보고') and solving by one's own
    # strength ('자력으로 풀었음'): was a sure bad_solved each; with no redo date, redo_date_missing instead
    "blog_and_own_strength_ko": (FULL, [], []),
    "googled_no_redo_date_ko": (FULL - 0.25, [(1, "redo_date", "redo_date_missing")], []),
    # help from an AI assistant or a friend ('GPT 도움 받고', 'ChatGPT한테 물어봐서', 'with help from a
    # friend'): not alone, so a redo date is asked for (was a sure missing or bad Solved); 'AI 안 씀' is alone
    "ai_help_ko": (FULL, [], []),
    "ai_help_no_redo_date_ko": (FULL - 0.25, [(1, "redo_date", "redo_date_missing")], []),
    "editorial_transliterated_ko": (FULL, [], []),
    "discuss_no_redo_date_ko": (FULL - 0.25, [(1, "redo_date", "redo_date_missing")], []),
    # Obsidian's foldable callouts ('> [!question]- 문제 2: 204. Count Primes') with one field left out:
    # exactly that field, its message quoting no sentence (the callout's title was quoted as the nearest)
    "callout_titles_ko": (FULL - 0.25, [(2, "what_went_wrong", "missing_field")], []),
    # prose with a reason ahead of each claim in one sentence ('n이 절반이 되므로 시간 복잡도는
    # O(log n)이고, 변수 세 개만 쓰므로 공간 복잡도는 O(1)이다'): the second reason is the space's, not the
    # time's (was unsure_no_reason on space, both problems)
    "prose_reason_ahead_ko": (FULL, [], []),
    # prose whose reason is the next sentence, ending as speech ends a reason ('…줄거든요.', '…쓰니까요.'):
    # was unsure_no_reason on three claims
    "prose_reason_geodeun_ko": (FULL, [], []),
    # '틀린 이유: …까먹었음.' then '혼자 풀었어요.' on the next line: the line after a field's answer is read
    # as prose for a field still missing (was unsure_missing_field on Solved, both problems)
    "solved_next_line_ko": (FULL, [], []),
    # LeetCode's write-up template with '# Mistakes' (or '## 틀린 이유') over 'Counted n at first. Solved
    # alone.': a sentence after the answer under a label of its own is read as prose (was unsure on Solved,
    # both problems); a third problem is noted, not graded
    "answer_then_solved_en": (FULL, [], []),
    "answer_then_solved_ko": (FULL, [], []),
    # headings numbered with the Korean counter ('### 1번. 12. Integer to Roman'): the section's place, not
    # problem 1 (was a sure number_title_mismatch on both problems); its one mistake, 'Easy임', is named
    "beon_section_numbers_ko": (FULL, [(1, "difficulty", "difficulty_mismatch")], []),
    # text the reader places nothing of: every part of both problems goes to a TA, no point taken
    "unplaceable": (
        FULL,
        [],
        [
            (k, f, "unsure_unplaced")
            for k in (1, 2)
            for f in ("problem", "first_idea", "time", "what_went_wrong", "solved")
        ],
    ),
    # where a TA looks first: unsure, no point taken
    "vague_name_ko": (FULL, [], [(1, "problem", "unsure_unknown_problem")]),
    "undefined_variable": (FULL, [], [(1, "time", "unsure_undefined_variable")]),
    # 'O(log x)' for Pow: x is my_pow's base, not its size, so the claim is a TA's (was held, full marks,
    # silently); 'O(log x), x is the exponent here' stays held
    "pow_base_variable_en": (FULL, [], [(1, "time", "unsure_undefined_variable")]),
    # a product's dot ('O(n.log log n)': was a sure bad_bigo, 0.5 lost) and Python's abs ('O(log(abs(n)))':
    # was unsure, 'abs' an undefined variable) read as the plain Big-O
    "bigo_dot_abs_en": (FULL, [], []),
    # a complexity's reason on its own line behind a label, as a notebook's '<br>' splits it
    # ('O(log n)<br>이유: n이 매번 절반'): the claim's reason (was a sure no_reason on all four claims, 5/6);
    # '이유:' with nothing after it is still no reason
    "br_reason_label_ko": (FULL, [], []),
    # an emoji after a label ('Difficulty 🟠: Medium', '난이도 🔥： Medium'): the label (was 1.75/6 and
    # 1.5/6, a sure missing_field on every field but the problem)
    "trailing_emoji_labels_en": (FULL, [], []),
    "fullwidth_emoji_labels_ko": (FULL, [], []),
    # an emoji that is the label ('⏱ O(log n) — …', '💾 O(1) — …', '🙋 alone', each on a line of its own): was
    # 2/6, a sure missing_field on eight fields; with one reason left out, 1.5/6 for exactly that no_reason
    "emoji_lines_en": (FULL, [], []),
    "emoji_lines_no_reason_ko_mistake": (FULL - 0.25, [(1, "time", "no_reason")], []),
    # fields spread over a nested bullet tree: a label with its answer nested under it ('- 풀이 방식' over
    # '  - 혼자', itself a label's word), a group's label over the fields it names ('- Approach' over
    # '  - Final approach: …'): the answer is the field (was 5.75/6 and 5.5/6, a sure missing_field and a
    # duplicate_field on each)
    "nested_tree_en": (FULL, [], []),
    "nested_tree_ko": (FULL, [], []),
    # a log written as a checklist ('- [x] 풀이 방식: 혼자'): each ticked line is its label's, and the
    # unticked '- [ ] 다시 풀 날짜: (혼자 풀어서 없음)' no answer (was read as prose, 5.75/6: Solved taken
    # from the unticked line, a sure missing_field)
    "checklist_ko": (FULL, [], []),
    # an HTML <table> with a column per problem, each row on one line or over several ('<tr>' / '<td>…</td>'
    # / '</tr>'): read as the Markdown table it renders as (was 3/6: one problem, 'no entry for problem 2';
    # over several lines, every part unplaced)
    "html_table_en": (FULL, [], []),
    "html_table_multiline_en": (FULL, [], []),
    # an HTML table with a row per problem inside <thead> and <tbody>, '<br>' between a claim and its reason:
    # was 1.5/6, a sure missing_field on five fields of each problem
    "html_rows_per_problem_br_ko": (FULL, [], []),
    # a redo date marked not needed, with why ('필요 없음 (혼자 풂)', 'n/a (solved alone)', 'X'): empty, as
    # 'N/A' alone is (was a sure bad_date warning)
    "na_fields_ko": (FULL, [], []),
    # a '| Field | Answer |' table with no Problem row under '## Problem 1: 50. Pow(x, n)': the heading names
    # the problem, not the column's title (was unsure_unknown_problem on 'Answer', both problems)
    "na_fields_en": (FULL, [], []),
    # a section after both problems whose heading is a field's label ('## 회고', '## Mistakes'): the page's,
    # not a second answer of problem 2 (was a sure duplicate_field warning)
    "retrospective_ko": (FULL, [], []),
    "mistakes_section_after_en": (FULL, [], []),
    # GitHub alerts around one field each ('> [!WARNING]' over '> What went wrong: …', '> [!TIP]' over
    # '> Solved: …'): the student's note, read (was unsure_missing_field on three fields, a TA's to read)
    "gh_alerts_en": (FULL, [], []),
    # the tree with the first idea left out: exactly that field, its message quoting no other field's
    # answer (quoted '12. Integer to Roman', the problem under '- 문제', as the nearest sentence)
    "nested_tree_missing_idea_ko_mistake": (FULL - 0.25, [(1, "first_idea", "missing_field")], []),
    # 반말 in the past tense: '혼자 풀었어?：아니 풀이봤어' is after a solution, '풀이 안 봤어' alone
    # (was a sure bad_solved); full-width colons and labels written without spaces
    "banmal_fullwidth_spacing_ko": (FULL, [], []),
    # prose with no spaces after its words ('처음에는x를n번곱하는방법을생각했다',
    # '시간복잡도는O(logn)이고'): the first idea is read (was unsure_missing_field on it, both problems)
    "prose_spacing_ko": (FULL, [], []),
    # a table with a row per problem that sums up the problems logged in their own sections, as an overview
    # above them (was 3/6: the rows graded as the two problems, every field but three missing, the sections
    # not graded) or a summary below ('The log has 4 problems' was said): the sections are the problems
    "overview_table_first_ko": (FULL, [], []),
    "summary_table_after_en_mistake": (FULL - 0.25, [(2, "what_went_wrong", "missing_field")], []),
    "amortized": (FULL, [], [(1, "space", "unsure_approach"), (1, "time", "unsure_amortized")]),
    # claims held to the student's code as it runs (the .py beside the log, measured)
    "pow_loop_n": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    "pow_recursive_n1": (FULL - 0.25, [(1, "space", "complexity_inconsistent")], []),
    "sieve_segmented": (FULL, [], []),
    "roman_tables": (FULL, [], []),
    # work a built-in or a lambda does for the code is counted: math.prod(itertools.repeat(x, n)) is n
    # steps, so its true O(n) keeps its point (was a sure complexity_worse: nothing counted, the catalog's
    # best O(log n) held against it); functools.reduce over range(n) logged as fast power's O(log n) is not
    # met (was full marks); a recursive lambda is n calls n deep: O(n) time met (was held to 'recursive'
    # fast power's O(log n), not met), O(1) space not met (was unsure)
    "builtin_work_en": (FULL, [], []),
    "builtin_work_lie_ko": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    "pow_lambda_recursion_en": (FULL - 0.25, [(1, "space", "complexity_inconsistent")], []),
    # work hidden from the counter (a loop run by exec from a string) is not counted, so my_pow's claims
    # are a TA's: unsure, no point taken (was full marks, the log's 'fast power' held against nothing)
    "pow_exec_hidden_en": (FULL, [], [(1, "space", "unsure_measured"), (1, "time", "unsure_measured")]),
    # a sieve over a set: its table grows 4-fold at once, and the top eighth of the sizes held such a jump
    # (4,000 → 32,000: 236,072 → 3,246,120 bytes, 'faster than O(n)'); the whole range reads O(n), so the true
    # claim is met (was a sure complexity_inconsistent, 0.25 lost)
    "sieve_set_ko": (FULL, [], []),
    # an iterative fast power that keeps its log n squares in a list, logged O(log n) space: the bytes stay
    # inside the allocator's slack (392 → 456), which cannot tell O(log n) from O(1), so a TA reads it
    # (was a sure complexity_worse: 'the iterative approach's O(1)', 0.25 lost on a true claim)
    "pow_squares_list_en": (FULL, [], [(1, "space", "unsure_measured")]),
    # Happy Number stopped at 1 or at the known cycle 4 → 16 → … → 4: O(1) space, its 8 numbers fixed (was a
    # sure complexity_inconsistent: '집합' read as the hash set of seen numbers, O(log n)); Easy costs 0.5
    "happy_known_cycle_ko": (FULL - 0.5, [(2, "difficulty", "not_medium")], []),
    # a callable class recursing on k - 1 (two interpreter frames a level) passes Python's limit at n = 800:
    # three sizes, 4-fold, were too few to read a growth from, so 'fast power, recursive' held both O(log n)
    # (was full marks); counts that outgrow a claim by twice the margin refute it even so
    "pow_callable_class_en": (FULL - 0.5, [(1, "space", "complexity_inconsistent"),
                                           (1, "time", "complexity_inconsistent")], []),
    # `i in composites` on a list searches it item by item: the sieve over a list is n² and its O(n log log n)
    # is not met, with the counts (was full marks: the search went uncounted)
    "sieve_list_membership_ko": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    # a built-in imported under another name ('from math import prod as product') is the built-in: its n
    # products are counted and the true O(n) keeps its point (was a sure complexity_worse, the catalog's
    # O(log n) held against a claim nothing was counted for)
    "pow_import_alias_ko": (FULL, [], []),
    # a halving recursion beside a memo list of n + 1: the depth is log n, the bytes n (1,024,784 at n =
    # 128,000, far beyond what 19 frames take), so O(log n) space is not met (was met by the depth alone)
    "pow_memo_list_ko": (FULL - 0.5, [(1, "space", "complexity_inconsistent"),
                                      (1, "time", "complexity_inconsistent")], []),
    # hidden work only adds to the counts: eval of 'x*x*…*x' built from [x] * n still shows n steps and
    # bytes, so its O(1) claims are not met (as before the hidden-work rule, which made them a TA's)
    "pow_eval_join_en": (FULL - 0.5, [(1, "space", "complexity_inconsistent"),
                                      (1, "time", "complexity_inconsistent")], []),
    # a built-in given another name by assignment ('multiply_all = math.prod', 'copies = itertools.repeat')
    # is the built-in: the true O(n) keeps its point (was a sure complexity_worse, nothing counted)
    "pow_assigned_name_en": (FULL, [], []),
    # where else students learn a solution: a video ('유튜브 보고 풀었음', 'watched a YouTube explanation') is
    # after a solution, and help from a study group ('스터디원 도움', 'study group helped me') is help: was a
    # sure bad_solved; with no redo date, redo_date_missing, the real mistake
    "solved_help_no_date_ko_mistake": (FULL - 0.25, [(2, "redo_date", "redo_date_missing")], []),
    # a redo date as Korean students shorten it: the year left out ('12월 21일', '다음 주 월요일(12/14)',
    # '12/21') or in two digits ('26.12.22'): a day (was a sure bad_date, 0.25 lost each)
    "redo_dates_ko_forms": (FULL, [], []),
    "redo_date_short_forms_mixed": (FULL, [], []),
    "en_labels_ko_answers": (FULL, [], []),
    # the complexities in a table of one row inside a problem's section ('| 시간 | 공간 |' over
    # '| O(log n) — … | O(1) — … |'): each cell the field its column names (was 5.5/6: the line read as
    # 'time: 공간 |---|…', the time's Big-O taken for the space, a sure complexity_worse on both problems);
    # with recursive fast power's space logged O(1), exactly that claim
    "complexity_table_inside_ko": (FULL, [], []),
    "ref_table_inside_o1_en_mistake": (FULL - 0.25, [(1, "space", "complexity_inconsistent")], []),
    # the template's third section kept for later, placeholders and all: no problem, nothing noted of a third
    # (was 'The log has 3 problems; the first 2 are graded.')
    "empty_third_template_ko": (FULL, [], []),
    # a remark in parentheses beside the difficulty naming another problem's ('Medium (202. Happy
    # Number는 Easy였는데 이건 좀 더 어려움)'): the level outside them (was a sure bad_difficulty, 0.25 lost)
    "other_difficulties_inline_ko": (FULL, [], []),
    # a blog post (Tistory): the page's title naming both problems over nothing ('# [LeetCode] 50. Pow(x, n) /
    # 204. Count Primes 풀이') is no problem, and a '### 문제' section that states the problem ('x의 n제곱을
    # 구하는 문제') leaves it to the heading that names it (was 3.5/6: the title graded as problem 1, every
    # field missing, Pow's statement an unknown problem)
    "tistory_sections_ko": (FULL, [], []),
    # a GitHub README whose index table gives each problem's difficulty above sections that do not repeat it:
    # the index row gives what its section leaves out (was 5.5/6, a sure missing_field on both difficulties)
    "readme_index_table_en": (FULL, [], []),
    # a problem per H1, each under its own front matter ('---' / 'problem: 204. Count Primes' / 'difficulty:
    # Medium' / '---' then '# 204. Count Primes'): the front matter is its problem's, and a problem label
    # naming another problem than the section's heading starts the next problem (was 3/6: the first front
    # matter graded as problem 1, six fields missing; the second read as Pow's problem, Pow's claims held to
    # count_primes)
    "h1_frontmatter_per_problem_en": (FULL, [], []),
    # a question answered the way a Korean quiz is, O or X ('혼자 풀었나요? O', '혼자 풀었나요? X (풀이 봄)'):
    # X is a no, and an aside after it is the answer's (was a sure missing_field: 'X' read as 'none', its
    # aside dropped with it); a bare X with no redo date asks for one
    "ox_answers_ko": (FULL, [], []),
    "ox_no_redo_ko_mistake": (FULL - 0.25, [(2, "redo_date", "redo_date_missing")], []),
    # LeetCode's submission numbers pasted under their own labels ('Runtime: 28 ms, beats 91.2%', 'Memory:
    # 16.5 MB, beats 70.3%') above the complexities: measured, no claim (was 4/6: each read as the time or
    # space complexity, a sure no_bigo on all four, the real claims duplicates); with the time complexity left
    # out, exactly that field, the runtime line quoted as the nearest
    "submission_stats_en": (FULL, [], []),
    "submission_stats_no_time_en_mistake": (FULL - 0.75, [(2, "time", "missing_field")], []),
    # a bilingual log giving each field twice, Korean then English on the next line ('- 시간복잡도: O(log n) —
    # …' over '- Time complexity: O(log n) — …'): one answer in two languages, not a field written twice (was
    # a sure duplicate_field warning on four fields of each problem, and 'number 1 does not match the title'
    # for '## 문제 1 / Problem 1: 50. Pow(x, n)'); the same lines with different Big-Os are still a duplicate
    "bilingual_duplicate_lines_mixed": (FULL, [], []),
    # an editorial's layout ('### Approach 1: Brute force (my first idea)', '### Approach 2: Fast power
    # (final)', each with its complexities): the first approach is the first idea, the last the final
    # approach, and the complexities graded are the last approach's (was 5.25/6: the brute force's O(n) graded
    # as the claim, a sure complexity_worse, the final ones duplicates; the first idea unsure); the final's
    # own wrong claim is exactly the finding
    "editorial_two_approaches_en": (FULL, [], []),
    "editorial_approaches_ko_mistake": (FULL - 0.25, [(1, "time", "complexity_worse")], []),
    # a redo date with the month's name and no year ('Dec 21'), as the Korean forms without one: a day (was a
    # sure bad_date, 0.25 lost); bold labels with the colon outside ('**Time complexity**: …') and a solution
    # read from a linked post
    "bold_colon_outside_en": (FULL, [], []),
    # a blog post in prose whose opening sentence gives both problems' difficulty at once ('This week I did
    # 50. Pow(x, n) and 204. Count Primes, both Medium.'): each problem it names by number has it (was a sure
    # missing_field on Count Primes' difficulty, 0.25 lost)
    "prose_blog_en": (FULL, [], []),
    # the same said in the sentence after the one naming them ('… 204. Count Primes를 풀었다. 둘 다 난이도는
    # Medium이다.'), on its line
    "prose_preamble_both_ko": (FULL, [], []),
}


def _review(case: str) -> object:
    code = CASES / f"{case}.py"
    sources = {"leetcode": code.read_text(encoding="utf-8")} if code.is_file() else None
    return review_log((CASES / f"{case}.md").read_text(encoding="utf-8"), sources=sources,
                      measure=measure_in(sources))


def _verdict(review: object) -> Verdict:
    found = review.findings  # type: ignore[attr-defined]
    sure = sorted((f.problem, f.field, f.code) for f in found if f.severity in ("error", "warning"))
    unsure = sorted((f.problem, f.field, f.code) for f in found if f.severity == "unsure")
    return review.points, sure, unsure  # type: ignore[attr-defined]


def test_every_case_has_a_verdict() -> None:
    assert sorted(p.stem for p in CASES.glob("*.md")) == sorted(VERDICTS)


@pytest.mark.parametrize("case", sorted(VERDICTS))
def test_each_log_gets_the_verdict_a_ta_would_give(case: str) -> None:
    r = _review(case)
    points, sure, unsure = VERDICTS[case]
    assert _verdict(r) == (points, sorted(sure), sorted(unsure)), [f.message_en for f in r.findings]


@pytest.mark.parametrize("case", ["fenced_en", "quoted_ko", "transposed_table"])
def test_a_log_in_a_container_keeps_the_students_line_numbers(case: str) -> None:
    """Read from the tree, every field still points at its line in the student's file."""
    text = (CASES / f"{case}.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    parsed = parse_log(text)
    assert len(parsed.problems) == 2
    for entry in parsed.problems:
        time = entry.fields["time"]
        assert time.value.split(" ")[0] in lines[time.line - 1], (case, time.line)


def test_a_table_is_read_by_the_columns_that_hold_the_problems() -> None:
    parsed = parse_log((CASES / "transposed_table.md").read_text(encoding="utf-8"))
    named = [catalog.find_problem(p.fields["problem"].value).problem for p in parsed.problems]
    assert [p.number for p in named if p] == [50, 204]
    assert parsed.problems[1].fields["time"].value.startswith("O(n log log n)")


def _transposed(text: str, column: str) -> str:
    """The transposed table with one more column: a header cell, then ``column``'s cell on each row."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = lines[start:]
    out = [rows[0] + f" {column} |", rows[1] + "---|", *(r + " |" for r in rows[2:])]
    return "\n".join([*lines[:start], *out]) + "\n"


def test_an_empty_column_of_a_transposed_table_is_no_problem() -> None:
    """A third column the student titled and left empty ('문제 3'): two problems, full marks, no 'extra
    problem' noted and nothing missing."""
    original = (CASES / "transposed_table.md").read_text(encoding="utf-8")
    text = _transposed(original, "문제 3")
    assert len(parse_log(text).problems) == 2
    assert _verdict(review_log(text)) == _verdict(review_log(original))
    assert review_log(text).points == 6.0


def test_a_transposed_table_without_a_problem_row_takes_the_problem_from_its_column_title() -> None:
    """No '문제' row: each column's title names its problem ('50. Pow(x, n)'), as a TA reads it; a title
    that is only a slot ('문제 1') names none, and the problem is then missing."""
    text = (CASES / "transposed_table.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if not line.startswith("| 문제 |")]
    header = "| 항목 | 50. Pow(x, n) | 204. Count Primes |"
    titled = "\n".join(rows).replace("| 항목 | 문제 1 | 문제 2 |", header)
    named = [catalog.find_problem(p.fields["problem"].value).problem for p in parse_log(titled).problems]
    assert [p.number for p in named if p is not None] == [50, 204]
    r = review_log(titled)
    assert r.points == 6.0 and not [f for f in r.findings if f.severity in ("error", "warning")]
    slots = review_log("\n".join(rows))  # titles '문제 1', '문제 2': no problem named anywhere
    missing = [(f.problem, f.field) for f in slots.findings if f.code == "missing_field"]
    assert missing == [(1, "problem"), (2, "problem")]


@pytest.mark.parametrize("wrap", [
    lambda t: "- 기록:\n\n" + "".join(f"  {line}\n" for line in t.splitlines()),  # in a list item
    lambda t: "```\n" + "".join(f"> {line}\n" for line in t.splitlines()) + "```\n",  # quoted, then fenced
], ids=["list_item", "quote_in_fence"])
def test_a_log_inside_another_block_gets_the_verdict_of_the_log_alone(wrap: Callable[[str], str]) -> None:
    """The table is read by columns wherever it is, and a container inside a container is opened."""
    text = (CASES / "transposed_table.md").read_text(encoding="utf-8")
    assert _verdict(review_log(wrap(text))) == _verdict(review_log(text))


@pytest.mark.parametrize(("line", "field", "value"), [
    ("- 혼자 풀었어", "solved", "혼자 풀었어"),  # 반말: the question's own words answer it
    ("- Difficulty: Medium\n  I first tried multiplying x n times.", "first_idea", "I first tried"),
])
def test_a_line_that_answers_a_field_without_its_label_is_read(line: str, field: str, value: str) -> None:
    """Two rules no other rule stands in for (the recorded logs have neither line)."""
    text = f"## Problem 1: 50. Pow(x, n)\n{line}\n- Time: O(log n) because n halves\n"
    assert parse_log(text).problems[0].fields[field].value.startswith(value)


def test_the_blocks_come_from_the_markdown_tree_not_from_a_lines_first_characters() -> None:
    """What looks like a field inside code, a comment or a quote is none; a setext underline ends a field
    like a rule; a table's rows are the tree's, known by its header."""
    from lesson_embedding_pe.leetlog.tree import read

    text = ("## Problem 1: 50. Pow(x, n)\nDifficulty: Medium\n```\nTime: O(n)\n```\n<!--\nSpace: O(n)\n-->\n"
            "Time: O(log n)\nhalving\n---\n> ## Problem 2 Space: O(n)\n\n"
            "| Problem | Difficulty | Time |\n|---|---|---|\n| 204. Count Primes | Easy | O(n) |\nnote\n")
    lines = read(text, lambda _: False)
    assert [ln.number for ln in lines] == list(range(1, 18))
    assert [ln.kind for ln in lines] == ["heading", "", *["code"] * 3, *["comment"] * 3, "", "", "rule",
                                         "quote", "", "head", "sep", "row", ""]
    assert (lines[0].level, lines[0].title) == (2, "Problem 1: 50. Pow(x, n)")
    assert lines[15].cells == ["204. Count Primes", "Easy", "O(n)"] and lines[15].head[0] == "Problem"
    parsed = parse_log(text)
    first = parsed.problems[0]
    assert (first.fields["time"].value, first.fields["time"].line) == ("O(log n)\nhalving", 9)
    assert "space" not in first.fields
    assert len(parsed.problems) == 2 and parsed.problems[1].fields["difficulty"].value == "Easy"


@pytest.mark.parametrize(("written", "answer"), [
    ("- [x] alone\n- [ ] after reading a solution", "alone"),
    ("[ ] alone [x] after reading a solution", "after reading a solution"),
    ("~~alone~~ / after reading a solution", "/ after reading a solution"),
    ("- [ ] alone\n- [ ] after reading a solution", ""),  # nothing ticked: no answer
    ("O(n) [see the note]", "O(n) [see the note]"),  # brackets that are no box stay
])
def test_the_option_not_chosen_is_no_part_of_the_answer(written: str, answer: str) -> None:
    from lesson_embedding_pe.leetlog.parser import clean_value

    assert clean_value(written) == answer


def test_a_missing_fields_nearest_sentence_is_never_two_labelled_lines_run_together() -> None:
    text = (CASES / "dash_labels_ko.md").read_text(encoding="utf-8")
    text = text.replace("틀린 이유 - n을 포함해서 셈\n", "")
    found = [f for f in review_log(text).findings if f.severity == "error"]
    assert [(f.problem, f.field, f.code) for f in found] == [(1, "what_went_wrong", "missing_field")]
    assert "처음 아이디어" not in found[0].message_ko


def test_a_field_missing_from_a_bullet_tree_quotes_no_answer_of_another_field() -> None:
    found = [f for f in _review("nested_tree_missing_idea_ko_mistake").findings if f.severity == "error"]
    assert [f.field for f in found] == ["first_idea"] and "Integer to Roman" not in found[0].message_ko


@pytest.mark.parametrize("case", ["overview_table_first_ko", "summary_table_after_en_mistake"])
def test_a_table_summing_up_the_logged_problems_is_no_problem_of_its_own(case: str) -> None:
    second = "204. Count Primes" if case.endswith("ko") else "12. Integer to Roman"
    parsed = parse_log((CASES / f"{case}.md").read_text(encoding="utf-8"))
    assert [p.heading for p in parsed.problems] == ["50. Pow(x, n)", second]
    assert not [f for f in _review(case).findings if f.code.startswith("extra")]


def test_front_matter_is_the_pages_metadata_unless_it_holds_the_log() -> None:
    """'---' / 'title: …' / '---' at the top of a file (or of a fenced copy of it) is no problem; the same
    rules around labelled fields are the log's own."""
    from lesson_embedding_pe.leetlog.tree import read

    meta = "---\ntitle: LeetCode log\ntags: [leetcode]\n---\n"
    kinds = [ln.kind for ln in read(meta + "## Problem 1\nDifficulty: Medium\n", lambda _: False)]
    assert kinds == ["comment"] * 4 + ["heading", ""]
    fenced = "```\n" + meta + (CASES / "setext_plain.md").read_text(encoding="utf-8") + "```\n"
    assert _verdict(review_log(fenced)) == (FULL, [], [])
    log = (CASES / "rules_between_problems.md").read_text(encoding="utf-8")
    problems = [p.fields["problem"].value for p in parse_log(log).problems]
    assert problems == ["50. Pow(x, n)", "204. Count Primes"]


def test_a_section_number_is_no_problem_number_but_a_wrong_number_still_is() -> None:
    text = (CASES / "section_numbers.md").read_text(encoding="utf-8")
    wrong = review_log(text.replace("## 2. Count Primes", "## 205. Count Primes"))
    assert [(f.problem, f.code) for f in wrong.findings if f.severity == "warning"] == [
        (2, "number_title_mismatch")
    ]


def test_a_claim_the_code_contradicts_quotes_the_counts_and_the_claim() -> None:
    r = _review("pow_loop_n")
    f = next(f for f in r.findings if f.code == "complexity_inconsistent")
    assert "n = 1,000 → 1,001 steps; n = 2,000 → 2,001 steps" in f.message_en
    assert '"O(log n)" (line 6)' in f.message_en and "O(n)" in f.message_en
    assert "n = 1,000 → 1,001단계" in f.message_ko and "O(n)" in f.message_ko
    # the same log with fast exponentiation in the code: the claim fits, nothing is charged
    fast = {"leetcode": (CASES.parent.parent / "solutions" / "leetcode.py").read_text(encoding="utf-8")}
    log = (CASES / "pow_loop_n.md").read_text(encoding="utf-8")
    assert review_log(log, sources=fast, measure=measure_in(fast)).points == FULL


def test_recursion_on_n_minus_1_is_charged_for_the_space_claim_only() -> None:
    f = [f for f in _review("pow_recursive_n1").findings if f.code.startswith("complexity")]
    assert [(x.field, x.code) for x in f] == [("space", "complexity_inconsistent")]
    assert "n = 800 → recursion depth 801" in f[0].message_en and "O(n)" in f[0].message_en


_POW_LOG = (CASES / "pow_loop_n.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("code", "approach", "numbers"),
    [
        (
            "def my_pow(x, n):\n    r = 1\n    m = abs(n)\n    while m:\n        if m & 1:\n"
            "            r *= x\n        x *= x\n        m //= 2\n    return r if n >= 0 else 1 / r\n",
            "fast exponentiation, iterative (halving n)",
            "n = 1,000 → 11 steps",
        ),
        (
            "def my_pow(x, n):\n    if n == 0:\n        return 1\n    h = my_pow(x, n >> 1)\n"
            "    return h * h * (x if n & 1 else 1)\n",
            "fast exponentiation, recursive (halving n)",
            "n = 1,000 → 11 steps",
        ),
    ],
    ids=["pow-halves", "pow-recursive-halves"],
)
def test_a_claim_looser_than_the_code_is_held_to_the_approach_the_counts_fit(
        code: str, approach: str, numbers: str) -> None:
    """O(n) logged for a power that halves n: the counts grow like log n, so the code implements the
    approach whose bounds they fit (both parts' counts say which), and O(n) is looser than it: charged,
    with the numbers, never a line of code."""
    sources = {"leetcode": code}
    log = _POW_LOG.replace("O(log n) — the loop is fast", "O(n) — the loop runs once per bit")
    r = review_log(log, sources=sources, measure=measure_in(sources))
    # the recursion's O(1) space is contradicted too (log n frames deep), as its own finding
    space = [(1, "space", "complexity_inconsistent")] if "recursive" in approach else []
    sure = [f for f in r.findings if f.severity in ("error", "warning")]
    assert [(f.problem, f.field, f.code) for f in sure] == [(1, "time", "complexity_worse"), *space]
    f = sure[0]
    assert approach in f.message_en and numbers in f.message_en and "O(log n)" in f.message_en
    assert "leetcode.py line" not in f.message_en and r.problems[0].held_by["time"] == "measured"
    assert r.points == FULL - 0.25 * (1 + len(space))
    # the same code logged O(log n): the time claim fits, met
    met = review_log(_POW_LOG, sources=sources, measure=measure_in(sources))
    assert [f.field for f in met.findings if f.severity == "warning"] == [s[1] for s in space]


@pytest.mark.parametrize("code", ["def my_pow(x, n):\n    return x ** n\n",
                                  "def my_pow(x, n):\n    raise NotImplementedError\n"],
                         ids=["builtin", "stub"])
def test_counts_no_approach_fits_leave_the_log_to_say(code: str) -> None:
    """A builtin power (one step at any n: no approach's O(log n) fits), or a stub (nothing ran): the
    catalog goes by the log's words, which name none here, so the best known bound."""
    sources = {"leetcode": code}
    assert review_log(_POW_LOG, sources=sources, measure=measure_in(sources)).points == FULL
    loose = _POW_LOG.replace("O(log n) — the loop is fast", "O(n) — one multiplication per unit of n")
    r = review_log(loose, sources=sources, measure=measure_in(sources))
    assert [(f.problem, f.field, f.code) for f in r.findings if f.severity == "warning"] == [
        (1, "time", "complexity_worse")]
    assert r.problems[0].held_by["time"] == "catalog"


@pytest.mark.parametrize("approach", ["자릿수마다 표에서 바로 꺼내 이어 붙임", "큰 값부터 빼는 탐욕법"],
                         ids=["digit-tables", "greedy"])
@pytest.mark.parametrize("time", ["O(log num)", "O(1)"])
def test_integer_to_roman_takes_o_1_and_o_log_num_for_either_approach(approach: str, time: str) -> None:
    """num <= 3,999 (not measured): at most 15 symbols, and a per-digit loop is O(digits), so both bounds
    are right for both approaches, by the log's words alone, whatever the code."""
    text = (CASES / "roman_tables.md").read_text(encoding="utf-8")
    log = text.replace("자릿수마다 표(천, 백, 십, 일의 자리)에서 바로 꺼내 이어 붙임", approach).replace(
        "O(log num) — 자릿수마다", f"{time} — 자릿수마다")
    r = review_log(log)
    assert _verdict(r) == (FULL, [], []), [f.message_en for f in r.findings]


def test_each_unsure_case_is_a_ta_check_on_the_part_it_concerns() -> None:
    """What the TA decides maps to the test the part passed provisionally (logta.py)."""
    groups = {
        f.code: _group_of(f.code, f.field or "")
        for c in ("vague_name_ko", "undefined_variable", "amortized", "unplaceable")
        for f in _review(c).findings
        if f.severity == "unsure"
    }
    assert groups == {
        "unsure_unknown_problem": "task_fit",
        "unsure_undefined_variable": "catalog",
        "unsure_amortized": "catalog",
        "unsure_approach": "catalog",
        "unsure_unplaced": groups["unsure_unplaced"],
    }
    keys = {check_key(vars(f)) for f in _review("unplaceable").findings}
    assert len(keys) == 10  # one check per part of each problem
    assert {
        _group_of("unsure_unplaced", f)
        for f in ("problem", "first_idea", "time", "what_went_wrong", "solved")
    } == {"problem", "approach", "complexity", "went_wrong", "solved"}


@pytest.mark.parametrize("case", ["quoted_ko", "numbered_table_rows"])
def test_a_notebook_cell_holding_the_log_is_found_as_the_log(case: str) -> None:
    """Quoted line by line; a table alone whose header names the fields after a '#' column."""
    from lesson_embedding_pe.loggrade import looks_like_log

    assert looks_like_log((CASES / f"{case}.md").read_text(encoding="utf-8"))


def test_a_log_in_a_code_fence_gets_the_whole_log_mark_from_the_grader(tmp_path: Path) -> None:
    """End to end: the real grader, the reference code and a log pasted inside a code fence (every log test
    passes, public and hidden, and no part goes to a TA)."""
    from tests.conftest import ROOT, grade

    sub = tmp_path / "fenced"
    shutil.copytree(ROOT / "solutions", sub, ignore=shutil.ignore_patterns("__pycache__"))
    fenced = (CASES / "fenced_en.md").read_text(encoding="utf-8")
    (sub / "LEETCODE_LOG.md").write_text(fenced, encoding="utf-8")
    results = grade(sub, keyword="leetcode_log")
    log = [t for t in results["tests"] if t["task"] == "leetcode_log"]
    failed = [t["id"] for t in log if t["status"] != "passed"]
    assert log and not failed, failed
    assert not results.get("ta_checks")


@pytest.mark.parametrize(("sentence", "time", "space"), [
    ("n이 매번 절반이 되므로 시간 복잡도는 O(log n)이고, 변수 세 개만 쓰므로 공간 복잡도는 O(1)이다.",
     "n이 매번 절반이 되므로", "변수 세 개만 쓰므로"),
    ("Since n halves, the time is O(log n), and since only three variables are kept, the space is O(1).",
     "Since n halves", "since only three variables are kept"),
    ("The time is O(log n), as n halves, and the space is O(1) as we keep three numbers.",
     "as n halves", "as we keep three numbers"),
])
def test_a_reason_ahead_of_a_later_claim_is_that_claims(sentence: str, time: str, space: str) -> None:
    """In one sentence of two claims, the clause after the break that gives a reason ('변수 세 개만 쓰므로',
    'since …, the') is the second claim's; a reason after the first claim ('as n halves') stays its own."""
    from lesson_embedding_pe.leetlog.prose import read_fields, split_sentences

    read = read_fields(split_sentences([(1, sentence)]))
    assert time in read["time"].value and space in read["space"].value


def test_a_labelled_answer_is_no_sentence_to_quote() -> None:
    """A field left out of a labelled log is named without quoting another field's answer as the student's
    nearest sentence (the time's 'O(log n) — n이 절반씩' for a missing space)."""
    r = _review("velog_missing_space_ko_mistake")
    assert [f.message_en for f in r.findings if "nearest" in f.message_en] == []  # type: ignore[attr-defined]


def test_a_callouts_title_is_no_sentence_to_quote() -> None:
    """The field a log leaves out is named without quoting the callout's title as its nearest sentence."""
    r = _review("callout_titles_ko")
    assert [f.message_en for f in r.findings if "[!" in f.message_en] == []  # type: ignore[attr-defined]


# round 6 (code)
ROUND_6: dict[str, Verdict] = {
    # @cache on a halving recursion: each size runs on a fresh copy, so the cache of the last size no longer
    # hides this one's depth (was a sure complexity_worse: 48 bytes flat read as the iterative O(1))
    "pow_cache_decorator_en": (FULL, [], []),
    # sys.setrecursionlimit(10**6) and x * my_pow(x, n - 1): measured under Python's own limit, the recursion
    # stops at n = 1,000 and its O(log n) time and O(1) space are not met (was full marks: the worker timed
    # out, and the log's 'recursion' held the catalog's O(log n))
    "pow_recursion_limit_raised_en": (FULL - 0.5, [(1, "space", "complexity_inconsistent"),
                                                   (1, "time", "complexity_inconsistent")], []),
    # numpy's sieve[i*i::i] = False writes n/i elements (counted now), and its 64 KiB sum buffer bends the
    # bytes: neither reads as the segmented sieve's O(√n), so the true O(n) keeps its point (was marked down)
    "sieve_numpy_ko": (FULL, [], []),
    # re.sub over a string of n characters: flat steps, bytes like n, and the bytes refute O(log n) time too
    # (was met by the steps alone)
    "pow_re_sub_ko": (FULL - 0.5, [(1, "space", "complexity_inconsistent"),
                                   (1, "time", "complexity_inconsistent")], []),
    # '_product = partial(reduce, mul)' is reduce: its n products are counted and the true O(n) keeps its
    # point (was a sure complexity_worse against the best bound, nothing counted)
    "pow_partial_reduce_en": (FULL, [], []),
    # a table of primes up to 5,000,000 built at import, then bisect: the call's counts leave the sieve out,
    # so its O(1) claims are a TA's (were met)
    "sieve_table_at_import_en": (FULL, [], [(1, "space", "unsure_measured"), (1, "time", "unsure_measured")]),
    # 6k±1 trial division: steps near n^1.2 at these sizes fit the sieves, its flat bytes no sieve: its true
    # O(n√n) is a TA's (was a sure complexity_worse, read as a sieve)
    "trial_division_wheel_ko": (FULL, [], [(2, "time", "unsure_measured")]),
    # a module-level memo (seeded at import) is copied as the module left it for each size: the halving
    # recursion shows log n steps and depth, so O(1) is not met (was met: the memo of the last size answered)
    "pow_global_memo_seeded_en": (FULL - 0.5, [(1, "space", "complexity_inconsistent"),
                                               (1, "time", "complexity_inconsistent")], []),
}
VERDICTS.update(ROUND_6)


@pytest.mark.parametrize("case", sorted(ROUND_6))
def test_round_6_logs_get_the_verdict_a_ta_would_give(case: str) -> None:
    """Those above, added after the parametrized test over VERDICTS had read its list."""
    test_each_log_gets_the_verdict_a_ta_would_give(case)


# round 7 (logs written after round 6, none generated)
ROUND_7: dict[str, Verdict] = {
    # '실수한 점' (what went wrong, as many Korean logs say it): a label (was unsure on both problems)
    "mistake_label_ko": (FULL, [], []),
    # 'Solved alone? Yes ✅' and '… No — read the editorial': the answer's first word answers the question
    # (was a sure bad_solved: 'Yes ✅' was no yes)
    "yes_with_emoji_en": (FULL, [], []),
    # 'Self-solved: yes' / 'no, watched NeetCode's video', 'TC:/SC:', 'Idea 1:' / 'Idea 2 (final):'
    # (were a sure missing_field and a bad_solved, 5.75/6)
    "self_solved_abbrev_en": (FULL, [], []),
    # a task list for how it was solved ('- [x] 혼자 풀었다' over '- [ ] 풀이를 보고 풀었다'): the ticked
    # box is the answer, the unticked one an option not chosen (was a sure missing_field on each, 5.5/6)
    "task_list_solved_ko": (FULL, [], []),
    # '아이디어: 처음엔 … → …, 그래서 … 으로 바꿈' holds both approaches; 'T: O(log n) / S: O(1) — …'
    # labels the complexities, the reason for both (was a sure missing final approach and four unsure)
    "letter_labels_idea_ko": (FULL, [], []),
    # 'Time & Space: O(log n) & O(1) — …': the reason after both speaks for both (was unsure: 'O(log n) &')
    "ampersand_pair_en": (FULL, [], []),
    # 'Medium, but it felt hard to me', '미디엄인데 체감은 하드': LeetCode's level, then how it felt
    # (was a sure bad_difficulty on each: two levels named)
    "felt_difficulty_mixed": (FULL, [], []),
    # a row per problem whose '혼자?' column answers '⭕' / '❌ (풀이 봄, …)': the marks are yes and no
    # (was a sure bad_solved)
    "row_table_circle_ko": (FULL, [], []),
    # a Q&A post ('**Q. 최종 풀이는?**' then 'A. …'): each question labels the field it asks about, its
    # answer under it (was 3.75/6: four sure missing fields, and 'A. 네.' a bad_solved)
    "qa_pairs_ko": (FULL, [], []),
    # a journal in prose: 'My gut said to …', 'I started with …' give the first idea, 'I tripped over …' what
    # went wrong, '… around so the space is O(1)' a reason ahead of its claim (was 5.25/6: three sure
    # missing fields)
    "prose_journal_en": (FULL, [], []),
    # a paragraph per problem after its name and a colon ('50번 Pow(x, n) (Medium): 처음엔 n번 곱했는데 …'):
    # the first idea right after the colon (was a sure missing first idea on each, 5.5/6)
    "prose_colon_first_ko": (FULL, [], []),
    # fields numbered with circled digits ('① 난이도: Medium', '⑤ 공간 복잡도: …'), as Korean documents number
    # them: list markers (was 3.75/6: seven sure missing fields)
    "circled_numbers_ko": (FULL, [], []),
    # Palindrome Number's input is x on LeetCode: 'O(log x)' is a claim in its size (was unsure: an
    # undefined variable); an Easy and a Hard problem each cost the task fit; 'Space: O(1).' has no reason
    "palindrome_x_hard_en": (FULL - 1.25, [(1, "difficulty", "not_medium"), (2, "difficulty", "not_medium"),
                                           (2, "space", "no_reason")], []),
}
VERDICTS.update(ROUND_7)


@pytest.mark.parametrize("case", sorted(ROUND_7))
def test_round_7_logs_get_the_verdict_a_ta_would_give(case: str) -> None:
    test_each_log_gets_the_verdict_a_ta_would_give(case)


# round 9, layouts and words (logs written after round 7, none generated)
ROUND_9_LAYOUTS: dict[str, Verdict] = {
    # a log typed in a Korean IME's full-width mode ('５０. Ｐｏｗ（ｘ， ｎ）', '난이도： Ｍｅｄｉｕｍ',
    # 'Ｏ（ｌｏｇ ｎ）'): read as the ASCII it stands for (was 3/6: no problem, no difficulty, no Big-O,
    # all sure)
    "fullwidth_all_ko": (FULL, [], []),
    # a Notion database as one table whose checkbox column '혼자 풂' holds ☑ or ☐: the header is the
    # solved label, a ticked box yes and an empty one no (was 5.5/6: a sure missing 'solved' on each)
    "notion_db_checkbox_ko": (FULL, [], []),
    # the solved field's label alone on its line ('- 혼자 풀었나', '> [!check] 혼자 풀었나') with its answer
    # under it ('    - 혼자', as Notion exports a toggle's child; '> 혼자' in an Obsidian callout): the line
    # under it is the answer, not a second one (was a duplicate 'solved' on each, the label's words graded)
    "notion_toggle_children_ko": (FULL, [], []),
    "callout_field_titles_ko": (FULL, [], []),
    # a Velog post's emoji headings: '## 📌 문제 1: [50. Pow(x, n)](…)' is problem 1, not number 1, and
    # '### ⏱ 복잡도' over '- 시간: …' / '- 공간: …' decorates a section, no answer 복잡도 to the time
    # (was 5/6: a sure no_bigo and a duplicate time on each, 'number 1 does not match'); its quoted
    # '> 난이도: 🟡 Medium' stays unsure (a quote is no field unless it holds the log: a TA reads it)
    "velog_emoji_sections_ko": (FULL, [], [(1, "difficulty", "unsure_missing_field"),
                                           (2, "difficulty", "unsure_missing_field")]),
    # the same toggle children with '- 혼자 풀었나' over '    - 풀이 봄' and no redo date: the child answers,
    # a solution read, so the redo date is missing (was unsure: the label's '혼자' and the answer's '풀이'
    # read as both)
    "notion_toggle_children_no_redo_ko_mistake": (FULL - 0.25, [(1, "redo_date", "redo_date_missing")], []),
    # each field's label a setext heading ('난이도' over '------', its answer under it): the underline is
    # the label's, not a rule that ends the field (was 1.5/6: five sure empty fields on each problem)
    "setext_field_labels_ko": (FULL, [], []),
    # a Notion database's row per problem with a checkbox property '풀이 참고' (a solution consulted) of
    # Yes / No: the column is the solved field, Yes after a solution, No alone (was 5.5/6: a sure
    # missing 'solved' on each)
    "notion_db_props_ko": (FULL, [], []),
    # what went wrong as a nested list whose items start with a field's word ('  - Space: my recursive
    # version …', '  - Difficulty: off-by-one …') under '- What went wrong:': its answer, not a second
    # space or difficulty (was 5.75/6: a sure empty what-went-wrong and three duplicates)
    "nested_mistakes_labels_inside_en": (FULL, [], []),
    # 존댓말 bullets with the labels in the sentence ('- 난이도는 Medium입니다.'), the redo date its own
    # sentence with the day only ('해설을 보고 풀었습니다. 12월 22일에 다시 풀겠습니다.'): a day without its
    # year is a redo date in prose as under a label (was 5.75/6: a sure redo_date_missing)
    "jondaetmal_labels_ko": (FULL, [], []),
}
VERDICTS.update(ROUND_9_LAYOUTS)


@pytest.mark.parametrize("case", sorted(ROUND_9_LAYOUTS))
def test_round_9_layouts_get_the_verdict_a_ta_would_give(case: str) -> None:
    test_each_log_gets_the_verdict_a_ta_would_give(case)


# round 9, claims held to the code (implementations written after round 7, none generated)
ROUND_9_CODE: dict[str, Verdict] = {
    # LeetCode's class kept, the practice name bound to its method ('my_pow = Solution().myPow'): the counted
    # copy looks the method up when called, so the class counted is the one that runs; a loop of n claimed
    # O(log n) is not met (was 6/6: both claims unsure, the counts 0 and the bound method 'built at import')
    "pow_bound_method_en": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    # the same with the halving loop, claimed O(log n) and O(1): met (was 6/6 with both claims unsure)
    "pow_bound_method_honest_en": (FULL, [], []),
    # the method recursing through self ('self.myPow(x, n // 2)'), logged O(1) space: its recursion log n
    # deep is counted and the claim not met (was unsure on both claims)
    "pow_bound_method_recursive_ko": (FULL - 0.25, [(1, "space", "complexity_inconsistent")], []),
    # the practice name bound to the module's own function ('my_pow = power_loop') or to a partial of it
    # ('my_pow = partial(power_loop, start=1.0)'): the counted copy's is the one called, so a loop of n
    # logged O(log n) is not met (were 6/6: the uncounted function ran, 0 steps; the partial was not run,
    # having no module of its own, and the log's words held)
    "pow_alias_linear_en": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    "pow_partial_linear_en": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    # 'my_pow = lambda x, n: reduce(operator.mul, repeat(x, n), 1.0)' logged O(log n): the lambda is counted
    # as a function would be (was 6/6: it ran uncounted, 0 steps, and the log's words held)
    "pow_module_lambda_en": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    # a sieve whose flags are the bits of one int ('bits &= ~(1 << m)'): each operator makes an int of up to
    # n bits, its 64-bit words counted, so the crossings cost n each and O(n log log n) is not met; its O(n)
    # space (n / 8 bytes) is met (was 6/6: an operator's result was counted only for a literal list times n)
    "sieve_bigint_bits_en": (FULL - 0.25, [(2, "time", "complexity_inconsistent")], []),
    # Roman's greedy claimed O(n) ('one loop turn per symbol written'): the greedy's O(1), and O(n) is the
    # unary string's bound (was the same verdict, its message 'the bound of the a string of num 'I's');
    # Happy Number is Easy
    "roman_greedy_linear_claim_en": (FULL - 0.75, [(1, "difficulty", "not_medium"),
                                                   (2, "time", "complexity_worse")], []),
    # 'primes = primes + [i]' in a sieve: each concatenation copies the list (the operator's result counted,
    # as for the big int above), so O(n log log n) is not met (was 6/6)
    "sieve_primes_concat_en": (FULL - 0.25, [(2, "time", "complexity_inconsistent")], []),
    # Wilson's theorem with a running factorial logged O(n) time, O(1) space: '(fact + 1) % i' makes an int
    # of i log i bits each turn, counted, so neither is met (was 5.75: the O(n) time met)
    "primes_wilson_factorial_en": (FULL - 0.5, [(2, "space", "complexity_inconsistent"),
                                                (2, "time", "complexity_inconsistent")], []),
    # np.prod(np.full(n, x)) logged O(n) and O(n), as it is: a container handed to a built-in is counted by
    # its length and passed on as it is (was 5.5/6: handed on as a generator, np.prod raised TypeError,
    # nothing was measured and the catalog's best bounds took both points)
    "pow_numpy_prod_en": (FULL, [], []),
    # numpy's sieve[i * i::i] = np.zeros(k): the array written is counted by its length, as a list (was
    # unsure on the O(n) space: the array was handed to numpy as a generator)
    "sieve_numpy_zeros_fill_en": (FULL, [], []),
    # a list's remove and insert search or shift its items: 'nums.remove(m)' in a sieve over a list of the
    # numbers logged O(n log log n), 'factors.insert(0, x)' n times logged O(n): both not met (were 6/6);
    # a set's remove hashes: the set sieve's O(n log log n) stays met
    "sieve_list_remove_en": (FULL - 0.25, [(2, "time", "complexity_inconsistent")], []),
    "pow_insert_front_en": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    # 'queue.pop(0)' n times logged O(n): a pop at an index shifts the list (was 6/6); pop() takes the last
    "pow_queue_pop_front_en": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    "sieve_set_remove_en": (FULL, [], []),
    # a class of the student's own whose __len__ says 0 while it yields n items, summed in C: counted item by
    # item, as the student's iterables always were (counted by its length it hid O(n) work: O(1) was met)
    "iterable_len_lie_en": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
}
VERDICTS.update(ROUND_9_CODE)


@pytest.mark.parametrize("case", sorted(ROUND_9_CODE))
def test_round_9_code_logs_get_the_verdict_a_ta_would_give(case: str) -> None:
    test_each_log_gets_the_verdict_a_ta_would_give(case)


ROUND_10_LOGS: dict[str, Verdict] = {
    # a GitHub issue form: each field under its own '### …' heading, the form's '### 문제 번호와 제목'
    # again for the second problem, '_No response_' in an optional field (was 3/6: the second problem's
    # headings read as duplicates of the first's, 'no entry for problem 2', a sure bad_date on it)
    "gh_issue_form_ko": (FULL, [], []),
    # the same form with problem 1's space complexity left out: exactly that field (was 2.75/6: problem 2
    # missing, its O(n) space taken as problem 1's and held against it)
    "gh_issue_form_missing_space_en_mistake": (FULL - 0.75, [(1, "space", "missing_field")], []),
    # a blog's table of contents ('- [문제 2. Count Primes](#문제-2-count-primes)', '- [회고](#회고)') and its
    # 'back to top' links: the page's navigation (was 3.5/6: the contents read as a problem with '회고' as
    # what went wrong, six sure missing_field on it)
    "toc_anchor_links_ko": (FULL, [], []),
    # a Notion export's callout ('<aside>💡 템플릿: …</aside>') above the first problem's heading: one field
    # naming no problem there is the page's (was 3.25/6: '💡' read as a first idea, a problem of its own)
    "notion_aside_icon_ko": (FULL, [], []),
    # Google Docs' Markdown export escapes punctuation ('50\. Pow\(x, n\)', '2026\-12\-18', '1\. **Problem:**'
    # ): read as the text it stands for (were 5.75 and 5.5: a sure bad_date, and a numbered paragraph's
    # problem and redo date not read)
    "gdocs_escapes_ko": (FULL, [], []),
    "gdocs_escapes_en": (FULL, [], []),
    # a redo day counted from another ('D+3', '내일', 'next Monday'): a TA reads it (were sure bad_date, 0.25
    # each); a day with its weekday ('12/24(목)', 'Thu 12/24') was and stays a date
    "relative_redo_dates_ko": (FULL, [], [(1, "redo_date", "unsure_bad_date"),
                                          (2, "redo_date", "unsure_bad_date")]),
    "relative_redo_date_en": (FULL, [], [(1, "redo_date", "unsure_bad_date")]),
    # Count Primes by trial division up to √k, logged O(n sqrt n) / O(n^(3/2)) and O(1): the approach the log
    # names (was 5.5/6: held to the linear sieve's O(n), and 'O(1) better than the best known O(1)')
    "trial_division_named_en": (FULL, [], []),
    "trial_division_named_mixed": (FULL, [], []),
    # labels typed with a slip ('Tiem complexity', 'Space complexcity', 'Difficult'): the field of the one
    # known label they are nearest (was 3/6: four sure missing_field)
    "misspelt_labels_en": (FULL, [], []),
    # an Org file's '#+TITLE: LeetCode log' is the page's keyword, not a problem's title (was 3.25/6)
    "org_mode_en": (FULL, [], []),
    # each complexity's reason in a footnote on its Big-O ('O(log n)[^t1]', '[^t1]: n halves …' at the foot):
    # read where it is marked (was 5/6: four sure no_reason)
    "footnote_reasons_en": (FULL, [], []),
    # a redo day as month.day with its weekday ('12.24 (목)'), as '12/24' already was (was a sure bad_date)
    "redo_date_dotted_day_ko": (FULL, [], []),
    # a chat's replies: each question quoted ('> 처음 아이디어는?') over its answer, the paragraph going on
    # unquoted; '50. Pow(x, n), 난이도: Medium' is no label 'Pow(x, n), 난이도' (was 3.75/6: the questions
    # read as instructions, eight sure missing_field)
    "chat_reply_quotes_ko": (FULL, [], []),
    # a table cell broken with XHTML's '<br/>' ('sieve<br/>p*p부터'): a line break as '<br>' is (was unsure
    # on both sieve claims: the cell glued into 'sievep*p부터', 'fast powiterative')
    "table_br_slash_mixed": (FULL, [], []),
}
VERDICTS.update(ROUND_10_LOGS)


@pytest.mark.parametrize("case", sorted(ROUND_10_LOGS))
def test_round_10_logs_get_the_verdict_a_ta_would_give(case: str) -> None:
    test_each_log_gets_the_verdict_a_ta_would_give(case)


ROUND_10_CODE: dict[str, Verdict] = {
    # @lru_cache on my_pow itself around a loop of n, logged O(log n) and O(log n) 'with the cache': the
    # counted copy's module is the wrapped function's, so the loop's n steps refute the time and its flat
    # bytes (one cache entry a call) the space's 'the cache keeps the powers' (was 6/6: the wrapper has no
    # __globals__, the measurement failed, 'could not be run', and the log's words held or asked a TA)
    "pow_lru_cache_loop_en": (FULL - 0.5, [(1, "space", "complexity_worse"),
                                           (1, "time", "complexity_inconsistent")], []),
    # 'my_pow = Power()', a callable class recursing on n // 2, logged O(1) space: counted through its class's
    # __call__, its depth log n refutes O(1) (was 6/6: no __globals__, not measured, the words held), and
    # it solves my_pow (the real grade also said 'my_pow is not defined there', -0.5)
    "pow_callable_instance_en": (FULL - 0.25, [(1, "space", "complexity_inconsistent")], []),
    # O(log n) space for the string bin(n) walked digit by digit, and for an explicit stack of n's halves:
    # their bytes, inside the allocator's slack, still rise at every doubling of n, as log n does: met (were
    # 5.75, a sure complexity_worse against the iterative O(1))
    "pow_bin_digits_en": (FULL, [], []),
    "pow_explicit_stack_en": (FULL, [], []),
    # @lru_cache on 'x * my_pow(x, n - 1)' logged O(1) and O(1) 'from the cache': three sizes ran before
    # Python's limit at n = 800, each deeper and longer (101, 201, 401): counts that rise at every one of
    # three refute O(1) as of four (was 5.75: not measured, 'too few sizes', the space a TA's)
    "pow_lru_cache_n_minus_1_en": (FULL - 0.5, [(1, "space", "complexity_inconsistent"),
                                                (1, "time", "complexity_inconsistent")], []),
    # trial division by the primes found so far up to √k, logged O(n√n) (its textbook bound) and O(n): its
    # steps, near n^1.15 at these sizes, and its list of primes fit a sieve's bounds, but the claim is the
    # bound of the approach the log names ('trial division', now a catalog name): a TA's (was 5.75, a sure
    # complexity_worse saying the code is a sieve)
    "trial_primes_up_to_root_en": (FULL, [], [(1, "time", "unsure_measured")]),
    # a variable the log defines as the size's digit count ('O(d), where d is the number of digits of num',
    # 'O(b) — b is the number of bits of n') is log n: Roman's greedy takes O(log num) (was 5.75, a sure
    # complexity_worse against O(1)), and a loop of n logged O(b) is refuted by its n steps (was 6/6: 'could
    # not compare' O(b) with O(log n), and the claim held)
    "roman_digit_count_variable_en": (FULL, [], []),
    "pow_bits_variable_linear_en": (FULL - 0.25, [(1, "time", "complexity_inconsistent")], []),
    # Integer to Roman's greedy logged O(log num) space for the result string: num <= 3,999, so O(1) and
    # O(log num) both hold for space as for time (was 5.75, a sure complexity_worse)
    "roman_result_string_space_en": (FULL, [], []),
}
VERDICTS.update(ROUND_10_CODE)


@pytest.mark.parametrize("case", sorted(ROUND_10_CODE))
def test_round_10_code_logs_get_the_verdict_a_ta_would_give(case: str) -> None:
    test_each_log_gets_the_verdict_a_ta_would_give(case)


@pytest.mark.parametrize("case", ["pow_callable_instance_en", "pow_bound_method_honest_en",
                                  "pow_alias_linear_en", "pow_module_lambda_en", "pow_partial_linear_en"])
def test_a_practice_name_bound_by_assignment_is_solved(case: str) -> None:
    """'my_pow = Power()', 'my_pow = Solution().myPow', a lambda or a partial: the code solves my_pow (the
    real grade said 'my_pow is not defined there', 0.5 off the log), and a stub below a binding is not."""
    source = (CASES / f"{case}.py").read_text(encoding="utf-8")
    assert "my_pow" not in (coverage.unsolved({"leetcode": source}) or {})
    stub = 'def my_pow(x: float, n: int) -> float:\n    raise NotImplementedError\n'
    assert (coverage.unsolved({"leetcode": source + "\n\n" + stub}) or {}).get("my_pow") == "stub"
