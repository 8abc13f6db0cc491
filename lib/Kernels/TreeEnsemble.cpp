//===- TreeEnsemble.cpp - regression trees a chooser asks -----------------===//

#include "spio/Kernels/TreeEnsemble.h"

#include <cassert>

namespace spio::kernels {

double predict(const TreeEnsemble &model, const std::vector<double> &features) {
  assert(features.size() == model.features && "features do not match the model's");
  double sum = model.base;
  for (size_t tree = 0; tree < model.trees; ++tree) {
    const TreeNode *node = &model.nodes[model.roots[tree]];
    while (node->feature >= 0)
      node =
          &model
               .nodes[float(features[node->feature]) < node->threshold ? node->below : node->above];
    sum += node->value;
  }
  return sum;
}

} // namespace spio::kernels
