"""Structural evidence from the submitted source, which the worker cannot forge.

A structural point (``pe`` is a registered buffer, tying is one shared
Parameter, positions are made on ``ids.device``) needs two things: the worker's
behaviour says so, and the source the grader read itself shows the construct
that does it.  The rules below are generous on purpose (helpers, ``setattr``,
loops, tying in either direction, ``(1, L, d)`` or non-persistent buffers all
count); what they refuse is a source with no construct that could do it at all,
such as a plain attribute or ``.data`` copied into a second Parameter.

Code is what a class can run: its methods, its student-defined bases, and
every function or class of the staged files it names, transitively.

Each check takes the staging folder or ``student.sources`` (a SourceView, grader/core/source.py) and
reads it only through ``definitions``, ``classes`` and ``file``: a warm re-grade then knows what a
check read (the definitions of the names it looked up, not every file) and reuses its result after an
edit elsewhere (engine/reuse.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

from grader.author import Evidence, Sources, SourceView, as_sources, dotted, literal_str, particle

FOUND = Evidence(True)
Staged = Path | Sources | SourceView  # the staging folder, or its sources (student.sources)


def find_class(sources: Sources | SourceView, name: str, home: str = "embedding.py") -> ast.ClassDef | None:
    """The class the worker would resolve: the last definition in the home file, else the last anywhere."""
    found = [(fname, node) for fname, node in sources.definitions(name)
             if isinstance(node, ast.ClassDef)]
    in_home = [node for fname, node in found if fname == home]
    candidates = in_home or [node for _, node in found]
    return candidates[-1] if candidates else None


def _referenced(node: ast.AST) -> set[str]:
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            names.add(n.id)
        elif isinstance(n, ast.Attribute):
            names.add(n.attr)
    return names


def reachable(sources: Sources | SourceView, root: ast.AST) -> list[ast.AST]:
    """``root`` and every staged definition it names, transitively (helpers, base classes, methods)."""
    seen: list[ast.AST] = [root]
    todo = [root]
    while todo:
        node = todo.pop()
        for name in _referenced(node):
            for _fname, d in sources.definitions(name):
                if all(d is not s for s in seen):
                    seen.append(d)
                    todo.append(d)
    return seen


def _mode_test(test: ast.AST, mode: str) -> bool | None:
    """Whether ``if <test>`` is taken for ``mode`` when the test compares the mode with strings, else None."""
    if isinstance(test, ast.BoolOp):
        parts = [_mode_test(v, mode) for v in test.values]
        if isinstance(test.op, ast.And) and False in parts:
            return False
        if isinstance(test.op, ast.Or) and True in parts:
            return True
        return None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if not dotted(left).endswith("mode"):
        left, right = right, left
    if not dotted(left).endswith("mode"):
        return None
    if isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        options = [literal_str(e) for e in right.elts]
    else:
        options = [literal_str(right)]
    if None in options:
        return None
    inside = mode in options
    if isinstance(op, (ast.Eq, ast.In, ast.Is)):
        return inside
    if isinstance(op, (ast.NotEq, ast.NotIn, ast.IsNot)):
        return not inside
    return None


def _walk_for_mode(node: ast.AST, mode: str | None):
    """ast.walk, skipping the branches of ``if self.mode == ...`` that ``mode`` does not take."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        if mode is not None and isinstance(n, (ast.If, ast.IfExp)):
            taken = _mode_test(n.test, mode)
            if taken is not None:
                todo.append(n.test)
                branch = n.body if taken else n.orelse
                todo.extend(branch if isinstance(branch, list) else [branch])
                continue
        todo.extend(ast.iter_child_nodes(n))


def _code(sources: Sources | SourceView, class_name: str, mode: str | None = None,
          method: str | None = None) -> list[ast.AST] | None:
    cls = find_class(sources, class_name)
    if cls is None:
        return None
    root: ast.AST = cls
    if method is not None:
        methods = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == method]
        if methods:
            root = methods[-1]
    nodes: list[ast.AST] = []
    for top in reachable(sources, root):
        nodes.extend(_walk_for_mode(top, mode))
    return nodes


