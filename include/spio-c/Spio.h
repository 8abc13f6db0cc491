/*===- spio-c/Spio.h - C API of the Spio compiler ------------------*- C -*-===*\
|*                                                                            *|
|* What the Python package (python/spio) and other languages call: the       *|
|* kernel families' rules, configurations and sources, and in-process        *|
|* compilation of spio-dialect source to PTX through the cache. Strings the  *|
|* API returns are malloc'ed; release them with spio_free.                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef SPIO_C_SPIO_H
#define SPIO_C_SPIO_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void spio_free(void *pointer);

/* The version of this interface: its functions, structs and enumerators.
 * It changes whenever any of them changes, so that a caller built against
 * one (python/spio checks it at import) refuses a library of another. */
#define SPIO_ABI_VERSION 17
int32_t spio_abi_version(void);

/* "Spio <version> (compiler sources <12 hex digits>)": the project's
 * version and the fingerprint of the sources that decide what a kernel
 * compiles to (the PTX cache's key). A static string; do not free it. */
const char *spio_version(void);

/* The GPU kernels are chosen and sized for (spio/Target/Target.h): the chip
 * compiled for (e.g. "sm_90a"), the part's multiprocessors, L2 bytes, the
 * shared memory a block may take and a multiprocessor holds, its DRAM
 * bytes a second, and how many clusters of 2, 3 and 4 blocks, each taking
 * a multiprocessor's shared memory, run at once (0: unknown, then the
 * multiprocessors over the size). spio_device_target reads a device's (below);
 * spio_chip_target gives a chip's reference part's, for choosing kernels
 * without the device (sm_90/sm_90a: an H100 SXM; sm_80: an A100 SXM; sm_86:
 * an A10; sm_89: an L40S). Return 0 on success, else nonzero with *error
 * set (free it). The choosers and checks below take one; a NULL target or
 * one without these facts is refused by the checks. */
typedef struct {
  char chip[16];
  int64_t multiprocessors, l2_bytes, shared_bytes_per_block, shared_bytes_per_multiprocessor;
  double memory_bytes_per_second;
  int64_t clusters_at_once[3];
} spio_target;
int32_t spio_chip_target(const char *chip, spio_target *target, char **error);
/* Non-zero where kernels for `chip` run Hopper's warpgroup wgmma (sm_90,
 * sm_90a): the GEMM's TMA + wgmma kernels, and f32 on TF32 tensor cores. */
int32_t spio_chip_has_wgmma(const char *chip);

/* Element types. */
enum { SPIO_F16 = 0, SPIO_BF16 = 1, SPIO_F32 = 2 };

/* Convolution passes. */
enum { SPIO_FPROP = 0, SPIO_DGRAD = 1, SPIO_WGRAD = 2 };

/* A kernel's grid and block; grid_z 0 means 1. */
typedef struct {
  int64_t grid_x, grid_y, block, grid_z;
} spio_launch_shape;

/* GEMM epilogue steps, applied in order to alpha * A @ B before the store:
 * multiply by the scale vector, add the bias vector, add beta * C, or an
 * activation. */
enum {
  SPIO_EPILOGUE_SCALE = 0,
  SPIO_EPILOGUE_BIAS = 1,
  SPIO_EPILOGUE_RESIDUAL = 2,
  SPIO_EPILOGUE_RELU = 3,
  SPIO_EPILOGUE_GELU_TANH = 4,
  SPIO_EPILOGUE_GELU_ERF = 5,
  SPIO_EPILOGUE_SILU = 6
};
/* Which of D's dimensions a bias or scale vector runs along: none, rows (m
 * values), columns (n values). */
enum { SPIO_ALONG_NONE = 0, SPIO_ALONG_ROWS = 1, SPIO_ALONG_COLS = 2 };
#define SPIO_GEMM_MAX_EPILOGUE_STEPS 8
/* How f32 inputs are multiplied (torch.set_float32_matmul_precision's
 * names): split into 3, 2 or 1 bf16 terms whose leading products are added
 * in f32 on bf16 tensor cores; or, SPIO_F32_TF32, as they are on TF32
 * tensor cores (sm_90a only; what PyTorch's "high" runs on cuBLAS). */
enum { SPIO_F32_HIGHEST = 0, SPIO_F32_HIGH = 1, SPIO_F32_MEDIUM = 2, SPIO_F32_TF32 = 3 };

