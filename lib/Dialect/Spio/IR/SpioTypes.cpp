//===- SpioTypes.cpp - Spio types -----------------------------------------===//

#include "spio/Dialect/Spio/IR/SpioTypes.h"
#include "spio/Dialect/Spio/IR/SpioDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::spio;

#define GET_TYPEDEF_CLASSES
#include "spio/Dialect/Spio/IR/SpioTypes.cpp.inc"

void SpioDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "spio/Dialect/Spio/IR/SpioTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Dimension names
//===----------------------------------------------------------------------===//

/// Dimension names are identifiers, so that `k/8` prints and parses back.
static bool isDimName(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

static LogicalResult verifyDimName(function_ref<InFlightDiagnostic()> emitError,
                                   StringAttr dim) {
  if (!dim || !isDimName(dim.getValue()))
    return emitError() << "dimension name '" << (dim ? dim.getValue() : "")
                       << "' is not an identifier";
  return success();
}

/// Parses `name` or `name/fold`.
static ParseResult parseFoldedDim(AsmParser &parser, StringAttr &dim,
                                  int64_t &fold) {
  std::string name;
  if (parser.parseKeywordOrString(&name))
    return failure();
  dim = parser.getBuilder().getStringAttr(name);
  fold = 1;
  if (succeeded(parser.parseOptionalSlash()) && parser.parseInteger(fold))
    return failure();
  return success();
}

static void printFoldedDim(AsmPrinter &printer, StringAttr dim, int64_t fold) {
  printer << dim.getValue();
  if (fold != 1)
    printer << "/" << fold;
}

static std::string foldedDimName(StringRef dim, int64_t fold) {
  return fold == 1 ? dim.str() : (dim + "/" + Twine(fold)).str();
}

//===----------------------------------------------------------------------===//
// CoordType
//===----------------------------------------------------------------------===//

Type CoordType::parse(AsmParser &parser) {
  StringAttr dim;
  int64_t fold;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parseFoldedDim(parser, dim, fold) ||
      parser.parseGreater())
    return {};
  return CoordType::getChecked([&] { return parser.emitError(loc); },
                               parser.getContext(), dim, fold);
}

void CoordType::print(AsmPrinter &printer) const {
  printer << "<";
  printFoldedDim(printer, getDim(), getFold());
  printer << ">";
}

LogicalResult CoordType::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringAttr dim, int64_t fold) {
  if (failed(verifyDimName(emitError, dim)))
    return failure();
  if (fold <= 0)
    return emitError() << "fold of dimension '" << dim.getValue()
                       << "' must be positive, got " << fold;
  return success();
}

std::string CoordType::getDimName() const {
  return foldedDimName(getDim().getValue(), getFold());
}

//===----------------------------------------------------------------------===//
// SpioTensorType
//===----------------------------------------------------------------------===//

static std::vector<int64_t> rowMajorStrides(ArrayRef<TensorDim> dims) {
  std::vector<int64_t> sizes;
  for (const TensorDim &d : dims)
    sizes.push_back(d.size);
  return layout::Layout::rowMajorStrides(sizes);
}

