# A lean process image for the launcher (docs/design.md, Peak RSS and its
# floor): refbench re-executes itself to spawn every benchmarked command, and
# every page the launcher has touched counts in each command's peak RSS. A
# position-dependent executable needs no load-time relocation of its own data,
# and a static libstdc++ maps only the parts in use: together they keep that
# floor small.
function(refbench_lean target)
  if(NOT REFBENCH_SANITIZE)
    set_property(TARGET ${target} PROPERTY POSITION_INDEPENDENT_CODE OFF)
    target_compile_options(${target} PRIVATE -fno-pie)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      target_link_options(${target} PRIVATE -no-pie -static-libstdc++ -static-libgcc)
    endif()
  endif()
endfunction()
