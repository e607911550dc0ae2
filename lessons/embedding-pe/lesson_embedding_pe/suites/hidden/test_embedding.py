"""Hidden checks of TokenAndPosEmbedding: structure, values, lengths, devices, dtypes."""

import math

import pytest
import torch

from grader.author import (
    Cause,
    Said,
    StudentRaised,
    as_tensor,
    check,
    check_dtype,
    check_shape,
    expect_check,
    fail_check,
    fresh_rng,
    max_diff,
    mentions,
    particle,
    raised,
    simulated_gpu,
)
from lesson_embedding_pe import reference, structure
from lesson_embedding_pe.pe_checks import (
    forward_rows_cause,
    learned_table,
    max_len_fix,
    scale_cause,
    table_figure,
)

MODES = ["sin", "learned", "none"]
# A sin table that is not a registered buffer: the lesson's cause the device checks follow (causes.py).
BUFFER = Cause("", "", "buffer")


def _sizes():
    rng = fresh_rng()
    return rng.randint(5, 60), 2 * rng.randint(2, 24), rng.randint(6, 40), rng.randint(1, 4)


def _ids(batch, length, vocab):
    return torch.randint(0, vocab, (batch, length))


def _positions(student, layer, mode, max_len, d_model):
    """The position rows the layer should add: the reference table, or its own learned table."""
    if mode == "sin":
        # The student's own table when it has the right shape: a wrong table is
        # sinusoidal_pe's fault, graded there, not charged twice here.
        own = student.attempt("sinusoidal_pe", max_len, d_model).value
        if isinstance(own, torch.Tensor) and tuple(own.shape) == (max_len, d_model):
            return own.double()
        return reference.load().embedding.sinusoidal_pe(max_len, d_model).double()
    if mode == "learned":  # its own table, an nn.Embedding's weight or a Parameter (1, max_len, d) or not
        name = learned_table(student, layer, max_len, d_model) or "pos.weight"
        return as_tensor(layer.attr(name), name).double().reshape(-1, d_model)
    return torch.zeros(max_len, d_model, dtype=torch.float64)


@pytest.mark.task("TokenAndPosEmbedding", points=1)
def test_sin_pe_is_a_registered_buffer(student):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode="sin")
    info = student.probe("module_summary", layer)
    buffers = {b["name"]: b for b in info["buffers"]}
    params = {p["name"] for p in info["parameters"]}
    plain = {t["name"] for t in info["plain_tensors"]}
    if "pe" in params:
        fail_check(check("mode='sin'", Said("`pe` as a buffer", "`pe`는 buffer여야 함"),
                         Said("an nn.Parameter: the optimizer would train the fixed sinusoidal table",
                              "nn.Parameter입니다"),
                         fix=Said("Use self.register_buffer('pe', table).",
                                  "고정된 사인 표가 학습됩니다. "
                                  "self.register_buffer('pe', table)를 쓰세요.")))
    if "pe" in plain:
        # the lesson's "buffer" cause (causes.py): the device checks it explains join its card
        fail_check(check("mode='sin'", Said("`pe` as a registered buffer", "`pe`는 등록된 buffer여야 함"),
                         Said("a plain attribute: .to('cuda') and .double() will not move it, and forward "
                              "fails on a GPU with a device error", "일반 속성입니다"),
                         cause=BUFFER,
                         fix=Said("Use self.register_buffer('pe', table).",
                                  ".to('cuda')나 .double()이 옮기지 않아 GPU에서 device 에러가 납니다. "
                                  "self.register_buffer('pe', table)를 쓰세요.")))
    expect_check("pe" in buffers,
                 check("mode='sin'", Said("a buffer named `pe`", "`pe`라는 buffer가 있어야 함"),
                       Said(f"buffers {sorted(buffers)} and parameters {sorted(params)}",
                            f"buffer {sorted(buffers)}, parameter {sorted(params)}만 있습니다")))
    shape = tuple(buffers["pe"]["shape"])
    expect_check(shape in ((max_len, d_model), (1, max_len, d_model)),
                 check("mode='sin'", Said(f"`pe` of shape ({max_len}, {d_model}) "
                                          f"(or (1, {max_len}, {d_model}))",
                                          "`pe`의 모양이 " + particle(f"({max_len}, {d_model}) (또는 "
                                                                  f"(1, {max_len}, {d_model}))", "이어야")
                                          + " 함"),
                       Said(f"{shape}", f"{shape}입니다")))
    student.source_shows(structure.registers_buffer(student.sources), "mode='sin'")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", MODES)
