"""A small Big-O parser: ``O(n log n)`` becomes a comparable growth value.

Students write complexities by hand in many styles (``O(n²)``, ``O(n^2)``,
``O(nlogn)``, ``Θ(√n)``, ``O(log_2 n)``, fullwidth ``（）``), so string matching
would mark correct answers wrong. Instead the text is parsed into a sum of
terms; each term is a product, per variable, of

    (n!)^f * b^(e*n) * n^p * (log n)^l * (log log n)^ll

Growth per variable is ordered lexicographically on (f, e, p, l, ll); constant
factors and log bases are dropped, as Big-O does.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction

from .mathtext import to_plain
from .vocab import message

__all__ = [
    "BigOMatch",
    "Complexity",
    "Growth",
    "ParseError",
    "Term",
    "compare",
    "find_all_bigo",
    "find_bigo",
    "parse",
    "parse_expr",
]

ZERO = Fraction(0)


class ParseError(ValueError):
    """Malformed Big-O; ``position`` is a 0-based index into ``text``. What is wrong is vocab.toml's message
    ``bigo_<key>`` (``said``, both languages; ``message`` its English)."""

    def __init__(self, key: str, position: int, text: str = "", **values: str) -> None:
        self.key, self.values = key, values
        self.said = message(f"bigo_{key}", **values)
        self.message = self.said.en
        self.position = position
        self.text = text
        super().__init__(f"{self.message} (at position {position})")

    def pointer(self) -> str:
        """The text with a caret under the error, for reports."""
        return f"{self.text}\n{' ' * self.position}^"


# --------------------------------------------------------------------------- values


@dataclass(frozen=True, order=True)
class Growth:
    """Growth in one variable; field order is the asymptotic order."""

    fact: Fraction = ZERO
    exp: float = 0.0  # log2 of the base of an exponential: 2^n -> 1.0
    poly: Fraction = ZERO
    log: Fraction = ZERO
    loglog: Fraction = ZERO

    def is_one(self) -> bool:
        return self == Growth()

    def power(self, p: Fraction) -> Growth:
        return Growth(self.fact * p, self.exp * float(p), self.poly * p, self.log * p, self.loglog * p)

    def times(self, other: Growth) -> Growth:
        return Growth(
            self.fact + other.fact,
            self.exp + other.exp,
            self.poly + other.poly,
            self.log + other.log,
            self.loglog + other.loglog,
        )


@dataclass(frozen=True)
class Term:
    """A product of per-variable growths; no factors means O(1)."""

    factors: tuple[tuple[str, Growth], ...] = ()

    @staticmethod
    def of(mapping: dict[str, Growth]) -> Term:
        return Term(tuple(sorted((v, g) for v, g in mapping.items() if not g.is_one())))

    def as_dict(self) -> dict[str, Growth]:
        return dict(self.factors)

    def times(self, other: Term) -> Term:
        merged = self.as_dict()
        for var, g in other.factors:
            merged[var] = merged[var].times(g) if var in merged else g
        return Term.of(merged)

    def power(self, p: Fraction) -> Term:
        return Term.of({v: g.power(p) for v, g in self.factors})

    def render(self) -> str:
        if not self.factors:
            return "1"
        return " ".join(_render_growth(v, g) for v, g in self.factors)


def _render_exponent(p: Fraction) -> str:
    if p == 1:
        return ""
    if p.denominator == 1 and p > 0:
        return f"^{p.numerator}"
    return f"^({p})"


def _render_growth(var: str, g: Growth) -> str:
    parts: list[str] = []
    if g.fact:
        parts.append(f"({var}!){_render_exponent(g.fact)}" if g.fact != 1 else f"{var}!")
    if g.exp:
        parts.append(f"{2 ** g.exp:g}^{var}")
    if g.poly:
        parts.append(f"{var}{_render_exponent(g.poly)}")
    if g.log:
        parts.append(f"log{_render_exponent(g.log)} {var}")
    if g.loglog:
        parts.append(f"log log {var}" if g.loglog == 1 else f"(log log {var}){_render_exponent(g.loglog)}")
    return " ".join(parts)


def compare_terms(a: Term, b: Term) -> int | None:
    """-1/0/1 when every variable agrees in direction, else None (incomparable)."""
    da, db = a.as_dict(), b.as_dict()
    signs = set()
    for var in set(da) | set(db):
        ga, gb = da.get(var, Growth()), db.get(var, Growth())
        if ga != gb:
            signs.add(-1 if ga < gb else 1)
    if not signs:
        return 0
    return signs.pop() if len(signs) == 1 else None


def _prune(terms: list[Term]) -> tuple[Term, ...]:
    """Keep only terms no other term dominates: O(n + log n) is O(n)."""
    unique = sorted(set(terms), key=lambda t: t.render())
    kept = [t for t in unique if not any(compare_terms(t, u) == -1 for u in unique if u is not t)]
    return tuple(kept) or (Term(),)


@dataclass(frozen=True)
class Complexity:
    """A parsed complexity: a sum of maximal terms. Equality ignores notation."""

    terms: tuple[Term, ...]
    notation: str = field(default="O", compare=False)

    @property
    def variables(self) -> frozenset[str]:
        return frozenset(v for t in self.terms for v, _ in t.factors)

    def render(self) -> str:
        return f"{self.notation}({' + '.join(t.render() for t in self.terms)})"

    def __str__(self) -> str:
        return self.render()


def _le(a: Complexity, b: Complexity) -> bool:
    return all(any(compare_terms(t, u) in (-1, 0) for u in b.terms) for t in a.terms)


def compare(a: Complexity, b: Complexity) -> int | None:
    """-1 if a grows slower than b, 0 if the same, 1 if faster, None if incomparable
    (e.g. O(n) against O(k): different variables)."""
    le, ge = _le(a, b), _le(b, a)
    if le and ge:
        return 0
    if le:
        return -1
    if ge:
        return 1
    return None


# --------------------------------------------------------------------------- tokens

_FULLWIDTH = {chr(c): chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)}  # ！ → !, ａ → a, ...
_ASCII_MAP = str.maketrans(
    {
        **_FULLWIDTH,
        "\u3000": " ",  # the ideographic space
        "·": "*", "⋅": "*", "×": "*", "∗": "*", "•": "*", "∙": "*",
        "−": "-", "–": "-", "—": "-", "÷": "/", "[": "(", "]": ")",
        "𝑛": "n", "𝑚": "m", "𝑘": "k",
    }
)  # every mapping is one char to one char, so error positions stay right
_SUPERSCRIPTS = {"⁰": 0, "¹": 1, "²": 2, "³": 3, "⁴": 4, "⁵": 5, "⁶": 6, "⁷": 7, "⁸": 8, "⁹": 9}
_SUBSCRIPTS = "₀₁₂₃₄₅₆₇₈₉"
_KEYWORDS = ("loglog", "sqrt", "cbrt", "log", "lg", "ln", "min", "max")
_NOTATIONS = {"O": "O", "o": "O", "Ο": "O", "𝑂": "O", "𝒪": "O", "Θ": "Θ", "θ": "Θ", "ϴ": "Θ"}


@dataclass(frozen=True)
class _Tok:
    kind: str  # num, sup, var, fn, op, end
    value: object
    pos: int


def _tokenize(src: str, offset: int, full: str) -> list[_Tok]:
    text = src.translate(_ASCII_MAP)
    toks: list[_Tok] = []
    i = 0
    in_abs = False  # |n| is read as (n): a bar opens, the next one closes
    while i < len(text):
        c = text[i]
        if c == "|":
            toks.append(_Tok("op", ")" if in_abs else "(", offset + i))
            in_abs = not in_abs
            i += 1
        elif c.isspace():
            i += 1
        elif c == "." and text[i + 1 : i + 2].isalpha() and toks:  # 'n.log log n': a product's dot
            toks.append(_Tok("op", "*", offset + i))
            i += 1
        elif c in "0123456789" or (c == "." and text[i + 1 : i + 2].isdecimal()):
            m = re.match(r"[0-9]*\.?[0-9]+", text[i:])
            assert m
            toks.append(_Tok("num", Fraction(m.group()), offset + i))
            i += m.end()
        elif c in _SUPERSCRIPTS:
            j = i
            while j < len(text) and text[j] in _SUPERSCRIPTS:
                j += 1
            toks.append(_Tok("sup", Fraction(int("".join(str(_SUPERSCRIPTS[d]) for d in text[i:j]))),
                             offset + i))
            i = j
        elif c.isascii() and c.isalpha():
            i = _word_tokens(text, i, offset, toks, full)
        elif c in "√∛":
            toks.append(_Tok("fn", "sqrt" if c == "√" else "cbrt", offset + i))
            i += 1
        elif text.startswith("**", i):
            toks.append(_Tok("op", "^", offset + i))
            i += 2
        elif c in "+-*/^()!,":
            toks.append(_Tok("op", c, offset + i))
            i += 1
        else:
            raise ParseError("char", offset + i, full, c=repr(c))
    toks.append(_Tok("end", None, offset + len(text)))
    return toks


def _word_tokens(text: str, i: int, offset: int, toks: list[_Tok], full: str) -> int:
    """Split a run of letters: 'nlogn' -> n log n, 'mn' -> m n, 'num' stays a name."""
    j = i
    while j < len(text) and text[j].isascii() and text[j].isalpha():
        j += 1
    run = text[i:j].lower()
    if run == "abs" and text[j : j + 1] == "(":  # 'log(abs(n))' is log |n|: the parentheses are the bars
        return j
    pieces: list[tuple[str, int]] = []
    if any(k in run for k in _KEYWORDS) or len(run) <= 2:
        k = 0
        while k < len(run):
            kw = next((w for w in _KEYWORDS if run.startswith(w, k)), None)
            pieces.append((kw or run[k], k))
            k += len(kw) if kw else 1
    else:
        pieces.append((run, 0))
    for word, k in pieces:
        kind = "fn" if word in _KEYWORDS else "var"
        toks.append(_Tok(kind, word, offset + i + k))
    if pieces and pieces[-1][0] in ("log", "lg", "ln"):
        j = _skip_log_base(text, j)
    return j


def _skip_log_base(text: str, j: int) -> int:
    """A log base changes only a constant factor: drop log_2, log₂, log2(, log_{10}."""
    if j < len(text) and text[j] == "_":
        m = re.match(r"_(\{[^}]*\}|\d+(\.\d+)?|[A-Za-z])", text[j:])
        return j + m.end() if m else j
    k = j
    while k < len(text) and text[k] in _SUBSCRIPTS:
        k += 1
    if k > j:
        return k
    m = re.match(r"\d+(?=\s*\()", text[j:])  # log2(n), but not 'log 2n'
    return j + m.end() if m else j


# --------------------------------------------------------------------------- parser


@dataclass(frozen=True)
class _Val:
    """An intermediate value: growth terms plus the number, when it is a pure constant."""

    terms: tuple[Term, ...]
    const: Fraction | None = None

    @staticmethod
    def number(x: Fraction) -> _Val:
        return _Val((Term(),), x)

    @staticmethod
    def var(name: str, g: Growth | None = None) -> _Val:
        return _Val((Term.of({name: g or Growth(poly=Fraction(1))}),))


class _Parser:
    def __init__(self, toks: list[_Tok], full: str) -> None:
        self.toks = toks
        self.i = 0
        self.full = full

    # helpers
    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def error(self, key: str, tok: _Tok | None = None, **values: str) -> ParseError:
        return ParseError(key, (tok or self.tok).pos, self.full, **values)

    def take(self) -> _Tok:
        tok = self.tok
        self.i += 1
        return tok

    def at_op(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.value in ops

    def expect_op(self, op: str, key: str, name: str) -> None:
        if not self.at_op(op):
            raise self.error(key, op=repr(op), name=name)
        self.take()

    def starts_operand(self) -> bool:
        t = self.tok
        return t.kind in ("num", "var", "fn") or (t.kind == "op" and t.value == "(")

    # grammar
    def parse_all(self) -> _Val:
        if self.tok.kind == "end":
            raise self.error("empty_expression")
        val = self.expr()
        if self.tok.kind != "end":
            raise self.error("unexpected", token=repr(self.tok.value))
        return val

    def expr(self) -> _Val:
        val = self.product()
        while self.at_op("+", "-"):
            self.take()
            # n - 1 grows like n; a difference is bounded by the sum
            val = _add(val, self.product())
        return val

    def product(self) -> _Val:
        val = self.unary()
        while True:
            if self.at_op("*"):
                self.take()
                val = _mul(val, self.unary())
            elif self.at_op("/"):
                tok = self.take()
                val = _div(val, self.unary(), self, tok)
            elif self.starts_operand():  # implicit product: 'n log n', '2n'
                val = _mul(val, self.unary())
            else:
                return val

    def unary(self) -> _Val:
        negate = False
        while self.at_op("-", "+"):
            negate ^= self.take().value == "-"
        val = self.function() if self.tok.kind == "fn" else self.power()
        if negate and val.const is not None:  # the sign only matters in exponents
            return _Val(val.terms, -val.const)
        return val

    def function(self) -> _Val:
        tok = self.take()
        name = str(tok.value)
        if name in ("min", "max"):
            return self.min_max(name, tok)
        outer = self.exponent() if (self.at_op("^") or self.tok.kind == "sup") else None  # log^2 n
        if not self.starts_operand():
            raise self.error("no_argument", name=repr(name))
        arg = self.unary() if not self.at_op("(") else self.paren()
        if arg.const is not None and self.tok.kind == "var":  # 'log 2n' means log(2n)
            arg = _mul(arg, self.power())
        if name == "loglog":
            val = _log(_log(arg, self, tok), self, tok)
        elif name in ("log", "lg", "ln"):
            val = _log(arg, self, tok)
        else:
            val = _pow(arg, Fraction(1, 2 if name == "sqrt" else 3), self, tok)
        val = self.postfix(val)
        return _pow(val, outer, self, tok) if outer is not None else val

    def min_max(self, name: str, tok: _Tok) -> _Val:
        self.expect_op("(", "expected_after", repr(name))
        args = [self.expr()]
        while self.at_op(","):
            self.take()
            args.append(self.expr())
        self.expect_op(")", "expected_close", name)
        if name == "max":  # max(a, b) = Θ(a + b)
            val = args[0]
            for a in args[1:]:
                val = _add(val, a)
            return self.postfix(val)
        return self.postfix(_min(args, self.full, tok))

    def paren(self) -> _Val:
        open_tok = self.take()
        if self.at_op(")"):
            raise self.error("empty_parens")
        val = self.expr()
        if not self.at_op(")"):
            raise self.error("unclosed", at=str(open_tok.pos))
        self.take()
        return val

    def power(self) -> _Val:
        return self.postfix(self.primary())

    def postfix(self, val: _Val) -> _Val:
        while self.at_op("!"):
            val = _factorial(val, self, self.take())
        if self.at_op("^") or self.tok.kind == "sup":
            tok = self.tok
            if self.at_op("^"):
                self.take()
                exponent = self.exponent_operand()
            else:
                exponent = _Val.number(self.take().value)  # type: ignore[arg-type]
            return _raise(val, exponent, self, tok)
        return val

    def exponent(self) -> Fraction:
        tok = self.tok
        if tok.kind == "sup":
            return self.take().value  # type: ignore[return-value]
        self.take()
        val = self.exponent_operand()
        if val.const is None:
            raise self.error("function_power", tok)
        return val.const

    def exponent_operand(self) -> _Val:
        sign = Fraction(1)
        if self.at_op("-"):
            self.take()
            sign = Fraction(-1)
        if not self.starts_operand():
            raise self.error("no_exponent")
        val = self.paren() if self.at_op("(") else self.primary()
        return _Val.number(sign * val.const) if val.const is not None else val

    def primary(self) -> _Val:
        tok = self.tok
        if tok.kind == "num":
            return _Val.number(self.take().value)  # type: ignore[arg-type]
        if tok.kind == "var":
            return _Val.var(str(self.take().value))
        if self.at_op("("):
            return self.paren()
        if tok.kind == "end":
            raise self.error("end")
        raise self.error("unexpected", token=repr(tok.value))


def _add(a: _Val, b: _Val) -> _Val:
    const = a.const + b.const if a.const is not None and b.const is not None else None
    return _Val(_prune(list(a.terms + b.terms)), const)


def _mul(a: _Val, b: _Val) -> _Val:
    const = a.const * b.const if a.const is not None and b.const is not None else None
    return _Val(_prune([s.times(t) for s in a.terms for t in b.terms]), const)


def _div(a: _Val, b: _Val, p: _Parser, tok: _Tok) -> _Val:
    if b.const == 0:
        raise p.error("division_by_zero", tok)
    if len(b.terms) != 1:
        raise p.error("divide_by_sum", tok)
    const = a.const / b.const if a.const is not None and b.const is not None else None
    return _Val(_prune([s.times(b.terms[0].power(Fraction(-1))) for s in a.terms]), const)


def _pow(a: _Val, e: Fraction, p: _Parser, tok: _Tok) -> _Val:
    if e < 0 and len(a.terms) != 1:
        raise p.error("negative_sum_power", tok)
    const = None
    if a.const is not None and (e.denominator == 1 or a.const >= 0):
        const = Fraction(float(a.const) ** float(e)) if e.denominator != 1 else a.const ** int(e)
    if e == 0:
        return _Val.number(Fraction(1))
    return _Val(_prune([t.power(e) for t in a.terms]), const)


def _raise(base: _Val, exponent: _Val, p: _Parser, tok: _Tok) -> _Val:
    if exponent.const is not None:
        return _pow(base, exponent.const, p, tok)
    if base.const is None:
        raise p.error("variable_power", tok)
    if base.const <= 1:
        return _Val.number(Fraction(1))  # 1^n = 1
    rate = math.log2(base.const)
    terms = []
    for t in exponent.terms:  # 2^(n log n) has no closed form here; only 2^n, 2^(n+m)
        if len(t.factors) != 1 or t.factors[0][1] != Growth(poly=Fraction(1)):
            raise p.error("exponential", tok)
        terms.append(Term.of({t.factors[0][0]: Growth(exp=rate)}))
    product = terms[0]
    for t in terms[1:]:
        product = product.times(t)
    return _Val((product,))


def _log(a: _Val, p: _Parser, tok: _Tok) -> _Val:
    """log of a product is the sum of logs; each factor's log drops one level."""
    if a.const is not None:
        if a.const <= 0:
            raise p.error("log_nonpositive", tok)
        return _Val.number(Fraction(math.log(a.const)))
    out: list[Term] = []
    for t in a.terms:
        for var, g in t.factors:
            out.append(Term.of({var: _log_growth(g, p, tok)}))
    return _Val(_prune(out))


def _log_growth(g: Growth, p: _Parser, tok: _Tok) -> Growth:
    one = Fraction(1)
    if g.fact:
        return Growth(poly=one, log=one)  # log n! = Θ(n log n)
    if g.exp:
        return Growth(poly=one)
    if g.poly:
        return Growth(log=one)
    if g.log:
        return Growth(loglog=one)
    raise p.error("log3", tok)


def _factorial(a: _Val, p: _Parser, tok: _Tok) -> _Val:
    if a.const is not None and a.const.denominator == 1 and 0 <= a.const <= 20:
        return _Val.number(Fraction(math.factorial(int(a.const))))
    if (len(a.terms) == 1 and len(a.terms[0].factors) == 1
            and a.terms[0].factors[0][1] == Growth(poly=Fraction(1))):
        return _Val.var(a.terms[0].factors[0][0], Growth(fact=Fraction(1)))
    raise p.error("factorial", tok)


def _min(args: list[_Val], full: str, tok: _Tok) -> _Val:
    """min of comparable values is the smaller; otherwise a new variable 'min(x, y)'."""
    cur = Complexity(args[0].terms)
    best = args[0]
    for a in args[1:]:
        c = compare(Complexity(a.terms), cur)
        if c is None:
            names = ", ".join(sorted(Complexity(x.terms).render()[2:-1] for x in args))
            return _Val.var(f"min({names})")
        if c < 0:
            best, cur = a, Complexity(a.terms)
    return best


# --------------------------------------------------------------------------- API


def parse_expr(text: str, offset: int = 0, full: str | None = None) -> Complexity:
    """Parse the inside of O(...): 'n log n' -> Complexity."""
    full = text if full is None else full
    val = _Parser(_tokenize(text, offset, full), full).parse_all()
    return Complexity(val.terms)


def parse(text: str) -> Complexity:
    """Parse a whole 'O(...)' or 'Θ(...)', plain or as Markdown math ('$\\mathcal{O}(\\log n)$');
    anything else is a ParseError whose position is in ``text`` as written."""
    plain = to_plain(text)
    try:
        return _parse_plain(plain.text)
    except ParseError as e:
        if plain.text == text:
            raise
        raise ParseError(e.key, plain.source_index(e.position), text, **e.values) from None


def _parse_plain(text: str) -> Complexity:
    m = re.match(r"\s*", text)
    i = m.end() if m else 0
    if i >= len(text):
        raise ParseError("empty", i, text)
    notation = _NOTATIONS.get(text[i])
    if notation is None:
        raise ParseError("no_o", i, text)
    j = i + 1
    while j < len(text) and text[j].isspace():
        j += 1
    if j >= len(text) or text[j] not in "(（":
        raise ParseError("no_paren", j, text)
    close = _matching_paren(text, j)
    if close is None:
        raise ParseError("not_closed", len(text.rstrip()), text)
    rest = text[close + 1 :]
    if rest.strip():
        raise ParseError("after_close",
                         close + 1 + (len(rest) - len(rest.lstrip())), text)
    inner = parse_expr(text[j + 1 : close], j + 1, text)
    return Complexity(inner.terms, notation)


def _matching_paren(text: str, j: int) -> int | None:
    depth = 0
    for k in range(j, len(text)):
        if text[k] in "(（":
            depth += 1
        elif text[k] in ")）":
            depth -= 1
            if depth == 0:
                return k
    return None


@dataclass(frozen=True)
class BigOMatch:
    """A Big-O found in free text: ``written`` = text[start:end] is the 'O(...)' as the
    student wrote it (``$\\mathcal{O}(1)``...), ``source`` the same read as plain text."""

    start: int
    end: int
    source: str
    written: str = ""


_START = re.compile(r"(?<![A-Za-z0-9_])[OoΟ𝑂𝒪Θθϴ]\s*[(（]")


def find_all_bigo(text: str) -> list[BigOMatch]:
    """Every 'O(...)' in free text, LaTeX included; an unclosed one runs to a dash, colon
    or line end."""
    plain = to_plain(text)
    flat = plain.text
    found: list[BigOMatch] = []
    pos = 0
    while (m := _START.search(flat, pos)) is not None:
        close = _matching_paren(flat, m.end() - 1)
        if close is not None:
            end = close + 1
        else:  # unclosed: stop before a dash or colon so the reason after it survives
            stop = re.compile(r"\n|\s[-:;]\s|[—–]").search(flat, m.end())
            end = stop.start() if stop else len(flat)
        start, stop_at = plain.source_span(m.start(), end)
        found.append(BigOMatch(start, stop_at, flat[m.start() : end], text[start:stop_at]))
        pos = max(end, m.end())
    return found


def find_bigo(text: str) -> BigOMatch | None:
    found = find_all_bigo(text)
    return found[0] if found else None