Type SpioTensorType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<TensorDim> dims;
  SmallVector<bool> hasStride;
  auto parseEntry = [&]() -> ParseResult {
    TensorDim d;
    if (parseFoldedDim(parser, d.dim, d.fold) || parser.parseColon() ||
        parser.parseInteger(d.size))
      return failure();
    bool explicitStride = succeeded(parser.parseOptionalColon());
    if (explicitStride && parser.parseInteger(d.stride))
      return failure();
    dims.push_back(d);
    hasStride.push_back(explicitStride);
    return success();
  };
  Type elementType;
  StringRef space;
  if (parser.parseLess() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseEntry,
                                     " in tensor dimension list") ||
      parser.parseKeyword("x") || parser.parseType(elementType) ||
      parser.parseComma())
    return {};
  SMLoc spaceLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&space))
    return {};
  std::optional<MemorySpace> memorySpace = symbolizeMemorySpace(space);
  if (!memorySpace) {
    parser.emitError(spaceLoc, "expected memory space 'global', 'shared' or "
                               "'register', got '")
        << space << "'";
    return {};
  }
  SwizzleAttrInterface swizzle;
  if (succeeded(parser.parseOptionalComma())) {
    Attribute attr;
    SMLoc attrLoc = parser.getCurrentLocation();
    if (parser.parseAttribute(attr))
      return {};
    swizzle = dyn_cast<SwizzleAttrInterface>(attr);
    if (!swizzle) {
      parser.emitError(attrLoc, "expected a swizzle (#spio.xor_swizzle or "
                                "#spio.checkerboard), got ")
          << attr;
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  std::vector<int64_t> defaults = rowMajorStrides(dims);
  for (auto [i, d] : llvm::enumerate(dims))
    if (!hasStride[i])
      d.stride = defaults[i];
  return SpioTensorType::getChecked([&] { return parser.emitError(loc); },
                                parser.getContext(), dims, elementType,
                                *memorySpace, swizzle);
}

void SpioTensorType::print(AsmPrinter &printer) const {
  std::vector<int64_t> defaults = rowMajorStrides(getDims());
  printer << "<[";
  llvm::interleaveComma(llvm::enumerate(getDims()), printer, [&](auto it) {
    const TensorDim &d = it.value();
    printFoldedDim(printer, d.dim, d.fold);
    printer << ": " << d.size;
    if (d.stride != defaults[it.index()])
      printer << ":" << d.stride;
  });
  printer << "] x " << getElementType() << ", "
          << stringifyMemorySpace(getMemorySpace());
  if (getSwizzle())
    printer << ", " << getSwizzle();
  printer << ">";
}

static layout::Layout makeLayout(ArrayRef<TensorDim> dims,
                                 SwizzleAttrInterface swizzle) {
  std::vector<layout::DimEntry> entries;
  for (const TensorDim &d : dims)
    entries.push_back({d.dim ? d.dim.getValue().str() : std::string(), d.fold,
                       d.size, d.stride});
  return layout::Layout(std::move(entries),
                        swizzle ? swizzle.getXorSwizzle() : layout::XorSwizzle{});
}

/// Bytes of a scalar or vector element; 0 when the type has no fixed size.
static int64_t scalarOrVectorBytes(Type type) {
  if (auto vector = dyn_cast<VectorType>(type)) {
    if (vector.getRank() != 1 || vector.isScalable())
      return 0;
    return vector.getNumElements() * scalarOrVectorBytes(vector.getElementType());
  }
  if (isa<IntegerType, FloatType>(type) && type.getIntOrFloatBitWidth() % 8 == 0)
    return type.getIntOrFloatBitWidth() / 8;
  return 0;
}

LogicalResult SpioTensorType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<TensorDim> dims, Type elementType,
                                 MemorySpace memorySpace,
                                 SwizzleAttrInterface swizzle) {
  for (const TensorDim &d : dims)
    if (failed(verifyDimName(emitError, d.dim)))
      return failure();
  if (std::string err = makeLayout(dims, swizzle).verify(); !err.empty())
    return emitError() << err;
  if (auto fragment = dyn_cast<FragmentType>(elementType)) {
    if (memorySpace != MemorySpace::Register)
      return emitError() << "fragments live in registers, but the tensor is in "
                         << stringifyMemorySpace(memorySpace) << " memory";
  } else if (scalarOrVectorBytes(elementType) == 0) {
    return emitError() << "tensor element must be a byte-sized integer or "
                          "float, a 1-D vector of those, or a fragment; got "
                       << elementType;
  }
  if (swizzle && memorySpace != MemorySpace::Shared)
    return emitError() << "swizzles spread shared-memory banks; the tensor is in "
                       << stringifyMemorySpace(memorySpace) << " memory";
  return success();
}

layout::Layout SpioTensorType::getLayout() const {
  return makeLayout(getDims(), getSwizzle());
}

