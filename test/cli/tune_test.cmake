# `tensorir tune` end to end: cmake -DTENSORIR=<exe> -DWORK=<dir> -DMODEL=<model> -P tune_test.cmake
# (MODEL: a small ONNX model or a built-in network with tunable kernels). A few trials per
# task go to a log, one JSON line each; mistakes in the arguments are usage errors.
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
include("${CMAKE_CURRENT_LIST_DIR}/expect.cmake")

set(LOG "${WORK}/tune.log")
# (stdout, then stderr: the summary table, then the progress lines)
expect(0 "tasks, measured here.*task +trials +errors.*appended [0-9]+ records.*\\[task 1/[0-9]+\\].*3/3 trials, best.*GFLOP/s"
       tune "${MODEL}" --target llvm --trials 3 --batch 2 --tuner random --threads 1 -o "${LOG}")
file(STRINGS "${LOG}" lines)
list(LENGTH lines n)
if(n LESS 3)
  message(FATAL_ERROR "tune wrote ${n} records, expected at least 3 (3 trials per task)")
endif()
foreach(line IN LISTS lines)
  if(NOT line MATCHES "^\\{.*\"workload\".*\"index\".*\\}$")
    message(FATAL_ERROR "tune wrote a malformed record: ${line}")
  endif()
endforeach()
# The cost model's search, and a time budget: records are appended to the same log, and
# the log is checked in the model (where a best configuration is not the default).
expect(0 "appended [0-9]+ records.*(nothing to check in the model|records timed in the model appended)"
       tune "${MODEL}" --target llvm --time 5s --batch 2 --threads 1 -o "${LOG}")
file(STRINGS "${LOG}" more)
list(LENGTH more m)
if(NOT m GREATER n)
  message(FATAL_ERROR "a second run appended nothing to the log (${n} records before, ${m} after)")
endif()

# Kernels timed hot (back to back, nothing flushed from the caches) log records alike.
expect(0 "appended [0-9]+ records" tune "${MODEL}" --target llvm --trials 2 --batch 2 --tuner random --threads 1
       --no-cache-flush --no-model-check -o "${LOG}")

# The log applies: compile schedules each kernel by its workload's best configuration.
expect(0 "saved in" compile "${MODEL}" --target llvm --tuning-log "${LOG}" -o "${WORK}/tuned")

# Mistakes: each a message and exit status 2.
expect(2 "give --trials N or --time" tune "${MODEL}" --target llvm -o "${LOG}")
expect(2 "excludes" tune "${MODEL}" --target llvm --trials 2 --time 1m -o "${LOG}")
expect(2 "--time: 10x is not a duration from 1s to" tune "${MODEL}" --target llvm --time 10x -o "${LOG}")
expect(2 "expected xgb .* or random" tune "${MODEL}" --target llvm --trials 2 --tuner grid -o "${LOG}")
expect(2 "give --rpc too" tune "${MODEL}" --target llvm --trials 2 --key k -o "${LOG}")
expect(2 "runs elsewhere.*--rpc HOST:PORT" tune "${MODEL}" --target wasm --trials 2 -o "${LOG}")
expect(2 "neither an ONNX file nor a built-in network" tune resnet19 --target llvm --trials 2 -o "${LOG}")
expect(2 "required" tune "${MODEL}" --target llvm --trials 2)
# Numbers out of range, or not written as plain decimals (0x10, 1e-9, inf, nan): each
# named with the range it must be in.
expect(2 "--trials: 0 is not a whole number from 1 to [0-9]+\n" tune "${MODEL}" --target llvm --trials 0 -o "${LOG}")
expect(2 "--threads: 2000 is not a whole number from 1 to 1024\n" tune "${MODEL}" --target llvm --trials 2
       --threads 2000 -o "${LOG}")
expect(2 "--batch: 1.5 is not a whole number from 1 to" tune "${MODEL}" --target llvm --trials 2 --batch 1.5
       -o "${LOG}")
expect(2 "--confirm: -1 is not a whole number from 0 to" tune "${MODEL}" --target llvm --trials 2 --confirm -1
       -o "${LOG}")
expect(2 "--seed: 0x10 is not a whole number from 0 to" tune "${MODEL}" --target llvm --trials 2 --seed 0x10
       -o "${LOG}")
