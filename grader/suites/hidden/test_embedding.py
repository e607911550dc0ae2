"""Hidden checks of TokenAndPosEmbedding: structure, values, lengths, devices, dtypes."""

import math

import pytest
import torch

from grader.core.errors import StudentRaised
from grader.core.feedback import expect, fail
from grader.core.testkit import as_tensor, check_dtype, check_shape, fresh_rng, max_diff, mentions, raised
from grader.lesson import reference, structure
from grader.lesson.pe_checks import forward_rows_cause, table_figure

MODES = ["sin", "learned", "none"]


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
    if mode == "learned":
        return as_tensor(layer.attr("pos.weight"), "pos.weight").double()
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
        fail("mode='sin': expected `pe` as a buffer; found an nn.Parameter: the optimizer would "
             "train the fixed sinusoidal table. Use self.register_buffer('pe', table).",
             "mode='sin': `pe`는 buffer여야 하는데 nn.Parameter입니다. 고정된 사인 "
             "표가 학습됩니다. self.register_buffer('pe', table)를 쓰세요.")
    if "pe" in plain:
        fail("mode='sin': expected `pe` as a registered buffer; found a plain attribute: "
             ".to('cuda') and .double() will not move it, and forward fails on a GPU "
             "with a device error. Use self.register_buffer('pe', table).",
             "mode='sin': `pe`는 등록된 buffer여야 하는데 일반 속성입니다. .to('cuda')나 .double()이 "
             "옮기지 않아 GPU에서 device 에러가 납니다. self.register_buffer('pe', table)를 쓰세요.")
    expect("pe" in buffers,
           "mode='sin': expected a buffer named `pe`; found buffers "
           f"{sorted(buffers)} and parameters {sorted(params)}.",
           "mode='sin': `pe`라는 buffer가 있어야 하는데 buffer "
           f"{sorted(buffers)}, parameter {sorted(params)}만 있습니다.")
    shape = tuple(buffers["pe"]["shape"])
    expect(shape in ((max_len, d_model), (1, max_len, d_model)),
           f"mode='sin': expected `pe` of shape ({max_len}, {d_model}) "
           f"(or (1, {max_len}, {d_model})); found {shape}.",
           f"mode='sin': `pe`의 모양이 ({max_len}, {d_model}) (또는 (1, "
           f"{max_len}, {d_model}))이어야 하는데 {shape}입니다.")
    student.source_shows(structure.registers_buffer(student.staging), "mode='sin'")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", MODES)
