# The `tensorir` command line end to end: cmake -DTENSORIR=<exe> -DWORK=<dir> -DCASES=<dir> -P cli_test.cmake
# (CASES: the ONNX backend test data's node folder). Each step checks the exit status and
# what is printed; a failure stops with the command and its output.
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

include("${CMAKE_CURRENT_LIST_DIR}/expect.cmake")

# A built-in network saved for the CPU, run from its directory and compiled in place: the
# same bits either way.
expect(0 "saved in" compile resnet18 --target llvm -o "${WORK}/resnet18")
expect(0 "output '[^']+': \\[1, 1000\\] float32.*wrote.*latency: median.*total" run "${WORK}/resnet18" -o "${WORK}/saved_out" --repeat 2 --profile)
expect(0 "latency: median" run resnet18 --target llvm -o "${WORK}/jit_out" --repeat 1)
file(GLOB saved RELATIVE "${WORK}/saved_out" "${WORK}/saved_out/*.npy")
execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${WORK}/saved_out/${saved}" "${WORK}/jit_out/${saved}"
                RESULT_VARIABLE same)
if(NOT saved OR NOT same EQUAL 0)
  message(FATAL_ERROR "the saved model's output differs from the compiled model's")
endif()
# A web package holding both builds.
expect(0 "one package per target" compile resnet18 --target webgl --target wasm -o "${WORK}/web")
if(NOT EXISTS "${WORK}/web/model.json" OR NOT EXISTS "${WORK}/web/index.html")
  message(FATAL_ERROR "compile --target webgl --target wasm wrote no package")
endif()

# ONNX backend test cases: pass, inspected, run from .pb inputs.
expect(0 "PASS" test "${CASES}/test_relu/model.onnx" --data-dir "${CASES}/test_relu/test_data_set_0")
expect(0 "every node can be imported" info "${CASES}/test_relu/model.onnx")
expect(0 "wrote" run "${CASES}/test_relu/model.onnx" -i "x=${CASES}/test_relu/test_data_set_0/input_0.pb"
       -o "${WORK}/relu_out")
# A target shape given as a graph input: run and test take it at run time, info lists it,
# compile needs it fixed at import.
set(RESHAPE "${CASES}/test_reshape_negative_dim")
expect(0 "PASS" test "${RESHAPE}/model.onnx" --data-dir "${RESHAPE}/test_data_set_0")
expect(0 "shape inputs [^\n]*: shape" info "${RESHAPE}/model.onnx")
expect(0 "once per value of its shape inputs \\(shape\\).*output 'reshaped': \\[2, 6, 2\\]" run "${RESHAPE}/model.onnx"
       -i "shape=${RESHAPE}/test_data_set_0/input_1.pb")
expect(2 "input 'shape' decides shapes.*--input shape=FILE" run "${RESHAPE}/model.onnx")
expect(1 "input 'shape' decides shapes.*--input-value" compile "${RESHAPE}/model.onnx" --target llvm -o "${WORK}/x")
expect(0 "PASS" test "${RESHAPE}/model.onnx" --data-dir "${RESHAPE}/test_data_set_0"
       --input-value "shape=${RESHAPE}/test_data_set_0/input_1.pb")
expect(2 "expected NAME=FILE" test "${RESHAPE}/model.onnx" --data-dir "${RESHAPE}/test_data_set_0" --input-value shape)
# A tolerance no float result meets fails with the worst element.
expect(1 "FAIL.*worst at" test "${CASES}/test_sigmoid/model.onnx" --data-dir "${CASES}/test_sigmoid/test_data_set_0"
       --rtol 0 --atol -1)

# Mistakes: each a message and exit status 2 (usage) or 1 (the model).
expect(2 "neither an ONNX file nor a built-in network" compile resnet19 --target llvm -o "${WORK}/x")
expect(2 "compile writes a saved model for one of" compile resnet18 --target llvm --target wasm -o "${WORK}/x")
expect(2 "is not a positive dimension" compile "${CASES}/test_relu/model.onnx" --input-shape x=3,0 --target llvm
       -o "${WORK}/x")
expect(2 "the model has no input 'y'" run "${CASES}/test_relu/model.onnx" -i "y=${WORK}/none.npy")
expect(2 "is a web package, not a saved model" run "${WORK}/web")
expect(1 "unknown option '-nope'" compile resnet18 --target "llvm -nope=1" -o "${WORK}/x")
file(WRITE "${WORK}/broken.onnx" "not a model")
expect(1 "broken.onnx" info "${WORK}/broken.onnx")
expect(2 "required" compile resnet18)

# Tuning logs: a malformed line is an error naming the file and line; a log measured on
# a CPU with other vector features is ignored with a warning.
file(WRITE "${WORK}/corrupt.log" "{\"version\": 1,\n")
expect(1 "corrupt.log' line 1: not JSON" compile resnet18 --target llvm --tuning-log "${WORK}/corrupt.log"
       -o "${WORK}/x")
expect(2 "none.log" compile resnet18 --target llvm --tuning-log "${WORK}/none.log" -o "${WORK}/x")
file(WRITE "${WORK}/foreign.log" "{\"version\":1,\"workload\":\"{}\",\"target\":\"llvm\",\"cpu\":\"+future\",\"index\":0,"
           "\"config\":{},\"times_ms\":[1.0],\"error\":\"\",\"timestamp\":0}\n")
expect(0 "saved in.*warning: tuning log '[^']*foreign.log': 1 of its 1 records.*ignored" compile resnet18
       --target llvm --tuning-log "${WORK}/foreign.log" -o "${WORK}/tuned")
