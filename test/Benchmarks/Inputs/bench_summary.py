"""Rows for bench.py's summary (conv2d-gw8-bench-summary.test)."""
import bench

# (name, pass, spio GB/s, cuDNN GB/s, baseline GB/s, bytes, same-size copy GB/s, RxS,
#  the large copy's GB/s in the row's run)
ROWS = [
    ("N1 C8 8x8 3x3 pad1,1", "fprop", 3000, 1000, 2500, 100e6, 3500, "3x3", 4000),
    ("N1 C8 8x8 5x5 pad2,2", "fprop", 2000, 500, 2000, 200e6, 4000, "5x5", 4000),
    ("N1 C8 8x8 3x3 pad1,1 stride2", "fprop", 3600, 1200, 3600, 30e6, 3000, "3x3", 4000),
    ("N1 C8 8x8 3x3 pad1,1", "wgrad", 2000, 1000, 1600, 10e6, 2000, "3x3", 4000),
]
print("\n".join(bench.summary(ROWS[:3], ["fprop"], 63e6, False)))
print("\n".join(bench.summary(ROWS[3:], ["wgrad"], 63e6, True)))
