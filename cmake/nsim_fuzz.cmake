# What the libFuzzer projects (isa/fuzz, sim/fuzz, kernels/fuzz) share. Each is a project of its own,
# configured with clang++ by the test suite's short runs (tests/fuzz_smoke.sh) and by
# tools/scripts/fuzz.sh, whatever compiler the main build uses; include() this after project().
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "fuzzers need clang (libFuzzer); configure with -DCMAKE_CXX_COMPILER=clang++")
endif()
get_filename_component(NSIM_ROOT ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)

# nsim_fuzz_target(NAME SOURCES... [INCLUDES...] [DEFINITIONS...] [LIBRARIES...]): a libFuzzer
# executable under AddressSanitizer and UndefinedBehaviorSanitizer. UB does not recover, so libFuzzer
# keeps it as a crash with its reproducer instead of printing a report and going on. -g1: line tables,
# enough for the reports' stack traces (a fuzz build with -g1 and a unity build compiles in 183 s of CPU
# for the four targets, 279 s with -g and one file at a time; measured side by side, load 9-10).
function(nsim_fuzz_target name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;INCLUDES;DEFINITIONS;LIBRARIES")
  set(flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g1 -O1)
  add_executable(${name} ${arg_SOURCES})
  target_include_directories(${name} PRIVATE ${arg_INCLUDES})
  target_compile_definitions(${name} PRIVATE ${arg_DEFINITIONS})
  target_compile_options(${name} PRIVATE ${flags})
  target_link_options(${name} PRIVATE ${flags})
  target_link_libraries(${name} PRIVATE ${arg_LIBRARIES})
endfunction()
