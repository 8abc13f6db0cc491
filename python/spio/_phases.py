"""The geometry of a dilated convolution as undilated convolutions of its
input's phase images (no torch: the PyTorch operators copy by it, and the
CPU tests check it).

A stride-1 convolution dilated by (dh, dw) computes output (dh * i + a,
dw * k + b) from x's rows a - padH + dh * j and columns b - padW + dw * l
only: the undilated convolution, without padding, of phase image (a, b)
(those rows and columns, zeros past x)."""


def ceil_div(a, b):
    return -(-a // b)


def phase_extents(size, taps, pad, dilation):
    """Along one axis of a stride-1 convolution dilated by `dilation`: the
    output's size, a phase's output size (every `dilation`-th output, the
    longest phase's) and the phase image's size it is the unpadded
    convolution of (`taps` - 1 more)."""
    out = size + 2 * pad - dilation * (taps - 1)
    out_phase = ceil_div(out, dilation)
    return out, out_phase, out_phase + taps - 1


def phase_copies(x_shape, padding, dilation, phase_size):
    """For each phase (a, b) whose image holds part of x (N, H, W, C): (a, b),
    the window of the phase image (N, rows j, columns l) that holds x, and
    x's window it holds (rows dh * j + a - padH, columns dw * l + b - padW),
    as index tuples of slices."""
    windows = []
    for size, pad, step, extent in zip(x_shape[1:3], padding, dilation, phase_size):
        axis = []
        for phase in range(step):
            first = max(0, ceil_div(pad - phase, step))
            end = min(extent, ceil_div(size + pad - phase, step))
            start = step * first + phase - pad
            if end > first:
                axis.append((phase, slice(first, end),
                             slice(start, start + step * (end - first - 1) + 1, step)))
        windows.append(axis)
    return [((a, b), (slice(None), rows, columns), (slice(None), x_rows, x_columns))
            for a, rows, x_rows in windows[0] for b, columns, x_columns in windows[1]]
