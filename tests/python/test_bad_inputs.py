# What a user can get wrong from Python is a Python exception naming the tensor, never a crash: a name
# the program does not have (KeyError), a shape (ValueError) or dtype (TypeError) the tensor does not
# take, an input left out (KeyError), a second instance in one process (neuron_sim.Error), a program
# file that is /dev/zero, a directory or a huge sparse file (neuron_sim.Error, without reading it).
import numpy as np
import pytest

import neuron_sim as ns

M, K, N = 128, 256, 2048   # isa/examples/tiled_gemm_double_buffered.s


@pytest.fixture(scope="module")
def gemm(examples_dir):
    return ns.assemble((examples_dir / "tiled_gemm_double_buffered.s").read_text(), "gemm.s")


def good_inputs():
    return {"A": np.ones((K, M), np.float32), "B": np.ones((K, N), np.float32)}


def test_wrong_name_is_a_key_error(instance, gemm):
    inputs = good_inputs()
    inputs["X"] = np.ones((4, 4), np.float32)
    with pytest.raises(KeyError, match=r"inputs\['X'\]: the program has no tensor 'X' \(its inputs and weights: A, B\)"):
        instance.run(gemm, inputs=inputs)


def test_values_in_or_out_need_a_functional_run(instance, gemm, tmp_path):
    with pytest.raises(ValueError, match="need functional=True"):
        instance.run(gemm, inputs=good_inputs(), functional=False)
    with pytest.raises(ValueError, match="need functional=True"):
        instance.run(gemm, functional=False, output_dir=str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_output_tensor_is_not_an_input(instance, gemm):
    inputs = good_inputs()
    inputs["C"] = np.ones((M, N), np.float32)
    with pytest.raises(KeyError, match="'C' is an output tensor"):
        instance.run(gemm, inputs=inputs)


def test_wrong_shape_is_a_value_error(instance, gemm):
    inputs = good_inputs()
    inputs["B"] = np.ones((N, K), np.float32)
    with pytest.raises(ValueError, match=r"input 'B' \(bf16 \(256, 2048\)\): the array has shape \(2048, 256\)"):
        instance.run(gemm, inputs=inputs)


def test_wrong_dtype_is_a_type_error(instance, gemm):
    inputs = good_inputs()
    inputs["A"] = np.ones((K, M), np.float64)
    with pytest.raises(TypeError, match=r"input 'A' .* holds float64, the tensor takes float32"):
        instance.run(gemm, inputs=inputs)


def test_missing_input_is_a_key_error(instance, gemm):
    with pytest.raises(KeyError, match=r"missing input 'B'"):
        instance.run(gemm, inputs={"A": np.ones((K, M), np.float32)})


def test_not_an_array_is_a_type_error(instance, gemm):
    inputs = good_inputs()
    inputs["A"] = "not numbers"
    with pytest.raises(TypeError):
        instance.run(gemm, inputs=inputs)


def test_the_instance_still_runs_after_bad_inputs(instance, gemm):
    c = instance.run(gemm, inputs=good_inputs()).outputs["C"]
    np.testing.assert_array_equal(c, np.full((M, N), float(K), np.float32))


def test_one_instance_per_process(instance):
    assert ns.open_instance("trn1.2xlarge") is instance
    with pytest.raises(ns.Error, match="one host"):
        ns.open_instance("inf2.xlarge")


def test_an_unknown_instance_is_reported_as_unknown_while_another_is_open(instance):
    with pytest.raises(ns.Error, match="unknown instance 'nope'") as error:
        ns.open_instance("nope")
    assert "one host" not in str(error.value)


def test_a_negative_iteration_count_is_one_value_error(instance, gemm):
    with pytest.raises(ValueError, match=r"^iterations must not be negative \(it is -1\)$"):
        instance.run(gemm, iterations=-1)


def test_unknown_instance_is_an_error():
    # Checked before anything is opened (it names the instance).
    with pytest.raises(ns.Error, match="no-such"):
        ns.KernelBuilder("no-such.instance")


@pytest.mark.parametrize("kind", ["/dev/zero", "a directory", "a huge sparse file"])
def test_a_program_file_that_is_not_one_is_an_error(tmp_path, kind):
    path = {"/dev/zero": "/dev/zero", "a directory": str(tmp_path)}.get(kind, str(tmp_path / "huge.bin"))
    if kind == "a huge sparse file":
        with open(path, "wb") as f:
            f.truncate(3 << 30)
    with pytest.raises(ns.Error) as error:
        ns.Program.read(path)
    message = str(error.value)
    assert path in message and "\n" not in message
    if kind == "a directory":
        assert "is a directory" in message
