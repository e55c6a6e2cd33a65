# The neuron_sim module's tests share one simulated instance: a process simulates one host (SystemC
# elaborates one per process), and every program is loaded on it in turn, as an application would.
import os
import pathlib
import tempfile

import pytest

# Never the user's ~/.neuron-sim: ctest gives a scratch home (tools/scripts/test.sh), a bare pytest gets one here.
if "NEURON_SIM_HOME" not in os.environ:
    os.environ["NEURON_SIM_HOME"] = tempfile.mkdtemp(prefix="neuron-sim-pytest-")

import neuron_sim  # noqa: E402  (after the home is chosen)

INSTANCE = "trn1.2xlarge"
SOURCE_DIR = pathlib.Path(os.environ.get("NSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def instance():
    return neuron_sim.open_instance(INSTANCE)


@pytest.fixture(scope="session")
def examples_dir():
    return SOURCE_DIR / "isa" / "examples"