def test_submodules_per_mode(student, mode):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    info = student.probe("module_summary", layer)
    emb = info["embeddings"]
    expect(emb.get("tok") == [vocab, d_model],
           f"mode={mode!r}: expected self.tok = nn.Embedding({vocab}, {d_model}); found {emb.get('tok')}.",
           f"mode={mode!r}: self.tok = nn.Embedding({vocab}, {d_model})이어야 하는데 {emb.get('tok')}입니다.")
    if mode == "learned":
        expect(emb.get("pos") == [max_len, d_model],
               "mode='learned': expected self.pos = "
               f"nn.Embedding({max_len}, {d_model}); found {emb.get('pos')}.",
               f"mode='learned': self.pos = nn.Embedding({max_len}, "
               f"{d_model})이어야 하는데 {emb.get('pos')}입니다.")
    else:
        expect("pos" not in emb,
               f"mode={mode!r}: expected no learned position table; "
               "found self.pos. Only mode='learned' has one.",
               f"mode={mode!r}: 학습형 위치 표가 없어야 하는데 "
               "self.pos가 있습니다. mode='learned'에만 있어야 합니다.")
    if mode != "sin":
        tables = [b["name"] for b in info["buffers"]
                  if b["dtype"].startswith("float") and len(b["shape"]) >= 2]
        expect(not tables,
               f"mode={mode!r}: expected no sinusoidal table; found float buffers {tables}.",
               f"mode={mode!r}: 사인 표가 없어야 하는데 float buffer {tables}가 있습니다.")
    student.source_shows(structure.makes_embedding(student.staging, mode=mode), f"mode={mode!r}")


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
        if unscaled:
            cause = ("the token vectors are not multiplied by sqrt(d_model).",
                     "토큰 벡터에 sqrt(d_model)을 곱하지 않았습니다.")
        elif mode != "none" and max_diff(out, weight[ids] * math.sqrt(d_model)) < 1e-4:
            cause = ("no position rows were added.", "위치 벡터를 더하지 않았습니다.")
        elif max_diff(out, (weight[ids] + pos) * math.sqrt(d_model)) < 1e-4:
            cause = ("the positions are scaled too: only tok(ids) is multiplied by sqrt(d_model).",
                     "위치 벡터까지 스케일했습니다: sqrt(d_model)은 tok(ids)에만 곱합니다.")
        else:
            cause = forward_rows_cause(added, pos)
        # the rows forward added, drawn beside the rows it should add (unless unscaled tokens mix in)
        figure = (None if unscaled else
                  table_figure(added, pos, f"{what}: out - tok(ids) * sqrt({d_model})", atol=1e-4,
                               subject="forward", cause=cause))
        fail(f"{what}: expected tok(ids) * sqrt({d_model}) + positions 0..{length - 1}; "
             f"found values off by up to {err:.3g}. Likely cause: {cause[0]}",
             f"{what}: tok(ids) * sqrt({d_model}) + 위치 0..{length - 1}이어야 "
             f"하는데 최대 {err:.3g}만큼 다릅니다. 원인 추정: {cause[1]}", figure)


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
    expect(mentions(out.error.message, length, max_len),
           f"{what}: the IndexError should name both {length} and "
           f"{max_len}; its message was {out.error.message!r}.",
           f"{what}: IndexError 메시지에 {length}와 {max_len}이 모두 "
           f"있어야 하는데 메시지는 {out.error.message!r}입니다.")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", MODES)
def test_exactly_max_len_works(student, mode):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    try:
        out = as_tensor(layer.call("__call__", _ids(1, max_len, vocab)), f"mode={mode!r}, T = max_len")
    except StudentRaised as exc:
        fail(f"mode={mode!r}, T = max_len = {max_len}: expected it to work; found {exc.type_name}: "
             f"{exc.message}. Positions 0..max_len-1 all exist: is the check `T > max_len` (not >=)?",
             f"mode={mode!r}, T = max_len = {max_len}: 동작해야 하는데 {exc.type_name}: {exc.message}가 "
             "발생했습니다. 위치 0..max_len-1은 모두 있습니다: 검사가 `T > max_len`(>= 아님)인가요?")
    check_shape(out, (1, max_len, d_model), f"mode={mode!r}, T = max_len")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
def test_none_takes_any_length(student):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode="none")
    length = 3 * max_len + 1
    try:
        out = as_tensor(layer.call("__call__", _ids(1, length, vocab)), "mode='none'")
    except StudentRaised as exc:
        fail(f"mode='none', T={length} > max_len={max_len}: expected it to work (no "
             f"position table to run out of); found {exc.type_name}: {exc.message}.",
             f"mode='none', T={length} > max_len={max_len}: 위치 표가 없으니 "
             f"동작해야 하는데 {exc.type_name}: {exc.message}가 발생했습니다.")
    check_shape(out, (1, length, d_model), "mode='none'")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", ["sin", "learned"])
