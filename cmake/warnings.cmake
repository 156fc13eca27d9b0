# Warning flags for the project's own targets.
set(REFBENCH_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion)
if(REFBENCH_WERROR)
  list(APPEND REFBENCH_WARNINGS -Werror)
endif()

function(refbench_warnings target)
  target_compile_options(${target} PRIVATE ${REFBENCH_WARNINGS})
endfunction()