/* D (m x n) = epilogue(alpha * A @ B); A is m x k (column major: stored
 * k x m), B is k x n (column major: stored n x k). */
typedef struct {
  int64_t m, n, k;
  int32_t input_dtype, output_dtype;
  int32_t a_col_major, b_col_major;
  int32_t reads_c;
  /* The first `epilogue_steps` entries of `epilogue` (0 steps: beta * C
   * added where reads_c; else a residual step exactly when reads_c). */
  int32_t epilogue_steps;
  int32_t epilogue[SPIO_GEMM_MAX_EPILOGUE_STEPS];
  /* The vectors the bias and scale steps read (SPIO_ALONG_*), and their
   * element types. */
  int32_t bias_along, bias_dtype, scale_along, scale_dtype;
  /* Non-zero: spio_gemm_choose_config keeps each element's order of
   * additions independent of m (K split the same way for every m), so row i
   * of D has the same bits whatever m is. */
  int32_t batch_invariant;
  /* Batched GEMM: `batch` problems (0 means 1), each matrix's one after the
   * other; a_shared / b_shared non-zero: one A / B serves them all. */
  int64_t batch;
  int32_t a_shared, b_shared;
  /* f32 inputs (SPIO_F32_*). Operands whose dtype is f32 or whose contiguous
   * dimension is not a multiple of 8 are packed by two kernels into the
   * launcher's workspace first. */
  int32_t f32_precision;
  /* Grouped GEMM: `groups` problems (0: not grouped), A's and D's m rows
   * the groups' one after the other, B a matrix a group; the launcher's
   * operand "groups" is a device array of int32, each group's end row. */
  int64_t groups;
  /* Non-zero: an M- or N-major A or B that a wgmma config (sm_90) cannot
   * read in place (batched, K not a multiple of 64) is packed K-major first;
   * set it with a wgmma config (spio_gemm_choose_config picks wgmma for such
   * operands where packing them runs faster than mma.sync). */
  int32_t pack_layouts;
  /* Non-zero, with `groups`: the groups split K instead (a grouped GEMM's
   * weight gradient): A is column major (M contiguous), B row major (N
   * contiguous), each group's rows of K one after the other, "groups" holds
   * each group's end along K, and D (and C) hold a matrix a group. */
  int32_t groups_along_k;
  /* Non-zero, with an activation step in the epilogue: the value before the
   * first activation is also stored, in D's dtype and shape, into the
   * launcher's operand "pre" (its last). */
  int32_t stores_pre_activation;
} spio_gemm_problem;

typedef struct {
  int64_t block_m, block_n, block_k, warps_m, warps_n, stages, raster;
  /* Non-zero: Hopper's warpgroup wgmma (sm_90a); warps_m = 4 per 64 rows. */
  int64_t wgmma;
  /* wgmma: the grid's blocks, each taking tiles this many apart in turn
   * (0: a block a tile). */
  int64_t persistent;
  /* Persistent wgmma: blocks of a cluster, sharing their B tile (1 or 2). */
  int64_t cluster;
  /* Non-zero (wgmma): M along wgmma's N and N along the warpgroups' rows,
   * for small M; block_n = 64 * warpgroups. */
  int64_t swap;
  /* wgmma, a block a tile: blocks of a cluster splitting each tile's K,
   * their sums added in rank order (1 to 8; 0 means 1). */
  int64_t split_k;
  /* Non-zero (persistent wgmma, two compute warpgroups): each takes every
   * other tile whole, one's epilogue overlapping the other's main loop. */
  int64_t pingpong;
  /* Non-zero (wgmma, not ping-pong, wgmma's N at most 192): each k-tile's
   * sums are added to the running ones in f32 (the tensor cores' own
   * additions truncate). */
  int64_t promote;
  /* wgmma: ranges of k-tiles a block sums apart and adds in order, as
   * split_k would split them among blocks (1 to 8; 0 means 1). Over
   * wgmma's N of 192 (persistent, not swapped) the running sums wait in
   * the workspace. */
  int64_t k_ranges;
  /* Non-zero (persistent wgmma; no swap, ping-pong, promote or k_ranges):
   * the clusters share the last tiles' k-tiles evenly, partial sums handed
   * on through the workspace and added in a fixed order. */
  int64_t stream_k;
} spio_gemm_config;

/* NULL when the kernel can be built for `target`, else what is wrong (free
 * it). */
char *spio_gemm_check(const spio_gemm_problem *problem, const spio_gemm_config *config,
                      const spio_target *target);