def test_submodules_per_mode(student, mode):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    info = student.probe("module_summary", layer)
    emb = info["embeddings"]
    where = f"mode={mode!r}"
    expect_check(emb.get("tok") == [vocab, d_model],
                 check(where, Said(f"self.tok = nn.Embedding({vocab}, {d_model})",
                                   particle(f"self.tok = nn.Embedding({vocab}, {d_model})", "이어야")
                                   + " 함"),
                       Said(f"{emb.get('tok')}", f"{emb.get('tok')}입니다")))
    if mode == "learned":
        expect_check(emb.get("pos") == [max_len, d_model],
                     check(where, Said(f"self.pos = nn.Embedding({max_len}, {d_model})",
                                       particle(f"self.pos = nn.Embedding({max_len}, {d_model})",
                                                "이어야") + " 함"),
                           Said(f"{emb['pos']}", f"{emb['pos']}입니다") if "pos" in emb else
                           Said("no nn.Embedding named `pos`", "`pos`라는 nn.Embedding이 없습니다")))
    else:
        expect_check("pos" not in emb,
                     check(where, Said("no learned position table", "학습형 위치 표가 없어야 함"),
                           Said("self.pos", "self.pos가 있습니다"),
                           fix=Said("Only mode='learned' has one.", "mode='learned'에만 있어야 합니다.")))
    if mode != "sin":
        tables = [b["name"] for b in info["buffers"]
                  if b["dtype"].startswith("float") and len(b["shape"]) >= 2]
        expect_check(not tables,
                     check(where, Said("no sinusoidal table", "사인 표가 없어야 함"),
                           Said(f"float buffers {tables}", f"float buffer {tables}가 있습니다")))
    student.source_shows(structure.makes_embedding(student.sources, mode=mode), f"mode={mode!r}")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
def test_unknown_mode_is_value_error(student):
    out = student.attempt("TokenAndPosEmbedding", 10, 8, 16, mode="rotary")
    raised(out, "ValueError", "TokenAndPosEmbedding(mode='rotary')",
           "An unknown mode should fail loudly at construction; "
           "silently acting like 'none' hides typos such as 'sine'.",
           "알 수 없는 mode는 생성 시점에 바로 실패해야 합니다. 조용히 "
           "'none'처럼 동작하면 'sine' 같은 오타가 숨겨집니다.")


