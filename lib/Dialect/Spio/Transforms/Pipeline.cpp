//===- Pipeline.cpp - Multi-stage cp.async software pipelining ------------===//
//
// Turns a single-stage reduction loop (copy, wait, [proxy fence,] barrier,
// compute, barrier) into an N-stage ring: shared tensors get a stage
// dimension, the copies run N - 1 iterations ahead of the compute (fewer by
// the wgmma groups the compute leaves pending), and cp.async groups keep
// that many tiles in flight.
//
//===----------------------------------------------------------------------===//

#include "spio/Dialect/Spio/Transforms/Passes.h"

#include "spio/Dialect/Spio/IR/SpioOps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::spio {
#define GEN_PASS_DEF_SPIOPIPELINE
#include "spio/Dialect/Spio/Transforms/Passes.h.inc"
} // namespace mlir::spio

using namespace mlir;
using namespace mlir::spio;

namespace {

/// Marks a spio.store that writes the stage of the loop's next iteration.
constexpr StringLiteral kNextStage = "spio.next_stage";

/// The tensor operands of memory accesses, which get the stage coordinate.
SmallVector<OpOperand *> accessedTensors(Operation *op) {
  SmallVector<OpOperand *> result;
  if (isa<LoadOp, StoreOp, LdMatrixOp, AsyncCopyOp, LoadFragmentOp, StoreFragmentOp, WgmmaOp>(op))
    for (OpOperand &operand : op->getOpOperands())
      if (isa<SpioTensorType>(operand.get().getType()))
        result.push_back(&operand);
  return result;
}

/// Ops whose result addresses the storage of their tensor operand.
bool derivesTensor(Operation *op) { return isa<SubscriptOp, RebaseOp, ViewOp>(op); }

/// The alloc a tensor value derives from through subscripts, rebases and
/// views.
AllocOp rootAlloc(Value tensor) {
  while (Operation *def = tensor.getDefiningOp()) {
    if (auto alloc = dyn_cast<AllocOp>(def))
      return alloc;
    if (!derivesTensor(def))
      return {};
    tensor = def->getOperand(0);
  }
  return {};
}

/// `type` with a new outermost dimension `dim` of `stages` entries,
/// `stride` elements apart.
SpioTensorType withStages(SpioTensorType type, StringAttr dim, int64_t stages, int64_t stride) {
  SmallVector<TensorDim> dims;
  dims.push_back(TensorDim{dim, 1, stages, stride});
  llvm::append_range(dims, type.getDims());
  return SpioTensorType::get(type.getContext(), dims, type.getElementType(),
                             type.getMemorySpace(), type.getSwizzle());
}

/// Gives `alloc` a stage dimension of `stages` copies of its storage, and
/// every value derived from it the same dimension, in its own elements (a
/// view may read the storage as other elements).
void retype(AllocOp alloc, StringAttr dim, int64_t stages) {
  SpioTensorType type = alloc.getType();
  int64_t stageBytes = type.getCosize() * type.getElementBytes();
  SmallVector<Value> worklist = {alloc.getResult()};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    auto vType = cast<SpioTensorType>(v.getType());
    v.setType(withStages(vType, dim, stages, stageBytes / vType.getElementBytes()));
    for (Operation *user : v.getUsers())
      if (derivesTensor(user) && user->getOperand(0) == v)
        worklist.push_back(user->getResult(0));
  }
}

class LoopPipeliner {
public:
  LoopPipeliner(scf::ForOp loop, int64_t stages) : loop(loop), stages(stages) {}
  LogicalResult run();

private:
  LogicalResult classify();
  void cloneLoads(OpBuilder &builder, Value iv);

  scf::ForOp loop;
  int64_t stages;
  SmallVector<AsyncCopyOp> copies;
  SmallVector<Operation *> structural; // commit, wait, barriers, proxy fence
  bool proxyFence = false;
  /// Iterations after which a stage's asynchronous reads are done.
  int64_t lag = 0;
  llvm::SetVector<Operation *> loads;  // copies and what only they need
};

