"""The one interface through which a lesson plugs into the engine.

The engine grades a submission against suites of pytest tests and scores what the rubric declares;
everything it needs to know about one lesson comes from that lesson's ``LESSON``: the tasks
(names, titles, what each points at in the student's files), the submission's layout (the modules a
student writes, the document a task reads), its folders, and three optional hook objects by when they
run: ``GradeHooks`` while grading (the reference in use, a batch's warm-up, an early start of long work),
``ReportHooks`` in the reports (its blocks, a picture's words, causes across checks, the class page) and
``ReleaseHooks`` for its student copy. Each hook is a method that does nothing unless the lesson's
subclass overrides it. A lesson is a module; ``GradeOptions.lesson`` names it (empty: the default
lesson), so a second lesson is a second module, not a fork of the engine (docs/authors.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


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


class _Hooks:
    """What a lesson's hook objects share: each hook is a method that does nothing unless the lesson's
    subclass overrides it, and a subclass that defines a public name its base has no hook of (a misspelled
    hook, one from another phase) is an error where the class is written, not a hook never called.
    Helpers of a subclass are private (``_name``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        base = next(b for b in cls.__mro__[1:] if b.__module__ == __name__)
        if base is _Hooks:
            return
        hooks = {n for n in vars(base) if not n.startswith("_")}
        for name in vars(cls):
            if not name.startswith("_") and name not in hooks:
                raise TypeError(f"{cls.__module__}.{cls.__qualname__}: {name!r} is no {base.__name__} hook "
                                f"(its hooks: {', '.join(sorted(hooks))}); a helper's name starts with _")


class GradeHooks(_Hooks):
    """What a lesson does while its submissions are graded, in the grader (never in the worker)."""

    def use_solutions(self, folder: Path) -> None:
        """Once per grade, before the suites: the folder of reference solutions in use (the lesson's own,
        or a sealed archive's copy), for a hidden suite's reference loader (testkit.Reference)."""

    def warm_up(self) -> None:
        """Once per batch, before it forks its graders: work each child inherits (caches, tables the
        suites read). It runs in the grader, never with student code."""

    def prefetch(self, student: Any, artifacts: dict[str, Any], items: list[Any], filtered: bool) -> bool:
        """When collection ends: start long work ``items`` will read (training runs) beside the other tests;
        whether it started (then the tests ``reads_prefetch`` names run last). ``filtered``: `-k`/`-m` cut
        the run."""
        return False

    def reads_prefetch(self, item: Any) -> bool:
        """Whether a collected test reads what ``prefetch`` started."""
        return False

    def session_end(self, artifacts: dict[str, Any]) -> None:
        """The grade's test session ends: forget what was started for it."""

    def ta_checks(self, results: Mapping[str, Any]) -> Sequence[TACheck]:
        """Once per grade, on its results (tests scored, artifacts written): the checks its tests passed
        only provisionally because its reader was not sure (``TACheck``). The kit writes them to
        results.json ``ta_checks``, lists them in `grade review` beside flagged submissions and in
        Gradescope's instructor view, where a TA confirms each or takes its points. None: always sure."""
        return ()


class ReportHooks(_Hooks):
    """What a lesson adds to the reports. The reports read results.json and call these in the reporting
    process (never while grading), so a lesson imports its report code inside them."""

    def sections(self, results: Mapping[str, Any], lang: str) -> Sequence[Section]:
        """Its own blocks in feedback.html/.md and check(), for one submission's results in ``lang``."""
        return ()

    def figure_texts(self, figure: Mapping[str, Any], lang: str) -> FigureTexts | None:
        """The words of a failed check's picture (its ``figure`` record: two tables, the wrong cells marked);
        None where the lesson draws none of its kind: the check is shown without a picture."""
        return None

    def class_sections(self, results: Sequence[Mapping[str, Any]], charts: ClassCharts) -> Sequence[Section]:
        """Its blocks of a batch's summary.html: every student's results.json in the class's order (``{}``
        where a student has none). The page is bilingual: it heads each block "title_en / title_ko" and
        places ``html`` as it is (both languages in it, every text escaped); ``markdown`` may be empty."""
        return ()

    def cause_of(self, row: dict[str, Any]) -> str | None:
        """The cause a failed check names itself, or None. A failure row (report/view.py): ``record``,
        the check's Finding with its cause key and ``explained_by``; ``figure_data``."""
        return None

    def explained_by(self, row: dict[str, Any]) -> str | None:
        """The cause that, present, explains this check's failure although its own code may be right (one
        mistake, one card: "fix X first"), or None."""
        return None

    def link_text(self, cause: str, lang: str) -> tuple[str, str, str]:
        """(the cause's name, the checks it explains, why) in ``lang``, for a cause ``explained_by`` gave."""
        return (cause, "", "")


class ReleaseHooks(_Hooks):
    """What `grade release --lesson NAME` builds the lesson's student copy from: its package lands beside
    the kit cut to ``student_files()``, its stubs as ``exercises/``, the notebook, the README."""

    def readme(self) -> str:
        """The copy's README.md, Korean and English (docs/check-output.png ships if it shows it)."""
        return ""

    def student_files(self) -> Sequence[Path]:
        """The files of the lesson's package a student's copy holds (stubs, notes, public suite, checks)."""
        return ()

    def private_files(self) -> Sequence[Path]:
        """What never ships (the reference, the hidden suite): the leak scan compares the copy with it."""
        return ()

    def write_notebook(self, source_dir: Path, out: Path) -> Path | None:
        """The lesson notebook built from the stubs in ``source_dir``, written to ``out``; None: none."""
        return None


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
                  ("release", ReleaseHooks() if self.release is None else self.release, ReleaseHooks))
        for name, value, kind in phases:
            if not isinstance(value, kind):
                raise TypeError(f"Lesson {self.name!r}: {name}= is a {type(value).__name__}, not a "
                                f"{kind.__name__} (a subclass's instance)")
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