def _no_class(name: str, sources: Sources | SourceView) -> Evidence:
    unread = [f for f in (sources.file("embedding.py"), sources.file("notebook.py"))
              if f is not None and f.tree is None]
    if unread:
        # The check runs once the worker's behaviour passed, so the worker imported the class from a
        # file the grader's own reading could not parse: the grader's fault, never a lost point.
        f = unread[0]
        return Evidence(True, f"the grader could not parse {f.name} ({f.error}) although Python imported "
                              "it: this is the grader's error, not yours; the point is given, and please "
                              "tell the instructor",
                        f"파이썬은 {f.name}를 import했지만 채점기가 이 파일을 파싱하지 못했습니다"
                        f"({f.error}): 학생이 아니라 채점기의 오류입니다. 점수는 그대로 주며, 강사에게 "
                        "알려 주세요")
    return Evidence(False, f"the grader found no `class {name}` statement "
                           "in your files, so it cannot confirm "
                           "the structure from your source (define the class with a class statement)",
                    f"제출한 파일에서 `class {name}` 문장을 찾지 못해 소스에서 구조를 확인할 수 없습니다"
                    "(class 문으로 정의하세요)")


def _call_name(node: ast.Call) -> str:
    return node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id if isinstance(
        node.func, ast.Name) else ""


def _arg(node: ast.Call, index: int, keyword: str) -> ast.AST | None:
    for kw in node.keywords:
        if kw.arg == keyword:
            return kw.value
    return node.args[index] if len(node.args) > index else None


def registers_buffer(staging: Staged, name: str = "pe", mode: str = "sin") -> Evidence:
    """A ``register_buffer`` call that can register ``name`` (a literal "pe" or a name passed in),
    or an assignment to ``_buffers[...]``."""
    sources = as_sources(staging)
    nodes = _code(sources, "TokenAndPosEmbedding", mode)
    if nodes is None:
        return _no_class("TokenAndPosEmbedding", sources)
    for n in nodes:
        if isinstance(n, ast.Call) and _call_name(n) == "register_buffer":
            # nn.Module.register_buffer(self, "pe", t) passes self first.
            offset = 1 if dotted(n.func).endswith("Module.register_buffer") else 0
            given = _arg(n, offset, "name")
            if given is None:
                continue
            text = literal_str(given)
            if text is None or text == name:
                return FOUND
        if (isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store)
                and dotted(n.value).endswith("_buffers")):
            return FOUND
    return Evidence(False, f"your source never registers `{name}` as a buffer in mode={mode!r}: no "
                           f"register_buffer('{name}', ...) call; an "
                           "attribute or a Parameter is not a buffer. "
                           f"Use self.register_buffer('{name}', table)",
                    f"소스 어디에서도 mode={mode!r}의 {particle(f'`{name}`', '를')} buffer로 "
                    f"등록하지 않습니다: register_buffer('{name}', ...) "
                    "호출이 없습니다. 일반 속성이나 Parameter는 buffer가 "
                    f"아닙니다. self.register_buffer('{name}', table)를 쓰세요")


def rebuilds_table(staging: Staged, mode: str = "sin") -> bool:
    """forward (and what it calls), in ``mode``, calls sinusoidal_pe: the table is made where the input is."""
    nodes = _code(as_sources(staging), "TokenAndPosEmbedding", mode, method="forward") or []
    return any(isinstance(n, ast.Call) and _call_name(n) == "sinusoidal_pe" for n in nodes)


# What can put positions on the input's device: an explicit device, a copy to it, a tensor made like
# another, or rows read from a registered table (a buffer or an embedding's weight) that moves with .to().
_DEVICE_CALLS = {
    "to", "type_as", "cuda", "new_tensor", "new_zeros", "new_ones", "new_empty", "new_full",
    "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like",
    "expand_as", "narrow", "index_select", "gather", "expand", "unsqueeze", "view",
    "reshape", "repeat", "contiguous", "clone", "detach",
}


