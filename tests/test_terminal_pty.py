"""`grade` at a real terminal, read the way a student reads it.

Every other test runs `grade` with its output in pipes, where the progress bar never starts; a student's
stdout and stderr are a terminal. Here the real `grade` of a fresh `grade release` copy runs in a
pseudo-terminal (pexpect), and its bytes are played through a terminal emulator (pyte): the assertions read
the screen a person would see once the command is done (the bar drawn and erased, colours dropped), not
the raw stream.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pace
import pytest

pexpect = pytest.importorskip("pexpect")
pyte = pytest.importorskip("pyte")

COLUMNS, ROWS = 110, 50
GRADE = Path(sys.executable).with_name("grade")  # the console script, as a student types it
# Set by the kit's tests or by CI; a student's shell has none of them (the warm grader is wanted there).
NOT_A_STUDENTS = ("GK_NO_DAEMON", "GK_DAEMON", "CI", "GITHUB_ACTIONS", "GRADESCOPE", "PYTHONPATH")


@pytest.fixture(scope="module")
def release_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A student's copy of the kit, written by the real `grade release`."""
    out = tmp_path_factory.mktemp("pty") / "student-kit"
    done = subprocess.run([str(GRADE), "release", str(out)], capture_output=True, text=True,
                          timeout=pace.seconds(300))
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    """An XDG_RUNTIME_DIR of the test's own (short: a socket path has 107 bytes), where a warm grader
    would put its socket: empty afterwards means none was started."""
    folder = Path(tempfile.mkdtemp(prefix="gk-pty-", dir="/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def student_env(runtime: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in NOT_A_STUDENTS}
    env.update(TERM="xterm-256color", COLUMNS=str(COLUMNS), LINES=str(ROWS), XDG_RUNTIME_DIR=str(runtime))
    env.pop("NO_COLOR", None)
    env.update(extra)
    return env


def screen_of(raw: bytes) -> str:
    """What the terminal shows once the output has played, scrollback included: a tall screen as wide as
    the pty, so that the cursor moves of the bar land where they did on the student's terminal."""
    screen = pyte.Screen(COLUMNS, 1000)
    stream = pyte.ByteStream(screen)
    stream.feed(raw)  # as the pty delivered it (its line discipline already made each \n a \r\n)
    lines = [line.rstrip() for line in screen.display]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def run_at_terminal(args: list[str], cwd: Path, env: dict[str, str],
                    timeout: float = 600) -> tuple[str, bytes, int]:
    """`grade args` in a pseudo-terminal until it exits: the screen, the raw bytes and the exit status."""
    child = pexpect.spawn(str(GRADE), args, cwd=str(cwd), env=env, dimensions=(ROWS, COLUMNS),
                          timeout=timeout)
    raw = b""
    while True:
        try:
            raw += child.read_nonblocking(1 << 16, timeout=timeout)
        except pexpect.EOF:
            break
    child.close()
    status = child.exitstatus if child.exitstatus is not None else -child.signalstatus
    return screen_of(raw), raw, status


def squashed(text: str) -> str:
    """``text`` without its whitespace: a message the terminal wrapped reads the same as written."""
    return "".join(text.split())


@pytest.fixture(scope="module")
def cold_then_warm(release_copy) -> tuple[tuple[str, bytes, int], tuple[str, bytes, int]]:
    """A student's first two interactive `grade`s in the copy: the first grades cold and starts the warm
    grader, the second is served by it (each: the screen, the raw bytes, the exit status). Stopped after."""
    runtime = Path(tempfile.mkdtemp(prefix="gk-pty-", dir="/tmp"))
    env = student_env(runtime)
    try:
        cold = run_at_terminal([], release_copy, env)
        warm = run_at_terminal([], release_copy, env)
    finally:
        subprocess.run([str(GRADE), "--stop-daemon"], cwd=release_copy, env=env, capture_output=True,
                       timeout=pace.seconds(120))
        shutil.rmtree(runtime, ignore_errors=True)
    return cold, warm


def test_grade_shows_the_score_the_table_and_the_fixes(cold_then_warm):
    screen, raw, status = cold_then_warm[0]
    assert status == 0, screen
    assert b"Grading" in raw, "the bar is drawn at a terminal"
    assert "Grading" not in screen, f"the bar is erased once the grade is done:\n{screen}"
    assert "Score: exercises  0 / 30" in screen, screen
    for title in ("Sinusoidal positional encoding", "Token + position embedding", "Weight tying",
                  "Sequence-reversal experiment", "LeetCode log", "LeetCode practice code"):
        assert title in screen, f"the task table lacks {title}:\n{screen}"
    assert "Top three things to fix" in screen
    assert "1. Sinusoidal positional encoding (−6): not attempted yet" in screen
    assert "reports/feedback.html" in screen, "where the full report is"


def test_one_task_in_korean(release_copy, runtime_dir):
    screen, _, status = run_at_terminal(["-k", "sinusoidal_pe", "--lang", "ko"], release_copy,
                                        student_env(runtime_dir, GK_NO_DAEMON="1"))
    assert status == 0, screen
    assert "점수: exercises  0 / 6" in screen, screen
    assert "일부만 채점했습니다(-k sinusoidal_pe)" in screen
    assert "사인파 위치 인코딩" in screen and "가장 먼저 고칠 세 가지" in screen
    assert "가중치 공유" not in screen, "-k grades one task: the table holds that task only"
    assert "채점 중" not in screen


def test_the_attention_lesson_at_a_terminal(runtime_dir, tmp_path):
    kit = tmp_path / "attention-kit"
    done = subprocess.run([str(GRADE), "release", "--lesson", "attention", str(kit)], capture_output=True,
                          text=True, timeout=pace.seconds(300))
    assert done.returncode == 0, done.stderr
    screen, _, status = run_at_terminal([], kit, student_env(runtime_dir, GK_NO_DAEMON="1"))
    assert status == 0, screen
    assert "Score: exercises  0 / " in screen, screen
    assert "Top three things to fix" in screen or "Not started yet" in screen, screen


def test_the_warm_grader_shows_the_same_screen(cold_then_warm):
    """The first interactive `grade` grades cold and starts the warm grader; the second is served by it.
    Both print the summary (the warm one through the descriptors it was handed)."""
    (cold, _, cold_status), (warm, _, warm_status) = cold_then_warm
    assert cold_status == 0, cold
    assert warm_status == 0, warm
    for screen in (cold, warm):
        assert "Score: exercises  0 / 30" in screen, screen
        assert "Top three things to fix" in screen, screen


def test_watch_shows_a_grade_then_stops_on_ctrl_c(release_copy, runtime_dir):
    env = student_env(runtime_dir, GK_NO_DAEMON="1")
    # Ctrl+C as at a student's terminal, even where this suite runs as a background job of a shell without
    # job control, which starts it with SIGINT ignored (inherited, and Python then never raises
    # KeyboardInterrupt)
    child = pexpect.spawn(str(GRADE), ["--watch"], cwd=str(release_copy), env=env, dimensions=(ROWS, COLUMNS),
                          timeout=pace.seconds(600), encoding="utf-8",
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        child.expect_exact("on every save; Ctrl+C stops")  # says what it does, and how to stop it
        child.expect_exact("0 / 30")  # the first round's score
        child.expect_exact("Sinusoidal positional encoding (−6)")  # and the first thing to fix
        (release_copy / "exercises" / "embedding.py").touch()  # a save
        child.expect_exact("0 / 30")  # graded again
        child.sendintr()
        child.expect(pexpect.EOF, timeout=pace.seconds(120))
    finally:
        child.close(force=True)
    assert child.exitstatus == 130 or child.signalstatus == signal.SIGINT, "a Ctrl-C ends the watch"


@pytest.mark.parametrize("args, lang, said", [
    (["exercise"], "en", "`exercise` does not exist; nothing was graded. Did you mean `exercises`?"),
    (["exercise", "--lang", "ko"], "ko", "`exercise`가 없어 아무것도 채점하지 않았습니다. "
                                         "혹시 `exercises`인가요?"),
    (["sinusoidal_pe"], "en", "To grade only the task `sinusoidal_pe`, use -k: `grade -k sinusoidal_pe`"),
], ids=["typo", "typo-ko", "task-as-path"])
def test_a_wrong_path_is_answered_at_once_without_torch(release_copy, runtime_dir, args, lang, said):
    """Answered by `grade` itself before any grader starts: no torch imported (the import log of the
    process says so), no warm grader started (its runtime folder is never made)."""
    env = student_env(runtime_dir, PYTHONPROFILEIMPORTTIME="1")
    screen, raw, status = run_at_terminal(args, release_copy, env, timeout=pace.seconds(120))
    assert status == 2
    assert squashed(said) in squashed(screen), screen
    imported = [line for line in raw.decode(errors="replace").splitlines() if line.startswith("import time:")]
    assert imported, "the import log is on"
    assert not [line for line in imported if line.rstrip().endswith(("| torch", "|   torch"))
                or line.split("|")[-1].strip() == "torch"], "torch was imported to say a path is wrong"
    assert not any(runtime_dir.iterdir()), "a warm grader was started for a folder that does not exist"


def test_no_exercises_folder_says_where_to_run(runtime_dir, tmp_path):
    screen, _, status = run_at_terminal([], tmp_path, student_env(runtime_dir), timeout=pace.seconds(120))
    assert status == 2
    assert squashed("`exercises` does not exist; nothing was graded. Run `grade` in the folder that holds "
                    "exercises/") in squashed(screen), screen
    assert not any(runtime_dir.iterdir())
