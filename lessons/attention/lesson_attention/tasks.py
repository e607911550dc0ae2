"""The lesson's rubric tasks, in report order: names, titles, what each points at."""

from __future__ import annotations

from grader.engine.lesson_api import Task

MODULE = "causal_attention"  # the one module a student writes (causal_attention.py)

TASK_LIST = (
    Task("causal_mask", "Causal mask", "인과 마스크", ("causal_mask",)),
    Task("scaled_dot_product_attention", "Scaled dot-product attention", "스케일드 닷프로덕트 어텐션",
         ("scaled_dot_product_attention",)),
    Task("CausalSelfAttention", "Causal multi-head self-attention", "인과 멀티헤드 셀프 어텐션",
         ("CausalSelfAttention",)),
)

TASKS = tuple(t.name for t in TASK_LIST)

# The contract: each graded name -> the module it lives in (for a notebook's shims and the runtime's lookup).
CONTRACT = {symbol: MODULE for task in TASK_LIST for symbol in task.symbols}

# Calls that train when run at top level, which a graded notebook skips: none, nothing here trains.
TOP_LEVEL_CALLS: frozenset[str] = frozenset()
