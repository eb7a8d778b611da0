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
# A saved model takes -t naming its kind, but not other options: its code is compiled.
expect(0 "latency: median" run "${WORK}/resnet18" --target llvm --repeat 1)
expect(2 "was saved for '[^']+', not for 'llvm -mcpu=x86-64-v2'.*compile the model again" run "${WORK}/resnet18"
       --target "llvm -mcpu=x86-64-v2" --repeat 1)
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

# Compiling into an earlier model's directory replaces that model's files and keeps the
# user's; a failed compile leaves it as it was.
expect(0 "saved in" compile "${CASES}/test_relu/model.onnx" --target llvm -o "${WORK}/swap")
file(WRITE "${WORK}/broken_model.onnx" "not a model")
expect(1 "broken_model.onnx" compile "${WORK}/broken_model.onnx" --target wasm -o "${WORK}/swap")
if(NOT EXISTS "${WORK}/swap/model.so")
  message(FATAL_ERROR "a failed compile damaged the model in its output directory")
endif()
expect(0 "model.wasm" compile "${CASES}/test_relu/model.onnx" --target wasm -o "${WORK}/swap/")
if(EXISTS "${WORK}/swap/model.so" OR NOT EXISTS "${WORK}/swap/model.wasm")
  message(FATAL_ERROR "compile left the earlier model's files beside the new one")
endif()
file(WRITE "${WORK}/swap/notes.txt" "mine")
expect(0 "saved in" compile "${CASES}/test_relu/model.onnx" --target llvm -o "${WORK}/swap")
if(EXISTS "${WORK}/swap/model.wasm" OR EXISTS "${WORK}/swap/index.html" OR NOT EXISTS "${WORK}/swap/model.so"
   OR NOT EXISTS "${WORK}/swap/notes.txt")
  message(FATAL_ERROR "replacing the web package by a saved model kept its files or removed the user's")
endif()
# A saved model replaced by another keeps the user's index.html and tensorir/, which a
# saved model never writes; a directory whose model.json is the user's own loses nothing
# but that model.json.
file(WRITE "${WORK}/swap/index.html" "mine")
file(WRITE "${WORK}/swap/tensorir/app.js" "mine")
expect(0 "saved in" compile "${CASES}/test_relu/model.onnx" --target llvm -o "${WORK}/swap")
if(NOT EXISTS "${WORK}/swap/index.html" OR NOT EXISTS "${WORK}/swap/tensorir/app.js")
  message(FATAL_ERROR "replacing a saved model removed files of the user's that a saved model never writes")
endif()
file(WRITE "${WORK}/app/model.json" "{\"app\": 1}")
file(WRITE "${WORK}/app/index.html" "mine")
file(WRITE "${WORK}/app/webgl/shader.glsl" "mine")
file(WRITE "${WORK}/app/model.txt" "mine")
expect(0 "saved in" compile "${CASES}/test_relu/model.onnx" --target llvm -o "${WORK}/app")
if(NOT EXISTS "${WORK}/app/index.html" OR NOT EXISTS "${WORK}/app/webgl/shader.glsl" OR NOT EXISTS "${WORK}/app/model.so")
  message(FATAL_ERROR "compile took a model.json of the user's for an earlier model and removed the user's files")
endif()
file(GLOB partial LIST_DIRECTORIES true "${WORK}/swap/.tensorir-partial-*")
if(partial)
  message(FATAL_ERROR "compile left its working directory behind: ${partial}")
endif()

# ONNX backend test cases: pass, inspected, run from .pb inputs.
expect(0 "PASS" test "${CASES}/test_relu/model.onnx" --data-dir "${CASES}/test_relu/test_data_set_0")
expect(0 "every node can be imported" info "${CASES}/test_relu/model.onnx")
# What cannot be imported: by the operator alone, for the whole model, or found converting.
expect(1 "Bernoulli +1\nparameters: 0\n1 nodes cannot be imported:\n  y \\(Bernoulli\\): no converter" info
       "${CASES}/test_bernoulli/model.onnx")