# Tensor factories that build positions on the CPU unless told a device.
_MAKERS = {"torch.arange", "torch.range", "torch.linspace", "torch.tensor", "torch.zeros", "torch.ones",
           "torch.empty", "torch.full", "torch.LongTensor"}


def _self_chain(node: ast.AST) -> bool:
    chain = dotted(node)
    return chain.startswith("self.") or chain.startswith("cls.")


def positions_on_device(staging: Staged, mode: str) -> Evidence:
    """forward (and what it calls), in ``mode``, builds its positions on the input's device."""
    sources = as_sources(staging)
    nodes = _code(sources, "TokenAndPosEmbedding", mode, method="forward")
    if nodes is None:
        return _no_class("TokenAndPosEmbedding", sources)
    for n in nodes:
        if isinstance(n, ast.keyword) and n.arg == "device":
            return FOUND
        if isinstance(n, ast.Attribute) and n.attr == "device":
            return FOUND
        if isinstance(n, ast.Subscript) and _self_chain(n.value):
            return FOUND  # self.pe[:T], self.pos.weight[:T], self.position_ids[:, :T]
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            attr = n.func.attr
            anywhere = attr in ("to", "type_as", "cuda") or attr.endswith("_like") or attr.startswith("new_")
            if attr in _DEVICE_CALLS and (anywhere or _self_chain(n.func.value)):
                return FOUND
    made = next((ast.unparse(n) for n in nodes
                 if isinstance(n, ast.Call) and dotted(n.func) in _MAKERS), None)
    if made is not None:  # name the call that made them: what the student fixes
        return Evidence(False, f"in mode={mode!r}, your forward makes its positions with {made} without "
                               "device=ids.device, so on a GPU they stay on the CPU",
                        f"mode={mode!r}의 forward가 위치를 device=ids.device 없이 {particle(made, '로')} "
                        "만들어 GPU에서 위치가 CPU에 남습니다")
    return Evidence(False, f"in mode={mode!r}, your forward never ties its "
                           "positions to the input's device: no "
                           "device=ids.device, .to(ids.device) or "
                           "registered table read there, so on a GPU the "
                           "positions stay on the CPU",
                    f"mode={mode!r}의 forward에서 위치 텐서를 입력의 "
                    "device에 맞추는 곳이 없습니다: device=ids.device, "
                    ".to(ids.device), 등록된 표 읽기가 없어 GPU에서 위치가 CPU에 남습니다")


def _shares_weight(n: ast.AST) -> bool:
    """``a.weight = b.weight`` (either way), setattr(a, 'weight', w), register_parameter('weight', w)."""
    def plain(value: ast.AST) -> bool:  # a reference, not a new Parameter or a copy
        if isinstance(value, ast.Call):
            return _call_name(value) == "getattr"
        return True

    if isinstance(n, ast.Assign) and plain(n.value):
        return any(isinstance(t, ast.Attribute) and t.attr == "weight" for t in n.targets)
    if isinstance(n, ast.Call) and len(n.args) >= 2:
        if _call_name(n) == "setattr" and len(n.args) >= 3:
            return literal_str(n.args[1]) in ("weight", None) and plain(n.args[2])
        if _call_name(n) == "register_parameter":
            return literal_str(n.args[0]) in ("weight", None) and plain(n.args[1])
    return False


_CONDITIONAL = (ast.If, ast.IfExp, ast.For, ast.While, ast.Try, ast.Match, ast.FunctionDef)


def _tying_statements(sources: Sources | SourceView) -> list[tuple[ast.AST, bool]] | None:
    """Each statement that can share a weight, and whether it runs only under a condition or in a helper."""
    cls = find_class(sources, "TinyLM")
    if cls is None:
        return None
    found = []
    for top in reachable(sources, cls):
        init = top if isinstance(top, ast.ClassDef) and top is cls else None
        parents: dict[ast.AST, ast.AST] = {}
        for parent in ast.walk(top):
            for child in ast.iter_child_nodes(parent):
                parents[child] = parent
        for n in ast.walk(top):
            if not _shares_weight(n):
                continue
            conditional = True
            if init is not None:
                # Unconditional when its only ancestors up to TinyLM.__init__ are plain statements.
                p, conditional = parents.get(n), False
                while p is not None and not (isinstance(p, ast.FunctionDef) and p.name == "__init__"):
                    if isinstance(p, _CONDITIONAL):
                        conditional = True
                    p = parents.get(p)
                if isinstance(n, ast.Assign) and isinstance(n.value, ast.IfExp):
                    conditional = True
            found.append((n, conditional))
    return found


