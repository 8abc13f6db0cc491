"""The layer shapes the performance model is trained and judged on.

Four sets, fixed before any model is trained:
- "table": the conv2d-gw8 benchmark's layers (layer-shapes.dat and the
  ConvFirst layer), on which the hand rules were fitted;
- "narrow": the depthwise and narrow-group benchmark's layers
  (narrow-shapes.dat: MobileNets, EfficientNet-B0, ConvNeXt-T);
- "train" and "held-out": layers drawn at random (seeded) over batch,
  channels, image size, kernel size 1-7, stride 1-2, padding and group
  width; every fourth drawn layer is held out. The held-out layers are
  never read by train.py: evaluate.py reports on them;
- "confirm": more layers drawn alike from another seed, swept after a
  first model was built, never trained on.
"""

import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conv2d_gw8"))
from bench import load_shapes  # noqa: E402

# Largest tensor of a drawn layer, in elements (256 MiB at 2 bytes).
MAX_ELEMENTS = 1 << 27
HELD_OUT_EVERY = 4


def table_shapes():
    shapes = [dict(n=128, c=64, h=64, w=64, ph=1, pw=1, r=3, s=3, bias=True, stride=1, g=8)]
    return shapes + load_shapes(os.path.join(HERE, "..", "conv2d_gw8", "layer-shapes.dat"))


def narrow_shapes():
    return load_shapes(os.path.join(HERE, "..", "conv2d_gw8", "narrow-shapes.dat"))


def _draw(rng):
    """One layer: sizes log-uniform, kernels mostly odd and square."""
    while True:
        r = rng.choice([1, 3, 3, 3, 5, 5, 7, 7, 2, 4, 6])
        s = r if rng.random() < 0.8 else rng.randint(1, 7)
        stride = 1 if rng.random() < 0.7 else 2
        h = int(round(2 ** rng.uniform(2, 7.5)))
        w = h if rng.random() < 0.8 else int(round(2 ** rng.uniform(2, 7.5)))
        c = 8 * int(round(2 ** rng.uniform(0, 8.5)))
        n = int(round(2 ** rng.uniform(0, 8.5)))
        pad = (r // 2, s // 2) if rng.random() < 0.85 else (rng.randint(0, r - 1),
                                                             rng.randint(0, s - 1))
        g = 8 if rng.random() < 0.8 else rng.choice([1, 2, 4])
        p = (h + 2 * pad[0] - r) // stride + 1
        q = (w + 2 * pad[1] - s) // stride + 1
        if p < 1 or q < 1 or n * c * max(h * w, p * q) > MAX_ELEMENTS:
            continue
        # Layers of under a million elements are launch-bound: a few is enough.
        if n * c * h * w < (1 << 20) and rng.random() < 0.7:
            continue
        return dict(n=n, c=c, h=h, w=w, ph=pad[0], pw=pad[1], r=r, s=s,
                    bias=rng.random() < 0.3, stride=stride, g=g)


def drawn_shapes(count, seed=54):
    """(set, shape) for `count` drawn layers: every HELD_OUT_EVERY-th held out."""
    rng = random.Random(seed)
    return [("held-out" if i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1 else "train", _draw(rng))
            for i in range(count)]


def confirm_shapes(count, seed=55):
    rng = random.Random(seed)
    return [("confirm", _draw(rng)) for _ in range(count)]


def shape_name(sh):
    return (f"N{sh['n']} C{sh['c']} {sh['h']}x{sh['w']} {sh['r']}x{sh['s']} "
            f"pad{sh['ph']},{sh['pw']} stride{sh['stride']} gw{sh['g']}"
            f"{' bias' if sh['bias'] else ''}")
