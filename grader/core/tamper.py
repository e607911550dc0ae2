"""A trusted scan of the submitted source for code that reaches for the grader or for introspection.

The lesson needs none of it: tensors, modules, loops.  Code that imports the
worker's runtime (``gk_*``), walks frames, the garbage collector, globals and
closures of objects it is handed, patches library classes, or runs code built
at run time can rewrite what the grader's probes report, so a flagged
submission is still graded, its probe-based points are withheld, and it is
listed for review (results.json ``review``).  The scan reads syntax trees only:
nothing of the student's runs here.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from grader.core.lang import particle
from grader.core.source import Sources, dotted, sources_of

# Modules whose only use here would be to reach into the running process.
MODULES = {
    "inspect": ("`inspect` (frames, source, globals)", "`inspect`(프레임, 소스, 전역 변수)"),
    "ctypes": ("`ctypes` (raw memory)", "`ctypes`(메모리 직접 접근)"),
    "_ctypes": ("`ctypes` (raw memory)", "`ctypes`(메모리 직접 접근)"),
    "cffi": ("`cffi` (raw memory)", "`cffi`(메모리 직접 접근)"),
    "dill": ("`dill` (pickles code)", "`dill`(코드 직렬화)"),
    "cloudpickle": ("`cloudpickle` (pickles code)", "`cloudpickle`(코드 직렬화)"),
    "copyreg": ("`copyreg` (pickle hooks)", "`copyreg`(pickle 훅)"),
    "marshal": ("`marshal` (code objects)", "`marshal`(코드 객체)"),
    "__main__": ("`__main__` (the worker's own module)", "`__main__`(워커 자신의 모듈)"),
    "signal": ("`signal` (handlers receive the running frame)", "`signal`(핸들러가 실행 중인 프레임을 받음)"),
    "runpy": ("`runpy` (runs code by name)", "`runpy`(이름으로 코드 실행)"),
    "code": ("`code` (an interpreter)", "`code`(인터프리터)"),
    "codeop": ("`codeop` (compiles code)", "`codeop`(코드 컴파일)"),
    "zipimport": ("`zipimport` (imports from built archives)", "`zipimport`(만든 압축에서 import)"),
    "imp": ("`imp` (low-level imports)", "`imp`(저수준 import)"),
}
# Modules with honest uses (gc.collect() in training code, pickle.dump of results): only these members flag.
MEMBERS = {
    "gc": ({"get_objects", "get_referrers", "get_referents", "garbage", "callbacks"},
           "the garbage collector's view of every live object", "가비지 컬렉터가 보는 살아 있는 모든 객체"),
    "pickle": ({"loads", "load", "Unpickler", "find_class"},
               "unpickling (builds arbitrary objects, imports by name)",
               "unpickling(임의 객체 생성, 이름으로 import)"),
}
MEMBERS["_pickle"] = MEMBERS["pickle"]
# A handle on another process: with pidfd_getfd (a syscall, through ctypes) its open files, the worker's
# socket to the grader among them; the worker is not dumpable (grader/runtime/worker.py), this says who tried.
MEMBERS["os"] = ({"pidfd_open"}, "a handle on another process (its open files, through pidfd_getfd)",
                 "다른 프로세스의 핸들(pidfd_getfd로 그 프로세스의 열린 파일에 접근)")
MEMBERS["posix"] = MEMBERS["os"]
# Names of the routes into another process's memory or files, spelled as strings (ctypes, syscall numbers).
PROCESS_ROUTES = ("pidfd_getfd", "pidfd_open", "process_vm_readv", "process_vm_writev", "ptrace",
                  "PR_SET_DUMPABLE")
# Attributes that lead from an object to the code, frames or namespaces behind it.
ATTRIBUTES = {
    "__globals__", "__closure__", "__code__", "__subclasses__", "__builtins__", "__traceback__",
    "__reduce__", "__reduce_ex__", "__import__", "__loader__", "__defaults__", "__kwdefaults__",
    "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "tb_frame", "tb_next",
    "gi_frame", "cr_frame", "ag_frame", "co_consts", "co_code", "cell_contents",
    "_getframe", "_current_frames", "settrace", "setprofile", "gettrace", "addaudithook",
    "meta_path", "path_hooks", "path_importer_cache", "CodeType", "FunctionType", "FrameType",
}
SYS_NAMES = {"modules", "excepthook", "breakpointhook", "displayhook", "monitoring"}
# Builtins that run or import code given as a string.
RUNNERS = {"exec", "eval", "compile", "__import__", "import_module", "reload", "breakpoint"}
NAMES = {"__builtins__", "__import__", "exec", "eval", "compile", "breakpoint"}
ATTRIBUTE_CALLS = ("getattr", "setattr", "delattr", "hasattr", "__getattribute__", "__setattr__")
GK = re.compile(r"\bgk_\w+|gk_(?:probes|worker|protocol|init)")  # the second also inside pickle opcodes


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    en: str
    ko: str

    def as_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "en": f"{self.file}:{self.line}: {self.en}",
                "ko": f"{self.file}:{self.line}: {self.ko}"}


def scan(staging: Path) -> list[Finding]:
    return scan_sources(sources_of(staging))


def scan_sources(sources: Sources) -> list[Finding]:
    findings: list[Finding] = []
    for f in sources.parsed():
        assert f.tree is not None
        findings += _Scanner(f.name).run(f.tree)
    unique = {(x.file, x.line, x.en): x for x in findings}
    return sorted(unique.values(), key=lambda x: (x.file, x.line, x.en))


def scan_text(text: str, name: str = "<text>") -> list[Finding]:
    """Scan one piece of source (tests, and code handed to exec as a literal)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return [Finding(name, 1, "source that does not parse, given to exec/eval/compile",
                        "exec/eval/compile에 파싱되지 않는 소스를 넘깁니다")]
    return _Scanner(name).run(tree)


