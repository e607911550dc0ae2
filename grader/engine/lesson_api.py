"""The one interface through which a lesson plugs into the engine.

The engine grades a submission against suites of pytest tests and scores what the rubric declares;
everything it needs to know about one lesson comes from that lesson's ``LESSON``: the tasks
(names, titles, what each points at in the student's files), the submission's layout (the modules a
student writes, the document a task reads), its folders, and three optional hook objects by when they
run: ``GradeHooks`` while grading (the reference in use, a batch's warm-up, an early start of long work:
``Prefetch``), ``ReportHooks`` in the reports (its blocks, a picture's words, the class page, its
``Causes`` across checks) and ``ReleaseHooks`` for its student copy. Each is a frozen dataclass whose
fields take the lesson's own functions (``GradeHooks(ta_checks=logta.ta_checks)``): no subclass, and a
hook left out (None) does nothing. A lesson is a module; ``GradeOptions.lesson`` names it (empty: the
lesson the command selects, grader/engine/lessons.py), so a second lesson is a second module, not a
fork of the engine (docs/authors.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Protocol

from grader.core.finding import Finding


@dataclass(frozen=True)
class Task:
    """One graded unit of the rubric: tests name it in ``@pytest.mark.task(name, points=...)``."""

    name: str
    en: str  # its title in English and Korean
    ko: str
    symbols: tuple[str, ...] = ()  # the student's definitions it tests, for a failure's location
    document: str | None = None  # a task that grades a file rather than code points at it


@dataclass(frozen=True)
class Layout:
    """What a submission of this lesson holds."""

    modules: tuple[str, ...]  # the student's Python modules, by name (``embedding`` for embedding.py)
    log_name: str | None = None  # a document graded beside the code (staged as text, never imported)
    probe_modules: tuple[str, ...] = ()  # imported before a grader probe runs (the probes resolve them)
    # Per probe name, the modules imported before that probe instead of ``probe_modules``: ``()`` for one
    # that runs none of the student's code (a stand-in model handed to the student's function afterwards),
    # so a module it never touches cannot fail, or slow, the check that calls it. Empty: ``probe_modules``.
    probe_imports: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Section:
    """One block a lesson adds to a submission's report (``ReportHooks.sections``), in one language.

    The kit's feedback templates give it a heading (``title_in(lang)``) and an anchor (``lesson-<key>``)
    and place the body as it is: ``html`` in feedback.html and check() (markup the lesson built, every text
    in it already escaped; it should read at 390 px), ``markdown`` in feedback.md (no raw HTML: GitHub
    drops SVG, so a picture needs a text form there)."""

    key: str  # stable and unique among the lesson's sections: the page's anchor
    title_en: str
    title_ko: str
    html: str
    markdown: str
    # Optional, for a block with markup of its own: ``heading`` off, the bodies bring their own heading and
    # anchors and are placed as they are (no wrapper); ``late``, the block comes after the others (in
    # feedback.html after the notes on a notebook's code too); ``in_check`` off, check()'s notebook view
    # leaves it out (the full report has it); ``document``, the block reviews the graded document
    # (``Layout.log_name``) and gives ``present``, ``points``, ``max_points`` for short summaries
    # (Gradescope's top-level output states them in one line).
    heading: bool = True
    late: bool = False
    in_check: bool = True
    document: Mapping[str, Any] | None = None
    # ``task``: the task whose checks the block reports; a run that graded none of them (`grade -k other`)
    # leaves the block out, so a page states only what was graded. None: the block is always placed.
    task: str | None = None

    def title_in(self, lang: str) -> str:
        return (self.title_ko if lang == "ko" else "") or self.title_en


@dataclass(frozen=True)
class FigureTexts:
    """The words of one failed check's picture, in one language (``ReportHooks.figure_texts``).

    A check may keep two tables for the report (``GradeFailure.figure``, results.json's ``figure``:
    ``found``, the student's, and ``expected``, each a list of rows cut to what is shown, and ``wrong``,
    the shown [row, column] cells that differ); the kit draws them side by side, the wrong cells outlined
    (grader/report/table_figure.py), and the lesson says what they are. Plain text: the kit escapes it."""

    label: str  # the picture's name (feedback.html's aria-label)
    found_title: str  # above the student's table
    expected_title: str  # above the right one
    row_title: str  # along the rows and the columns of both
    col_title: str
    count: str  # the caption: what is wrong (how many cells, or what failed where no cell is)
    grid_title: str  # feedback.md's text form of the student's table: what its ■ (wrong) and · (right) are
    crop: str = ""  # where the tables are cut to their first rows and columns: which part is shown
    scale: str = ""  # what the colours mean ("": the kit's words for its heatmap's scale, diverging at 0)
    # what a cell of one of these values shows instead of its number (a mask's 1.0 "T", 0.0 "F"): a table of
    # flags drawn as flags, not as 1.00 and 0.00
    cell_words: tuple[tuple[float, str], ...] = ()


class ClassCharts(Protocol):
    """The kit's charts, handed to ``ReportHooks.class_sections`` (grader/report/class_sections.py draws
    them), so a lesson draws in the class page's palette through a typed interface rather than the kit's
    report internals. Each gives an ``<img>`` source (an SVG data URI), or None with nothing to draw."""

    def dots(self, groups: Sequence[str], values: Sequence[Sequence[float]], series: Sequence[str], *,
             refs: Sequence[float | None] = (), ref_label: str = "", y_title: str = "",
             colours: Mapping[str, str] | None = None) -> str | None:
        """Each group's ``values`` as dots (a label may hold "\\n"), coloured by the group's ``series``
        (``colours``: the lesson's own colour of a series, as "#rrggbb"; the others take the kit's palette,
        skipping those); ``refs`` dashed, one per group, named ``ref_label`` in the key."""


@dataclass(frozen=True)
class TACheck:
    """A check the lesson passed only provisionally: its reader was not sure, so a TA reads that part.

    It costs nothing until a TA decides (``grade review DIR ID --check KEY --confirm|--take``): taking
    its points takes what its part is worth (``points``) of what those ``tests`` earned, so a take on one
    part of a test that covers several (a problem's space, in a test of its time and space) leaves the
    others' points. ``hash`` binds the decision to the content it judged (a
    hash of the part's text): when the student changes that part, the decision is void and said so."""

    key: str  # stable across reruns of the same submission ("problem1/time"): what a decision names
    task: str
    tests: tuple[str, ...]  # the ids of the tests it passed provisionally (results.json ``tests[].id``)
    en: str  # for the TA: the part, and what kept the reader from being sure (English, Korean)
    ko: str
    saw: str  # the student's words the reader could not place, as written
    hash: str  # of the content the check judged
    line: int | None = None  # where in the graded document, when it has lines
    document: str | None = None  # the graded document it reads, when not the code
    part_en: str = ""  # the part as the student reads it ("problem 1's time complexity"); "": the key
    part_ko: str = ""
    points: float | None = None  # what this part is worth; None: all its tests earned


@dataclass(frozen=True)
class Prefetch:
    """Long work a grade starts when collection ends, beside the other tests (training runs), in the
    grader (never in the worker): one object, since its three parts only make sense together."""

    # (student, artifacts, items, filtered) -> whether it started: then the tests ``reads`` names run last.
    # ``student`` is a fresh Student, ``artifacts`` the grade's results.json artifacts, ``items`` the
    # collected tests and ``filtered`` whether `-k`/`-m` cut the run.
    start: Callable[[Any, dict[str, Any], list[Any], bool], bool]
    reads: Callable[[Any], bool]  # whether a collected test (a pytest item) reads what ``start`` started
    end: Callable[[dict[str, Any]], None] | None = None  # the session ends (artifacts): forget that work

    def __post_init__(self) -> None:
        _callables(self)


@dataclass(frozen=True)
class GradeHooks:
    """What a lesson does while its submissions are graded, in the grader (never in the worker). Each
    field is the lesson's own function, or None for nothing; an unknown name is a TypeError where it is
    written."""

    # Once per grade, before the suites: the folder of reference solutions in use (the lesson's own, or a
    # sealed archive's copy), for a hidden suite's reference loader (``Reference.use``).
    use_solutions: Callable[[Path], None] | None = None
    # Once per batch, before it forks its graders: work each child inherits (caches, tables the suites
    # read). It runs in the grader, never with student code.
    warm_up: Callable[[], None] | None = None
    prefetch: Prefetch | None = None
    # Once per grade, on its results (tests scored, artifacts written): the checks its tests passed only
    # provisionally because its reader was not sure (``TACheck``). The kit writes them to results.json
    # ``ta_checks``, lists them in `grade review` and in Gradescope's instructor view, where a TA confirms
    # each or takes its points.
    ta_checks: Callable[[Mapping[str, Any]], Sequence[TACheck]] | None = None

    def __post_init__(self) -> None:
        _callables(self, prefetch=Prefetch)


@dataclass(frozen=True)
class FailedCheck:
    """One failed check of a report, as a lesson's cause hooks read it (``Causes``)."""

    id: str  # results.json ``tests[].id``
    task: str | None
    status: str  # "failed" or "error"
    record: Finding  # what the check found (its cause, ``explained_by``); read from its words when legacy
    figure: Mapping[str, Any] | None  # the check's ``figure`` record (two tables, a diagnosis's ``cause``)
    messages: Mapping[str, str]  # its message by language ("en", "ko")
    text: str  # its message in the report's language
    legacy: bool  # a results.json from before records: only its words tell what it found

    @property
    def message_en(self) -> str:
        """Its message in English, the language a lesson's patterns match."""
        return str(self.messages.get("en") or self.text or "")


@dataclass(frozen=True)
class Causes:
    """A lesson's causes across checks, for the cards (grader/report/cards.py): one mistake, one card.

    ``cause_of`` names the cause a failed check shows itself; the checks naming one cause share a card.
    ``explained_by`` names the cause that, present, explains a check's failure although its own code may
    be right: the card of that cause takes it ("fix X first") when some check of the same task names
    that cause; ``link_text`` says it in the report's language: (the cause's name, the checks it
    explains, why)."""

    cause_of: Callable[[FailedCheck], str | None]
    explained_by: Callable[[FailedCheck], str | None] | None = None
    link_text: Callable[[str, str], tuple[str, str, str]] | None = None

    def __post_init__(self) -> None:
        _callables(self)
        if self.explained_by is not None and self.link_text is None:
            raise TypeError("Causes: explained_by= needs link_text= (the words of the link it makes)")


@dataclass(frozen=True)
class ReportHooks:
    """What a lesson adds to the reports. The reports read results.json and call these in the reporting
    process (never while grading): a module that holds them should import its heavy report code (the
    kit's charts, templates) inside them, so loading the lesson to grade does not load it."""

    # Its own blocks in feedback.html/.md and check(), for one submission's results in a language.
    sections: Callable[[Mapping[str, Any], str], Sequence[Section]] | None = None
    # The words of a failed check's picture (its ``figure`` record: two tables, the wrong cells marked) in
    # a language; None where the lesson draws none of its kind: the check is shown without a picture.
    figure_texts: Callable[[Mapping[str, Any], str], FigureTexts | None] | None = None
    # Its blocks of a batch's summary.html: every student's results.json in the class's order (``{}``
    # where a student has none), and the kit's charts. The page is bilingual: it heads each block
    # "title_en / title_ko" and places ``html`` as it is (both languages, every text escaped).
    class_sections: Callable[[Sequence[Mapping[str, Any]], ClassCharts], Sequence[Section]] | None = None
    causes: Causes | None = None

    def __post_init__(self) -> None:
        _callables(self, causes=Causes)


@dataclass(frozen=True)
class ReleaseHooks:
    """What `grade release --lesson NAME` builds the lesson's student copy from: its package lands beside
    the kit cut to ``student_files()``, its stubs as ``exercises/``, the notebook, the README."""

    student_files: Callable[[], Sequence[Path]]  # the package's files a student's copy holds
    private_files: Callable[[], Sequence[Path]]  # what never ships: the leak scan compares the copy with it
    readme: str = ""  # the copy's README.md, Korean and English ("": a title line)
    # (the stubs' folder, the notebook's path) -> the path written, or None where it builds none
    write_notebook: Callable[[Path, Path], Path | None] | None = None

    def __post_init__(self) -> None:
        _callables(self)
        if not isinstance(self.readme, str):
            raise TypeError(f"ReleaseHooks: readme= is text, not a {type(self.readme).__name__}")


def _callables(hooks: Any, **objects: type) -> None:
    """Each field of ``hooks`` is a function or None (``objects``: the fields that take an instance of a
    class instead): a value of the wrong kind is a TypeError where the lesson is declared, not a failure
    in the middle of a grade."""
    for f in fields(hooks):
        value = getattr(hooks, f.name)
        if value is None or f.name == "readme":
            continue
        kind = objects.get(f.name)
        if kind is not None and not isinstance(value, kind):
            raise TypeError(f"{type(hooks).__name__}: {f.name}= takes a {kind.__name__}, "
                            f"not a {type(value).__name__}")
        if kind is None and not callable(value):
            raise TypeError(f"{type(hooks).__name__}: {f.name}= takes a function, "
                            f"not a {type(value).__name__}")


@dataclass(frozen=True)
class Lesson:
    """What a lesson declares as ``LESSON``: data, then its hook objects by phase. Only ``name``, ``tasks``
    and ``layout`` are required; an unknown field is an error at load. The folders are absolute paths
    (``Path(__file__).parent / ...`` in a package), read where the lesson is installed, so they travel in
    its wheel as package data. Its suites' pytest markers are its pytest.ini's (``suites``)."""

    name: str  # its title as a person reads it (``title_en`` when that is left empty)
    tasks: tuple[Task, ...]
    layout: Layout
    title_en: str = ""  # its title in English and Korean, for reports and `grade lessons`
    title_ko: str = ""
    version: str = "0"  # recorded in results.json; batch regrades when it changes
    # Each graded name -> the student module that defines it: the runtime resolves a bare name there and
    # a notebook keeps a cell that binds one (``causal_mask = my_mask``). Empty: the tasks' symbols, in
    # the layout's one module when it has exactly one.
    contract: Mapping[str, str] = field(default_factory=dict)
    # Calls that train when run at top level: a graded notebook skips such a call (the suites run it).
    notebook_top_level_calls: frozenset[str] = frozenset()
    exercises: Path | None = None  # the student's stubs, the folder `grade release` ships
    solutions: Path | None = None  # the reference solutions the hidden suites compare against
    suites: Path | None = None  # pytest.ini (its markers too), public/ and hidden/
    templates: Path | None = None  # report templates searched before the kit's (None: the kit's only)
    # A Python file of the lesson whose ``probe_<name>(worker, *args)`` functions run in the worker beside
    # the kit's (grader/runtime/probes.py): its harness, its spies, ``student.probe(name, ...)``. Shipped
    # into every worker of its grades (any isolation level), run in a fresh namespace per call, importing
    # only torch, torch.nn, copy and typing (bound at start); a name the kit has is the kit's. None: none.
    probes: Path | None = None
    # Keys of ``results.json``'s ``artifacts`` its hidden tests write (numbers measured on hidden inputs):
    # Gradescope's always-visible output leaves them out before the hidden tests are published.
    hidden_artifacts: tuple[str, ...] = ()
    grade: GradeHooks = field(default_factory=GradeHooks)  # while grading
    report: ReportHooks = field(default_factory=ReportHooks)  # in the reports
    release: ReleaseHooks | None = None  # its student copy (`grade release --lesson NAME`); None: none

    def __post_init__(self) -> None:
        phases = (("grade", self.grade, GradeHooks), ("report", self.report, ReportHooks),
                  ("release", self.release, ReleaseHooks))
        for name, value, kind in phases:
            if not isinstance(value, kind) and not (name == "release" and value is None):
                raise TypeError(f"Lesson {self.name!r}: {name}= is a {type(value).__name__}, not a "
                                f"{kind.__name__}({', '.join(f.name + '=...' for f in fields(kind))})")
        if not isinstance(self.layout, Layout) or not all(isinstance(t, Task) for t in self.tasks):
            raise TypeError(f"Lesson {self.name!r}: layout= takes a Layout and tasks= a tuple of Task")

    @property
    def title(self) -> str:
        return self.title_en or self.name

    def title_in(self, lang: str) -> str:
        """The title in ``lang`` ("en" or "ko"), English where no Korean one is declared."""
        return (self.title_ko if lang == "ko" else "") or self.title

    @property
    def task_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tasks)

    def task(self, name: str) -> Task | None:
        return next((t for t in self.tasks if t.name == name), None)

    @property
    def home_modules(self) -> dict[str, str]:
        """The contract: ``contract`` as declared, else each task symbol in the layout's only module."""
        if self.contract:
            return dict(self.contract)
        if len(self.layout.modules) != 1:
            return {}
        return {symbol: self.layout.modules[0] for t in self.tasks for symbol in t.symbols}