@pytest.mark.task("TokenAndPosEmbedding", points=2)
@pytest.mark.parametrize("mode", MODES)
def test_forward_is_scaled_tokens_plus_positions(student, mode):
    vocab, d_model, max_len, batch = _sizes()
    length = fresh_rng().randint(1, max_len)
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    ids = _ids(batch, length, vocab)
    what = f"mode={mode!r}, ids {tuple(ids.shape)}"
    out = as_tensor(layer.call("__call__", ids), what)
    check_shape(out, (batch, length, d_model), what)
    weight = as_tensor(layer.attr("tok.weight"), "tok.weight").double()
    pos = _positions(student, layer, mode, max_len, d_model)[:length]
    expected = weight[ids] * math.sqrt(d_model) + pos
    err = max_diff(out, expected)
    if err > 1e-4:
        unscaled = max_diff(out, weight[ids] + pos) < 1e-4
        added = out.double()[0] - weight[ids[0]] * math.sqrt(d_model)
        key = ""  # the mistake, where the check can name it (else forward_rows_cause tells it)
        if unscaled:
            key, cause = "unscaled", ("the token vectors are not multiplied by sqrt(d_model).",
                                      "토큰 벡터에 sqrt(d_model)을 곱하지 않았습니다.")
        elif mode != "none" and max_diff(out, weight[ids] * math.sqrt(d_model)) < 1e-4:
            key, cause = "no_positions", ("no position rows were added.", "위치 벡터를 더하지 않았습니다.")
        elif max_diff(out, (weight[ids] + pos) * math.sqrt(d_model)) < 1e-4:
            key, cause = "positions_scaled", (
                "the positions are scaled too: only tok(ids) is multiplied by sqrt(d_model).",
                "위치 벡터까지 스케일했습니다: sqrt(d_model)은 tok(ids)에만 곱합니다.")
        elif scaled := scale_cause(out, weight[ids], pos, d_model):
            key, cause = "scaled_wrong", scaled
        else:
            cause = forward_rows_cause(added, pos)
        # the rows forward added, drawn beside the rows it should add (unless wrongly scaled tokens mix in)
        figure = (None if unscaled or key == "scaled_wrong" else
                  table_figure(added, pos, f"{what}: out - tok(ids) * sqrt({d_model})", atol=1e-4,
                               subject="forward", cause=cause))
        fail_check(check(what, Said(f"tok(ids) * sqrt({d_model}) + positions 0..{length - 1}",
                                    particle(f"tok(ids) * sqrt({d_model}) + 위치 0..{length - 1}",
                                             "이어야") + " 함"),
                         Said(f"values off by up to {err:.3g}", f"최대 {err:.3g}만큼 다릅니다"),
                         cause=Cause(*cause, key)),
                   figure=figure)


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", ["sin", "learned"])
def test_longer_than_max_len_is_index_error(student, mode):
    vocab, d_model, max_len, _ = _sizes()
    length = max_len + fresh_rng().randint(1, 9)
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    out = student.attempt_method(layer, "__call__", _ids(2, length, vocab))
    what = f"mode={mode!r}, T={length} > max_len={max_len}"
    raised(out, "IndexError", what,
           "Compare T with max_len in forward before slicing: pe[:T] silently "
           "truncates and the add then fails with a RuntimeError.",
           "슬라이싱 전에 forward에서 T와 max_len을 비교하세요: "
           "pe[:T]는 조용히 잘리고 덧셈에서 RuntimeError가 납니다.")
    said = repr(out.error.message)
    expect_check(mentions(out.error.message, length, max_len),
                 check(what, Said(f"the IndexError to name both {length} and {max_len}",
                                  f"IndexError 메시지에 {length}와 {max_len}이 모두 있어야 함"),
                       Said(said, f"메시지는 {said}입니다")),
                 Said(f"{{lead}}the IndexError should name both {length} and {max_len}; its message was "
                      "{found}.", "{lead}{expected_stem} 하는데 {found}."))


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", MODES)
def test_exactly_max_len_works(student, mode):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    try:
        out = as_tensor(layer.call("__call__", _ids(1, max_len, vocab)), f"mode={mode!r}, T = max_len")
    except StudentRaised as exc:
        error = f"{exc.type_name}: {exc.message}"
        fail_check(check(f"mode={mode!r}, T = max_len = {max_len}", Said("it to work", "동작해야 함"),
                         Said(error, f"{error}가 발생했습니다"),
                         fix=max_len_fix(exc)))
    check_shape(out, (1, max_len, d_model), f"mode={mode!r}, T = max_len")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
def test_none_takes_any_length(student):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode="none")
    length = 3 * max_len + 1
    try:
        out = as_tensor(layer.call("__call__", _ids(1, length, vocab)), "mode='none'")
    except StudentRaised as exc:
        error = f"{exc.type_name}: {exc.message}"
        fail_check(check(f"mode='none', T={length} > max_len={max_len}",
                         Said("it to work (no position table to run out of)", "위치 표가 없으니 동작해야 함"),
                         Said(error, f"{error}가 발생했습니다")))
    check_shape(out, (1, length, d_model), "mode='none'")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", ["sin", "learned"])
