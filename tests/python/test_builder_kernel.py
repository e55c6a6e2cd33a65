# A kernel written in Python with the kernel builder (the builder derives every semaphore), run on a
# simulated trn1.2xlarge with numpy inputs: its output matches numpy, and the run reports its timing.
import json

import numpy as np
import pytest

import neuron_sim as ns
from numpy_reference import gelu, round_to_bf16

K, M, N = 128, 64, 256   # contraction on the 128 partitions; one fp32 PSUM bank holds N = 256


def matmul_gelu_kernel():
    """C[M, N] = gelu(A[K, M]^T @ B[K, N]): A and B in bf16, C in fp32."""
    b = ns.KernelBuilder("trn1.2xlarge")
    a_t = b.add_tensor("A", "input", "bf16", [K, M])
    b_t = b.add_tensor("B", "input", "bf16", [K, N])
    c_t = b.add_tensor("C", "output", "fp32", [M, N])
    core = b.core(0)
    io = core.dma_channel("io")
    a_sb = core.sbuf(M * 2, "A")
    b_sb = core.sbuf(N * 2, "B")
    c_sb = core.sbuf(N * 4, "C")
    acc = core.psum(0)
    core.copy(io, ns.tile(a_sb, "bf16", 0, K, 0, M), ns.dram_rows(a_t, "bf16", M, 0, K, 0, M))
    core.copy(io, ns.tile(b_sb, "bf16", 0, K, 0, N), ns.dram_rows(b_t, "bf16", N, 0, K, 0, N))
    core.matmul(ns.tile(acc, "fp32", 0, M, 0, N), ns.tile(a_sb, "bf16", 0, K, 0, M), ns.tile(b_sb, "bf16", 0, K, 0, N))
    core.activation(ns.tile(c_sb, "fp32", 0, M, 0, N), ns.tile(acc, "fp32", 0, M, 0, N), "gelu")
    core.copy(io, ns.dram_rows(c_t, "fp32", N, 0, M, 0, N), ns.tile(c_sb, "fp32", 0, M, 0, N))
    return b.finish()


@pytest.fixture(scope="module")
def kernel():
    return matmul_gelu_kernel()


def test_builder_kernel_matches_numpy(instance, kernel):
    rng = np.random.default_rng(14)
    a = rng.uniform(-1, 1, (K, M)).astype(np.float32)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    result = instance.run(kernel, inputs={"A": a, "B": b})
    c = result.outputs["C"]
    assert c.dtype == np.float32 and c.shape == (M, N)
    # bf16 operands (the tensor's type), products exact and summed in fp32 in PSUM, GELU in fp32.
    want = gelu(round_to_bf16(a).astype(np.float64).T @ round_to_bf16(b).astype(np.float64))
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-4)
    # Not a zero or a constant that happens to pass: the values spread as GELU of the products does.
    assert np.std(c) > 0.5


def test_builder_kernel_report_has_timing_and_every_engine(instance, kernel, tmp_path):
    trace = tmp_path / "kernel.json"
    result = instance.run(kernel, functional=False, iterations=3, trace=str(trace))
    report = result.report
    assert report["instance"] == "trn1.2xlarge"
    assert report["iterations"] == 3
    assert report["cycles"] > 0 and report["device_latency_ms"]["p50"] > 0
    # A timing run computes no values: no outputs are returned.
    assert result.outputs == {}
    assert result.text.startswith("program ")
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("name") == "matmul" for e in events)
    assert any(e.get("name") == "activation" for e in events)


def test_builder_kernel_is_race_free_and_assembles_back(kernel):
    assert kernel.check() == []
    again = ns.assemble(kernel.disassemble(), "kernel.s")
    assert again.disassemble() == kernel.disassemble()


