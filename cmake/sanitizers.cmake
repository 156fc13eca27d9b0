# ASan + UBSan for every target when REFBENCH_SANITIZE is on.
if(REFBENCH_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