expect(1 "the model: the model imports no ai.onnx opset" info "${CASES}/test_adam/model.onnx")
# A Compress of a condition given at run time: run and test compute it between stages of
# the model, info says so, compile cannot save it.
set(COMPRESS "${CASES}/test_compress_0")
expect(0 "every node can be run: in stages around node 'output' \\(Compress\\)" info "${COMPRESS}/model.onnx")
expect(0 "PASS" test "${COMPRESS}/model.onnx" --data-dir "${COMPRESS}/test_data_set_0")
expect(1 "condition 'condition' is computed at run time.*compute it between stages" compile "${COMPRESS}/model.onnx"
       --target llvm -o "${WORK}/compress")
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
# A symbolic dimension is bound with --input-shape (fixing the input's value would make
# it a constant).
execute_process(COMMAND "${MAKE_SYMBOLIC_MODEL}" "${WORK}/symbolic.onnx" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${MAKE_SYMBOLIC_MODEL} could not write a model (exit ${rc})")
endif()
expect(1 "input 'x' has symbolic dimensions: bind them with --input-shape" compile "${WORK}/symbolic.onnx"
       --target llvm -o "${WORK}/x")
expect(0 "saved in" compile "${WORK}/symbolic.onnx" --input-shape x=2,3 --target llvm -o "${WORK}/symbolic")
# -o names a directory that can be made, checked before the model runs.
expect(2 "-o '/proc/tensorir_out': cannot create the directory" run "${CASES}/test_relu/model.onnx" -o /proc/tensorir_out)
# Kernels that run only in a browser are refused before anything compiles.
expect(2 "--target wasm: its kernels run in a browser.*tensorir compile .* --target wasm -o DIR" run
       "${CASES}/test_relu/model.onnx" --target wasm)
expect(0 "PASS" test "${RESHAPE}/model.onnx" --data-dir "${RESHAPE}/test_data_set_0"
       --input-value "shape=${RESHAPE}/test_data_set_0/input_1.pb")
expect(2 "expected NAME=FILE" test "${RESHAPE}/model.onnx" --data-dir "${RESHAPE}/test_data_set_0" --input-value shape)
# Results that differ (Relu's against Sigmoid's) fail with the worst element.
expect(1 "FAIL.*worst at" test "${CASES}/test_relu/model.onnx" --data-dir "${CASES}/test_sigmoid/test_data_set_0"
       --rtol 0 --atol 0)
# Tolerances are finite and not negative.
expect(2 "--atol: inf is not a finite number >= 0" test "${CASES}/test_relu/model.onnx" --data-dir
       "${CASES}/test_relu/test_data_set_0" --atol inf)
expect(2 "--atol: -1 is not a finite number >= 0" test "${CASES}/test_relu/model.onnx" --data-dir
       "${CASES}/test_relu/test_data_set_0" --atol -1)
expect(2 "--rtol: nan is not a finite number >= 0" test "${CASES}/test_relu/model.onnx" --data-dir
       "${CASES}/test_relu/test_data_set_0" --rtol nan)
# An expected output of another data type fails, whatever its values: Greater's bool
# results (0 and 1, within --atol 10 of Relu's), and float16 ones where the model
# computes float32 (read, they are float32 arrays too).
file(MAKE_DIRECTORY "${WORK}/relu_bool" "${WORK}/cast_half")
file(COPY "${CASES}/test_relu/test_data_set_0/input_0.pb" "${CASES}/test_greater/test_data_set_0/output_0.pb"
     DESTINATION "${WORK}/relu_bool")
expect(1 "output 'y': FAIL: data type float32, expected bool.*FAIL" test "${CASES}/test_relu/model.onnx"
       --data-dir "${WORK}/relu_bool" --atol 10)
file(COPY "${CASES}/test_cast_FLOAT16_to_FLOAT/test_data_set_0/input_0.pb"
     "${CASES}/test_cast_FLOAT_to_FLOAT16/test_data_set_0/output_0.pb" DESTINATION "${WORK}/cast_half")
expect(1 "output 'output': FAIL: data type float32, expected float16" test
       "${CASES}/test_cast_FLOAT16_to_FLOAT/model.onnx" --data-dir "${WORK}/cast_half" --atol 10)
# A float16 .npy input is widened to float32, as a float16 .pb is: NumPy's
# np.array([0.5, -2, 1.5, 0.33325, 3, 0.25, 7, -0.125, 2.5, 1, 65504, -8], np.float16)
# .reshape(3, 4), written byte by byte (printf, since CMake's strings cannot hold NUL).
set(half_header "{'descr': '<f2', 'fortran_order': False, 'shape': (3, 4), }")
string(REPEAT " " 58 half_pad)
execute_process(COMMAND printf "\\x93NUMPY\\x01\\x00\\x76\\x00%s\\n\\x00\\x38\\x00\\xc0\\x00\\x3e\\x55\\x35\\x00\\x42\\x00\\x34\\x00\\x47\\x00\\xb0\\x00\\x41\\x00\\x3c\\xff\\x7b\\x00\\xc8"
                        "${half_header}${half_pad}" OUTPUT_FILE "${WORK}/half.npy" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "printf could not write ${WORK}/half.npy (exit ${rc})")
endif()
expect(0 "output 'output': \\[3, 4\\] float32, min -8, max 65504, mean 5459.16, argmax 10" run
       "${CASES}/test_cast_FLOAT16_to_FLOAT/model.onnx" --input "input=${WORK}/half.npy")
# A saved model's float16 input takes the float16 array as it is.
file(REMOVE_RECURSE "${WORK}/half_model")
execute_process(COMMAND "${MAKE_HALF_MODEL}" "${WORK}/half_model" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${MAKE_HALF_MODEL} could not save a model with a float16 input (exit ${rc})")
endif()
expect(0 "output 'y': \\[3, 4\\] float32, min -8, max 65504, mean 5459.16, argmax 10" run "${WORK}/half_model"
       --input "h=${WORK}/half.npy")
# A float16 .pb (read as float32, as for ONNX models) is narrowed back for it, exactly.
expect(0 "output 'y': \\[3, 4\\] float32" run "${WORK}/half_model"
       --input "h=${CASES}/test_cast_FLOAT16_to_FLOAT/test_data_set_0/input_0.pb")

# Mistakes: each a message and exit status 2 (usage) or 1 (the model).
expect(2 "neither an ONNX file nor a built-in network" compile resnet19 --target llvm -o "${WORK}/new/a/b")
# Interrupted while compiling (Ctrl-C, SIGTERM): the directories made for -o and the
# hidden staging one go; one that was there stays. ResNet-50 takes seconds to build.
file(REMOVE_RECURSE "${WORK}/interrupted")
file(MAKE_DIRECTORY "${WORK}/interrupted/there")
foreach(sig INT TERM)
  execute_process(COMMAND timeout -s ${sig} 1 "${TENSORIR}" compile resnet50 --target llvm
                          -o "${WORK}/interrupted/there/new/out" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  file(GLOB_RECURSE left LIST_DIRECTORIES true "${WORK}/interrupted/*")
  if(NOT rc EQUAL 124 OR NOT left STREQUAL "${WORK}/interrupted/there")
    message(FATAL_ERROR "compile stopped by SIG${sig} (exit ${rc}, 124 if stopped) left: ${left}")
  endif()
  message(STATUS "ok: compile stopped by SIG${sig} left only what was there")
endforeach()
# A signal the caller ignores (nohup's SIGHUP, SIGINT of a background job) stays ignored:
# the compile goes on to the end.
execute_process(COMMAND timeout -s INT 1 sh -c "trap '' INT; exec \"$0\" compile resnet50 --target llvm -o \"$1\""
                        "${TENSORIR}" "${WORK}/interrupted/there/ignored" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT EXISTS "${WORK}/interrupted/there/ignored/model.so")
  message(FATAL_ERROR "compile with SIGINT ignored was stopped by SIGINT (exit ${rc})")
endif()
message(STATUS "ok: compile with SIGINT ignored went on to the end")

# A built-in network's name is the network for run as for compile, even beside a file of
# that name; "./resnet18" is the file.
file(MAKE_DIRECTORY "${WORK}/beside")
file(WRITE "${WORK}/beside/resnet18" "not a model")
set(EXPECT_CWD "${WORK}/beside")
expect(0 "resnet18 compiled for llvm.*output '[^']+': \\[1, 1000\\] float32" run resnet18)
expect(1 "resnet18" run ./resnet18)
unset(EXPECT_CWD)
if(EXISTS "${WORK}/new")
  message(FATAL_ERROR "a failed compile left the directories it created for -o")
endif()
expect(2 "compile writes a saved model for one of" compile resnet18 --target llvm --target wasm -o "${WORK}/x")
expect(2 "are both webgl: a package holds one build per kind" compile "${CASES}/test_relu/model.onnx"
       --target webgl --target "webgl -draw-buffers=8" -o "${WORK}/x")
expect(2 "--input gives input 'x' twice" run "${CASES}/test_relu/model.onnx"
       -i "x=${CASES}/test_relu/test_data_set_0/input_0.pb" -i "x=${CASES}/test_relu/test_data_set_0/input_0.pb")
file(WRITE "${WORK}/a_file" "")
expect(2 "-o '[^']*a_file' exists and is not a directory" run "${CASES}/test_relu/model.onnx" -o "${WORK}/a_file")
# A file in the way of -o's directories: refused before anything runs or is compiled.
foreach(cmd run compile)
  expect(2 "-o '[^']*a_file/sub': '[^']*a_file' is a file, not a directory" ${cmd} "${CASES}/test_relu/model.onnx"
         -t llvm -o "${WORK}/a_file/sub")
endforeach()
expect(2 "-o '[^']*a_file' exists and is not a directory" compile "${CASES}/test_relu/model.onnx" -t llvm
       -o "${WORK}/a_file")
expect(2 "is not a positive dimension" compile "${CASES}/test_relu/model.onnx" --input-shape x=3,0 --target llvm
       -o "${WORK}/x")
# A binding that names no input of the model: a usage error listing the inputs, for
# compile (an import) and run (a session) alike.
expect(2 "--input-shape names 'y', which is not an input of '[^']*model.onnx' \\(its inputs: 'x'\\)" compile
       "${CASES}/test_relu/model.onnx" --input-shape y=3,4 --target llvm -o "${WORK}/x")
expect(2 "--input-shape names 'y', which is not an input" run "${CASES}/test_relu/model.onnx" --input-shape y=3,4)
expect(2 "--input-value names 'y', which is not an input of '[^']*model.onnx' \\(its inputs: 'x'\\)" compile
       "${CASES}/test_relu/model.onnx" --input-value "y=${CASES}/test_relu/test_data_set_0/input_0.pb" --target llvm
       -o "${WORK}/x")
# Input bindings for a model whose shapes are fixed: refused, not ignored.
expect(2 "--input-shape binds an ONNX file's inputs.*'resnet18' is a built-in network" compile resnet18
       --input-shape data=2,3,224,224 --target llvm -o "${WORK}/x")
expect(2 "--input-value binds an ONNX file's inputs.*is a saved model" run "${WORK}/resnet18"
       --input-value "data=${WORK}/none.npy")
expect(2 "--seed seeds a built-in network's weights.*is an ONNX model" run "${CASES}/test_relu/model.onnx" --seed 3)
expect(2 "--seed seeds a built-in network's weights.*is a saved model" run "${WORK}/resnet18" --seed 0)
expect(2 "the model has no input 'y'" run "${CASES}/test_relu/model.onnx" -i "y=${WORK}/none.npy")
expect(2 "is a web package, not a saved model" run "${WORK}/web")
expect(1 "unknown option '-nope'" compile resnet18 --target "llvm -nope=1" -o "${WORK}/x")
file(WRITE "${WORK}/broken.onnx" "not a model")
expect(1 "broken.onnx" info "${WORK}/broken.onnx")
expect(2 "required" compile resnet18)
# Numbers out of range, or not written as plain decimals: each named with its range.
expect(2 "--repeat: -1 is not a whole number from 0 to [0-9]+\n" run resnet18 --repeat -1)
expect(2 "--seed: -1 is not a whole number from 0 to" run resnet18 --seed -1)
expect(2 "--input-seed: 99999999999999999999 is not a whole number" run resnet18 --input-seed 99999999999999999999)
expect(2 "--max-texture-size: 0 is not a whole number from 1 to [0-9]+\n" compile resnet18 --target webgl
       --max-texture-size 0 -o "${WORK}/x")
# Ports and frame sizes of the proxy and the server: refused, not wrapped around (70000
# would listen on 4464) or cast to a limit of 0 bytes.
expect(2 "--port: 70000 is not a whole number from 0 to 65535" rpc server --port 70000)
expect(2 "--port: 70000 is not a whole number from 0 to 65535" rpc proxy --port 70000)
expect(2 "--port: -1 is not a whole number from 0 to 65535" rpc proxy --port -1)
expect(2 "--max-frame-mb: inf is not a whole number from 1 to 1048576" rpc proxy --max-frame-mb inf)
expect(2 "--max-frame-mb: 1e30 is not a whole number from 1 to 1048576" rpc proxy --max-frame-mb 1e30)
expect(2 "--max-frame-mb: 1e-9 is not a whole number from 1 to 1048576" rpc proxy --max-frame-mb 1e-9)
expect(2 "--max-frame-mb: 0 is not a whole number from 1 to 1048576" rpc server --max-frame-mb 0)
expect(1 "RPC address '127.0.0.1:99999': the port '99999' is not a number from 1 to 65535" rpc server --port 0
       --proxy 127.0.0.1:99999)

# Outputs whose names map to one file name (a/b and a_b both to a_b.npy) are refused
# before anything is written. The model is written by protoc from its text form.
find_program(PROTOC protoc)
find_file(ONNX_PROTO onnx/onnx.proto PATHS /usr/include /usr/local/include)
if(NOT PROTOC OR NOT ONNX_PROTO)
  message(FATAL_ERROR "this test writes an ONNX model with protoc and onnx/onnx.proto (Debian protobuf-compiler, "
                      "libonnx-dev): found '${PROTOC}' and '${ONNX_PROTO}'")
endif()
get_filename_component(proto_dir "${ONNX_PROTO}" DIRECTORY)
get_filename_component(proto_dir "${proto_dir}" DIRECTORY)
set(tensor_2 "type { tensor_type { elem_type: 1 shape { dim { dim_value: 2 } } } }")
file(WRITE "${WORK}/colliding.txt" "ir_version: 7 opset_import { version: 13 } graph { name: \"colliding\"
  node { op_type: \"Relu\" input: \"x\" output: \"a/b\" } node { op_type: \"Neg\" input: \"x\" output: \"a_b\" }
  input { name: \"x\" ${tensor_2} } output { name: \"a/b\" ${tensor_2} } output { name: \"a_b\" ${tensor_2} } }\n")
execute_process(COMMAND "${PROTOC}" --encode=onnx.ModelProto "-I${proto_dir}" onnx/onnx.proto
                INPUT_FILE "${WORK}/colliding.txt" OUTPUT_FILE "${WORK}/colliding.onnx" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "protoc could not write ${WORK}/colliding.onnx")
endif()
expect(0 "output 'a/b'.*output 'a_b'" run "${WORK}/colliding.onnx")
expect(1 "outputs 'a/b' and 'a_b' would both be written to [^\n]*a_b.npy" run "${WORK}/colliding.onnx"
       -o "${WORK}/colliding_out")
if(EXISTS "${WORK}/colliding_out")
  message(FATAL_ERROR "run -o wrote outputs whose file names collide")
endif()

# What is read as a file must be one: a directory, a device (a link to /dev/null) or a
# pipe is refused by name, before any reader would read nothing or never end.
file(MAKE_DIRECTORY "${WORK}/dir.onnx" "${WORK}/dir.pb")
file(CREATE_LINK /dev/null "${WORK}/null.onnx" SYMBOLIC)
file(CREATE_LINK /dev/null "${WORK}/null.pb" SYMBOLIC)
expect(2 "ONNX model '[^']*dir.onnx/' is a directory" compile "${WORK}/dir.onnx/" --target llvm -o "${WORK}/x")
expect(2 "MODEL: '[^']*dir.onnx' is a directory" info "${WORK}/dir.onnx")
expect(2 "MODEL: '[^']*null.onnx' is not a regular file" info "${WORK}/null.onnx")
expect(2 "ONNX model '[^']*null.onnx' is not a regular file" compile "${WORK}/null.onnx" --target llvm -o "${WORK}/x")
expect(2 "ONNX model '[^']*null.onnx' is not a regular file" test "${WORK}/null.onnx"
       --data-dir "${CASES}/test_relu/test_data_set_0")
expect(2 "array file '[^']*dir.pb' is a directory" run "${CASES}/test_relu/model.onnx" -i "x=${WORK}/dir.pb")
file(MAKE_DIRECTORY "${WORK}/arrays")
expect(2 "array file '[^']*arrays' is a directory" run "${CASES}/test_relu/model.onnx" -i "x=${WORK}/arrays")
expect(2 "array file '[^']*null.pb' is not a regular file" run "${CASES}/test_relu/model.onnx" -i "x=${WORK}/null.pb")
expect(2 "array file '[^']*null.pb' is not a regular file" compile "${CASES}/test_reshape_negative_dim/model.onnx"
       --input-value "shape=${WORK}/null.pb" --target llvm -o "${WORK}/x")
expect(2 "--tuning-log: '[^']*null.onnx' is not a regular file" run resnet18 --tuning-log "${WORK}/null.onnx")

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