def review(staging: Path) -> dict:
    """results.json's ``review``: flagged, and one line per finding in each language."""
    findings = scan(staging)
    return {"flagged": bool(findings), "reasons": [x.as_dict() for x in findings[:20]]}


MAX_VALUES = 32


def fold(node: ast.AST | None, env: dict[str, set[str]]) -> set[str] | None:
    """The strings an expression can spell from literals alone; None when it cannot be read that way.

    "__glo" + "bals__", "".join([...]), chr(95) * 2, f"{'gk'}_probes", b"...".decode(), s[::-1], and
    names bound to such strings all fold.
    """
    if node is None:
        return None
    if isinstance(node, ast.Constant):
        if isinstance(node.value, str):
            return {node.value}
        if isinstance(node.value, bytes):
            return {node.value.decode("latin-1")}
        return None
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Add):
            return _product(fold(node.left, env), fold(node.right, env))
        if isinstance(node.op, ast.Mult):
            text, count = node.left, node.right
            if not isinstance(count, ast.Constant):
                text, count = count, text
            values = fold(text, env)
            if values is not None and isinstance(count, ast.Constant) and isinstance(count.value, int):
                return {v * min(count.value, 64) for v in values}
        return None
    if isinstance(node, ast.JoinedStr):
        out: set[str] | None = {""}
        for part in node.values:
            value = part.value if isinstance(part, ast.FormattedValue) and part.format_spec is None else part
            out = _product(out, fold(value, env))
        return out
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        values = fold(node.value, env)
        parts = (node.slice.lower, node.slice.upper, node.slice.step)
        bounds = [_int(b) for b in parts]
        if values is None or any(p is not None and b is None for p, b in zip(parts, bounds, strict=True)):
            return None
        return {v[slice(*bounds)] for v in values}
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("chr", "str"):
        arg = node.args[0] if len(node.args) == 1 else None
        if node.func.id == "chr" and isinstance(arg, ast.Constant) and isinstance(arg.value, int):
            return {chr(arg.value)} if 0 <= arg.value < 0x110000 else None
        return fold(arg, env) if node.func.id == "str" else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        base = fold(node.func.value, env)
        method = node.func.attr
        if method == "join" and base is not None and len(node.args) == 1:
            items = node.args[0]
            if isinstance(items, (ast.List, ast.Tuple)):
                out = {""}
                for i, item in enumerate(items.elts):
                    out = _product(_product(out, base) if i else out, fold(item, env))
                return out
        if base is not None and method in ("decode", "lower", "upper", "strip", "replace", "format"):
            args = [fold(a, env) for a in node.args]
            if any(a is None or len(a) != 1 for a in args):
                return None
            plain = [next(iter(a)) for a in args if a is not None]  # none is None (just above)
            if method == "decode":
                return base
            try:
                return {getattr(v, method)(*plain) for v in base}
            except (TypeError, ValueError, IndexError, KeyError):
                return None
    return None


def _int(node: ast.AST | None) -> int | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def _product(a: set[str] | None, b: set[str] | None) -> set[str] | None:
    if a is None or b is None:
        return None
    return set(list({x + y for x in a for y in b})[:MAX_VALUES])


