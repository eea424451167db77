# decodeprof_add_library(<module> SOURCES ... [DEPS ...])
#   Builds the static library decodeprof_<module> (alias decodeprof::<module>). DEPS are
#   linked PUBLIC: they are the module's edges in the dependency rules of style.md 7.2.
function(decodeprof_add_library module)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(decodeprof_${module} STATIC ${ARG_SOURCES})
  add_library(decodeprof::${module} ALIAS decodeprof_${module})
  target_link_libraries(decodeprof_${module} PUBLIC decodeprof::build_flags ${ARG_DEPS})
endfunction()

# decodeprof_add_test(<name> SOURCES ... DEPS ... [THREADS] [COST <n>])
#   A GoogleTest executable whose cases are registered with CTest one by one, or a suite at a
#   time with DECODEPROF_TEST_PER_SUITE (the ci and tsan presets). THREADS marks a
#   test of code that runs threads (the recorder's drain and gate, the guard's sampler): its
#   cases get the CTest label `threads`, and the tsan preset builds and runs them
#   (decodeprof_threads_tests). COST gives each case CTest's COST (started first when high).
function(decodeprof_add_test name)
  if(NOT DECODEPROF_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "THREADS" "COST" "SOURCES;DEPS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE decodeprof::build_flags ${ARG_DEPS} GTest::gtest
                                        GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE
                             DECODEPROF_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                             DECODEPROF_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set(labels "")
  if(ARG_THREADS)
    set(labels threads)
    set_property(GLOBAL APPEND PROPERTY DECODEPROF_THREADS_TESTS ${name})
  endif()
  # COST: CTest starts the costliest tests first, so that a clean tree (no timings kept yet)
  # does not end on one long test with the other cores idle. Default 0.
  if(NOT ARG_COST)
    set(ARG_COST 0)
  endif()
  if(NOT DECODEPROF_TEST_PER_SUITE)
    # An empty LABELS would vanish from the list and make COST a label: given only when set.
    set(label_property "")
    if(labels)
      set(label_property LABELS "${labels}")
    endif()
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
                         PROPERTIES ENVIRONMENT "DECODEPROF_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
                                    ${label_property} COST ${ARG_COST})
    return()
  endif()
  # A CTest test a suite (cmake/DecodeprofTestSuites.cmake), listed after each link; until the
  # executable is built, one test that says so.
  string(REGEX REPLACE "^decodeprof_(.*)_tests$" "\\1" short "${name}")
  set(suites "${CMAKE_CURRENT_BINARY_DIR}/${name}_suites.cmake")
  add_custom_command(
    TARGET ${name} POST_BUILD BYPRODUCTS "${suites}"
    COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:${name}> -DSHORT=${short} -DOUT=${suites}
            "-DENV=DECODEPROF_SOURCE_DIR=${PROJECT_SOURCE_DIR}" "-DLABELS=${labels}"
            -DCOST=${ARG_COST} -P ${PROJECT_SOURCE_DIR}/cmake/DecodeprofTestSuites.cmake
    VERBATIM)
  # Linked again (and listed again) when the script changes.
  set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS
                                              "${PROJECT_SOURCE_DIR}/cmake/DecodeprofTestSuites.cmake")
  set(include "${CMAKE_CURRENT_BINARY_DIR}/${name}_suites_include.cmake")
  file(WRITE "${include}"
       "if(EXISTS [=[${suites}]=])\n  include([=[${suites}]=])\nelse()\n"
       "  add_test([=[${name}_NOT_BUILT]=] [=[${name}_NOT_BUILT]=])\nendif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include}")
endfunction()

# decodeprof_find_static_or_shared(<lib> <header>)
#   Defines the imported target decodeprof::<lib>. With DECODEPROF_STATIC_LINK the Debian
#   archive (lib<lib>.a) is preferred, so the binary runs on machines without the package.
function(decodeprof_find_static_or_shared lib header)
  find_path(${lib}_INCLUDE_DIR ${header} REQUIRED)
  if(DECODEPROF_STATIC_LINK AND NOT DECODEPROF_SANITIZE)
    find_library(${lib}_LIBRARY NAMES lib${lib}.a ${lib} REQUIRED)
  else()
    find_library(${lib}_LIBRARY NAMES ${lib} REQUIRED)
  endif()
  add_library(decodeprof::${lib} UNKNOWN IMPORTED GLOBAL)
  set_target_properties(decodeprof::${lib} PROPERTIES
                        IMPORTED_LOCATION "${${lib}_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${${lib}_INCLUDE_DIR}")
  if(lib STREQUAL "sqlite3" OR lib STREQUAL "re2")
    set_property(TARGET decodeprof::${lib} APPEND PROPERTY INTERFACE_LINK_LIBRARIES
                 Threads::Threads ${CMAKE_DL_LIBS} m)
  endif()
endfunction()
