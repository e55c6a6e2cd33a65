# Kernels written in assembly text, from Python: the shipped tiled GEMM example assembled from its text,
# run with numpy inputs, matches numpy; every shipped example runs as a kernel, functionally; an
# assembly error points at file:line:column.
import numpy as np
import pytest

import neuron_sim as ns
from numpy_reference import round_to_bf16

M, K, N = 128, 256, 2048   # isa/examples/tiled_gemm_double_buffered.s


def test_assembled_gemm_matches_numpy(instance, examples_dir):
    path = examples_dir / "tiled_gemm_double_buffered.s"
    program = ns.assemble(path.read_text(), str(path))
    assert [t["name"] for t in program.tensors] == ["A", "B", "C"]
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (K, M)).astype(np.float32)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float32)
    c = instance.run(program, inputs={"A": a, "B": b}).outputs["C"]
    want = round_to_bf16(a).astype(np.float64).T @ round_to_bf16(b).astype(np.float64)
    # fp32 accumulation of K = 256 exact products: fp32 rounding of the running sum.
    tolerance = 1e-6 * np.abs(round_to_bf16(a)).T.astype(np.float64) @ np.abs(round_to_bf16(b)).astype(np.float64) * K
    assert np.all(np.abs(c - want) <= tolerance + 1e-6)


def test_program_file_round_trip(tmp_path, examples_dir):
    program = ns.assemble((examples_dir / "layernorm_softmax.s").read_text(), "layernorm_softmax.s")
    program.write(str(tmp_path / "k.bin"))
    again = ns.Program.read(str(tmp_path / "k.bin"))
    assert again.disassemble() == program.disassemble()
    assert again.metadata["model"] == "layernorm-softmax"


@pytest.mark.parametrize("example", ["tiled_gemm_double_buffered.s", "layernorm_softmax.s", "collectives_two_cores.s"])
def test_shipped_examples_run_as_kernels(instance, examples_dir, example):
    program = ns.assemble((examples_dir / example).read_text(), example)
    assert program.check() == []
    result = instance.run(program, functional=True)
    # A kernel's report: no BERT batch, copies or throughput.
    assert result.text.startswith("program ")
    assert "throughput_per_s" not in result.report and "batch" not in result.report
    outputs = [t["name"] for t in program.tensors if t["role"] == "output"]
    assert sorted(result.outputs) == sorted(outputs)
    assert all(np.all(np.isfinite(result.outputs[name])) for name in outputs)


def test_assembly_errors_point_at_the_line():
    with pytest.raises(ns.Error, match=r"^k\.s:3:\d+: error: "):
        ns.assemble(".target v2\n.cores 1\n.tensor A input bf17 [4] device 0\n", "k.s")
