//===- SpioDialect.cpp - The Spio dialect ---------------------------------===//

#include "spio/Dialect/Spio/IR/SpioDialect.h"
#include "spio/Dialect/Spio/IR/SpioBytecode.h"
#include "spio/Dialect/Spio/IR/SpioOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::spio;

#include "spio/Dialect/Spio/IR/SpioDialect.cpp.inc"

namespace {

/// Writes the dialect's version into bytecode (the one a writer's config
/// asks for, else this Spio's) and refuses a newer one on reading.
/// Attributes and types are written in their textual form.
struct SpioBytecodeInterface : public BytecodeDialectInterface {
  explicit SpioBytecodeInterface(Dialect *dialect) : BytecodeDialectInterface(dialect) {}

  void writeVersion(DialectBytecodeWriter &writer) const override {
    FailureOr<const DialectVersion *> configured = writer.getDialectVersion<SpioDialect>();
    writer.writeVarInt(succeeded(configured)
                           ? static_cast<const SpioDialectVersion *>(*configured)->version
                           : kSpioBytecodeVersion);
  }

  std::unique_ptr<DialectVersion> readVersion(DialectBytecodeReader &reader) const override {
    uint64_t version = 0;
    if (failed(reader.readVarInt(version)))
      return nullptr;
    if (version > kSpioBytecodeVersion) {
      reader.emitError() << "the spio dialect in this bytecode is version " << version
                         << ", newer than this Spio reads (" << kSpioBytecodeVersion << ")";
      return nullptr;
    }
    return std::make_unique<SpioDialectVersion>(version);
  }
};

} // namespace

void SpioDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "spio/Dialect/Spio/IR/SpioOps.cpp.inc"
      >();
  addInterfaces<SpioBytecodeInterface>();
}

Operation *SpioDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  auto intAttr = dyn_cast<IntegerAttr>(value);
  if (!intAttr)
    return nullptr;
  if (isa<CoordType>(type))
    return ConstantOp::create(builder, loc, type,
                              builder.getI64IntegerAttr(intAttr.getInt()));
  if (intAttr.getType() == type && (type.isIndex() || type.isInteger(1)))
    return arith::ConstantOp::create(builder, loc, intAttr);
  return nullptr;
}

LogicalResult SpioDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  // getInt() is only defined for signless integers and index.
  auto value = dyn_cast<IntegerAttr>(attr.getValue());
  if (value && !value.getType().isSignlessIntOrIndex())
    value = {};
  if (name == "spio.stages") {
    if (!isa<LoopLikeOpInterface>(op))
      return op->emitOpError() << "carries spio.stages, but only loops are pipelined";
    // spio-pipeline keeps a copy of the loop's buffers a stage; 32 is past
    // what shared memory holds of any tile (as gemm_config's bound).
    if (!value || value.getInt() < 1 || value.getInt() > 32)
      return op->emitOpError() << "spio.stages must be an integer from 1 to 32, got "
                               << attr.getValue();
    return success();
  }
  if (name == "spio.shared_memory_bytes") {
    if (!value || value.getInt() < 0)
      return op->emitOpError()
             << "spio.shared_memory_bytes must be a non-negative integer, got " << attr.getValue();
    return success();
  }
  if (name == "spio.offset_bits") {
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError() << "carries spio.offset_bits, but only functions take it";
    if (!value || (value.getInt() != 32 && value.getInt() != 64))
      return op->emitOpError() << "spio.offset_bits must be 32 or 64, got " << attr.getValue();
    return success();
  }
  if (name == "spio.next_stage") {
    if (!isa<StoreOp>(op))
      return op->emitOpError() << "carries spio.next_stage, but only a spio.store writes the "
                                  "next stage of a pipelined tensor";
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitOpError() << "spio.next_stage must be a unit attribute, got "
                               << attr.getValue();
    return success();
  }
  if (name == "spio.grid_constant_params") {
    auto func = dyn_cast<FunctionOpInterface>(op);
    auto params = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!func || !params ||
        llvm::any_of(params.asArrayRef(), [&](int64_t i) {
          return i < 0 || i >= int64_t(func.getNumArguments());
        }))
      return op->emitOpError() << "spio.grid_constant_params must list arguments of a function, "
                                  "got "
                               << attr.getValue();
    return success();
  }
  return op->emitOpError() << "has unknown spio attribute '" << name
                           << "' (known: spio.stages, spio.shared_memory_bytes, "
                              "spio.offset_bits, spio.next_stage, spio.grid_constant_params)";
}
