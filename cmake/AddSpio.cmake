# Spio's libraries and tools as a CMake package: find_package(Spio) gives
# consumers Spio::<target> with its headers and link dependencies.

# Exports `target` (a library or tool) in SpioTargets: installed under the
# prefix, and with Spio's include directories as usage requirements.
function(spio_export target)
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "EXECUTABLE")
    target_include_directories(${target} PUBLIC
      $<BUILD_INTERFACE:${SPIO_SOURCE_DIR}/include>
      $<BUILD_INTERFACE:${SPIO_BINARY_DIR}/include>
      $<INSTALL_INTERFACE:include>)
  endif()
  install(TARGETS ${target} EXPORT SpioTargets
    ARCHIVE DESTINATION lib
    LIBRARY DESTINATION lib
    RUNTIME DESTINATION bin)
  set_property(GLOBAL APPEND PROPERTY SPIO_EXPORTED_TARGETS ${target})
endfunction()