/* The configuration spio-jit would choose on `target`: wgmma on Hopper
 * (sm_90) where it reads A and B in place (K-, M- or N-major f16/bf16) or
 * they are packed (where packing is faster than mma.sync; then set
 * pack_layouts), else mma.sync. */
spio_gemm_config spio_gemm_choose_config(const spio_gemm_problem *problem,
                                         const spio_target *target);
/* The workload in the spio dialect: gpu.func @gemm_pack_a and @gemm_pack_b
 * where the operands are packed, then gpu.func @gemm(A, B, C, D, alpha, beta),
 * then the bias and the scale where the epilogue reads them, then with
 * wgmma A's and B's tensor maps (spio_gemm_tensor_maps), as
 * spio_gemm_launcher launches it. NULL for a problem and configuration
 * spio_gemm_check refuses on every target (sizes, dtypes, the
 * configuration's own ranges), and a zero launch shape and workspace. */
char *spio_gemm_source(const spio_gemm_problem *problem, const spio_gemm_config *config);
spio_launch_shape spio_gemm_launch_shape(const spio_gemm_problem *problem,
                                         const spio_gemm_config *config);
/* Where the problem's operands are packed first: the grid of the kernel
 * packing A (operand 0) or B (1), which launch before the GEMM (a zero grid
 * for one that is read in place). The workspace (bytes): the packed
 * operands, then under stream_k the blocks' partial sums and flags, or
 * each block's running sums of k ranges over wgmma's N of 192; 0
 * where there is neither (and for what spio_gemm_check refuses on every
 * target). */
spio_launch_shape spio_gemm_pack_launch_shape(const spio_gemm_problem *problem,
                                              int32_t operand);
int64_t spio_gemm_workspace_size(const spio_gemm_problem *problem, const spio_gemm_config *config);

/* conv2d on the implicit GEMM (dense, or `groups` of a multiple of 64
 * input and output channels, w then [k, r, s, c / groups]), NHWC x and y,
 * KRSC w, f16 or bf16 in (spio/Kernels/Conv2d.h): the implicit GEMM on the wgmma kernel (sm_90a;
 * dense layers also on the mma.sync kernel, sm_80 to sm_89, those chips' default),
 * whose configuration is a spio_gemm_config. The epilogue's scale and bias
 * vectors hold a value an output channel; its residual step adds C, a
 * tensor of y's shape. The launcher's operands: x, w, y, C, bias, scale.
 * `pass` SPIO_DGRAD (no epilogue) computes dx (n, h, w, c) from dy (n, p,
 * q, k) and w, the sizes the forward's: operands dy, w, dx; SPIO_WGRAD (no
 * epilogue) dw (k, r, s, c) from x and dy: operands x, dy, dw. */
typedef struct {
  int64_t n, h, w, c, k, r, s;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int32_t input_dtype, output_dtype;
  int32_t epilogue_steps;
  int32_t epilogue[SPIO_GEMM_MAX_EPILOGUE_STEPS];
  int32_t bias_dtype, scale_dtype;
  /* SPIO_FPROP, SPIO_DGRAD or SPIO_WGRAD. */
  int32_t pass;
  /* wgrad: the reduction's parts, whose f32 sums a reduce kernel adds from
   * the launcher's workspace (0 or 1: one; spio_conv2d_wgrad_parts chooses). */
  int64_t parts;
  /* Groups of c / groups inputs and k / groups outputs (0 or 1: dense). */
  int64_t groups;
} spio_conv2d_problem;

/* NULL when the kernel can be built for `target`, else what is wrong (free
 * it). */
char *spio_conv2d_check(const spio_conv2d_problem *problem, const spio_gemm_config *config,
                        const spio_target *target);
spio_gemm_config spio_conv2d_choose_config(const spio_conv2d_problem *problem,
                                           const spio_target *target);
/* wgrad: the parts for `config`'s grid to fill the target's
 * multiprocessors (1 for the other passes). */
int64_t spio_conv2d_wgrad_parts(const spio_conv2d_problem *problem, const spio_gemm_config *config,
                                const spio_target *target);
/* wgrad in parts: the workspace of their sums (0 for one part, and for a
 * problem spio_conv2d_check refuses whatever the configuration). */