def test_to_meta_moves_everything(student, mode):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    try:
        info = student.probe("device_check", layer, _ids(2, max_len // 2 + 1, vocab), "meta")
    except StudentRaised as exc:
        error = f"{exc.type_name}: {exc.message}"
        fail_check(check(f"mode={mode!r}", Said("after .to('meta'), forward on meta ids should work",
                                                ".to('meta') 후 meta ids로 forward가 동작해야 함"),
                         Said(error, f"{error}가 발생했습니다"), explained_by=_buffer_explains(mode)),
                   Said("{lead}{expected}; found {found}.", "{lead}{expected_stem} 하는데 {found}."))
    left = [n for n, dev in {**info["buffers"], **info["parameters"]}.items() if dev != "meta"]
    # the Korean sentence says "after .to('meta')" in its expected clause, the English one before "expected"
    expect_check(not left,
                 check(Said(f"mode={mode!r}: after .to('meta')", f"mode={mode!r}"),
                       Said("every buffer and parameter on meta",
                            ".to('meta') 후 모든 buffer와 parameter가 meta에 있어야 함"),
                       Said(f"{left} left behind", f"{left}가 남아 있습니다"),
                       explained_by=_buffer_explains(mode)),
                 Said("{what} expected {expected}; found {found}.", "{lead}{expected_stem} 하는데 {found}."))
    expect_check(info["output"].get("device") == "meta",
                 check(f"mode={mode!r}", Said("the output on meta", "출력이 meta에 있어야 함"),
                       Said(f"{info['output']}", f"{info['output']}입니다")))
    _source_follows_device(student, mode, layer)


# FakeTensorMode needs a torch built with CUDA (PyPI's default wheel); the CPU wheel (what Gradescope's
# setup.sh installs) cannot even fake it, so there the same check runs on the meta device, which also
# raises on a CPU tensor mixed into the forward: the same points, the same bug caught, on any build.
SIMULATED = simulated_gpu()


@pytest.mark.task("TokenAndPosEmbedding", points=2)
@pytest.mark.parametrize("mode", ["sin", "learned"])
def test_cuda_simulated_device_safety(student, mode):
    """FakeTensorMode raises on mixed devices exactly like a GPU would, without one."""
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    probe_device, device = SIMULATED
    try:
        info = student.probe("device_check", layer, _ids(2, max_len // 2 + 1, vocab), probe_device)
    except StudentRaised as exc:
        error = f"{exc.type_name}: {exc.message[:300]}"
        # the Korean sentence says "on a (simulated) GPU" in its expected clause, the English one before it
        fail_check(check(Said(f"mode={mode!r}: on a (simulated) GPU", f"mode={mode!r}"),
                         Said(f".to({device!r}) then forward on {device} ids to work",
                              f"(시뮬레이션한) GPU에서 .to({device!r}) 후 {device} ids로 forward가 "
                              "동작해야 함"),
                         Said(error, f"{error}가 발생했습니다"),
                         cause=Cause("a tensor left on the CPU — a table kept as a plain attribute, rebuilt "
                                     "in forward, or torch.arange(T) without device=ids.device.",
                                     "CPU에 남은 텐서 — 일반 속성으로 둔 표, forward에서 다시 만든 표, 또는 "
                                     "device=ids.device 없는 torch.arange(T)."),
                         explained_by=_buffer_explains(mode)),
                   Said("{what}, expected {expected}; found {found}.{tail}",
                        "{lead}{expected_stem} 하는데 {found}.{tail}"))
    # a sin table outside the buffers explains an output off a simulated cuda, not one off meta
    expect_check(str(info["output"].get("device", "")).startswith(device),
                 check(f"mode={mode!r}", Said(f"the output on {device}", f"출력이 {device}에 있어야 함"),
                       Said(f"{info['output']}", f"{info['output']}입니다"),
                       explained_by=_buffer_explains(mode) if device == "cuda" else None))
    _source_follows_device(student, mode, layer)


def _buffer_explains(mode: str) -> str | None:
    """A sin layer that fails on another device or dtype: its table outside the buffers stays behind (the
    lesson's "buffer" cause, causes.py), which the report says to fix first."""
    return "buffer" if mode == "sin" else None


def _source_follows_device(student, mode, layer):
    """The device tests' structural half: a table the layer holds is a buffer, the positions follow the
    input (a sin layer holding no tensor but tok's weight whose forward calls sinusoidal_pe rebuilds the
    table there: both the source and the layer must show it)."""
    info = student.probe("module_summary", layer)
    held = [t for t in info["buffers"] + info["parameters"] + info["plain_tensors"]
            if t["name"] != "tok.weight"]
    if mode == "sin" and (held or not structure.rebuilds_table(student.sources)):
        student.source_shows(structure.registers_buffer(student.sources), "mode='sin'")
    student.source_shows(structure.positions_on_device(student.sources, mode), f"mode={mode!r}")


@pytest.mark.task("TokenAndPosEmbedding", points=0)
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine (the "
                                                          "simulated-CUDA test covers it)")
@pytest.mark.parametrize("mode", ["sin", "learned"])
def test_real_cuda(student, mode):
    layer = student.call("TokenAndPosEmbedding", 20, 16, 12, mode=mode)
    info = student.probe("device_check", layer, _ids(2, 7, 20), "cuda")
    expect_check(str(info["output"].get("device", "")).startswith("cuda"),
                 check(f"mode={mode!r}", Said("the output on cuda", "출력이 cuda에 있어야 함"),
                       Said(f"{info['output']}", f"{info['output']}입니다"),
                       explained_by=_buffer_explains(mode)))


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", MODES)
def test_double_gives_float64(student, mode):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    layer.call("double")
    out = layer.call("__call__", _ids(2, min(5, max_len), vocab))
    out = as_tensor(out, f"mode={mode!r} after .double()")
    check_dtype(out, torch.float64, f"mode={mode!r}: output after .double()",
                "A table kept outside the module's buffers stays float32 and the "
                "sum is promoted only by luck; register it as a buffer.",
                "모듈 buffer 밖에 둔 표는 float32로 남습니다. buffer로 등록하세요.",
                explained_by=_buffer_explains(mode))