LogicalResult LoopPipeliner::classify() {
  Block *body = loop.getBody();
  // Copies may sit in the body or in the conditionals of its cooperative
  // loops (a guarded last round of copies).
  body->walk([&](AsyncCopyOp copy) { copies.push_back(copy); });
  // The ring replaces one commit, the wait for it, the barrier after the
  // wait and the body's last barrier; the compute may sync in between (a
  // shared output tile written, then copied out).
  Operation *commit = nullptr, *wait = nullptr;
  bool extraSync = false;
  for (Operation &op : body->without_terminator()) {
    if (isa<AsyncCommitOp>(op)) {
      extraSync |= commit != nullptr;
      commit = &op;
    } else if (auto w = dyn_cast<AsyncWaitOp>(op); w && w.getPending() == 0) {
      extraSync |= wait != nullptr;
      wait = &op;
    }
  }
  Operation *afterWait = wait ? wait->getNextNode() : nullptr;
  // Tiles that wgmma reads through the async proxy: each thread fences its
  // copies' writes before the barrier.
  if (isa_and_nonnull<FenceProxyAsyncOp>(afterWait)) {
    proxyFence = true;
    afterWait = afterWait->getNextNode();
  }
  Operation *last = body->getTerminator()->getPrevNode();
  if (copies.empty() || !commit || !wait || extraSync ||
      !isa_and_nonnull<gpu::BarrierOp>(afterWait) || !isa_and_nonnull<gpu::BarrierOp>(last) ||
      afterWait == last)
    return loop.emitError()
           << "spio-pipeline needs a loop of async copies, one spio.async_commit, "
              "spio.async_wait 0 (then spio.fence_proxy_async where the async proxy reads), "
              "gpu.barrier, compute and a final gpu.barrier";
  structural = {commit, wait, afterWait, last};
  if (proxyFence)
    structural.push_back(wait->getNextNode());
  // wgmma groups the body leaves pending still read their stages: the ring
  // refills a stage only once its reads are waited for, that many
  // iterations later.
  for (Operation &op : body->without_terminator())
    if (auto pending = dyn_cast<WgmmaWaitOp>(op))
      lag = pending.getPending();
  if (lag > 0 && stages < lag + 2)
    return loop.emitError() << "spio-pipeline: a loop that leaves " << lag
                            << " wgmma group(s) pending needs at least " << lag + 2
                            << " stages, got " << stages;
  return success();
}

void LoopPipeliner::cloneLoads(OpBuilder &builder, Value iv) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (Operation *op : loads)
    builder.clone(*op, mapping);
}

