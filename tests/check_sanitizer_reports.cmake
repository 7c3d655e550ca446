# The two ends of the sanitizer tree's report check (see tests/CMakeLists.txt):
# -DCLEAR=ON empties REPORTS before the tests run; without it, fails (printing them) if any
# sanitizer report was written to REPORTS by the tests that ran before it.
if(CLEAR)
  file(REMOVE_RECURSE "${REPORTS}")
  file(MAKE_DIRECTORY "${REPORTS}")
  return()
endif()
file(GLOB reports "${REPORTS}/*")
if(reports)
  foreach(report ${reports})
    file(READ ${report} text)
    message("${report}:\n${text}")
  endforeach()
  list(LENGTH reports count)
  message(FATAL_ERROR "${count} sanitizer report(s)")
endif()
message("no sanitizer reports")