int64_t spio_conv2d_workspace_bytes(const spio_conv2d_problem *problem);
/* Groups of fewer than 64 channels, a multiple of 8, C = K: the groups a
 * block of block-diagonal weights holds (the most dividing the groups whose
 * channels fit 64, or 128 where that block is under 32 channels); 1 for
 * none. Reads c, k and groups. */
int64_t spio_conv2d_block_groups(const spio_conv2d_problem *problem);
/* The workload: gpu.func @conv2d(x, w, y, then C, the bias and the scale
 * where the epilogue reads them, then x's im2col map and w's tensor map),
 * and wgrad's reduce kernel in parts; a strided dgrad's kernels are
 * @conv2d_dgrad_zero (where some of dx is read by no tap) and
 * @conv2d_dgrad_phase_<a>_<b>, one a phase of dx. NULL, and no launch
 * shapes, for a problem and configuration spio_conv2d_check refuses on
 * every target. */
char *spio_conv2d_source(const spio_conv2d_problem *problem, const spio_gemm_config *config);
/* The grids of the kernels the launcher runs, in order: how many there are,
 * of which the first `capacity` are written to `shapes`. */
int64_t spio_conv2d_launch_shapes(const spio_conv2d_problem *problem,
                                  const spio_gemm_config *config, spio_launch_shape *shapes,
                                  int64_t capacity);

/* Grouped conv2d, groups of 8 channels (or 1, 2, 4 on the same kernels), NHWC
 * (spio/Kernels/Conv2dGw8.h). */
typedef struct {
  int32_t pass;
  int64_t n, c, h, w, r, s, pad_h, pad_w, stride;
  /* Channels a group: 8, 4, 2 or 1 (depthwise); 0: 8. */
  int64_t group_width;
  /* fprop adds a bias; wgrad also writes its gradient, db. */
  int32_t bias, dtype, wgrad_f32;
  /* The GPU the kernels are sized for: grids aim for whole waves on its
   * multiprocessors, wgrad weighs discarding its partial sums against its
   * L2, blocks fit its shared memory. */
  spio_target target;
} spio_conv2d_gw8_problem;

typedef struct {
  int64_t warps_q, warps_g, rows_p, chunks;
  /* fprop and dgrad, stride 1: warps that only copy staged rows in (0: none). */
  int64_t copy_warps;
  /* wgrad: the band loop's stages (0: choose), a row ring (non-zero: bands
   * walk down a column tile handing rows on in shared memory), and the dw
   * elements a reduce lane adds, 1, 2 or 4 (0: choose). */
  int64_t stages, row_ring, reduce_lane_elements;
} spio_conv2d_gw8_config;

char *spio_conv2d_gw8_check(const spio_conv2d_gw8_problem *problem,
                            const spio_conv2d_gw8_config *config);
/* The configuration Spio runs (the performance model's pick of the
 * candidates), and the hand rules' (the candidates' seed). */
spio_conv2d_gw8_config spio_conv2d_gw8_choose_config(const spio_conv2d_gw8_problem *problem);
spio_conv2d_gw8_config spio_conv2d_gw8_rule_config(const spio_conv2d_gw8_problem *problem);
/* Configurations worth timing for the problem (autotuning), in the
 * performance model's order, the chosen first (conv2dGw8Candidates in
 * spio/Kernels/Conv2dGw8.h; all of one problem's write the same bits).
 * Writes up to `capacity` of them to `configs` and returns how many there
 * are. */
int64_t spio_conv2d_gw8_candidates(const spio_conv2d_gw8_problem *problem,
                                   spio_conv2d_gw8_config *configs, int64_t capacity);
/* The performance model's features of a problem and configuration
 * (conv2dGw8Features): writes up to `capacity` to `features` and returns
 * how many there are (0, writing none, for a problem and configuration
 * spio_conv2d_gw8_check refuses); spio_conv2d_gw8_feature_name(i) names
 * the i-th (NULL past the last). */
int64_t spio_conv2d_gw8_features(const spio_conv2d_gw8_problem *problem,
                                 const spio_conv2d_gw8_config *config, double *features,
                                 int64_t capacity);
const char *spio_conv2d_gw8_feature_name(int64_t index);
/* The workload, and the launches and workspace below: NULL and zeros for
 * a problem and configuration spio_conv2d_gw8_check refuses (the bias's
 * launches: a problem it refuses). */
char *spio_conv2d_gw8_source(const spio_conv2d_gw8_problem *problem,
                             const spio_conv2d_gw8_config *config);
