# cmake -DSOURCES_LIST=<file with one path per line> -DOUTPUT=<header> -P SourceFingerprint.cmake
#
# Writes a header defining SPIO_SOURCE_FINGERPRINT, the SHA-256 of the
# compiler's sources, so that the PTX cache never serves what an older
# build of the lowering produced. The header is rewritten only when the
# fingerprint changes.
file(STRINGS "${SOURCES_LIST}" sources)
set(all "")
foreach(source ${sources})
  file(SHA256 "${source}" hash)
  string(APPEND all "${hash}")
endforeach()
string(SHA256 fingerprint "${all}")
set(content "#define SPIO_SOURCE_FINGERPRINT \"${fingerprint}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE "${OUTPUT}" "${content}")
endif()