def test_builder_misuse_is_a_python_exception():
    b = ns.KernelBuilder("trn1.2xlarge")
    with pytest.raises(ValueError, match="unknown dtype 'bf17'"):
        b.add_tensor("A", "input", "bf17", [4, 4])
    with pytest.raises(ValueError, match="unknown tensor role"):
        b.add_tensor("A", "sideways", "bf16", [4, 4])
    with pytest.raises(IndexError):
        b.core(1)
    b.finish()
    with pytest.raises(ns.Error, match="finished"):
        b.finish()
    with pytest.raises(ns.Error, match="no-such"):
        ns.KernelBuilder("no-such.instance")


def test_a_core_used_after_finish_says_so():
    b = ns.KernelBuilder("trn1.2xlarge")
    a_index = b.add_tensor("A", "input", "bf16", [128, 64])
    core = b.core(0)
    io = core.dma_channel("io")
    a = core.sbuf(128, "A")
    b.finish()
    del b  # the core keeps what it needs alive
    uses = [
        lambda: core.copy(io, ns.tile(a, "bf16", 0, 128, 0, 64), ns.dram_rows(a_index, "bf16", 64, 0, 128, 0, 64)),
        lambda: core.memset("dve", ns.tile(a, "bf16", 0, 128, 0, 64), 0.0),
        lambda: core.sbuf(64, "y"),
        lambda: core.psum(1),
        lambda: core.dma_channel("io2"),
        lambda: core.partitions,
    ]
    for use in uses:
        with pytest.raises(ns.Error, match="finished its program"):
            use()
    assert io.name == "io"


def test_a_dma_channel_works_on_its_own_core_only():
    b = ns.KernelBuilder("trn1.2xlarge", 2)
    a_index = b.add_tensor("A", "input", "bf16", [128, 64])
    first, second = b.core(0), b.core(1)
    io = first.dma_channel("io")
    a = second.sbuf(128, "A")
    with pytest.raises(RuntimeError, match="DMA channel 'io' is another core's"):
        second.copy(io, ns.tile(a, "bf16", 0, 128, 0, 64), ns.dram_rows(a_index, "bf16", 64, 0, 128, 0, 64))


def test_a_psum_bank_that_does_not_exist_names_the_bank_count():
    core = ns.KernelBuilder("trn1.2xlarge").core(0)
    with pytest.raises(ValueError, match=r"^PSUM bank 99 does not exist: the core has 8 banks \(0-7\)$"):
        core.psum(99)


def test_negative_sizes_and_indices_are_one_line_value_errors():
    # Not pybind's many-line TypeError listing the signature: one ValueError naming the argument.
    b = ns.KernelBuilder("trn1.2xlarge")
    core = b.core(0)
    uses = {
        "bank": lambda: core.psum(-1),
        "bytes_per_partition": lambda: core.sbuf(-64, "x"),
        "index": lambda: b.core(-1),
        "cores": lambda: ns.KernelBuilder("trn1.2xlarge", cores=-2),
        "partitions": lambda: ns.tile(core.psum(0), "fp32", 0, -1, 0, 4),
        "rows": lambda: ns.dram_rows(0, "fp32", 4, 0, -4, 0, 4),
    }
    for name, use in uses.items():
        with pytest.raises(ValueError) as error:
            use()
        assert str(error.value).startswith(name + " must not be negative (it is -"), str(error.value)
        assert "\n" not in str(error.value)


def test_a_matmul_whose_shapes_do_not_fit_is_refused_at_the_call():
    # The validator's own message, at the builder call: before, Program.check() found nothing and only
    # run refused the finished program.
    b = ns.KernelBuilder("trn1.2xlarge")
    core = b.core(0)
    a_sb = core.sbuf(M * 2, "A")
    b_sb = core.sbuf(N * 2, "B")
    acc = core.psum(0)
    with pytest.raises(ValueError, match=r"^matmul: dst has 256 elements per partition, the moving free size is 64$"):
        core.matmul(ns.tile(acc, "fp32", 0, M, 0, N), ns.tile(a_sb, "bf16", 0, K, 0, M), ns.tile(b_sb, "bf16", 0, K, 0, 64))
