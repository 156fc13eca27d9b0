# Warning flags for the project's own targets.
# Aggregates are often initialised partly on purpose (defaults for the rest).
set(REFBENCH_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wno-missing-field-initializers)
if(REFBENCH_WERROR)
  list(APPEND REFBENCH_WARNINGS -Werror)
endif()

function(refbench_warnings target)
  target_compile_options(${target} PRIVATE ${REFBENCH_WARNINGS})
endfunction()
