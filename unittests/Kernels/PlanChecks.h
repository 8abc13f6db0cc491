//===- PlanChecks.h - What every launch plan must hold -------------------===//

#ifndef SPIO_UNITTESTS_KERNELS_PLANCHECKS_H
#define SPIO_UNITTESTS_KERNELS_PLANCHECKS_H

#include "spio/Kernels/LaunchPlan.h"

#include <gtest/gtest.h>

/// What CUDA and the runtime take of a plan: grids and blocks within the
/// launch limits, parameters naming operands and scalars the plan has,
/// workspace offsets and zeroed ranges inside the workspace, tensor-map
/// boxes TMA can copy (1 to 256 rows of 128 bytes).
inline void expectPlanFitsCuda(const spio::kernels::LaunchPlan &plan) {
  using spio::kernels::PlanParameter;
  EXPECT_GE(plan.workspaceBytes, 0);
  EXPECT_EQ(plan.workspaceBytes % spio::kernels::kOperandAlignment, 0);
  EXPECT_FALSE(plan.kernels.empty());
  for (const spio::kernels::PlannedKernel &kernel : plan.kernels) {
    SCOPED_TRACE("kernel " + kernel.name);
    EXPECT_GE(kernel.shape.gridX, 1);
    EXPECT_LE(kernel.shape.gridX, spio::kernels::kMaxGridX);
    EXPECT_GE(kernel.shape.gridY, 1);
    EXPECT_LE(kernel.shape.gridY, spio::kernels::kMaxGridY);
    EXPECT_GE(kernel.shape.gridZ, 1);
    EXPECT_LE(kernel.shape.gridZ, spio::kernels::kMaxGridY);
    EXPECT_GE(kernel.shape.block, 1);
    EXPECT_LE(kernel.shape.block, 1024);
    EXPECT_GE(kernel.zeroOffset, 0);
    EXPECT_LE(kernel.zeroOffset + kernel.zeroBytes, plan.workspaceBytes);
    for (const PlanParameter &parameter : kernel.parameters) {
      switch (parameter.kind) {
      case PlanParameter::Kind::Operand:
      case PlanParameter::Kind::TensorMap:
      case PlanParameter::Kind::Im2colMap:
        EXPECT_GE(parameter.index, 0);
        EXPECT_LT(parameter.index, int(plan.operands.size()));
        break;
      case PlanParameter::Kind::Scalar:
        EXPECT_GE(parameter.index, 0);
        EXPECT_LT(parameter.index, int(plan.scalars.size()));
        break;
      case PlanParameter::Kind::Workspace:
      case PlanParameter::Kind::WorkspaceTensorMap:
      case PlanParameter::Kind::WorkspaceIm2colMap:
        EXPECT_GE(parameter.offset, 0);
        EXPECT_LT(parameter.offset, plan.workspaceBytes);
        break;
      case PlanParameter::Kind::Null:
        break;
      }
      if (parameter.kind == PlanParameter::Kind::TensorMap ||
          parameter.kind == PlanParameter::Kind::WorkspaceTensorMap) {
        const spio::runtime::TensorMapShape &map = parameter.map;
        uint64_t elementBytes = map.element == spio::runtime::TensorMapShape::Element::Tf32 ? 4 : 2;
        EXPECT_GE(map.rows, 1u);
        EXPECT_GE(map.cols, 1u);
        EXPECT_GE(map.boxRows, 1u);
        EXPECT_LE(map.boxRows, 256u);
        EXPECT_EQ(map.boxCols * elementBytes, 128u);
        EXPECT_EQ(map.cols * elementBytes % 16, 0u);
      }
    }
  }
}

#endif // SPIO_UNITTESTS_KERNELS_PLANCHECKS_H