def string_names(tree: ast.AST) -> dict[str, set[str]]:
    """Names bound to strings built from literals (``n = "__glo"; n += "bals__"``), flow-insensitive."""
    env: dict[str, set[str]] = {}
    for _round in range(3):
        for node in ast.walk(tree):
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(target := node.targets[0], ast.Name)):
                values = fold(node.value, env)
                if values is not None:
                    name = target.id
                    env[name] = set(list(env.get(name, set()) | values)[:MAX_VALUES])
            elif (isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add)
                  and isinstance(node.target, ast.Name)):
                values = _product(env.get(node.target.id), fold(node.value, env))
                if values is not None:
                    env[node.target.id] = set(list(env[node.target.id] | values)[:MAX_VALUES])
    return env


class _Scanner(ast.NodeVisitor):
    def __init__(self, name: str) -> None:
        self.name = name
        self.found: list[Finding] = []
        self.imported: set[str] = set()  # local names bound to imported modules
        self.env: dict[str, set[str]] = {}  # local names bound to strings built from literals
        self.aliases: dict[str, str] = {}  # local name -> the module (or member) it was imported as

    def run(self, tree: ast.AST) -> list[Finding]:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                self.imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
                self.aliases.update({a.asname: a.name for a in node.names if a.asname})
                roots = [a.name.split(".")[0] for a in node.names if not a.asname]
                self.aliases.update({root: root for root in roots})
            elif isinstance(node, ast.ImportFrom):
                self.imported |= {a.asname or a.name for a in node.names}
                self.aliases.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
        self.env = string_names(tree)
        self.visit(tree)
        return self.found

    def flag(self, node: ast.AST, en: str, ko: str) -> None:
        self.found.append(Finding(self.name, getattr(node, "lineno", 1), en, ko))

    def _module(self, node: ast.AST, module: str) -> None:
        root = module.split(".")[0]
        if root.startswith("gk_"):
            self.flag(node, f"imports {module}, part of the grader's own runtime",
                      f"채점기 런타임의 일부인 {particle(module, '을')} import합니다")
        elif root in MODULES:
            en, ko = MODULES[root]
            self.flag(node, f"imports {en}", f"{particle(ko, '을')} import합니다")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        self._module(node, module)
        for alias in node.names:
            if module == "sys" and alias.name in SYS_NAMES | ATTRIBUTES:
                self.flag(node, f"imports sys.{alias.name}",
                          f"{particle('sys.' + alias.name, '을')} import합니다")
            elif module in MEMBERS and alias.name in MEMBERS[module][0]:
                self.flag(node, f"imports {module}.{alias.name}: {MEMBERS[module][1]}",
                          f"{particle(module + '.' + alias.name, '을')} import합니다: {MEMBERS[module][2]}")
            elif alias.name in ATTRIBUTES or alias.name in ("exec", "eval", "__import__", "breakpoint"):
                self.flag(node, f"imports {alias.name} from {module}",
                                f"{module}에서 {particle(alias.name, '을')} import합니다")
        self.generic_visit(node)

    def _resolved(self, node: ast.AST) -> str:
        """The module path an expression names through the file's imports (``s.modules`` -> sys.modules)."""
        chain = dotted(node)
        if not chain:
            return ""
        root, _, rest = chain.partition(".")
        base = self.aliases.get(root, "")
        return f"{base}.{rest}" if base and rest else base

    def visit_Attribute(self, node: ast.Attribute) -> None:
        module = self._resolved(node.value)
        members = MEMBERS.get(module.split(".")[0]) if module else None
        if node.attr in ATTRIBUTES:
            self.flag(node, f"uses .{node.attr} (reaches code, frames or namespaces)",
                      f"{particle('.' + node.attr, '를')} 씁니다(코드, 프레임, 네임스페이스에 접근)")
        elif node.attr in SYS_NAMES and module == "sys":
            self.flag(node, f"uses sys.{node.attr}", f"{particle('sys.' + node.attr, '를')} 씁니다")
        elif members and node.attr in members[0]:
            self.flag(node, f"uses {module}.{node.attr}: {members[1]}",
                      f"{particle(f'{module}.{node.attr}', '를')} 씁니다: {members[2]}")
        elif node.attr == "__class__" and isinstance(node.ctx, ast.Store):
            self.flag(node, "changes an object's __class__", "객체의 __class__를 바꿉니다")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in NAMES and not self._is_called(node):
            self.flag(node, f"takes hold of {node.id}", f"{particle(node.id, '를')} 값으로 다룹니다")
        elif node.id.startswith("gk_"):
            self.flag(node, f"names {node.id}, part of the grader's own runtime",
                      f"채점기 런타임의 일부인 {particle(node.id, '를')} 가리킵니다")

    def _is_called(self, node: ast.Name) -> bool:
        return getattr(node, "_gk_called", False)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, (str, bytes)):
            self._folded(node)

    def _folded(self, node: ast.AST) -> None:
        for text in sorted(fold(node, self.env) or ()):
            self._string(node, text)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self._folded(node)
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self._folded(node)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.slice, ast.Slice):
            self._folded(node)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if isinstance(node.target, ast.Name):
            self._folded(node.target)
        self.generic_visit(node)

    def _string(self, node: ast.AST, text: str) -> None:
        if GK.search(text):
            self.flag(node, "spells a gk_ name, part of the grader's own runtime",
                      "채점기 런타임의 gk_ 이름을 문자열로 씁니다")
        elif text in ATTRIBUTES:
            self.flag(node, f"spells {text!r} as a string (a way round the names above)",
                      f"{particle(repr(text), '를')} 문자열로 씁니다(위 이름을 우회하는 방법)")
        elif text in PROCESS_ROUTES:
            self.flag(node, f"spells {text!r}: a way into another process (the worker's memory, its socket)",
                      f"{particle(repr(text), '를')} 씁니다: 다른 프로세스(워커의 메모리, 소켓)에 "
                      "들어가는 방법")
        elif text.startswith(("/proc/", "/dev/mem")):
            self.flag(node, f"opens {text.split()[0][:40]} (the process's own memory and state)",
                      f"{particle(text.split()[0][:40], '를')} 엽니다(프로세스 자신의 메모리와 상태)")

    def visit_Call(self, node: ast.Call) -> None:
        self._folded(node)
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if isinstance(func, ast.Name):
            func._gk_called = True  # type: ignore[attr-defined]  # a mark on the node for the scan that follows
        is_runner = name in RUNNERS and (isinstance(func, ast.Name) or dotted(func) in (
            f"importlib.{name}", f"builtins.{name}"))
        if is_runner:
            self._runner(node, name)
        elif name in ATTRIBUTE_CALLS and len(node.args) >= 2:
            self._attribute_name(node, node.args[1])
            if name in ("setattr", "__setattr__") and len(node.args) >= 3:
                self._patch(node, node.args[0], node.args[2])
        self.generic_visit(node)

    def _runner(self, node: ast.Call, name: str) -> None:
        arg = node.args[0] if node.args else None
        texts = fold(arg, self.env)
        if name in ("__import__", "import_module", "reload"):
            if texts is None:
                self.flag(node, f"calls {name} on a module name built at run time",
                          f"실행 중에 만든 모듈 이름으로 {particle(name, '를')} 호출합니다")
            for text in sorted(texts or ()):
                self._module(node, text)
        elif name == "breakpoint":
            self.flag(node, "calls breakpoint()", "breakpoint()를 호출합니다")
        elif texts is None:
            self.flag(node, f"calls {name} on source built at run time (it cannot be read before it runs)",
                      f"실행 중에 만든 소스로 {particle(name, '를')} 호출합니다(실행 전에는 읽을 수 "
                      "없습니다)")
        else:
            for text in sorted(texts):
                for inner in scan_text(text, self.name):
                    self.flag(node, f"{name} of a string that {inner.en}",
                              f"{name}에 넘긴 문자열이 {inner.ko}")

    def _attribute_name(self, node: ast.Call, arg: ast.AST) -> None:
        texts = fold(arg, self.env)
        if texts is not None:
            for text in sorted(texts & ATTRIBUTES):
                self.flag(node, f"reaches .{text} through getattr", f"getattr로 .{text}에 접근합니다")
            return
        # A name computed with calls or slices (chr(...), bytes.decode, s[::-1]) hides what it reaches.
        if any(isinstance(n, (ast.Call, ast.Slice)) for n in ast.walk(arg)):
            self.flag(node, "reaches an attribute whose name is computed with calls or slices",
                      "호출이나 슬라이스로 계산한 이름의 속성에 접근합니다")

    def _patch(self, node: ast.AST, target: ast.AST, value: ast.AST) -> None:
        root = dotted(target).split(".")[0] if dotted(target) else ""
        if root in self.imported and not isinstance(value, ast.Constant):
            self.flag(node, f"replaces part of {dotted(target) or root} (a module or class it imported)",
                      f"import한 모듈이나 클래스의 일부({dotted(target) or root})를 바꿉니다")

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Attribute):
                    self._patch(node, t, node.value)
                    break
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Attribute):
                self._patch(node, target, target)
        self.generic_visit(node)