LogicalResult LoopPipeliner::run() {
  if (failed(classify()))
    return failure();
  MLIRContext *ctx = loop.getContext();
  Block *body = loop.getBody();
  Location loc = loop.getLoc();

  // The shared tensors the copies fill, and a stage dimension name that
  // none of them uses.
  llvm::SetVector<AllocOp> buffers;
  for (AsyncCopyOp copy : copies) {
    AllocOp alloc = rootAlloc(copy.getDst());
    if (!alloc || loop->isAncestor(alloc))
      return copy.emitOpError()
             << "writes a tensor that is not a spio.alloc outside the pipelined loop";
    buffers.insert(alloc);
  }
  std::string name = "stage";
  for (int suffix = 1;
       llvm::any_of(buffers, [&](AllocOp a) { return a.getType().hasDim(name); }); ++suffix)
    name = "stage" + std::to_string(suffix);
  StringAttr stageDim = StringAttr::get(ctx, name);

  // Every access of a buffer must be in the loop: only there is its stage
  // known. A view must start each stage where the buffer's stage starts.
  for (AllocOp alloc : buffers) {
    int64_t stageBytes = alloc.getType().getCosize() * alloc.getType().getElementBytes();
    SmallVector<Value> worklist = {alloc.getResult()};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (auto view = dyn_cast<ViewOp>(user);
            view && stageBytes % view.getType().getElementBytes() != 0)
          return view.emitOpError()
                 << "views a tensor that spio-pipeline multi-buffers in "
                 << view.getType().getElementBytes() << "-byte elements, but a stage of it is "
                 << stageBytes << " bytes";
        if (derivesTensor(user))
          worklist.push_back(user->getResult(0));
        else if (!loop->isAncestor(user))
          return user->emitOpError() << "reads a pipelined shared tensor outside its loop";
      }
    }
  }
  for (AllocOp alloc : buffers)
    retype(alloc, stageDim, stages);

  // The stage of this iteration: ((iv - lb) / step) mod stages.
  OpBuilder builder(ctx);
  builder.setInsertionPointToStart(body);
  Value iteration = arith::DivUIOp::create(
      builder, loc,
      arith::SubIOp::create(builder, loc, loop.getInductionVar(), loop.getLowerBound()),
      loop.getStep());
  Value stageIndex = arith::RemUIOp::create(
      builder, loc, iteration, arith::ConstantIndexOp::create(builder, loc, stages));
  Value stage = FromIndexOp::create(builder, loc, CoordType::get(ctx, stageDim, 1), stageIndex);
  SmallVector<Operation *> accesses;
  body->walk([&](Operation *op) {
    if (llvm::any_of(accessedTensors(op),
                     [&](OpOperand *o) { return buffers.contains(rootAlloc(o->get())); }))
      accesses.push_back(op);
  });
  // A store marked spio.next_stage writes the stage the next iteration
  // computes on: what this one hands the next (rows two tiles share).
  Value nextStage;
  if (llvm::any_of(accesses, [](Operation *op) { return op->hasAttr(kNextStage); })) {
    Value next = arith::AddIOp::create(builder, loc, iteration,
                                       arith::ConstantIndexOp::create(builder, loc, 1));
    Value index = arith::RemUIOp::create(builder, loc, next,
                                         arith::ConstantIndexOp::create(builder, loc, stages));
    nextStage = FromIndexOp::create(builder, loc, CoordType::get(ctx, stageDim, 1), index);
  }
  for (Operation *op : accesses) {
    Value opStage = op->removeAttr(kNextStage) ? nextStage : stage;
    builder.setInsertionPoint(op);
    for (OpOperand *operand : accessedTensors(op)) {
      if (!buffers.contains(rootAlloc(operand->get())))
        continue;
      Value staged = SubscriptOp::create(builder, op->getLoc(), operand->get().getType(),
                                         operand->get(), ValueRange{opStage}, ArrayAttr());
      operand->set(staged);
    }
  }

  // What the copies need, in order: their backward slice within the body
  // (a copy in a conditional brings the whole conditional and what its
  // regions use).
  llvm::SetVector<Operation *> needed;
  SmallVector<Operation *> worklist;
  for (AsyncCopyOp copy : copies)
    worklist.push_back(body->findAncestorOpInBlock(*copy));
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (op->getBlock() != body || !needed.insert(op))
      continue;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (Operation *def = operand.getDefiningOp(); def && def->getBlock() == body)
          worklist.push_back(def);
    });
  }
  for (Operation &op : body->without_terminator())
    if (needed.contains(&op))
      loads.insert(&op);

  for (Operation *op : structural)
    op->erase();

  // Prologue: the copies of the first `ahead` iterations, one group each.
  builder.setInsertionPoint(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(), step = loop.getStep();
  int64_t ahead = stages - 1 - lag;
  for (int64_t p = 0; p < ahead; ++p) {
    Value iv = arith::AddIOp::create(
        builder, loc, lb,
        arith::MulIOp::create(builder, loc, step, arith::ConstantIndexOp::create(builder, loc, p)));
    Value inRange = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, iv, ub);
    auto guard = scf::IfOp::create(builder, loc, inRange, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard g(builder);
      builder.setInsertionPointToStart(guard.thenBlock());
      cloneLoads(builder, iv);
    }
    AsyncCommitOp::create(builder, loc);
  }

  // Steady state: wait for the oldest group, sync, refill the stage
  // computed on lag + 1 iterations before, then compute.
  builder.setInsertionPointToStart(body);
  AsyncWaitOp::create(builder, loc, ahead - 1);
  if (proxyFence)
    FenceProxyAsyncOp::create(builder, loc);
  gpu::BarrierOp::create(builder, loc);
  Value refill = arith::AddIOp::create(
      builder, loc, loop.getInductionVar(),
      arith::MulIOp::create(builder, loc, step,
                            arith::ConstantIndexOp::create(builder, loc, ahead)));
  Value aheadInRange = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::slt, refill, ub);
  auto guard = scf::IfOp::create(builder, loc, aheadInRange, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard g(builder);
    builder.setInsertionPointToStart(guard.thenBlock());
    cloneLoads(builder, refill);
  }
  AsyncCommitOp::create(builder, loc);
  for (Operation *op : llvm::reverse(loads))
    if (op->use_empty())
      op->erase();

  // Drain the groups of the iterations past the end.
  builder.setInsertionPointAfter(loop);
  AsyncWaitOp::create(builder, loc, 0);
  loop->removeAttr("spio.stages");
  return success();
}

struct SpioPipeline : mlir::spio::impl::SpioPipelineBase<SpioPipeline> {
  using SpioPipelineBase::SpioPipelineBase;

  void runOnOperation() override {
    if (stages < 0) {
      getOperation()->emitError() << "spio-pipeline: the stages option must be at least 0, got "
                                  << int64_t(stages);
      return signalPassFailure();
    }
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr("spio.stages"))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      // The dialect verifier has checked that spio.stages is an integer >= 1.
      int64_t n = stages ? stages : loop->getAttrOfType<IntegerAttr>("spio.stages").getInt();
      if (n == 1) {
        // One stage: a wgmma group left pending, or a store for the next
        // iteration, would meet the next iteration's copies in the stage.
        WalkResult pending = loop->walk([](WgmmaWaitOp wait) {
          return wait.getPending() > 0 ? WalkResult::interrupt() : WalkResult::advance();
        });
        if (pending.wasInterrupted()) {
          loop.emitError() << "spio-pipeline: a loop that leaves wgmma groups pending needs "
                              "2 stages or more past them";
          return signalPassFailure();
        }
        WalkResult handsOn = loop->walk([](StoreOp store) {
          return store->hasAttr(kNextStage) ? WalkResult::interrupt() : WalkResult::advance();
        });
        if (handsOn.wasInterrupted()) {
          loop.emitError() << "spio-pipeline: a loop whose stores hand tiles on to the next "
                              "iteration (spio.next_stage) needs 2 stages or more";
          return signalPassFailure();
        }
        loop->removeAttr("spio.stages");
        continue;
      }
      if (failed(LoopPipeliner(loop, n).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