spio_launch_shape spio_conv2d_gw8_launch_shape(const spio_conv2d_gw8_problem *problem,
                                               const spio_conv2d_gw8_config *config);
/* wgrad: bytes of f32 partial sums between its kernels (0 otherwise),
 * and the launch of the reduce kernel. */
int64_t spio_conv2d_gw8_workspace_bytes(const spio_conv2d_gw8_problem *problem,
                                        const spio_conv2d_gw8_config *config);
spio_launch_shape spio_conv2d_gw8_reduce_launch_shape(const spio_conv2d_gw8_problem *problem,
                                                      const spio_conv2d_gw8_config *config);
/* wgrad with a bias: the launches of the bias gradient's kernels, after
 * the reduce: @conv2d_gw8_wgrad_bias(dy, workspace), then
 * @conv2d_gw8_wgrad_bias_reduce(workspace, db). */
spio_launch_shape spio_conv2d_gw8_bias_launch_shape(const spio_conv2d_gw8_problem *problem);
spio_launch_shape spio_conv2d_gw8_bias_reduce_launch_shape(const spio_conv2d_gw8_problem *problem);

/* Compiles spio-dialect source (kernels in one gpu.module) to PTX for `chip`
 * (e.g. "sm_90"), through the memory and disk cache ($SPIO_CACHE_DIR). On
 * failure returns NULL and sets *error to the diagnostics (free it). */
typedef struct spio_compiled spio_compiled;
spio_compiled *spio_compile(const char *source, const char *chip, char **error);
/* A family's kernels for a problem and configuration that pass its check
 * (as spio_*_source's must), built and compiled for `chip` as built: the
 * PTX, kernels and cache entry of spio_compile(spio_*_source(...), chip),
 * without printing the module and parsing it back. */
spio_compiled *spio_gemm_compile(const spio_gemm_problem *problem, const spio_gemm_config *config,
                                 const char *chip, char **error);
spio_compiled *spio_conv2d_compile(const spio_conv2d_problem *problem,
                                   const spio_gemm_config *config, const char *chip, char **error);
spio_compiled *spio_conv2d_gw8_compile(const spio_conv2d_gw8_problem *problem,
                                       const spio_conv2d_gw8_config *config, const char *chip,
                                       char **error);
void spio_compiled_destroy(spio_compiled *compiled);
const char *spio_compiled_ptx(const spio_compiled *compiled);
/* The spio-dialect text compiled: spio_compile's source, or the family's
 * module as it prints (spio_*_source's text). */
const char *spio_compiled_source(const spio_compiled *compiled);
/* "miss", "memory hit" or "disk hit". */
const char *spio_compiled_cache_outcome(const spio_compiled *compiled);
int32_t spio_compiled_num_kernels(const spio_compiled *compiled);
const char *spio_compiled_kernel_name(const spio_compiled *compiled, int32_t index);
int64_t spio_compiled_kernel_shared_bytes(const spio_compiled *compiled, int32_t index);
int64_t spio_compiled_kernel_block_size(const spio_compiled *compiled, int32_t index);

/* Where compiled PTX is cached on disk (free it). */
char *spio_cache_directory(void);

/* Running on the GPU: each device's primary context (the one PyTorch
 * uses), driver loaded at run time; `device` is the driver's index (0: the
 * first; CUDA_VISIBLE_DEVICES applies). Calls leave the thread's current
 * context as they found it. Functions returning int32_t return 0 on
 * success, else nonzero with *error set (free it). */
typedef struct {
  char name[256];
  int32_t compute_major, compute_minor, multiprocessors;
  int64_t max_shared_bytes_per_block;
  int64_t l2_bytes;
  int64_t shared_bytes_per_multiprocessor;
} spio_device_info;
int32_t spio_device(int32_t device, spio_device_info *info, char **error);
int32_t spio_device_target(int32_t device, spio_target *target, char **error);

/* PTX loaded on a device; unloads when destroyed. */
typedef struct spio_loaded spio_loaded;
spio_loaded *spio_load(int32_t device, const char *ptx, char **error);
void spio_loaded_destroy(spio_loaded *loaded);
/* A wgmma kernel reads A and B through TMA descriptors, its last two
 * parameters, 128 bytes each and passed by value: encodes them for the
 * operands at device addresses `a` and `b` (16-byte aligned) into `maps`
 * (256 bytes, A's then B's). */
