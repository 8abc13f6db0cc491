//===- Version.cpp - Which Spio compiled a kernel -------------------------===//

#include "spio/Compiler/Version.h"

#include "SourceFingerprint.h"

#include <string>

const char *mlir::spio::versionString() {
  static const std::string text = std::string("Spio ") + SPIO_VERSION + " (compiler sources " +
                                  std::string(SPIO_SOURCE_FINGERPRINT).substr(0, 12) + ")";
  return text.c_str();
}
