# Fully static LLVM and MLIR, for the portable GPU bundle (design.md §7).
#
# Debian's MLIR static libraries name the LLVM shared library (and sometimes
# libMLIR.so) as an interface dependency, and LLVMSupport names libz3. On a
# GPU host without LLVM 22 those cannot be found, so every imported MLIR
# target gets the static LLVM component libraries instead and libz3 is
# dropped (Spio does not use LLVM's SMT solver). Include after
# find_package(MLIR); LLVM_LINK_LLVM_DYLIB must be OFF before AddLLVM.

llvm_map_components_to_libnames(SPIO_STATIC_LLVM_LIBS
  core support passes nvptxcodegen nvptxdesc nvptxinfo irreader bitreader
  bitwriter linker target targetparser mc analysis transformutils ipo
  instcombine scalaropts vectorize frontendopenmp asmparser)

foreach(target ${MLIR_EXPORTED_TARGETS})
  if(NOT TARGET ${target})
    continue()
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "STATIC_LIBRARY")
    continue()
  endif()
  get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT deps)
    continue()
  endif()
  set(had_llvm OFF)
  if("LLVM" IN_LIST deps OR "$<LINK_ONLY:LLVM>" IN_LIST deps)
    set(had_llvm ON)
  endif()
  list(REMOVE_ITEM deps "LLVM" "MLIR" "$<LINK_ONLY:LLVM>")
  if(had_llvm)
    list(APPEND deps ${SPIO_STATIC_LLVM_LIBS})
  endif()
  set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${deps}")
endforeach()

get_target_property(support_deps LLVMSupport INTERFACE_LINK_LIBRARIES)
list(FILTER support_deps EXCLUDE REGEX "libz3")
set_target_properties(LLVMSupport PROPERTIES INTERFACE_LINK_LIBRARIES "${support_deps}")
