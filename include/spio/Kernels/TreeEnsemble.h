//===- TreeEnsemble.h - regression trees a chooser asks ---------*- C++ -*-===//
//
// Performance models are gradient-boosted regression trees trained offline
// (benchmarks/model/train.py) on measured sweeps and compiled into the
// library as tables: no Python, file or model library at run time.
//
//===----------------------------------------------------------------------===//

#ifndef SPIO_KERNELS_TREEENSEMBLE_H
#define SPIO_KERNELS_TREEENSEMBLE_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace spio::kernels {

/// One node of a tree: a split (features[feature] < threshold goes to
/// `below`, else to `above`; indices into the ensemble's nodes) or, where
/// feature is -1, a leaf adding `value`.
struct TreeNode {
  int32_t feature;
  float threshold;
  int32_t below, above;
  float value;
};

struct TreeEnsemble {
  const TreeNode *nodes;
  /// Each tree's root, an index into `nodes`.
  const int32_t *roots;
  size_t trees;
  /// The features the trees read, by name, in order.
  const char *const *featureNames;
  size_t features;
  float base;
};

/// A GPU a model's data was measured on, as its chooser compares targets:
/// a model trusted elsewhere would extrapolate.
struct ModelTarget {
  int64_t multiprocessors, sharedBytesPerBlock, sharedBytesPerMultiprocessor;
};

/// The ensemble's prediction: `base` plus each tree's leaf. Features are
/// compared as float, as the trainer (xgboost) compares them.
double predict(const TreeEnsemble &model, const std::vector<double> &features);

} // namespace spio::kernels

#endif // SPIO_KERNELS_TREEENSEMBLE_H
