"""The one interface through which a lesson plugs into the engine.

The engine grades a submission against suites of pytest tests and scores what the rubric declares;
everything it needs to know about one lesson comes from that lesson's ``LESSON``: the tasks
(names, titles, what each points at in the student's files), the submission's layout (the modules a
student writes, the document a task reads), and hooks it calls at fixed points of a grade (the
reference solutions in use, an early start of long work such as training runs). A lesson is a
module; ``GradeOptions.lesson`` names it (empty: the default lesson), so a second
lesson is a second module, not a fork of the engine (README, "Adding a lesson").
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
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


class Prefetch(Protocol):
    """Long work a lesson starts when collection ends, beside the other tests (see lesson/prefetch.py)."""

    def start(self, student: Any, artifacts: dict, items: list[Any], filtered: bool) -> bool:
        """Start what ``items`` will read; whether it started (then they run last)."""

    def reads(self, item: Any) -> bool:
        """Whether a collected test reads what was started (such tests run after the others)."""

    def stop(self, artifacts: dict) -> None:
        """The session ends: forget what was started for it."""


class Causes(Protocol):
    """Which failing check explains another (one mistake, one card: "fix X first"). The reports read a
    failure row (report/view.py: ``record``, the check's Finding with its cause key and ``explained_by``;
    ``figure_data``) and never import the lesson."""

    def cause_of(self, row: dict[str, Any]) -> str | None:
        """The cause a failed check names itself, or None."""

    def explained_by(self, row: dict[str, Any]) -> str | None:
        """The cause that, if present, explains this check's failure although its own code may be right."""

    def link_text(self, cause: str, lang: str) -> tuple[str, str, str]:
        """(the cause's name, the checks it explains, why) in ``lang``."""


class Release(Protocol):
    """What `grade release --lesson NAME` builds a lesson's student copy from (a module of the lesson).

    A lesson packaged on its own lands beside the kit in the copy; a lesson inside the kit's package (this
    course's) is already in the kit's copy, which is cut to ``student_files()`` there."""

    README: str  # the copy's README.md, Korean and English (docs/check-output.png ships if it shows it)

    def student_files(self) -> list[Path]:
        """The files of the lesson's package a student's copy holds (stubs, notes, public suite, checks)."""

    def private_files(self) -> list[Path]:
        """What never ships (the reference, the hidden suite): the leak scan compares the copy with it."""

    def write_notebook(self, source_dir: Path, out: Path) -> Path:
        """The lesson notebook built from the stubs in ``source_dir``, written to ``out``."""


@dataclass(frozen=True)
class Section:
    """One block a lesson adds to a submission's report (``Lesson.report_sections``), in one language.

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


# results.json (one submission's, as the reports read it) and a language -> the lesson's sections
ReportSections = Callable[[Mapping[str, Any], str], Sequence[Section]]


@dataclass(frozen=True)
class FigureTexts:
    """The words of one failed check's picture, in one language (``Lesson.figure_texts``).

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


# A failed check's ``figure`` record and a language -> the words of its picture; None where the lesson
# draws none for it (a kind it does not know): the kit then shows the check without a picture.
FigureTextsHook = Callable[[Mapping[str, Any], str], "FigureTexts | None"]


