#
# tracer_check_sha256(FILE EXPECTED): stops the configure if FILE's SHA-256
# is not EXPECTED, removing FILE so that the next configure fetches it
# again (cmake/SqliteAmalgamation.cmake, cmake/DuckDb.cmake).
#
function(tracer_check_sha256 File Expected)
  file(SHA256 ${File} Actual)
  if(NOT Actual STREQUAL Expected)
    file(REMOVE ${File})   # fetched again at the next configure
    message(FATAL_ERROR "${File}: SHA-256 ${Actual}, expected ${Expected}")
  endif()
endfunction()