int32_t spio_gemm_tensor_maps(const spio_gemm_problem *problem, const spio_gemm_config *config,
                              uint64_t a, uint64_t b, void *maps, char **error);

/* Launches kernel `name` on `stream` (a CUstream; NULL: the default
 * stream) with `shared_bytes` of dynamic shared memory; `args` points at
 * the kernel's `num_args` parameters, in order. A kernel that waits for
 * the grids before it (griddepcontrol.wait, as conv2d-gw8's wgrad reduce
 * does) launches as a dependent grid, whose start overlaps their end. */
int32_t spio_launch(spio_loaded *loaded, const char *name, spio_launch_shape shape,
                    int64_t shared_bytes, void *stream, void **args, int32_t num_args,
                    char **error);

/* Loads compiled kernels on a device, keeping each one's dynamic shared
 * memory and block size for launchers (below). */
spio_loaded *spio_load_compiled(int32_t device, const spio_compiled *compiled, char **error);

/* A problem's launch plan on loaded kernels (spio/Kernels/LaunchPlan.h):
 * the kernels in order with their grids, blocks, shared memory and
 * parameters, settled once, so that running it is one call. The launcher
 * uses `loaded`, which must outlive it; one thread at a time may run it.
 * NULL with *error set where the family's check fails, or `loaded` (from
 * spio_load_compiled) lacks a planned kernel or built it for another block
 * size. */
typedef struct spio_launcher spio_launcher;
spio_launcher *spio_gemm_launcher(const spio_gemm_problem *problem,
                                  const spio_gemm_config *config, spio_loaded *loaded,
                                  char **error);
spio_launcher *spio_conv2d_gw8_launcher(const spio_conv2d_gw8_problem *problem,
                                        const spio_conv2d_gw8_config *config,
                                        spio_loaded *loaded, char **error);
spio_launcher *spio_conv2d_launcher(const spio_conv2d_problem *problem,
                                    const spio_gemm_config *config, spio_loaded *loaded,
                                    char **error);
void spio_launcher_destroy(spio_launcher *launcher);
/* The device buffers a run takes, in order (GEMM: A, B, C, D, bias, scale;
 * conv2d: x, w, y, C, bias, scale; conv2d-gw8 fprop: x, w, bias, y; dgrad: dy, w, dx; wgrad: x, dy,
 * dw, db), and whether each may be 0 (absent). */
int32_t spio_launcher_num_operands(const spio_launcher *launcher);
const char *spio_launcher_operand_name(const spio_launcher *launcher, int32_t index);
int32_t spio_launcher_operand_optional(const spio_launcher *launcher, int32_t index);
/* The floats a run may set (GEMM: alpha, beta), and their defaults. */
int32_t spio_launcher_num_scalars(const spio_launcher *launcher);
const char *spio_launcher_scalar_name(const spio_launcher *launcher, int32_t index);
float spio_launcher_scalar_default(const spio_launcher *launcher, int32_t index);
/* Scratch bytes a run needs (0: none). */
int64_t spio_launcher_workspace_bytes(const spio_launcher *launcher);
/* Launches the plan's kernels on `stream` (NULL: the default stream) with
 * the operands' device addresses (`num_operands` of them, in the order
 * above; each 16-byte aligned, 0 only where optional), the workspace's and
 * the scalars (NULL: the defaults). Encodes TMA descriptors where the plan
 * takes them (again only for new addresses). Checks everything before the
 * first launch; nothing is synchronized. */
/* Autotuning: times the `count` launchers (candidates of one problem,
 * bound to the same operands and workspace as spio_launcher_run takes
 * them, on one device) on the device's default stream: one untimed launch
 * each, then 5 rounds timing 3 launches of every candidate in turn; writes
 * the fastest's index to *fastest. With a `key` (the problem and its
 * candidates as text; NULL: none), a result recorded for the key on this
 * device beside the PTX cache ($SPIO_CACHE_DIR/autotune) is taken without
 * timing, and a timed one is recorded. */
int32_t spio_autotune(spio_launcher *const *launchers, int32_t count, const uint64_t *operands,
                      int32_t num_operands, uint64_t workspace, const char *key, int32_t *fastest,
                      char **error);
int32_t spio_launcher_run(spio_launcher *launcher, void *stream, const uint64_t *operands,
                          int32_t num_operands, uint64_t workspace, const float *scalars,
                          char **error);

#ifdef __cplusplus
}
#endif

#endif /* SPIO_C_SPIO_H */
