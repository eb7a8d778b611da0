# expect(want pattern ARGS...): runs ${TENSORIR} with ARGS (in ${EXPECT_CWD} when set);
# expects exit status `want` and stdout+stderr matching `pattern`, else stops with the
# command and its output.
function(expect want pattern)
  set(cwd)
  if(EXPECT_CWD)
    set(cwd WORKING_DIRECTORY "${EXPECT_CWD}")
  endif()
  execute_process(COMMAND "${TENSORIR}" ${ARGN} ${cwd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(JOIN " " cmd ${ARGN})
  if(NOT rc STREQUAL "${want}")
    message(FATAL_ERROR "tensorir ${cmd}: exit status ${rc}, expected ${want}\n${out}${err}")
  endif()
  if(NOT "${out}${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "tensorir ${cmd}: output does not match '${pattern}':\n${out}${err}")
  endif()
  message(STATUS "ok: tensorir ${cmd}")
endfunction()