class ClassCharts(Protocol):
    """The kit's charts, handed to ``Lesson.class_sections`` (grader/report/class_sections.py draws them),
    so a lesson draws in the class page's palette through a typed interface rather than the kit's report
    internals. Each gives an ``<img>`` source (an SVG data URI), or None with nothing to draw."""

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
    its points takes those ``tests`` earned. ``hash`` binds the decision to the content it judged (a
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


# A grade's results.json (tests scored, artifacts written) -> the checks the lesson passed provisionally.
TAChecks = Callable[[Mapping[str, Any]], Sequence[TACheck]]


# Every student's results.json of a batch, in the class's order (``{}`` where a student has none, such as a
# missing submission), and the kit's charts -> the lesson's blocks of summary.html. The class page is
# bilingual: it heads each block "title_en / title_ko" and places ``html`` as it is (both languages in it,
# every text escaped); it has no Markdown form, so ``markdown`` may be empty.
ClassSections = Callable[[Sequence[Mapping[str, Any]], ClassCharts], Sequence[Section]]


@dataclass(frozen=True)
class Lesson:
    """What a lesson declares as ``LESSON``. Every field after ``markers`` is optional, so a lesson
    written before them still loads; the folders are absolute paths (``Path(__file__).parent / ...``
    in a package), read where the lesson is installed, so they travel in its wheel as package data."""

    name: str  # its title as a person reads it (``title_en`` when that is left empty)
    tasks: tuple[Task, ...]
    layout: Layout
    # Called once per grade with the folder of reference solutions in use (a sealed archive has its own).
    use_solutions: Callable[[Path], None] | None = None
    prefetch: Prefetch | None = None
    markers: tuple[str, ...] = ()  # pytest markers its suites use beyond ``task``: "name(args): help"
    title_en: str = ""  # its title in English and Korean, for reports and `grade lessons`
    title_ko: str = ""
    version: str = "0"  # recorded in results.json; batch regrades when it changes
    exercises: Path | None = None  # the student's stubs, the folder `grade release` ships
    solutions: Path | None = None  # the reference solutions the hidden suites compare against
    suites: Path | None = None  # pytest.ini, public/ and hidden/
    templates: Path | None = None  # report templates searched before the kit's (None: the kit's only)
    causes: Causes | None = None  # failures one cause explains across checks (report/cards.py)
    report_sections: ReportSections | None = None  # its own blocks in feedback.html/.md (none: no block)
    # Each graded name -> the student module that defines it: the runtime resolves a bare name there and
    # a notebook keeps a cell that binds one (``causal_mask = my_mask``). Empty: the tasks' symbols, in
    # the layout's one module when it has exactly one.
    contract: Mapping[str, str] = field(default_factory=dict)
    # Calls that train when run at top level: a graded notebook skips such a call (the suites run it).
    notebook_top_level_calls: frozenset[str] = frozenset()
    release: Release | None = None  # its student copy (`grade release --lesson NAME`); None: not released
    class_sections: ClassSections | None = None  # its own blocks in a batch's summary.html (none: no block)
    # Work a batch does once, before it forks its graders, so each child inherits the result (caches, tables
    # the suites read); None: nothing to warm. It runs in the grader, never with student code.
    warm_up: Callable[[], None] | None = None
    # A Python file of the lesson whose ``probe_<name>(worker, *args)`` functions run in the worker beside
    # the kit's (grader/runtime/probes.py): its harness, its spies, ``student.probe(name, ...)``. Shipped
    # into every worker of its grades (any isolation level), run in a fresh namespace per call, importing
    # only torch, torch.nn, copy and typing (bound at start); a name the kit has is the kit's. None: none.
    probes: Path | None = None
    # The words of a failed check's picture (its ``figure``: two tables, the wrong cells marked): the kit
    # draws the tables in the check's card (feedback.html, check(); a text grid in feedback.md), the lesson
    # titles and captions them (``FigureTexts``). None: no picture in the cards.
    figure_texts: FigureTextsHook | None = None
    # Keys of ``results.json``'s ``artifacts`` its hidden tests write (numbers measured on hidden inputs):
    # Gradescope's always-visible output leaves them out before the hidden tests are published.
    hidden_artifacts: tuple[str, ...] = ()
    # The checks its suites passed only provisionally (``TACheck``): written to results.json
    # ``ta_checks``, listed in `grade review` beside flagged submissions and in Gradescope's instructor
    # view; a TA confirms each or takes its points. None: the lesson is always sure.
    ta_checks: TAChecks | None = None

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


@cache
def load_lesson(module: str = "") -> Lesson:
    """The ``LESSON`` a lesson module declares (imported by name: the engine imports no lesson); ``""``:
    the default lesson's (grader/engine/lessons.py)."""
    if not module:
        from grader.engine.lessons import default_lesson

        module = default_lesson().module
    lesson = getattr(importlib.import_module(module), "LESSON", None)
    if not isinstance(lesson, Lesson):
        raise TypeError(f"{module} declares no LESSON (a grader.engine.lesson_api.Lesson)")
    return lesson