expect(2 "--timeout: inf is not a number of seconds above 0 and at most [0-9]+\n" tune "${MODEL}" --target llvm
       --trials 2 --timeout inf -o "${LOG}")
expect(2 "--timeout: nan is not a number of seconds" tune "${MODEL}" --target llvm --trials 2 --timeout nan -o "${LOG}")
expect(2 "--time: 0x10 is not a duration from 1s to" tune "${MODEL}" --target llvm --time 0x10 -o "${LOG}")
expect(2 "--time: 1e-9 is not a duration from 1s to" tune "${MODEL}" --target llvm --time 1e-9 -o "${LOG}")
expect(2 "--time: 0.5s is not a duration from 1s to" tune "${MODEL}" --target llvm --time 0.5s -o "${LOG}")
# A run that fails before it measures anything (nothing listens on port 1) leaves no empty
# log behind.
expect(1 "127.0.0.1:1" tune "${MODEL}" --target llvm --trials 2 --rpc 127.0.0.1:1 --key k -o "${WORK}/never.log")
if(EXISTS "${WORK}/never.log")
  message(FATAL_ERROR "a tune that failed before measuring left its new log '${WORK}/never.log' behind")
endif()
# A port outside 1..65535 in --rpc is refused, not wrapped around (99999 is 34463 mod 65536).
expect(1 "RPC address '127.0.0.1:99999': the port '99999' is not a number from 1 to 65535" tune "${MODEL}"
       --target llvm --trials 2 --rpc 127.0.0.1:99999 --key k -o "${LOG}")

# The log is checked before any work (^: nothing printed before the error): it must open
# for appending, and read back whole. A last line without its newline is one cut off (a
# run stopped while writing): a record appended would be glued onto it.
string(CONCAT record "{\"version\":1,\"workload\":\"{}\",\"target\":\"llvm\",\"cpu\":\"\",\"index\":0,"
       "\"config\":{},\"times_ms\":[1.0],\"error\":\"\",\"timestamp\":0}")
file(WRITE "${WORK}/cut.log" "${record}\n{\"version\":1,\"work")
expect(1 "^tensorir: the log '[^']*cut.log' ends in a cut-off line \\(line 2 has no newline at its end\\): repair"
       tune "${MODEL}" --target llvm --trials 1 -o "${WORK}/cut.log")
file(READ "${WORK}/cut.log" after)
if(NOT after STREQUAL "${record}\n{\"version\":1,\"work")
  message(FATAL_ERROR "tune wrote to a log whose last line is cut off")
endif()
file(WRITE "${WORK}/whole.log" "${record}")
expect(1 "^tensorir: the log '[^']*whole.log' ends in a cut-off line \\(line 1 " tune "${MODEL}" --target llvm
       --trials 1 -o "${WORK}/whole.log")
file(WRITE "${WORK}/corrupt.log" "not a record\n${record}\n")
expect(1 "^tensorir: tuning log '[^']*corrupt.log' line 1: not JSON" tune "${MODEL}" --target llvm --trials 1
       -o "${WORK}/corrupt.log")
expect(1 "^tensorir: cannot open the log '[^']*nodir/x.log' for appending" tune "${MODEL}" --target llvm --trials 1
       -o "${WORK}/nodir/x.log")
expect(2 "^tensorir: the log '[^']*' is a directory" tune "${MODEL}" --target llvm --trials 1 -o "${WORK}")
# (an empty argument: expect() would drop it)
execute_process(COMMAND "${TENSORIR}" tune "${MODEL}" --target llvm --trials 1 -o "" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT "${out}${err}" MATCHES "^tensorir: -o '': give the file to append the log to")
  message(FATAL_ERROR "tensorir tune -o '': exit status ${rc}, expected 2 and a message before any work:\n${out}${err}")
endif()

# A budget too short for a first batch of each task: the tasks that measured nothing are
# counted, with what would measure them.
expect(0 "[0-9]+ of [0-9]+ tasks measured no configuration: a longer --time would give each a first batch" tune resnet18
       --target llvm --time 1s --batch 2 --threads 1 --tuner random --no-model-check -o "${WORK}/resnet18.log")
