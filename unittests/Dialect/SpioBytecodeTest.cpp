//===- SpioBytecodeTest.cpp - The spio dialect's bytecode version ---------===//

#include "spio/Dialect/Spio/IR/SpioBytecode.h"
#include "spio/Dialect/Spio/IR/SpioDialect.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <gtest/gtest.h>

using namespace mlir;

namespace {

constexpr const char *kSource = R"(
func.func @f() -> !spio.coord<k/8> {
  %c = spio.constant 3 : !spio.coord<k/8>
  return %c : !spio.coord<k/8>
}
)";

/// `source` written as bytecode claiming spio dialect version `version`.
std::string bytecodeOf(MLIRContext &context, uint64_t version) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kSource, &context);
  EXPECT_TRUE(module);
  BytecodeWriterConfig config;
  config.setDialectVersion<spio::SpioDialect>(
      std::make_unique<spio::SpioDialectVersion>(version));
  std::string bytes;
  llvm::raw_string_ostream out(bytes);
  EXPECT_TRUE(succeeded(writeBytecodeToFile(*module, out, config)));
  return bytes;
}

class SpioBytecodeTest : public ::testing::Test {
protected:
  SpioBytecodeTest() { context.loadDialect<spio::SpioDialect, func::FuncDialect>(); }
  MLIRContext context;
};

TEST_F(SpioBytecodeTest, ThisVersionReadsBack) {
  std::string bytes = bytecodeOf(context, spio::kSpioBytecodeVersion);
  Block block;
  ParserConfig config(&context);
  ASSERT_TRUE(succeeded(readBytecodeFile(llvm::MemoryBufferRef(bytes, "spio.mlirbc"), &block,
                                         config)));
  EXPECT_FALSE(block.empty());
}

TEST_F(SpioBytecodeTest, ANewerVersionIsRefusedByName) {
  std::string bytes = bytecodeOf(context, spio::kSpioBytecodeVersion + 1);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    message += diagnostic.str() + "\n";
    return success();
  });
  Block block;
  ParserConfig config(&context);
  EXPECT_TRUE(failed(readBytecodeFile(llvm::MemoryBufferRef(bytes, "spio.mlirbc"), &block,
                                      config)));
  EXPECT_NE(message.find("the spio dialect in this bytecode is version " +
                         std::to_string(spio::kSpioBytecodeVersion + 1) +
                         ", newer than this Spio reads"),
            std::string::npos)
      << message;
}

} // namespace