def test_to_meta_moves_everything(student, mode):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    try:
        info = student.probe("device_check", layer, _ids(2, max_len // 2 + 1, vocab), "meta")
    except StudentRaised as exc:
        fail(f"mode={mode!r}: after .to('meta'), forward on meta ids "
             f"should work; found {exc.type_name}: {exc.message}.",
             f"mode={mode!r}: .to('meta') 후 meta ids로 forward가 동작해야 "
             f"하는데 {exc.type_name}: {exc.message}가 발생했습니다.")
    left = [n for n, dev in {**info["buffers"], **info["parameters"]}.items() if dev != "meta"]
    expect(not left,
           f"mode={mode!r}: after .to('meta') expected every buffer "
           f"and parameter on meta; found {left} left behind.",
           f"mode={mode!r}: .to('meta') 후 모든 buffer와 parameter가 "
           f"meta에 있어야 하는데 {left}가 남아 있습니다.")
    expect(info["output"].get("device") == "meta",
           f"mode={mode!r}: expected the output on meta; found {info['output']}.",
           f"mode={mode!r}: 출력이 meta에 있어야 하는데 {info['output']}입니다.")
    _source_follows_device(student, mode)


# FakeTensorMode needs a torch built with CUDA (PyPI's default wheel); the CPU wheel (what Gradescope's
# setup.sh installs) cannot even fake it, so there the same check runs on the meta device, which also
# raises on a CPU tensor mixed into the forward: the same points, the same bug caught, on any build.
SIMULATED = ("fakecuda", "cuda") if torch.backends.cuda.is_built() else ("meta", "meta")


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
        fail(f"mode={mode!r}: on a (simulated) GPU, expected .to({device!r}) then forward on {device} ids to "
             f"work; found {exc.type_name}: {exc.message[:300]}. Likely cause: a tensor left on the CPU — a "
             "table kept as a plain attribute, rebuilt in forward, or torch.arange(T) without "
             "device=ids.device.",
             f"mode={mode!r}: (시뮬레이션한) GPU에서 .to({device!r}) 후 {device} ids로 forward가 동작해야 "
             f"하는데 {exc.type_name}: {exc.message[:300]}가 발생했습니다. 원인 추정: CPU에 남은 텐서 — 일반 "
             "속성으로 둔 표, forward에서 다시 만든 표, 또는 device=ids.device 없는 torch.arange(T).")
    expect(str(info["output"].get("device", "")).startswith(device),
           f"mode={mode!r}: expected the output on {device}; found {info['output']}.",
           f"mode={mode!r}: 출력이 {device}에 있어야 하는데 {info['output']}입니다.")
    _source_follows_device(student, mode)


def _source_follows_device(student, mode):
    """The device tests' structural half: the table is a buffer, the positions follow the input."""
    if mode == "sin":
        student.source_shows(structure.registers_buffer(student.staging), "mode='sin'")
    student.source_shows(structure.positions_on_device(student.staging, mode), f"mode={mode!r}")


@pytest.mark.task("TokenAndPosEmbedding", points=0)
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device on this machine (the "
                                                          "simulated-CUDA test covers it)")
@pytest.mark.parametrize("mode", ["sin", "learned"])
def test_real_cuda(student, mode):
    layer = student.call("TokenAndPosEmbedding", 20, 16, 12, mode=mode)
    info = student.probe("device_check", layer, _ids(2, 7, 20), "cuda")
    expect(str(info["output"].get("device", "")).startswith("cuda"),
           f"mode={mode!r}: expected the output on cuda; found {info['output']}.",
           f"mode={mode!r}: 출력이 cuda에 있어야 하는데 {info['output']}입니다.")


@pytest.mark.task("TokenAndPosEmbedding", points=1)
@pytest.mark.parametrize("mode", MODES)
def test_double_gives_float64(student, mode):
    vocab, d_model, max_len, _ = _sizes()
    layer = student.call("TokenAndPosEmbedding", vocab, d_model, max_len, mode=mode)
    layer.call("double")
    out = layer.call("__call__", _ids(2, min(5, max_len), vocab))
    check_dtype(as_tensor(out, f"mode={mode!r} after .double()"), torch.float64, f"mode={mode!r}: output "
                                                                                 "after .double()",
                "A table kept outside the module's buffers stays float32 and the "
                "sum is promoted only by luck; register it as a buffer.",
                "모듈 buffer 밖에 둔 표는 float32로 남습니다. buffer로 등록하세요.")
