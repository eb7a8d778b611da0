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
expect(2 "expected a positive duration" tune "${MODEL}" --target llvm --time 10x -o "${LOG}")
expect(2 "expected xgb .* or random" tune "${MODEL}" --target llvm --trials 2 --tuner grid -o "${LOG}")
expect(2 "give --rpc too" tune "${MODEL}" --target llvm --trials 2 --key k -o "${LOG}")
expect(2 "runs elsewhere.*--rpc HOST:PORT" tune "${MODEL}" --target wasm --trials 2 -o "${LOG}")
expect(2 "neither an ONNX file nor a built-in network" tune resnet19 --target llvm --trials 2 -o "${LOG}")
expect(2 "required" tune "${MODEL}" --target llvm --trials 2)
