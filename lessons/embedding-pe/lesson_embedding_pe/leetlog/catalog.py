"""LeetCode problems a student may log, with the facts the review checks.

Only facts we are sure of: LeetCode difficulty, whether the problem carries the
Math topic tag, and the complexities of the standard accepted approaches. The
lesson's own list mixes difficulties (Happy Number is Easy), which is why the
review needs this table rather than trusting the student's label.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from .bigo import Complexity, compare, parse

__all__ = ["Approach", "Problem", "ProblemMatch", "CATALOG", "by_function", "find_problem", "get",
           "identify"]


@dataclass(frozen=True)
class Approach:
    """One accepted way to solve a problem, with its time and space."""

    name_en: str
    name_ko: str
    time: str
    space: tuple[str, ...]
    # How a log or code names this approach (identify()): ``names`` its family in the log's words,
    # ``variant`` the words that single it out within the family, ``code`` the key codecost.py gives the
    # practice function's code when it implements this approach (read from its syntax tree).
    names: str = ""
    variant: str = ""
    code: str = ""
    # other time bounds that are just as true of it: per-digit tables are O(log num) for the digits they
    # read and O(1) for num <= 3999
    time_also: tuple[str, ...] = ()

    @property
    def time_bigo(self) -> Complexity:
        return _parsed(self.time)

    @property
    def time_bounds(self) -> tuple[Complexity, ...]:
        return (self.time_bigo, *(_parsed(t) for t in self.time_also))

    @property
    def space_bigo(self) -> tuple[Complexity, ...]:
        return tuple(_parsed(s) for s in self.space)


@dataclass(frozen=True)
class Problem:
    number: int
    title: str
    difficulty: str  # "Easy" | "Medium" | "Hard"
    tags: tuple[str, ...]
    approaches: tuple[Approach, ...]
    variables_en: str = ""  # what the Big-O variables mean
    variables_ko: str = ""
    function: str | None = None  # name in exercises/leetcode.py, when there is a practice
    aliases: tuple[str, ...] = field(default=())

    @property
    def described(self) -> tuple[Approach, ...]:
        """The approaches a log is held to when neither it nor the code names one: all but those known
        by the code alone (an O(n) loop for Pow is what a student's code may do, not a known answer)."""
        return tuple(a for a in self.approaches if a.names or not a.code)

    @property
    def is_math(self) -> bool:
        return "Math" in self.tags

    @property
    def label(self) -> str:
        return f"{self.number}. {self.title}"

    def best_time(self) -> Approach:
        """The fastest approach; ties keep the catalog order (the usual one first)."""
        best = self.approaches[0]
        for a in self.approaches[1:]:
            if compare(a.time_bigo, best.time_bigo) == -1:
                best = a
        return best

    def best_space(self) -> tuple[Complexity, Approach]:
        best = (self.approaches[0].space_bigo[0], self.approaches[0])
        for a in self.approaches:
            for s in a.space_bigo:
                if compare(s, best[0]) == -1:
                    best = (s, a)
        return best


@cache
def _parsed(text: str) -> Complexity:
    return parse(text)


def _p(number: int, title: str, difficulty: str, tags: str, *approaches: Approach, **kw: object) -> Problem:
    return Problem(number, title, difficulty, tuple(t.strip() for t in tags.split(",")), approaches, **kw)  # type: ignore[arg-type]


A = Approach
_FAST_POW = (r"fast|binary\s*exp|squar|divide|halv|exponentiation\s+by|분할|빠른|제곱|절반|반씩|recurs|재귀|"
             r"iterat|반복")
_SIEVE = r"eratosthenes|에라토스테네스|\bsieve\b|체|linear\s+sieve|euler|오일러"
_LINEAR_SIEVE = r"linear\s+sieve|euler|선형\s*체|오일러"
_ANY = r"(?s:.)"  # one method in two readings (bounded input): any description names both
_DIGITS_EN = "n is the input number (its digit count is log n)"
_DIGITS_KO = "n은 입력 수 (자릿수는 log n)"

CATALOG: tuple[Problem, ...] = (
    # The four the lesson names (practice functions in exercises/leetcode.py).
    _p(50, "Pow(x, n)", "Medium", "Math, Recursion",
       A("fast exponentiation, iterative (halving n)", "분할 거듭제곱, 반복문 (n을 절반씩)",
         "O(log n)", ("O(1)",), names=_FAST_POW, variant=r"iterat|loop|반복문|while|for\s*문|variables?|변수",
         code="pow_halving_loop"),
       A("fast exponentiation, recursive (halving n)", "분할 거듭제곱, 재귀 (n을 절반씩)",
         "O(log n)", ("O(log n)",), names=_FAST_POW, variant=r"recurs|재귀|call\s*stack|호출\s*스택",
         code="pow_halving_recursive"),
       # known by the code alone (codecost.py): a log that only says 'n번 곱함' is held to the best bound,
       # since such a solution times out on LeetCode's n up to 2^31
       A("repeated multiplication, loop (n steps)", "반복 곱셈, 반복문 (n번)", "O(n)", ("O(1)",),
         code="pow_linear_loop"),
       A("repeated multiplication, recursive (n - 1)", "반복 곱셈, 재귀 (n - 1)", "O(n)", ("O(n)",),
         code="pow_linear_recursive"),
       variables_en="n is the exponent", variables_ko="n은 지수", function="my_pow",
       aliases=("mypow", "pow", "powxn", "거듭제곱")),
    _p(204, "Count Primes", "Medium", "Array, Math, Enumeration, Number Theory",
       A("Sieve of Eratosthenes", "에라토스테네스의 체", "O(n log log n)", ("O(n)",),
         names=_SIEVE, variant=r"eratosthenes|에라토스테네스|[pi]\s*\*\s*[pi]|[pi]\s*\^\s*2|[pi]²|제곱부터",
         code="sieve"),
       A("linear (Euler) sieve", "선형(오일러) 체", "O(n)", ("O(n)",),
         names=_SIEVE, variant=_LINEAR_SIEVE, code="linear_sieve"),
       A("segmented sieve of Eratosthenes (blocks of √n)", "구간별 에라토스테네스의 체 (√n 크기 구간)",
         "O(n log log n)", ("O(√n)",), names=r"segment|구간|블록", variant=r"segment|구간|블록",
         code="segmented_sieve"),
       A("trial division up to √i", "√i까지 나눠 보기", "O(n √n)", ("O(1)",), code="trial_division"),
       variables_en="n is the bound", variables_ko="n은 상한", function="count_primes",
       aliases=("countprimes", "소수개수", "소수세기", "소수의개수")),
    _p(202, "Happy Number", "Easy", "Hash Table, Math, Two Pointers",
       A("Floyd cycle detection", "플로이드 사이클 탐지 (두 포인터)", "O(log n)", ("O(1)",),
         names=r"floyd|플로이드|cycle\s*detect|two\s*pointers?|slow|토끼|거북|두\s*포인터|투\s*포인터",
         code="floyd"),
       A("hash set of seen numbers", "본 수를 해시셋에 저장", "O(log n)", ("O(log n)",),
         names=r"hash|\bset\b|seen|visited|해시|집합|셋|방문", code="hash_set"),
       variables_en=_DIGITS_EN, variables_ko=_DIGITS_KO, function="is_happy",
       aliases=("ishappy", "happynumber", "행복한수", "해피넘버")),
    _p(12, "Integer to Roman", "Medium", "Hash Table, Math, String",
       A("greedy over the 13 symbol values (num <= 3999, so bounded)",
         "13개 기호 값으로 탐욕 (num <= 3999 이므로 상수)", "O(1)", ("O(1)",),
         names=r"greedy|탐욕|그리디|subtract|빼", code="roman_greedy"),
       A("per-digit lookup tables (one lookup per digit of num)",
         "자릿수마다 표에서 꺼내기 (자릿수마다 한 번)", "O(log n)", ("O(1)",),
         names=r"digit|자릿수|자리|table|lookup|표에서|표를", code="roman_digit_tables",
         time_also=("O(1)",)),
       variables_en="n is num (its digit count is log n)", variables_ko="n은 num (자릿수는 log n)",
       function="int_to_roman", aliases=("inttoroman", "정수를로마숫자로", "로마숫자변환")),
    # More Medium problems with the Math tag.
    _p(2, "Add Two Numbers", "Medium", "Linked List, Math, Recursion",
       A("digit-by-digit addition with carry", "자리올림하며 한 자리씩 더하기",
         "O(max(m, n))", ("O(1)", "O(max(m, n))")),
       variables_en="m, n are the list lengths", variables_ko="m, n은 두 리스트의 길이"),
    _p(7, "Reverse Integer", "Medium", "Math",
       A("pop and push digits with an overflow check", "자릿수를 꺼내 뒤집고 오버플로 검사",
         "O(log x)", ("O(1)",)),
       variables_en="x is the input (log x digits)", variables_ko="x는 입력 (자릿수 log x)"),
    _p(29, "Divide Two Integers", "Medium", "Math, Bit Manipulation",
       A("doubling the divisor with a table of powers", "제수를 두 배씩 늘린 표 사용",
         "O(log n)", ("O(1)", "O(log n)"), names=r"table|list\s+of\s+powers|표|배열|미리"),
       A("repeated doubling from scratch", "매번 두 배씩 다시 늘리기", "O(log^2 n)", ("O(1)",),
         names=r"from\s+scratch|again|repeated|다시|매번"),
       variables_en="n is the dividend", variables_ko="n은 피제수"),
    _p(43, "Multiply Strings", "Medium", "Math, String, Simulation",
       A("grade-school multiplication into a digit array", "자리별 곱셈을 배열에 누적",
         "O(m n)", ("O(m + n)",)),
       variables_en="m, n are the lengths of the two numbers", variables_ko="m, n은 두 수의 길이"),
    _p(166, "Fraction to Recurring Decimal", "Medium", "Hash Table, Math, String",
       A("long division remembering remainders", "나머지를 기억하며 긴 나눗셈", "O(d)", ("O(d)",)),
       variables_en="d is the denominator (at most d distinct remainders)",
       variables_ko="d는 분모 (서로 다른 나머지는 최대 d개)"),
    _p(172, "Factorial Trailing Zeroes", "Medium", "Math",
       A("count factors of 5: n/5 + n/25 + ...", "5의 인수 세기: n/5 + n/25 + ...", "O(log n)", ("O(1)",)),
       variables_en="n is the input", variables_ko="n은 입력"),
    _p(223, "Rectangle Area", "Medium", "Math, Geometry",
       A("sum of areas minus the overlap", "두 넓이 합에서 겹친 넓이 빼기", "O(1)", ("O(1)",))),
    _p(264, "Ugly Number II", "Medium", "Hash Table, Math, Dynamic Programming, Heap (Priority Queue)",
       A("three pointers over the sequence", "세 포인터로 수열 생성", "O(n)", ("O(n)",),
         names=r"pointers?|포인터|\bdp\b|dynamic|동적"),
       A("min-heap", "최소 힙", "O(n log n)", ("O(n)",), names=r"heap|힙|priority|우선\s*순위"),
       variables_en="n is the index asked for", variables_ko="n은 구하려는 순번"),
    _p(279, "Perfect Squares", "Medium", "Math, Dynamic Programming, Breadth-First Search",
       A("Lagrange's four-square theorem", "라그랑주 네 제곱수 정리", "O(√n)", ("O(1)",),
         names=r"lagrange|라그랑주|four[- ]square|네\s*제곱|legendre|르장드르"),
       A("dynamic programming over 1..n", "1..n 동적 계획법", "O(n √n)", ("O(n)",),
         names=r"\bdp\b|dynamic|동적|bfs|너비"),
       variables_en="n is the input", variables_ko="n은 입력"),
    _p(319, "Bulb Switcher", "Medium", "Math, Brainteaser",
       A("count perfect squares: floor(sqrt(n))", "완전제곱수 세기: floor(sqrt(n))", "O(1)", ("O(1)",))),
    _p(343, "Integer Break", "Medium", "Math, Dynamic Programming",
       A("split into 3s (math)", "3으로 나누기 (수학)", "O(1)", ("O(1)",),
         names=r"\b3s?\b|three|3으로|3을|3의", variant=r"pow\(|\*\*|거듭제곱\s*함수|built-?in"),
       A("fast power of 3", "3의 거듭제곱을 분할 거듭제곱으로", "O(log n)", ("O(1)",),
         names=r"\b3s?\b|three|3으로|3을|3의", variant=r"fast\s*pow|squaring|분할\s*거듭제곱|loop|반복"),
       A("dynamic programming", "동적 계획법", "O(n^2)", ("O(n)",), names=r"\bdp\b|dynamic|동적"),
       variables_en="n is the input", variables_ko="n은 입력"),
    _p(357, "Count Numbers with Unique Digits", "Medium", "Math, Dynamic Programming, Backtracking",
       A("product formula per digit count (n <= 8)", "자릿수별 곱셈 공식 (n <= 8)", "O(n)", ("O(1)",),
         names=_ANY),
       A("same, bounded input", "같은 방법, 입력이 작아 상수", "O(1)", ("O(1)",), names=_ANY),
       variables_en="n is the number of digits", variables_ko="n은 자릿수"),
    _p(365, "Water and Jug Problem", "Medium", "Math, Depth-First Search, Breadth-First Search",
       A("Bezout: target divisible by gcd", "베주 항등식: 목표가 gcd의 배수인지",
         "O(log(min(x, y)))", ("O(1)",)),
       variables_en="x, y are the jug capacities", variables_ko="x, y는 물통 용량"),
    _p(372, "Super Pow", "Medium", "Math, Divide and Conquer",
       A("digit by digit modular power", "자릿수마다 모듈러 거듭제곱", "O(n)", ("O(1)", "O(n)")),
       variables_en="n is the length of the array b", variables_ko="n은 배열 b의 길이"),
    _p(396, "Rotate Function", "Medium", "Array, Math, Dynamic Programming",
       A("F(k) from F(k-1) with the total sum", "전체 합으로 F(k-1)에서 F(k) 계산", "O(n)", ("O(1)",)),
       variables_en="n is the array length", variables_ko="n은 배열 길이"),
    _p(400, "Nth Digit", "Medium", "Math, Binary Search",
       A("skip blocks of numbers with the same digit count", "같은 자릿수 묶음 건너뛰기",
         "O(log n)", ("O(1)",)),
       variables_en="n is the position", variables_ko="n은 위치"),
    _p(1015, "Smallest Integer Divisible by K", "Medium", "Hash Table, Math",
       A("remainders of 1, 11, 111, ... (at most k)", "1, 11, 111, ...의 나머지 (최대 k개)",
         "O(k)", ("O(1)",)),
       variables_en="k is the divisor", variables_ko="k는 나누는 수"),
    _p(1492, "The kth Factor of n", "Medium", "Math, Number Theory",
       A("divisors up to sqrt(n), then their pairs", "sqrt(n)까지의 약수와 짝", "O(√n)", ("O(1)", "O(√n)")),
       variables_en="n is the input", variables_ko="n은 입력"),
    # Easy and Hard math problems, so a misclassified one gets a warning.
    _p(9, "Palindrome Number", "Easy", "Math",
       A("reverse half of the digits", "자릿수 절반 뒤집기", "O(log n)", ("O(1)",)),
       variables_en=_DIGITS_EN, variables_ko=_DIGITS_KO),
    _p(13, "Roman to Integer", "Easy", "Hash Table, Math, String",
       A("one pass with subtraction pairs", "빼는 조합을 고려해 한 번 순회", "O(n)", ("O(1)",), names=_ANY),
       A("same, bounded input (length <= 15)", "같은 방법, 길이 <= 15 이므로 상수", "O(1)", ("O(1)",),
         names=_ANY),
       variables_en="n is the string length", variables_ko="n은 문자열 길이"),
    _p(66, "Plus One", "Easy", "Array, Math",
       A("carry from the last digit", "마지막 자리부터 올림", "O(n)", ("O(1)", "O(n)")),
       variables_en="n is the number of digits", variables_ko="n은 자릿수"),
    _p(69, "Sqrt(x)", "Easy", "Math, Binary Search",
       A("binary search", "이분 탐색", "O(log x)", ("O(1)",)),
       A("Newton's method", "뉴턴 방법", "O(log x)", ("O(1)",)),
       variables_en="x is the input", variables_ko="x는 입력"),
    _p(231, "Power of Two", "Easy", "Math, Bit Manipulation, Recursion",
       A("n & (n - 1) == 0", "n & (n - 1) == 0", "O(1)", ("O(1)",))),
    _p(258, "Add Digits", "Easy", "Math, Simulation, Number Theory",
       A("digital root: 1 + (n - 1) % 9", "디지털 루트: 1 + (n - 1) % 9", "O(1)", ("O(1)",))),
    _p(263, "Ugly Number", "Easy", "Math",
       A("divide out 2, 3 and 5", "2, 3, 5로 나눠 떨어질 때까지 나누기", "O(log n)", ("O(1)",)),
       variables_en="n is the input", variables_ko="n은 입력"),
    _p(326, "Power of Three", "Easy", "Math, Recursion",
       A("divides 3^19 (largest power of 3 in int32)", "3^19를 나누는지 (int32 최대 3의 거듭제곱)",
         "O(1)", ("O(1)",), names=r"3\s*\^\s*19|3\*\*19|1162261467|largest\s+power|최대"),
       A("divide by 3 in a loop", "3으로 반복해서 나누기", "O(log n)", ("O(1)",),
         names=r"loop|divide|repeated|반복|나누"),
       variables_en="n is the input", variables_ko="n은 입력"),
    _p(367, "Valid Perfect Square", "Easy", "Math, Binary Search",
       A("binary search", "이분 탐색", "O(log n)", ("O(1)",)),
       variables_en="n is the input", variables_ko="n은 입력"),
    _p(60, "Permutation Sequence", "Hard", "Math, Recursion",
       A("factorial number system", "팩토리얼 진법", "O(n^2)", ("O(n)",)),
       variables_en="n is the number of elements", variables_ko="n은 원소 개수"),
    _p(149, "Max Points on a Line", "Hard", "Array, Hash Table, Math, Geometry",
       A("slopes from each point in a hash map", "각 점에서 기울기를 해시맵에", "O(n^2)", ("O(n)",)),
       variables_en="n is the number of points", variables_ko="n은 점의 개수"),
    _p(233, "Number of Digit One", "Hard", "Math, Recursion, Dynamic Programming",
       A("count ones per digit position", "자리마다 1의 개수 세기", "O(log n)", ("O(1)",)),
       variables_en="n is the input", variables_ko="n은 입력"),
    # Popular Medium problems without the Math tag.
    _p(3, "Longest Substring Without Repeating Characters", "Medium", "Hash Table, String, Sliding Window",
       A("sliding window", "슬라이딩 윈도", "O(n)", ("O(1)", "O(n)")),
       variables_en="n is the string length", variables_ko="n은 문자열 길이"),
    _p(8, "String to Integer (atoi)", "Medium", "String",
       A("one pass with an overflow check", "오버플로 검사하며 한 번 순회", "O(n)", ("O(1)",)),
       variables_en="n is the string length", variables_ko="n은 문자열 길이"),
    _p(11, "Container With Most Water", "Medium", "Array, Two Pointers, Greedy",
       A("two pointers", "두 포인터", "O(n)", ("O(1)",)),
       variables_en="n is the array length", variables_ko="n은 배열 길이"),
)

_BY_NUMBER = {p.number: p for p in CATALOG}


def identify(problem: Problem, text: str, source: str | None = None) -> tuple[Approach, ...]:
    """The catalog's approaches that the log's words (``text``: its final approach and complexities)
    and the practice function's ``source`` describe; () when neither names one. A family word ('fast
    exponentiation', 'sieve') names every member unless a member's own words single it out
    ('recursive', 'Eratosthenes'); where the log and the code both name some, those both name win, and
    where they name different ones, the code's: a claim is held to what the student's code does."""
    hits = tuple(a for a in problem.approaches if a.names and re.search(a.names, text, re.I))
    singled = tuple(a for a in hits if a.variant and re.search(a.variant, text, re.I))
    from_log = singled or hits
    from_code: tuple[Approach, ...] = ()
    if source and problem.function:
        from .codecost import implemented

        code = implemented(problem.function, source)
        from_code = tuple(a for a in problem.approaches if code is not None and a.code in code.keys)
    both = tuple(a for a in from_log if a in from_code)
    return both or from_code or from_log  # the code is what the claim is about: it decides where they differ


def get(number: int) -> Problem | None:
    return _BY_NUMBER.get(number)


def by_function(name: str) -> Problem | None:
    return next((p for p in CATALOG if p.function == name), None)


def _key(text: str) -> str:
    """Letters and digits only, lowercased: 'Pow(x, n)' -> 'powxn'."""
    return "".join(c for c in text.lower() if c.isalnum())


@dataclass(frozen=True)
class ProblemMatch:
    problem: Problem | None
    number: int | None  # the number the student wrote, if any
    by: str  # "title", "number" or "none"

    @property
    def conflict(self) -> bool:
        """The student's number names another problem than their title."""
        return self.by == "title" and self.number is not None and self.problem is not None \
            and self.number != self.problem.number


_NUMBER_PATTERNS = (
    re.compile(r"(?:leetcode|lc|#|no\.?|problem|문제)\s*[-#:]?\s*(\d{1,4})\b", re.I),
    re.compile(r"^\s*\[?(\d{1,4})\s*[.)\]:]"),
    re.compile(r"\b(\d{1,4})\s*번"),
    re.compile(r"^\s*(\d{1,4})\s*$"),
)


def _find_number(text: str) -> int | None:
    for pat in _NUMBER_PATTERNS:
        m = pat.search(text)
        if m:
            return int(m.group(1))
    return None


@cache
def _title_keys() -> tuple[tuple[str, Problem], ...]:
    """Every title and alias as a key, once: prose logs look up every sentence."""
    return tuple((_key(name), p) for p in CATALOG for name in (p.title, *p.aliases))


def _find_title(text: str) -> Problem | None:
    """Longest title or alias contained in the text, so 'Super Pow' is not 'Pow'."""
    key = _key(text)
    best: tuple[int, Problem] | None = None
    for k, p in _title_keys():
        # short aliases ('pow') must be the whole text, or they match inside words
        hit = (k == key) if len(k) < 5 else (k in key)
        if hit and (best is None or len(k) > best[0]):
            best = (len(k), p)
    return best[1] if best else None


def find_problem(text: str) -> ProblemMatch:
    """Which catalog problem a free-text 'problem' field names.

    Accepts '50. Pow(x, n)', 'Pow(x,n)', 'LeetCode 204', '#202 Happy Number',
    '문제 50번 Pow(x, n) 풀었음'. The title wins over the number when they disagree
    (numbers are the easier one to mistype); the mismatch is reported.
    """
    number = _find_number(text)
    titled = _find_title(text)
    if titled is not None:
        return ProblemMatch(titled, number, "title")
    if number is not None and number in _BY_NUMBER:
        return ProblemMatch(_BY_NUMBER[number], number, "number")
    return ProblemMatch(None, number, "none")