bool SpioTensorType::hasDim(StringRef dim) const { return getFinestFold(dim) != 0; }

int64_t SpioTensorType::getFinestFold(StringRef dim) const {
  return getLayout().finestFold(dim);
}

int64_t SpioTensorType::getCosize() const { return getLayout().cosize(); }

int64_t SpioTensorType::getElementBytes() const {
  if (auto fragment = dyn_cast<FragmentType>(getElementType()))
    return fragment.getElementsPerLane() *
           scalarOrVectorBytes(fragment.getElementType());
  return scalarOrVectorBytes(getElementType());
}

//===----------------------------------------------------------------------===//
// FragmentType
//===----------------------------------------------------------------------===//

/// Rows and columns of a register tile (`what`) are two valid, different
/// dimension names.
static LogicalResult verifyRowsAndColumns(function_ref<InFlightDiagnostic()> emitError,
                                          StringAttr rowDim, StringAttr colDim, StringRef what) {
  if (failed(verifyDimName(emitError, rowDim)) || failed(verifyDimName(emitError, colDim)))
    return failure();
  if (rowDim == colDim)
    return emitError() << what << " rows and columns must be different dimensions, both are '"
                       << rowDim.getValue() << "'";
  return success();
}

/// `element, [rows, columns]>`, the tail of a fragment's or a warpgroup
/// accumulator's type; `what` names it in the error for other than two dims.
static ParseResult parseElementAndDims(AsmParser &parser, Type &elementType,
                                       SmallVectorImpl<StringAttr> &dims, StringRef what) {
  auto parseDim = [&]() -> ParseResult {
    std::string name;
    if (parser.parseKeywordOrString(&name))
      return failure();
    dims.push_back(parser.getBuilder().getStringAttr(name));
    return success();
  };
  SMLoc dimsLoc;
  if (parser.parseType(elementType) || parser.parseComma() ||
      (dimsLoc = parser.getCurrentLocation(), false) ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, parseDim) ||
      parser.parseGreater())
    return failure();
  if (dims.size() != 2)
    return parser.emitError(dimsLoc) << what << " has two dimensions [rows, columns], got "
                                     << dims.size();
  return success();
}

Type FragmentType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::string operandName, shapeName;
  Type elementType;
  SmallVector<StringAttr, 2> dims;
  if (parser.parseLess())
    return {};
  SMLoc operandLoc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&operandName) || parser.parseComma())
    return {};
  std::optional<FragmentOperand> operand = symbolizeFragmentOperand(operandName);
  if (!operand) {
    parser.emitError(operandLoc, "expected fragment operand A, B or C, got '")
        << operandName << "'";
    return {};
  }
  SMLoc shapeLoc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&shapeName) || parser.parseComma())
    return {};
  std::optional<MmaShape> shape = symbolizeMmaShape(shapeName);
  if (!shape) {
    parser.emitError(shapeLoc, "expected mma shape m16n8k8 or m16n8k16, got '")
        << shapeName << "'";
    return {};
  }
  if (parseElementAndDims(parser, elementType, dims, "a fragment"))
    return {};
  return FragmentType::getChecked([&] { return parser.emitError(loc); },
                                  parser.getContext(), *operand, *shape,
                                  elementType, dims[0], dims[1]);
}

void FragmentType::print(AsmPrinter &printer) const {
  printer << "<" << stringifyFragmentOperand(getOperand()) << ", "
          << stringifyMmaShape(getShape()) << ", " << getElementType() << ", ["
          << getRowDim().getValue() << ", " << getColDim().getValue() << "]>";
}

