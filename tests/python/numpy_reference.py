# Plain numpy references for the module's tests, written apart from the simulator.
import math

import numpy as np


def round_to_bf16(values):
    """float32 values rounded to bf16 (nearest even on the bits), as float32."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def gelu(x):
    """GELU with the error function (not the tanh approximation), in float64."""
    erf = np.vectorize(math.erf)
    x = np.asarray(x, dtype=np.float64)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))
