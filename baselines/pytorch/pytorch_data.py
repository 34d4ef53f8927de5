"""hdbench's training data and initial weights, for the PyTorch baseline: the same
bytes as lib/pipeline/dataset.cpp's synthetic MNIST-like set (make_synthetic_mnist), the same
normalisation as lib/pipeline/sample_transform.cpp, and the same initial parameters as
lib/mlp/mlp_model.cpp's initial_parameters, so that with the same seed PyTorch trains the
very network hdbench trains, on the very samples (numpy only; no PyTorch needed).

Sample i of the synthetic set depends only on (seed, i), so a prefix is generated
without the rest. Every step below follows the C++ line by line; the integer
arithmetic is exact and the few floating-point operations are single IEEE roundings,
so the result is bit-for-bit the C++ one.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

ROWS = COLS = 28
PIXELS = ROWS * COLS
CLASSES = 10
MNIST_MEAN = np.float32(0.1307)
MNIST_STD = np.float32(0.3081)
# x = pixel * (1 / (255·std)) + (-mean / std), in float32 as transform_sample computes it
SCALE = np.float32(1.0) / (np.float32(255.0) * MNIST_STD)
OFFSET = -MNIST_MEAN / MNIST_STD
INIT_SEED_MIX = 0x6D6C70  # bench/mlp_bench.hpp: the parameters' seed is options.seed ^ this

_U64 = np.uint64
_GOLDEN = _U64(0x9E3779B97F4A7C15)
_MASK = (1 << 64) - 1
PROTOTYPE_STREAM = 0x70726F746F747970
LABEL_STREAM = 0x6C6162656C6C6162
SAMPLE_STREAM = 0x73616D706C657321
SIDE, MAX_SHIFT = 28, 2
PADDED = SIDE + 2 * MAX_SHIFT
UNIT, INNER2, OUTER2 = 256, 179 * 179, 435 * 435
LOW, HIGH = 5 + MAX_SHIFT, 22 + MAX_SHIFT


def mix64(z):
    """dataset.cpp's mix64 on numpy uint64 (wrapping) or a Python int."""
    if isinstance(z, int):
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & _MASK
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB & _MASK
        return z ^ (z >> 31)
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


class Rng:
    """dataset.cpp's Rng: state += golden; return mix64(state)."""

    def __init__(self, state: int):
        self.state = state

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        return mix64(self.state)

    def uniform(self, lo: int, hi: int) -> int:
        return lo + self.next() % (hi - lo + 1)


def stream_start(seed: int, purpose: int, index: int) -> int:
    return mix64((mix64(seed ^ purpose) + index) & _MASK)