LogicalResult FragmentType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   FragmentOperand operand, MmaShape shape,
                                   Type elementType, StringAttr rowDim,
                                   StringAttr colDim) {
  if (failed(verifyRowsAndColumns(emitError, rowDim, colDim, "fragment")))
    return failure();
  if (operand == FragmentOperand::C) {
    if (!elementType.isF32())
      return emitError() << "C fragments accumulate in f32, got " << elementType;
  } else if (!elementType.isF16() && !elementType.isBF16()) {
    return emitError() << stringifyFragmentOperand(operand)
                       << " fragments hold f16 or bf16, got " << elementType;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// WarpgroupAccType
//===----------------------------------------------------------------------===//

Type WarpgroupAccType::parse(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  std::string shape;
  Type elementType;
  SmallVector<StringAttr, 2> dims;
  if (parser.parseLess())
    return {};
  SMLoc shapeLoc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&shape) || parser.parseComma())
    return {};
  int64_t n = 0;
  StringRef columns = shape;
  if (!columns.consume_front("m64n") || columns.getAsInteger(10, n)) {
    parser.emitError(shapeLoc, "expected a warpgroup shape m64nN, got '") << shape << "'";
    return {};
  }
  if (parseElementAndDims(parser, elementType, dims, "a warpgroup accumulator"))
    return {};
  return WarpgroupAccType::getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                                      n, elementType, dims[0], dims[1]);
}

void WarpgroupAccType::print(AsmPrinter &printer) const {
  printer << "<m64n" << getN() << ", " << getElementType() << ", [" << getRowDim().getValue()
          << ", " << getColDim().getValue() << "]>";
}

LogicalResult WarpgroupAccType::verify(function_ref<InFlightDiagnostic()> emitError, int64_t n,
                                       Type elementType, StringAttr rowDim, StringAttr colDim) {
  if (failed(verifyRowsAndColumns(emitError, rowDim, colDim, "warpgroup accumulator")))
    return failure();
  if (n < 8 || n > 256 || n % 8 != 0)
    return emitError() << "a warpgroup accumulator is 64 x N with N a multiple of 8 from 8 "
                          "to 256, got N = "
                       << n;
  if (!elementType.isF32())
    return emitError() << "warpgroup accumulators hold f32, got " << elementType;
  return success();
}

LogicalResult BarrierGroupType::verify(function_ref<InFlightDiagnostic()> emitError,
                                       int64_t count) {
  if (count < 1)
    return emitError() << "a barrier group holds at least one barrier, got " << count;
  return success();
}

bool mlir::spio::isSwizzle128B(SwizzleAttrInterface swizzle) {
  if (!swizzle)
    return false;
  ::spio::layout::XorSwizzle xor128{3, 0, 3}, got = swizzle.getXorSwizzle();
  return got.bits == xor128.bits && got.base == xor128.base && got.shift == xor128.shift;
}

bool mlir::spio::isTensorCoreVector(VectorType vector) {
  if (!vector || vector.getRank() != 1)
    return false;
  Type element = vector.getElementType();
  if (vector.getNumElements() == 8)
    return element.isF16() || element.isBF16();
  return vector.getNumElements() == 4 && element.isF32();
}

/// What every TMA descriptor type joins: a global tensor and a shared box
/// of the same 16-byte vectors of f16 or bf16 (or, `f32`, of f32). `what`
/// names the type.
static LogicalResult verifyGlobalAndBox(function_ref<InFlightDiagnostic()> emitError,
                                        StringRef what, SpioTensorType global, SpioTensorType box,
                                        bool f32) {
  if (global.getMemorySpace() != MemorySpace::Global || box.getMemorySpace() != MemorySpace::Shared)
    return emitError() << what << " joins a global tensor and a shared box, got "
                       << stringifyMemorySpace(global.getMemorySpace()) << " and "
                       << stringifyMemorySpace(box.getMemorySpace());
  if (global.getElementType() != box.getElementType())
    return emitError() << "the box holds the global tensor's " << global.getElementType()
                       << ", got " << box.getElementType();
  auto vector = dyn_cast<VectorType>(global.getElementType());
  if (!isTensorCoreVector(vector) || (!f32 && vector.getElementType().isF32()))
    return emitError() << what << " holds vector<8xf16> or vector<8xbf16>"
                       << (f32 ? " or vector<4xf32>" : "") << ", got " << global.getElementType();
  return success();
}