def shares_one_parameter(staging: Staged) -> Evidence:
    sources = as_sources(staging)
    statements = _tying_statements(sources)
    if statements is None:
        return _no_class("TinyLM", sources)
    if statements:
        return FOUND
    return Evidence(False, "your source never makes head and embedding share "
                           "one Parameter: no statement such as "
                           "self.head.weight = self.emb.weight (copying "
                           ".data or clone() gives two Parameters)",
                    "소스 어디에서도 head와 임베딩이 Parameter 하나를 공유하게 하지 않습니다: "
                    "self.head.weight = self.emb.weight 같은 문장이 "
                    "없습니다(.data 복사나 clone()은 Parameter 두 개)")


def ties_only_when_asked(staging: Staged) -> Evidence:
    sources = as_sources(staging)
    statements = _tying_statements(sources)
    if statements is None:
        return _no_class("TinyLM", sources)
    if all(conditional for _, conditional in statements):
        return FOUND
    return Evidence(False, "your source shares the weight unconditionally in TinyLM.__init__: put the tying "
                           "under `if tie:`",
                    "TinyLM.__init__에서 조건 없이 가중치를 공유합니다: `if tie:` 안에서만 공유하세요")


def makes_embedding(staging: Staged, class_name: str = "TokenAndPosEmbedding",
                    mode: str | None = None) -> Evidence:
    """An ``nn.Embedding`` (or a subclass the student defined) is constructed in the class's code."""
    sources = as_sources(staging)
    nodes = _code(sources, class_name, mode)
    if nodes is None:
        return _no_class(class_name, sources)
    embedding_classes = {"Embedding"} | {
        node.name for _f, node in sources.classes()
        if any(dotted(b).endswith("Embedding") for b in node.bases)}
    for n in nodes:
        if isinstance(n, ast.Call) and _call_name(n) in embedding_classes:
            return FOUND
    return Evidence(False, f"your source never constructs an nn.Embedding in {class_name}",
                    f"{class_name}의 소스에서 nn.Embedding을 만들지 않습니다")


BUILTIN_POWERS = ("pow", "math.pow", "builtins.pow", "numpy.power", "np.power", "torch.pow")


def powers_by_hand(staging: Staged) -> Evidence:
    """my_pow computes the power itself (the stub's rule: "x ** n or math.pow in one line is not the
    practice"): no ``**`` raised to the exponent argument, no ``pow``/``math.pow`` call in it. A square
    (``x ** 2``, ``half ** 2``) or a recursion is fine; a my_pow the grader cannot find says nothing."""
    found = [node for _f, node in as_sources(staging).definitions("my_pow")
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not found:
        return FOUND
    fn = found[-1]
    names = [a.arg for a in fn.args.args]
    exponent = names[1] if len(names) > 1 else None
    for node in ast.walk(fn):
        if not isinstance(node, ast.expr):  # a power is an expression: a BinOp or a Call
            continue
        right = node.right if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) else None
        by_operator = right is not None and exponent is not None and exponent in {
            n.id for n in ast.walk(right) if isinstance(n, ast.Name)}
        by_call = isinstance(node, ast.Call) and dotted(node.func) in BUILTIN_POWERS
        if by_operator or by_call:
            code = ast.unparse(node)[:80]
            return Evidence(False, f"my_pow hands the power to Python (`{code}`, line {node.lineno}); the "
                            "practice is to compute it yourself by repeated squaring, O(log |n|), as the "
                            "stub says",
                            f"my_pow가 거듭제곱을 파이썬에 맡깁니다(`{code}`, {node.lineno}행). "
                            "스텁에 적힌 대로 반복 제곱으로 O(log |n|)에 직접 계산하는 것이 연습입니다")
    return FOUND
