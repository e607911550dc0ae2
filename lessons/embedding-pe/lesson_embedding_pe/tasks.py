"""This lesson's rubric tasks, in report order: names, titles, what each points at."""

from __future__ import annotations

from grader.author import Task

LOG_NAME = "LEETCODE_LOG.md"

TASK_LIST = (
    Task("sinusoidal_pe", "Sinusoidal positional encoding", "사인파 위치 인코딩", ("sinusoidal_pe",)),
    Task("TokenAndPosEmbedding", "Token + position embedding", "토큰 + 위치 임베딩",
         ("TokenAndPosEmbedding",)),
    Task("weight_tying", "Weight tying", "가중치 공유(weight tying)", ("TinyLM", "count_params")),
    Task("equivariance", "Permutation equivariance", "순열 동변성", ("equivariance_error",)),
    Task("reversal_experiment", "Sequence-reversal experiment", "순서 뒤집기 실험",
         ("train_reversal", "run_experiment", "ReversalModel", "make_batch", "evaluate")),
    Task("leetcode_log", "LeetCode log", "LeetCode 기록", document=LOG_NAME),
    Task("leetcode_practice", "LeetCode practice code", "LeetCode 연습 코드",
         ("my_pow", "count_primes", "is_happy", "int_to_roman")),
)

TASKS = tuple(t.name for t in TASK_LIST)

# The contract (Lesson.contract): which student module defines each graded name.
CONTRACT = {
    "sinusoidal_pe": "embedding", "TokenAndPosEmbedding": "embedding", "TinyLM": "embedding",
    "count_params": "embedding", "equivariance_error": "embedding",
    "make_batch": "reversal", "ReversalModel": "reversal", "train_reversal": "reversal",
    "evaluate": "reversal", "run_experiment": "reversal",
    "my_pow": "leetcode", "count_primes": "leetcode", "is_happy": "leetcode", "int_to_roman": "leetcode",
}
# The experiment's long runs (Lesson.notebook_top_level_calls): a graded notebook skips them at top level,
# since the grader trains the student's model itself, with its own budget.
TOP_LEVEL_CALLS = frozenset({"run_experiment", "train_reversal", "evaluate"})
