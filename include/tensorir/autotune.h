// Automatic tuning: the schedules of a model's kernels chosen by measurement.
//
//   std::vector<autotune::Task> tasks = autotune::extract_tasks(graph, "llvm");
//   autotune::tune(tasks, {.trials = 200, .log_file = "resnet18.log"});
//   graph::BuildOptions o;
//   o.tuning_log = "resnet18.log";            // the best configuration of each workload
//   graph::CompiledModel m = graph::build(graph, "llvm", o);
//
// A task is one distinct workload of a graph (an operator with its shapes and attributes,
// e.g. one conv2d of ResNet-18) on one target. Its schedule template declares knobs (tile
// sizes, blocks, unrolling, the algorithm); a configuration is one choice per knob, so
// the space of a task is the product of its knobs' choices and a configuration is a
// mixed-radix index into it. Records of measured configurations are JSON lines, one per
// measurement, appended to a log that can be merged by concatenation. check_in_model
// times a log's choices inside the model and adds records that rank them as they run there.
#pragma once
#include "tensorir/autotune/model_check.h"
#include "tensorir/autotune/record.h"
#include "tensorir/autotune/task.h"
#include "tensorir/autotune/tuner.h"