def _trunc_div_array(a: np.ndarray, b: int) -> np.ndarray:
    """C++'s integer division (towards zero) of int64 values by a positive b."""
    return np.sign(a) * (np.abs(a) // b)


def _draw_segment(canvas: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> None:
    """Stamps the pen every half pixel along the segment (all stamps at once)."""
    steps = 2 * max(abs(x1 - x0), abs(y1 - y0))
    i = np.arange(steps + 1, dtype=np.int64)
    cx = x0 * UNIT + _trunc_div_array((x1 - x0) * UNIT * i, steps)
    cy = y0 * UNIT + _trunc_div_array((y1 - y0) * UNIT * i, steps)
    around = np.arange(-2, 3, dtype=np.int64)
    ys = (cy // UNIT)[:, None, None] + around[None, :, None]
    xs = (cx // UNIT)[:, None, None] + around[None, None, :]
    d2 = (xs * UNIT - cx[:, None, None]) ** 2 + (ys * UNIT - cy[:, None, None]) ** 2
    ink = np.clip(_trunc_div_array(255 * (OUTER2 - d2), OUTER2 - INNER2), 0, 255)
    ys, xs = np.broadcast_arrays(ys, xs)
    np.maximum.at(canvas, (ys.reshape(-1), xs.reshape(-1)), ink.reshape(-1))


def _draw_prototype(rng: Rng) -> np.ndarray:
    canvas = np.zeros((PADDED, PADDED), dtype=np.int64)
    strokes = rng.uniform(1, 2)
    for _ in range(strokes):
        points = rng.uniform(4, 6) if strokes == 1 else rng.uniform(3, 4)
        x = rng.uniform(LOW, HIGH)
        y = rng.uniform(LOW, HIGH)
        p = 1
        while p < points:
            nx = rng.uniform(LOW, HIGH)
            ny = rng.uniform(LOW, HIGH)
            if (nx - x) ** 2 + (ny - y) ** 2 < 25:
                continue
            _draw_segment(canvas, x, y, nx, ny)
            x, y, p = nx, ny, p + 1
    return canvas


def _blur(canvas: np.ndarray) -> np.ndarray:
    flat = canvas.reshape(-1)
    reach = MAX_SHIFT * PADDED + MAX_SHIFT
    out = np.zeros(PADDED * PADDED, dtype=np.int64)
    for sy in range(-MAX_SHIFT, MAX_SHIFT + 1):
        for sx in range(-MAX_SHIFT, MAX_SHIFT + 1):
            off = sy * PADDED + sx
            out[reach:PADDED * PADDED - reach] += flat[reach + off:PADDED * PADDED - reach + off]
    return out


def _similarity(a: np.ndarray, b: np.ndarray) -> float:
    # Integer sums (exact, as the C++ double sums are), then two IEEE roundings.
    ab, aa, bb = int(a @ b), int(a @ a), int(b @ b)
    return float(ab) / math.sqrt(float(aa) * float(bb))


def make_prototypes(seed: int) -> list[np.ndarray]:
    chosen, blurred = [], []
    for c in range(CLASSES):
        rng = Rng(stream_start(seed, PROTOTYPE_STREAM, c))
        best, pick, pick_view = math.inf, None, None
        attempt = 0
        while attempt < 64 and best > 0.4:
            candidate = _draw_prototype(rng)
            ink = int(candidate.sum())
            view = _blur(candidate)
            score = 1.0 if ink < 90 * 255 or ink > 130 * 255 else 0.0
            closest = 0.0
            for e in range(c):
                closest = max(closest, _similarity(view, blurred[e]))
            if score + closest < best:
                best, pick, pick_view = score + closest, candidate, view
            attempt += 1
        chosen.append(pick)
        blurred.append(pick_view)
    return chosen


def _draws(starts: np.ndarray, count: int) -> np.ndarray:
    """The first `count` next() values of Rngs starting at `starts`: [len(starts), count]."""
    steps = np.arange(1, count + 1, dtype=np.uint64) * _GOLDEN
    return mix64(starts[:, None] + steps[None, :])


def _starts(seed: int, purpose: int, indices: np.ndarray) -> np.ndarray:
    return mix64(_U64(mix64(seed ^ purpose)) + indices.astype(np.uint64))


def synthetic_labels(count: int, seed: int) -> np.ndarray:
    blocks = (count + CLASSES - 1) // CLASSES
    draws = _draws(_starts(seed, LABEL_STREAM, np.arange(blocks)), CLASSES - 1)
    order = np.tile(np.arange(CLASSES, dtype=np.uint8), (blocks, 1))
    rows = np.arange(blocks)
    for step, i in enumerate(range(CLASSES - 1, 0, -1)):
        j = (draws[:, step] % _U64(i + 1)).astype(np.int64)
        a, b = order[rows, i].copy(), order[rows, j].copy()
        order[rows, i], order[rows, j] = b, a
    return order.reshape(-1)[:count]


def make_synthetic_mnist(count: int, seed: int, chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """(pixels uint8 [count, 784], labels uint8 [count]) of make_synthetic_mnist(count, seed)."""
    if count < 1:
        raise ValueError("make_synthetic_mnist: count must be at least 1")
    seed &= _MASK
    prototypes = np.stack([p.reshape(-1) for p in make_prototypes(seed)]).astype(np.uint32)
    labels = synthetic_labels(count, seed)
    pixels = np.empty((count, PIXELS), dtype=np.uint8)
    k = np.arange(PIXELS)
    window = (k // SIDE) * PADDED + k % SIDE  # pixel k's place in a window at (0, 0)
    shifts = (_U64(8) * (k % 8).astype(np.uint64))
    for first in range(0, count, chunk):
        idx = np.arange(first, min(count, first + chunk))
        d = _draws(_starts(seed, SAMPLE_STREAM, idx), 3 + PIXELS // 8)
        dy = (d[:, 0] % _U64(2 * MAX_SHIFT + 1)).astype(np.int64)
        dx = (d[:, 1] % _U64(2 * MAX_SHIFT + 1)).astype(np.int64)
        scale = (128 + d[:, 2] % _U64(129)).astype(np.uint32)
        noise = ((d[:, 3 + k // 8] >> shifts[None, :]) & _U64(0xFF)).astype(np.uint32)
        proto = prototypes[labels[idx]]
        ink = np.take_along_axis(proto, (dy * PADDED + dx)[:, None] + window[None, :], axis=1)
        value = ((ink * scale[:, None]) >> 8) + ((noise * 48) >> 8)
        pixels[idx] = np.minimum(value, 255).astype(np.uint8)
    return pixels, labels


def read_mnist_idx(images_path: str, labels_path: str) -> tuple[np.ndarray, np.ndarray]:
    """The IDX files hdbench reads with --hdbench_mnist_dir (checked as it checks them)."""
    def read(path: str, magic: int, dims: int) -> tuple[list[int], np.ndarray]:
        data = Path(path).read_bytes()
        if len(data) < 4 + 4 * dims or int.from_bytes(data[:4], "big") != magic:
            raise ValueError(f"dataset file '{path}': not an IDX file with magic {magic:#010x}")
        shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
        body = np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims)
        if body.size != math.prod(shape) or 0 in shape:
            raise ValueError(f"dataset file '{path}': {body.size} bytes of data, the header says {shape}")
        return shape, body
    shape, pixels = read(images_path, 0x803, 3)
    (count,), labels = read(labels_path, 0x801, 1)
    if count != shape[0] or (labels >= CLASSES).any():
        raise ValueError(f"dataset files '{images_path}', '{labels_path}': counts differ or a label is over 9")
    return pixels.reshape(shape[0], shape[1] * shape[2]), labels


def mnist_files(directory: str) -> tuple[str, str]:
    d = Path(directory)
    return str(d / "train-images-idx3-ubyte"), str(d / "train-labels-idx1-ubyte")


def normalise(pixels: np.ndarray) -> np.ndarray:
    """uint8 [..., 784] -> float32, as transform_sample without augmentation."""
    return pixels.astype(np.float32) * SCALE + OFFSET


def batch_pool(pixels: np.ndarray, labels: np.ndarray, batch: int, batches: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """bench/mlp.cpp's pool: batch i holds samples i·batch ... (wrapping around the set's
    end), normalised, with int64 labels (what torch's cross-entropy takes)."""
    pool = []
    for i in range(batches):
        ids = (i * batch + np.arange(batch)) % len(labels)
        pool.append((normalise(pixels[ids]), labels[ids].astype(np.int64)))
    return pool


def _splitmix64(x: np.ndarray) -> np.ndarray:
    return mix64(x + _GOLDEN)  # mlp_model.cpp's splitmix64 adds the constant first


def initial_parameters(widths: list[int], seed: int, chunk: int = 1 << 22) -> list[tuple[np.ndarray, np.ndarray]]:
    """[(weight [out, in], bias [out]) per layer], float32: mlp_model.cpp's values, drawn
    by the index each value has in its padded flat layout (blocks on 64-float boundaries)."""
    def align(n: int) -> int:
        return (n + 63) // 64 * 64
    key = _splitmix64(np.array([seed & _MASK], dtype=np.uint64))[0]

    def uniform(first: int, count: int, bound: np.float32) -> np.ndarray:
        out = np.empty(count, dtype=np.float32)
        for start in range(0, count, chunk):
            idx = np.arange(first + start, first + min(count, start + chunk), dtype=np.uint64)
            bits = _splitmix64(key ^ idx) >> _U64(40)
            unit = bits.astype(np.float32) * np.float32(1.0 / 16777216.0)
            out[start:start + idx.size] = (np.float32(2.0) * unit - np.float32(1.0)) * bound
        return out

    layers, offset = [], 0
    for fan_in, fan_out in zip(widths, widths[1:]):
        bound = np.float32(1.0) / np.sqrt(np.float32(fan_in))
        weight = uniform(offset, fan_out * fan_in, bound).reshape(fan_out, fan_in)
        offset = align(offset + fan_out * fan_in)
        bias = uniform(offset, fan_out, bound)
        offset = align(offset + fan_out)
        layers.append((weight, bias))
    return layers