LogicalResult TensorMapType::verify(function_ref<InFlightDiagnostic()> emitError,
                                    SpioTensorType global, SpioTensorType box) {
  if (failed(verifyGlobalAndBox(emitError, "a tensor map", global, box, /*f32=*/true)))
    return failure();
  ArrayRef<TensorDim> g = global.getDims(), b = box.getDims();
  int64_t lanes = cast<VectorType>(global.getElementType()).getNumElements();
  auto rowsAndVectors = [&](ArrayRef<TensorDim> dims) {
    return dims.size() == 2 && dims[0].fold == 1 && dims[1].fold == lanes && dims[1].stride == 1 &&
           dims[0].dim != dims[1].dim;
  };
  if (!rowsAndVectors(g) || !rowsAndVectors(b) || g[0].dim != b[0].dim || g[1].dim != b[1].dim)
    return emitError() << "a tensor map's global tensor and box are both [rows, vectors/" << lanes
                       << "] of the same two dimensions, vectors contiguous";
  if (g[0].stride != g[1].size)
    return emitError() << "a tensor map's global rows are dense (stride " << g[1].size
                       << "), got stride " << g[0].stride;
  if (b[1].size != 8 || b[0].stride != 8 || b[0].size < 1 || b[0].size > 256 ||
      !isSwizzle128B(box.getSwizzle()))
    return emitError() << "a tensor map's box is 1 to 256 rows of 8 vectors (128 bytes) in the "
                          "128-byte swizzle, #spio.xor_swizzle<3, 0, 3>";
  return success();
}

int64_t TensorMapType::getBoxBytes() const {
  return getBox().getCosize() * getBox().getElementBytes();
}

LogicalResult Im2colMapType::verify(function_ref<InFlightDiagnostic()> emitError,
                                    SpioTensorType global, SpioTensorType box) {
  if (failed(verifyGlobalAndBox(emitError, "an im2col map", global, box, /*f32=*/false)))
    return failure();
  ArrayRef<TensorDim> g = global.getDims(), b = box.getDims();
  bool nhwc = g.size() == 4 && g[0].fold == 1 && g[1].fold == 1 && g[2].fold == 1 &&
              g[3].fold == 8 && g[3].stride == 1 && g[2].stride == g[3].size &&
              g[1].stride == g[2].size * g[2].stride && g[0].stride == g[1].size * g[1].stride;
  if (!nhwc)
    return emitError() << "an im2col map's global tensor is a dense [images, rows, columns, "
                          "channels/8] tensor of 16-byte vectors, got "
                       << global;
  if (b.size() != 2 || b[0].fold != 1 || b[1].fold != 8 || b[1].stride != 1 ||
      b[0].dim == b[1].dim || b[1].size != 8 || b[0].stride != 8 || b[0].size < 1 ||
      b[0].size > 256 || !isSwizzle128B(box.getSwizzle()))
    return emitError() << "an im2col map's box is 1 to 256 rows of 8 vectors (128 bytes) in the "
                          "128-byte swizzle, #spio.xor_swizzle<3, 0, 3>";
  return success();
}

int64_t Im2colMapType::getBoxBytes() const {
  return getBox().getCosize() * getBox().getElementBytes();
}

static int64_t mmaK(MmaShape shape) { return shape == MmaShape::M16N8K8 ? 8 : 16; }

int64_t FragmentType::getNumRows() const {
  return getOperand() == FragmentOperand::B ? mmaK(getShape()) : 16;
}

int64_t FragmentType::getNumCols() const {
  return getOperand() == FragmentOperand::A ? mmaK(getShape()) : 8;
}

int64_t FragmentType::getElementsPerLane() const {
  return getNumRows() * getNumCols() / 32;
}

StringAttr FragmentType::getReductionDim() const {
  switch (getOperand()) {
  case FragmentOperand::A:
    return getColDim();
  case FragmentOperand::B:
    return getRowDim();
  case FragmentOperand::C:
    return {};
  }
  return {};
}
