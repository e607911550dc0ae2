"""The real grader on the corpus: every correct variant gets full marks, every bug
loses points in the right task and is told why, in both languages."""

from __future__ import annotations

import shutil

import pytest

from grader.engine.options import GradeOptions
from grader.engine.runner import grade_path
from grader.sandbox.launch import SandboxPolicy
from tests.conftest import CORPUS, ROOT, computed_once, failed_messages, load_expect, task_scores

# The slow experiment and the log are graded by their own tests.
KEYWORD = "not reversal and not log"
# The cases whose module never finishes importing: what they are graded for is which tasks the hang costs,
# not how long the import timeout is, so they wait 5 s for it rather than the default 30 s.
HANG_AT_IMPORT = {"import_loop", "import_loop_stubs"}
SKIP_TASKS = {"reversal_experiment", "leetcode_log"}

# What the feedback must say for each bug: (task, words that must appear in its failure messages).
MESSAGES = {
    "bug_pe_plain_attr": ("TokenAndPosEmbedding", ["plain attribute", "register_buffer"]),
    "bug_pe_parameter": ("TokenAndPosEmbedding", ["nn.Parameter", "buffer"]),
    "bug_concat_sincos": ("sinusoidal_pe", ["concatenated", "interleave"]),
    "bug_sin_only": ("sinusoidal_pe", ["cos"]),
    "bug_wrong_base": ("sinusoidal_pe", ["10000"]),
    "bug_exponent_i": ("sinusoidal_pe", ["i/d_model instead of 2i/d_model"]),
    "bug_swapped_sincos": ("sinusoidal_pe", ["swapped", "row 0 reads 1, 0, 1, 0"]),
    "bug_positions_from_one": ("sinusoidal_pe", ["one position ahead", "start at 1"]),
    "bug_transposed": ("sinusoidal_pe", ["transposed", "one row per dimension"]),
    "bug_float64": ("sinusoidal_pe", ["float32", "float64"]),
    "bug_forward_offset": ("TokenAndPosEmbedding", ["one position ahead", "pe[:T]"]),
    "bug_no_scale": ("TokenAndPosEmbedding", ["not multiplied by sqrt(d_model)"]),
    "bug_scale_by_d_model": ("TokenAndPosEmbedding", ["not by sqrt(d_model)"]),
    "bug_arange_cpu": ("TokenAndPosEmbedding", ["device", "torch.arange(T)"]),
    "bug_pe_rebuilt_in_forward": ("TokenAndPosEmbedding", ["rebuilt in forward"]),
    "bug_no_len_check": ("TokenAndPosEmbedding", ["IndexError", "max_len"]),
    "bug_odd_dmodel_ok": ("sinusoidal_pe", ["ValueError", "even"]),
    "bug_unknown_mode_silent": ("TokenAndPosEmbedding", ["unknown mode"]),
    "bug_tie_data_copy": ("weight_tying", ["same Parameter object", "copied"]),
    "bug_tie_clone": ("weight_tying", ["same Parameter object"]),
    # the stub's head missing (self.head = None, F.linear with the embedding's weight): said so, not the
    # grader's AttributeError reading head.weight; its forward, which is right, passes
    "bug_tie_no_head": ("weight_tying", ["self.head is None", "self.head.weight = self.emb.weight"]),
    "bug_count_params_double": ("weight_tying", ["once"]),
    "bug_equivariance_no_perm": ("equivariance", ["fn(x)[:, perm]"]),
    "bug_equivariance_never_permutes": ("equivariance", ["never permuted"]),
    "bug_learned_positions_from_one": ("TokenAndPosEmbedding", ["torch's error", "not 1..T",
                                                                "one position ahead"]),
    "bug_leetcode_pow_negative": ("leetcode_practice", ["my_pow", "negative"]),
    "bug_leetcode_primes_inclusive": ("leetcode_practice", ["count_primes", "strictly below"]),
    "syntax_error": ("sinusoidal_pe", ["could not be imported", "SyntaxError", "embedding.py:"]),
    "missing_function": ("weight_tying", ["count_params"]),
    "import_loop": ("leetcode_practice", ["never finished"]),
    "import_loop_stubs": ("leetcode_practice", ["never finished", "Not attempted"]),
    "stub": ("TokenAndPosEmbedding", ["Not attempted"]),
}

CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expect.json").exists())


def grade_case(name: str, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The corpus case graded as this module checks it (tests/test_feedback_views.py reads the same)."""
    case = CORPUS / name
    expect = load_expect(case)
    # e.g. the untouched stubs: graded from the kit's own exercises/, never a stale copy
    if "copy_of" in expect:
        case = tmp_path_factory.mktemp(name)
        for source in (ROOT / expect["copy_of"]).glob("*.py"):
            shutil.copy(source, case / source.name)
    policy = SandboxPolicy(import_seconds=5.0) if name in HANG_AT_IMPORT else SandboxPolicy()
    return grade_path(case, GradeOptions(hidden=True, keyword=KEYWORD, policy=policy))


@pytest.fixture(scope="module", params=CASES)
def graded(request, tmp_path_factory):
    """A case graded once for the run, whichever worker runs its tests (tests/conftest.py)."""
    results = computed_once(tmp_path_factory, f"corpus-{request.param}",
                            lambda: grade_case(request.param, tmp_path_factory))
    return request.param, load_expect(CORPUS / request.param), results


def test_scores_follow_the_expectation(graded):
    name, expect, results = graded
    scores = task_scores(results)
    failing = set(expect.get("failing_tasks", [])) - SKIP_TASKS
    if expect.get("full_marks"):
        passing = set(scores) - SKIP_TASKS
    else:
        passing = set(expect.get("passing_tasks", [])) - SKIP_TASKS
    for task in failing:
        assert task in scores, f"{name}: task {task} was not graded"
        got, top = scores[task]
        assert got < top, f"{name}: {task} should lose points, got {got}/{top}"
    for task in passing:
        got, top = scores[task]
        assert got == top, (f"{name}: {task} should keep full marks, got {got}/{top}: "
                            f"{failed_messages(results, task)[:600]}")
    # a case that loses only the checks its expect.json names: what the stub names (a buffer `pe`,
    # self.pos = nn.Embedding), nothing its code does right (round 10: a device-safe rebuilt table lost the
    # device checks)
    if "only_failing" in expect:
        failed = {t["id"].split("::", 1)[1] for t in results["tests"] if t["status"] != "passed"}
        assert failed == set(expect["only_failing"]), f"{name}: {sorted(failed)}"


def test_each_bug_is_explained(graded):
    name, _expect, results = graded
    if name not in MESSAGES:
        pytest.skip(f"{name} has no message expectation (a correct variant or an experiment case)")
    task, words = MESSAGES[name]
    text = failed_messages(results, task)
    for word in words:
        assert word in text, f"{name}: expected {word!r} in the {task} feedback:\n{text[:1500]}"
    korean = failed_messages(results, task, "ko")
    assert any("\uac00" <= ch <= "\ud7a3" for ch in korean), f"{name}: the Korean feedback has no Korean text"


def test_statuses_are_contract_values(graded):
    _name, _expect, results = graded
    assert {t["status"] for t in results["tests"]} <= {"passed", "failed", "error", "timeout"}
    assert results["score"] == pytest.approx(sum(t["score"] for t in results["tests"]))


def test_a_file_that_never_imports_leaves_its_untouched_stubs_not_attempted(tmp_path_factory):
    """A loop at module level costs what was written (my_pow: never finished); the stubs beside it are
    not attempted, as they would be in a file that imports."""
    results = computed_once(tmp_path_factory, "corpus-import_loop_stubs",
                            lambda: grade_case("import_loop_stubs", tmp_path_factory))
    practice = [t for t in results["tests"] if t["task"] == "leetcode_practice"]
    by_problem: dict[str, set[str]] = {}
    for t in practice:
        if t["status"] != "passed":
            name = next(n for n in ("my_pow", "count_primes", "is_happy", "int_to_roman") if n in t["id"])
            by_problem.setdefault(name, set()).add(t["feedback"]["status"])
    assert by_problem.get("my_pow") == {"failed"}
    assert by_problem.keys() - {"my_pow"} and all(by_problem[n] == {"not_started"} for n in by_problem
                                                   if n != "my_pow"), by_problem
